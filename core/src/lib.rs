//! mosaic-queue-core: the work queue as data, with no I/O. Bytes, the actor, the time and
//! facts about the world come in as arguments; decisions, new bytes and receipts come out.
//! The native CLI, the wasm build and the Node package all call this crate.
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

pub mod admission;
pub mod body;
pub mod canon;
pub mod chain;
pub mod ctx;
pub mod digest;
pub mod entry;
pub mod error;
pub mod file;
pub mod hex;
pub mod limits;
pub mod map;
pub mod matrix;
pub mod model;
pub mod next;
mod order;
pub mod queue;
pub mod reader;
pub mod render;
pub mod replay;
pub mod review;
pub mod rules;
pub mod secret;
pub mod snapshot;
pub mod splice;
pub mod stale;
pub mod state;
pub mod table;
pub mod verbs;
mod waits;
pub mod wire;

pub use entry::{Args, CURRENT_SEMANTICS, Entry, Verb};
pub use error::{
    CanonError, MapError, QueueError, ReplayError, ReviewError, TableError, VerbError, WitnessError,
};
pub use file::QueueFile;
pub use model::{Row, Status, Witness};
pub use queue::{Outcome, Queue, ReviewRequest};
pub use table::BodyStatus;
pub use verbs::Command;
