//! mosaic-queue: the native CLI around `mosaic-queue-core`. Everything that touches the world
//! lives here: the I/O layer, the lock and witness, the durable write, git, and the clock.
//! `main.rs` only parses arguments and maps failures to exit codes.

pub mod checkout;
pub mod cli;
pub mod clock;
pub mod commit;
pub mod creds;
pub mod doctor;
pub mod exit;
pub mod gate;
pub mod git;
pub mod gitea;
pub mod io;
pub mod mcp;
pub mod sandbox;
pub mod seam;
pub mod store;
