//! `sync [--op ID]`: confirms a visible tail. Under the lock the session writes the verified
//! file again (temp, fsync, rename, fsync of docs/plans) and then the witness for a file that
//! is ahead of it (`Session::sync`); this names each op that became durable without its receipt
//! printing, so the seat that ran it can be told. It logs nothing.

use crate::reply::{Replied, Reply};
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
    let synced = held.sync(op)?;
    let rev = synced.rev;
    for e in &synced.tail {
        // Op ids and seat names passed replay's checks, so each stays on one line.
        reply.line(&format!(
            "durable {} rev {} (by {}): tell {}",
            e.op, e.rev, e.by, e.by
        ))?;
    }
    match synced.asked {
        Some(e) => {
            let archived = synced
                .archived
                .as_ref()
                .map_or_else(String::new, |file| format!(", archived in {file}"));
            reply.line(&format!(
                "ok sync rev {rev}: {} is durable at rev {} (by {}){archived}",
                e.op, e.rev, e.by
            ))?
        }
        None if synced.tail.is_empty() => {
            reply.line(&format!("ok sync rev {rev}: nothing to confirm"))?
        }
        None => {
            let n = synced.tail.len();
            let ops = if n == 1 { "op" } else { "ops" };
            reply.line(&format!("ok sync rev {rev}: {n} {ops} confirmed durable"))?;
        }
    }
    held.release_after_answer();
    Ok(())
}
