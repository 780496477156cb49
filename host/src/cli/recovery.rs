//! `accept-history --op ID --reason TEXT --yes`: the last step of Manual recovery, and the one
//! verb that runs when queue.json does not extend the witness or there is none. It logs the old
//! witness (or its absence) and the reason, then rewrites the witness for the file as it is.

use mosaic_queue_core::verbs::{AcceptHistoryCmd, Command};
use mosaic_queue_core::{Args, Outcome, VerbError};

use super::write::{LOCK_WAIT, here, table_text};
use super::{Change, CliResult, Failure, actor, args};
use crate::checkout;
use crate::clock;
use crate::io::RealIo;
use crate::seam;
use crate::store::{self, lock};

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
    let io = RealIo;
    let paths = here()?;
    store::check_filesystem(&io, &paths)?;
    let at = clock::now();
    let held = lock::acquire(
        &io,
        &paths,
        &change.op,
        "accept-history",
        &at,
        seam::lock_wait(LOCK_WAIT),
    )?;
    // Without the witness check: the file must verify, but it need not extend the witness.
    let loaded = store::load_unchecked(&io, &paths)?;
    checkout::check_queue(&paths, &loaded.queue)?;
    checkout::check_genesis_committed(&paths)?;
    let extends = loaded
        .witness
        .as_ref()
        .map(|w| loaded.queue.check_extends(&loaded.sha, w).is_ok());
    // A retry is compared with what the first run recorded: by then the witness on disk may be
    // the one that run wrote, not the one it replaced.
    let recorded_witness = match loaded.queue.entry_for_op(&change.op).map(|e| &e.args) {
        Some(Args::AcceptHistory(a)) => Some(a.old_witness.clone()),
        _ => None,
    };
    let command = Command::AcceptHistory(AcceptHistoryCmd {
        reason: reason.to_owned(),
        old_witness: recorded_witness
            .clone()
            .unwrap_or_else(|| loaded.witness.clone()),
        yes,
    });
    let mut queue = loaded.queue.clone();
    match queue.execute(&command, &change.op, &by, &at)? {
        Outcome::Recorded { rev, .. } => {
            let finish = match extends {
                Some(true) => loaded.ahead_of_witness(),
                // Missing, or not extended: only the run that was killed after its rename and
                // before its witness may finish now. History lost since then needs a new op.
                _ => {
                    let last = rev == loaded.queue.revision();
                    if !(last && recorded_witness == Some(loaded.witness.clone())) {
                        return Err(Failure::refused(format!(
                            "op {} recorded accept-history at rev {rev}, and history was lost again since; run accept-history with a new op id",
                            change.op
                        )));
                    }
                    true
                }
            };
            if finish {
                store::confirm_tail(&io, &paths, &loaded, None, &at)?;
            }
            super::output::receipt_of(&loaded.queue, &change.op, true)?;
        }
        Outcome::Applied { .. } => {
            if let (Some(true), Some(w)) = (extends, &loaded.witness) {
                let sync = if loaded.ahead_of_witness() {
                    " (`mosaic-queue sync` confirms its visible tail)"
                } else {
                    ""
                };
                return Err(Failure::refused(format!(
                    "nothing to accept: queue.json extends the witness (rev {}){sync}; accept-history is only for Manual recovery",
                    w.revision
                )));
            }
            let md = table_text(&io, &paths, &loaded.queue)?;
            // store::commit re-reads and compares the bytes; it does not ask the file to extend
            // the witness, so it serves this verb as it is and then rewrites the witness.
            store::commit(&io, &paths, &loaded, &queue, &md, &at)?;
            super::output::receipt_of(&queue, &change.op, false)?;
            seam::step("receipt-printed");
        }
        // Only `take` finds nothing to do; accept-history always writes or answers.
        Outcome::NothingToTake { .. } => {}
    }
    super::release_after_answer(held)?;
    Ok(())
}
