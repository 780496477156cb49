//! What the board reads, on the engine's side of the line: `source` reads the queue as the
//! unlocked reads do (the witness rule, no lock; archives for archived rows) and watches the
//! witness, into a `snapshot` of plain values; the board face only draws and serves those.

mod snapshot;
mod source;

pub use self::snapshot::*;
pub use self::source::*;
