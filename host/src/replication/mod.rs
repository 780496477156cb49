//! Replication through git: the follower pushes each newest durable revision to a ref on a
//! remote (`follow`, one `round` at a time, starting where `start` finds the ref), and a
//! standby's checkout takes the queue over from that ref (`adopt`), which fences the old host.
//! git carries the bytes, fast-forward only; the witness chain proves them (`refline` reads
//! and checks the ref's commits, `objects` writes them). docs/replication.md has the whole.

mod adopt;
mod follow;
mod git;
mod objects;
mod refline;
mod round;
mod start;
mod target;

pub use adopt::adopt;
pub use follow::{Event, follow};
pub use round::Target;
pub use target::{DEFAULT_GIT_TIMEOUT, DEFAULT_REF, target};
