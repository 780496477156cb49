//! `sync [--op ID]`: confirms a visible tail. Under the lock it writes the verified file again
//! (temp, fsync, rename, fsync of docs/plans) and then the witness for a file that is ahead of
//! it, then names each op that became durable without its receipt printing, so the seat that
//! ran it can be told. It logs nothing.

use mosaic_queue_core::Entry;

use crate::reply::{Failure, Replied, Reply};
use crate::store::Loaded;
use crate::store::session::{self, Session};

/// `sync [--op ID]`: with `op`, says whether that op is durable.
pub fn sync(op: Option<&str>, reply: &mut dyn Reply) -> Replied {
    if let Some(op) = op {
        crate::values::check_op(op)?;
    }
    let paths = session::locate()?;
    session::check_filesystem(&paths)?;
    // The lock records no op: `--op` names the op asked about, not one this command runs.
    let held = Session::begin(&paths, None, "sync")?;
    // Unchecked, so that a file that does not extend the witness gets sync's own refusal.
    let loaded = held.load_unchecked()?;
    let confirmed = confirmed_rev(&loaded)?;
    let queue = &loaded.queue;
    let rev = queue.revision();
    // Asked about an op that is not there: refuse before anything is written, so a refusal
    // leaves every file as it was. The tail is confirmed by the next plain `sync`.
    let asked = match op {
        Some(op) => Some(queue.entry_for_op(op).ok_or_else(|| {
            Failure::refused(format!(
                    "op {op} is not in the log (rev {rev}): it never became visible; retry it with the same op id and arguments"
                ),
            )
        })?),
        None => None,
    };
    let tail: Vec<&Entry> = queue
        .file()
        .log
        .iter()
        .filter(|e| e.rev > confirmed)
        .collect();
    if !tail.is_empty() {
        // Loaded unchecked: the chain is hashed from genesis, not continued from the old witness.
        held.confirm(&loaded, None)?;
    }
    for e in &tail {
        // Op ids and seat names passed replay's checks, so each stays on one line.
        reply.line(&format!(
            "durable {} rev {} (by {}): tell {}",
            e.op, e.rev, e.by, e.by
        ))?;
    }
    match asked {
        Some(e) => reply.line(&format!(
            "ok sync rev {rev}: {} is durable at rev {} (by {})",
            e.op, e.rev, e.by
        ))?,
        None if tail.is_empty() => reply.line(&format!("ok sync rev {rev}: nothing to confirm"))?,
        None => {
            let n = tail.len();
            let ops = if n == 1 { "op" } else { "ops" };
            reply.line(&format!("ok sync rev {rev}: {n} {ops} confirmed durable"))?;
        }
    }
    held.release_after_answer();
    Ok(())
}

/// The revision already confirmed durable: the witness's, or 0 for a file holding genesis
/// alone with no witness. Anything else that does not extend the witness is Manual recovery.
fn confirmed_rev(loaded: &Loaded) -> Result<u64, Failure> {
    let rev = loaded.queue.revision();
    match &loaded.witness {
        None if rev == 1 => Ok(0),
        None => Err(Failure::refused(format!(
            "there is no witness .git/mosaic-queue.head and queue.json is at rev {rev}, past genesis: sync cannot tell what was lost; see Manual recovery (accept-history)"
        ))),
        Some(w) => match loaded.queue.check_extends(&loaded.sha, w) {
            Ok(()) => Ok(w.revision),
            Err(e) => {
                let msg = e.to_string();
                let hint = if msg.contains("Manual recovery") {
                    ""
                } else {
                    " (see Manual recovery)"
                };
                Err(Failure::refused(format!(
                    "sync confirms only a file that extends the witness: {msg}{hint}"
                )))
            }
        },
    }
}
