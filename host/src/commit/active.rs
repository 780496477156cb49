//! "The guard is active": the checks the commit procedure runs before it snapshots and again
//! before it publishes: the guard installed as HEAD has it (`store::guard`), and a canary it
//! must refuse. Each failure is a refusal naming what to fix; none changes anything but a
//! temporary index of its own.

use std::path::Path;

use super::git::{self, QUEUE_PATHS, TempIndex};
use crate::store::guard::check_installed;

/// What the canary stages: never a valid queue.json, so never the bytes HEAD holds.
const CANARY: &[u8] = b"mosaic-queue commit canary: the guard must refuse this\n";

/// Checks, against commit `head`, that the guard would run on a plain `git commit` and refuse
/// a changed queue entry. `Err` is the one-line reason.
pub fn check(root: &Path, git_dir: &Path, head: &str) -> Result<(), String> {
    check_installed(root, git_dir, head)?;
    canary(root, git_dir, head)
}

/// Runs the hook as git would, on a temporary index: it must pass on HEAD's own entries and
/// refuse once a queue entry differs. A guard that passes both ways guards nothing.
fn canary(root: &Path, git_dir: &Path, head: &str) -> Result<(), String> {
    let index = TempIndex::of_tree(root, git_dir, head)
        .map_err(|e| format!("cannot build the canary index: {e}"))?;
    let run = || {
        git::bytes(
            root,
            &["hook", "run", "pre-commit"],
            Some(index.path()),
            None,
        )
    };
    run().map_err(|e| {
        format!(
            "the guard refuses a commit that leaves the queue as HEAD has it ({e}); fix the guard"
        )
    })?;
    let blob = git::blob(root, CANARY).map_err(|e| format!("cannot write the canary blob: {e}"))?;
    index
        .stage(root, QUEUE_PATHS[0], &blob)
        .map_err(|e| format!("cannot stage the canary: {e}"))?;
    if run().is_ok() {
        return Err(String::from(
            "the guard passed a commit that changes docs/plans/queue.json; reinstall it with `mosaic-queue install-hook`",
        ));
    }
    Ok(())
}
