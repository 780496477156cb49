//! `verify [--current] [--full]` and `render [--check]`: the queue file and its history checked
//! against the witness under the lock (and with `--current` the table too), and a stale table
//! rendered again. The session decides (`store::file_verbs`); this says what it found.

use crate::reply::{Replied, Reply};
use crate::store::file_verbs::Rendered;
use crate::store::session::{self, Session};

/// `verify [--current] [--full]`: the file, its history against the witness, with --current
/// the table too, and with --full every archive and the history from genesis.
pub fn verify(current: bool, full: bool, reply: &mut dyn Reply) -> Replied {
    let paths = session::locate()?;
    let held = Session::begin(&paths, Some("verify-read"), "verify")?;
    let v = held.verify(current)?;
    let table = if current { ", table current" } else { "" };
    let history = if full {
        match held.verify_full()? {
            0 => String::from(", full history from genesis"),
            1 => String::from(", full history from genesis through 1 archive"),
            n => format!(", full history from genesis through {n} archives"),
        }
    } else {
        String::new()
    };
    reply.line(&format!(
        "ok verify rev {} ({} entries, witness rev {}){table}{history}",
        v.rev, v.entries, v.witness_rev
    ))?;
    held.release_after_answer();
    Ok(())
}

/// `render [--check]`: rewrites a stale table; a current one is left alone.
pub fn render(check: bool, reply: &mut dyn Reply) -> Replied {
    let paths = session::locate()?;
    let held = Session::begin(&paths, Some("render-table"), "render")?;
    match held.render(check)? {
        Rendered::Current(rev) => reply.line(&format!("ok render rev {rev}: table current"))?,
        Rendered::Rewritten(rev) => reply.line(&format!("ok render rev {rev}: table rewritten"))?,
    }
    held.release_after_answer();
    Ok(())
}
