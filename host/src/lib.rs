//! mosaic-queue: the native CLI around `mosaic-queue-core`. Everything that touches the world
//! lives here: the I/O layer, the lock and witness, the durable write, git, and the clock.
//! Each face translates its input into the engine's request and shows the engine's answer;
//! `main.rs` picks the face and maps the outcome to an exit code. The modules are grouped
//! bottom-up (the README gives their order one by one); only the faces, the engine and what
//! the tests and benches reach directly are public.

// The world: files, git, the clock, the sandbox, Gitea, and what the test seams lower.
pub mod clock;
pub mod creds;
pub mod exit;
mod git;
pub mod io;
mod remote;

pub mod gitea;
pub mod sandbox;

mod checkout;
mod core_error;

// The store session: the lock, the witness, the durable write, the read view.
mod store;

// What every verb answers into, and what it checks its values and actor with.
mod actor;
mod named_files;
mod reply;
mod values;

// The verbs.
mod change;
mod commit;
mod doctor;
mod guard;
mod read;
mod recovery;
mod review;
mod snapshot;

// Replication through git: the follower's rounds, adopt, and the checks of the ref.
mod replication;

// The engine, and the command line two faces speak.
pub mod command;
pub mod engine;

// A checkout in memory, for the tests: the engine and the verbs over a file system that can
// be cut at any call.
#[cfg(any(test, feature = "fault-injection"))]
pub mod in_memory;

// The faces.
pub mod board;
pub mod cli;
pub mod follow;
pub mod gate;
pub mod mcp;
