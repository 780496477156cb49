//! The shared index around the commit procedure: a queue file staged there is refused before
//! anything is built (a later plain commit would publish it), and after publishing the index's
//! queue entries are pointed at the new commit only when nobody else touched them.

use std::path::Path;

use super::git::{self, QUEUE_PATHS};
use crate::reply::Failure;

/// What the lead runs when the index could not be reconciled safely.
const RESET: &str = "git reset -q -- docs/plans/queue.json docs/plans/QUEUE.md";

/// Refuses when the shared index's entries for the queue paths differ from H's: a later plain
/// commit would publish them, and reconciling afterwards would discard someone's staging.
pub fn refuse_staged(root: &Path, head: &str) -> Result<(), Failure> {
    let ours = git::queue_entries(root, None).map_err(Failure::failed)?;
    let theirs = git::queue_entries(root, Some(head)).map_err(Failure::failed)?;
    if ours != theirs {
        return Err(Failure::refused(format!(
            "a queue file is staged (the index's docs/plans/queue.json or QUEUE.md differs from HEAD's); unstage it with `{RESET}`, then retry"
        )));
    }
    Ok(())
}

/// Points the shared index's queue entries (and those of the archives it committed) at the
/// new commit, but only when HEAD is that commit and the entries are still H's: anything else
/// is someone's work, so the lead decides.
pub fn reconcile(
    root: &Path,
    head: &str,
    new: &str,
    rev: u64,
    archives: &[&str],
) -> Result<(), Failure> {
    let uncertain = |why: String| {
        Failure::uncertain(format!(
            "committed {new} (queue rev {rev}) but {why}; check, then run `{RESET}`"
        ))
    };
    let now = git::text(root, &["rev-parse", "-q", "--verify", "HEAD"], None).unwrap_or_default();
    if now != new {
        return Err(uncertain(format!(
            "HEAD is now {now}, not the new commit, so the index was left alone"
        )));
    }
    let index = git::queue_entries(root, None).map_err(&uncertain)?;
    let at_head = git::queue_entries(root, Some(head)).map_err(&uncertain)?;
    if index != at_head {
        return Err(uncertain(String::from(
            "a queue file was staged meanwhile, so the index was left alone",
        )));
    }
    let mut args = vec!["reset", "-q", "--"];
    args.extend(QUEUE_PATHS);
    args.extend(archives);
    git::bytes(root, &args, None, None)
        .map(drop)
        .map_err(|e| uncertain(format!("the index reset failed ({e})")))
}
