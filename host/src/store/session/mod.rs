//! The store session: the one path a verb takes to the queue's files. It locates the checkout,
//! checks the filesystem, takes the lock (one wait), loads under the witness rule, hands the
//! core a command, writes the result durably (or repairs what a killed writer of a recorded op
//! left), and releases. The CLI parses before it and prints after it.

mod error;
mod load;
mod open;
mod upkeep;
mod write;

pub use self::error::SessionError;
pub use self::load::{Seen, load_unlocked, read_durable, read_file, read_listing, read_unlocked};
pub use self::open::{At, Session, check_filesystem, locate};
pub use self::upkeep::write_copies;
pub use self::write::{change, log_outcome, replicated};
pub use crate::io::{Kind, into_refusal, size_text};
