//! `verify [--current]` and `render [--check]`: the queue file and its history checked
//! against the witness under the lock (and with `--current` the table too), and a stale table
//! rendered again.

use mosaic_queue_core::{BodyStatus, table};

use crate::reply::{Failure, Replied, Reply};
use crate::store;
use crate::store::session::{self, Session};

/// `verify [--current]`: the file, its history against the witness, and with --current the
/// table too.
pub fn verify(current: bool, reply: &mut dyn Reply) -> Replied {
    let paths = session::locate()?;
    let held = Session::begin(&paths, Some("verify-read"), "verify")?;
    let loaded = held.load()?;
    let mut line = format!(
        "ok verify rev {} ({} entries, witness rev {})",
        loaded.queue.revision(),
        loaded.queue.file().log.len(),
        loaded.witness.as_ref().map_or(0, |w| w.revision)
    );
    if current {
        let md = held.table_text()?;
        let body = table::body(&md).map_err(|e| Failure::refused(e.to_string()))?;
        match store::table_status(&loaded.queue, body) {
            BodyStatus::Current => line.push_str(", table current"),
            BodyStatus::Stale { rev } => {
                return Err(Failure::refused(format!(
                    "QUEUE.md is stale (rendered at rev {rev}); look, then run `mosaic-queue render`"
                )));
            }
            BodyStatus::Unknown => {
                return Err(Failure::refused(
                    "QUEUE.md's table is not a render of this queue; restore it with git, then run `mosaic-queue render`",
                ));
            }
        }
    }
    reply.line(&line)?;
    held.release_after_answer();
    Ok(())
}

/// `render [--check]`: rewrites a stale table; a current one is left alone.
pub fn render(check: bool, reply: &mut dyn Reply) -> Replied {
    let paths = session::locate()?;
    let held = Session::begin(&paths, Some("render-table"), "render")?;
    let loaded = held.load()?;
    let md = held.table_text()?;
    let body = table::body(&md).map_err(|e| Failure::refused(e.to_string()))?;
    let rev = loaded.queue.revision();
    match store::table_status(&loaded.queue, body) {
        BodyStatus::Current => reply.line(&format!("ok render rev {rev}: table current"))?,
        BodyStatus::Stale { rev: old } if check => {
            return Err(Failure::refused(format!(
                "QUEUE.md is stale (rendered at rev {old}); run `mosaic-queue render`"
            )));
        }
        BodyStatus::Stale { .. } => {
            held.rewrite_table(&loaded.queue, &md)?;
            reply.line(&format!("ok render rev {rev}: table rewritten"))?;
        }
        BodyStatus::Unknown => {
            return Err(Failure::refused(
                "QUEUE.md's table is not a render of this queue; restore it with git or re-apply the edit as queue ops first",
            ));
        }
    }
    held.release_after_answer();
    Ok(())
}
