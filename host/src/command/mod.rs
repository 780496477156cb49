//! The command line as text, which two faces speak (the process's own argv, and the words the
//! OpenSSH gate reads): its grammar (`grammar`, `help`), its refusals (`usage`), its
//! translation into the engine's requests (`translate`), the demo's steps, and the printer of
//! answers on a terminal (`output`). Nothing here reads or writes the queue.

pub mod demo;
pub mod gate_args;
pub mod grammar;
pub mod help;
pub mod output;
pub mod translate;
pub mod usage;

pub use self::grammar::{Change, Cli, Replica, ReviewVerb, Verb};
pub use self::translate::{Asked, translate};
