//! mosaic-queue: the native CLI around `mosaic-queue-core`. Everything that touches the world
//! lives here: the I/O layer, the lock and witness, the durable write, git, and the clock.
//! The faces (`cli`; `mcp`, the MCP server, and `gate`, the OpenSSH forced command, which
//! parse with the CLI's grammar) call one function of the modules below them and print or
//! send what it gives to their `reply::Reply`; `main.rs` picks the face and maps the outcome
//! to an exit code.

pub mod actor;
pub mod board;
pub mod change;
pub mod checkout;
pub mod cli;
pub mod clock;
pub mod command;
pub mod commit;
pub mod core_error;
pub mod creds;
pub mod doctor;
pub mod engine;
pub mod exit;
pub mod gate;
pub mod git;
pub mod gitea;
pub mod guard;
#[cfg(any(test, feature = "fault-injection"))]
pub mod in_memory;
pub mod io;
pub mod mcp;
pub mod named_files;
pub mod read;
pub mod recovery;
pub mod remote;
pub mod reply;
pub mod review;
pub mod sandbox;
pub mod snapshot;
pub mod store;
pub mod values;
