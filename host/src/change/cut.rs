//! `archive --before REV --yes`: the cut. The history before REV, and the done rows no later
//! entry names, move to `docs/plans/archive/epoch-NNNN.json` (written once, never changed);
//! queue.json keeps the rest after one epoch entry. The lead, jason or sage run it; the core decides
//! what moves and the store writes the archive before the file that names it.

use mosaic_queue_core::VerbError;

use crate::actor::actor;
use crate::reply::{Replied, Reply, acknowledge};
use crate::store::session::{self, Session};
use crate::store::world::World;
use crate::values::check_op;

/// `archive --before REV --yes` as op `op` by `by` (else `$MOSAIC_AGENT_NAME`).
pub fn archive(
    before: u64,
    yes: bool,
    op: &str,
    by: Option<&str>,
    reply: &mut dyn Reply,
) -> Replied {
    // Checked before anything is read: without the confirmation nothing else matters.
    if !yes {
        return Err(VerbError::NeedsConfirmation { what: "archive" }.into());
    }
    check_op(op)?;
    let by = actor(by, reply)?;
    let paths = session::locate()?;
    session::check_filesystem(&paths)?;
    let session = Session::open_change(World::real(), &paths, op, "archive")?;
    session.archive(before, op, &by, acknowledge(reply, op))
}
