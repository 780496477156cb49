//! `accept-history --op ID --reason TEXT --yes`: the last step of Manual recovery, and the one
//! verb that runs when queue.json does not extend the witness or there is none. It logs the old
//! witness (or its absence) and the reason, then rewrites the witness for the file as it is.

use mosaic_queue_core::VerbError;

use super::output::acknowledge;
use super::{Change, CliResult, actor, args};
use crate::store::session::{self, Session};

/// `accept-history --op ID --reason TEXT --yes [--by NAME]`.
pub fn accept_history(reason: &str, yes: bool, change: &Change) -> CliResult {
    // Checked before anything is read: without the confirmation nothing else matters.
    if !yes {
        return Err(VerbError::NeedsConfirmation {
            what: "accept-history",
        }
        .into());
    }
    args::check_op(&change.op)?;
    let by = actor(&change.by)?;
    let paths = session::locate()?;
    session::check_filesystem(&paths)?;
    Session::begin(&paths, Some(&change.op), "accept-history")?.accept_history(
        reason,
        &change.op,
        &by,
        acknowledge(&change.op),
    )
}
