//! Files a stopped command leaves behind: the writers' temp files (the next write sweeps them),
//! the lock's and the gate's temp files (nothing removes them), and commit's temporary indexes.
//! All informational: none of them changes what any verb does.

use super::{Finding, Kind, rel};
use crate::checkout::Paths;
use crate::io::Io;
use crate::store;

pub(super) fn inspect(io: &dyn Io, paths: &Paths, out: &mut Vec<Finding>) {
    let mut found = store::leftover_temps(io, paths);
    found.extend(store::cut::epochs::leftover_temps(io, paths));
    let temps: Vec<String> = found.iter().map(|p| rel(paths, p)).collect();
    if !temps.is_empty() {
        out.push(Finding::note(
            Kind::TempFiles,
            format!(
                "a writer's temp files are left ({}); nothing reads them and the next write removes them",
                temps.join(", ")
            ),
        ));
    }
    let mut names = io.list(&paths.git_dir).unwrap_or_default();
    names.sort();
    let lock_temps: Vec<String> = names
        .iter()
        .filter(|n| is_lock_temp(n))
        .map(|n| format!(".git/{n}"))
        .collect();
    if !lock_temps.is_empty() {
        out.push(Finding::note(
            Kind::LockTempFiles,
            format!(
                "temp files of a command killed while taking the lock or the unlock gate are left ({}); nothing reads or removes them: delete each by hand once the pid in its name is gone (`rm {}`)",
                lock_temps.join(", "),
                lock_temps.join(" ")
            ),
        ));
    }
    let indexes: Vec<String> = names
        .iter()
        .filter(|n| is_commit_index(n))
        .map(|n| format!(".git/{n}"))
        .collect();
    if !indexes.is_empty() {
        out.push(Finding::note(
            Kind::CommitIndexes,
            format!(
                "temporary indexes of a commit that stopped are left ({}); nothing reads them: delete each by hand once the pid in its name is gone (`rm {}`)",
                indexes.join(", "),
                indexes.join(" ")
            ),
        ));
    }
}

/// `mosaic-queue.lock.<pid>.<16 hex>.tmp` or the same for `mosaic-queue.unlock`.
fn is_lock_temp(name: &str) -> bool {
    let Some(rest) = ["mosaic-queue.lock.", "mosaic-queue.unlock."]
        .iter()
        .find_map(|p| name.strip_prefix(p))
    else {
        return false;
    };
    let Some(rest) = rest.strip_suffix(".tmp") else {
        return false;
    };
    match rest.split_once('.') {
        Some((pid, hex)) => {
            digits(pid) && hex.len() == 16 && hex.bytes().all(|b| b.is_ascii_hexdigit())
        }
        None => false,
    }
}

/// `mosaic-queue-commit.<pid>.<n>.index`, and git's `.lock` beside it.
fn is_commit_index(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("mosaic-queue-commit.") else {
        return false;
    };
    let rest = rest.strip_suffix(".lock").unwrap_or(rest);
    let Some(rest) = rest.strip_suffix(".index") else {
        return false;
    };
    matches!(rest.split_once('.'), Some((pid, n)) if digits(pid) && digits(n))
}

fn digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}
