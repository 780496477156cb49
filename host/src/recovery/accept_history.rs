//! `accept-history --op ID --reason TEXT --yes`: the last step of Manual recovery, and the one
//! verb that runs when queue.json does not extend the witness or there is none. It logs the old
//! witness (or its absence) and the reason, then rewrites the witness for the file as it is.

use mosaic_queue_core::VerbError;

use crate::actor::actor;
use crate::reply::{Replied, Reply, acknowledge};
use crate::store::session::{self, Session};
use crate::store::world::World;
use crate::values::check_op;

/// `accept-history --reason TEXT --yes` as op `op` by `by` (else `$MOSAIC_AGENT_NAME`).
pub fn accept_history(
    reason: &str,
    yes: bool,
    op: &str,
    by: Option<&str>,
    reply: &mut dyn Reply,
) -> Replied {
    // Checked before anything is read: without the confirmation nothing else matters.
    if !yes {
        return Err(VerbError::NeedsConfirmation {
            what: "accept-history",
        }
        .into());
    }
    check_op(op)?;
    let by = actor(by, reply)?;
    let paths = session::locate()?;
    session::check_filesystem(&paths)?;
    let session = Session::open_change(World::real(), &paths, op, "accept-history")?;
    session.accept_history(reason, op, &by, acknowledge(reply, op))
}
