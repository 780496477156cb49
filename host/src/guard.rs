//! `guard` and `install-hook`: the pre-commit guard that refuses every commit whose index entry
//! for a queue file differs from HEAD's (only `mosaic-queue commit` publishes the queue) or
//! that changes or removes an archive HEAD holds (an archive is written once), and its
//! installation as `.git/hooks/pre-commit` by jason or sage.

use std::io::Write;
use std::path::{Path, PathBuf};

use mosaic_queue_core::is_privileged;
use rustix::fs::{self as rfs, Mode, OFlags};
use sha2::{Digest, Sha256};

use crate::actor::actor;
use crate::git;
use crate::named_files::read_file;
use crate::reply::{Failure, Replied, Reply};
use crate::store::session::{self, Kind};

/// The two files only `mosaic-queue commit` may commit.
pub const QUEUE_PATHS: [&str; 2] = ["docs/plans/queue.json", "docs/plans/QUEUE.md"];

/// The hook script in a checkout, and where `install-hook` puts it.
const HOOK_SOURCE: &str = "scripts/git-hooks/pre-commit";
const HOOK_TARGET: &str = ".git/hooks/pre-commit";

/// `guard`: silent exit 0 when both queue entries of the index being committed match HEAD's.
pub fn guard() -> Replied {
    let cwd = std::env::current_dir()
        .map_err(|e| Failure::failed(format!("cannot read the working directory: {e}")))?;
    // A `.git` that cannot be listed is what git too takes for no repository: the same
    // failure as every verb's (exit 1), not a refusal of where the guard ran.
    let top = git::run(&cwd, &["rev-parse", "--show-toplevel"]).map_err(|e| {
        crate::checkout::unlistable(&cwd).map_or_else(
            || {
                Failure::refused(format!(
                    "not inside a git work tree ({e}); the guard runs as the pre-commit hook"
                ))
            },
            Failure::from,
        )
    })?;
    // Git hands a hook a relative GIT_INDEX_FILE (`.git/index`) and resolves a relative one
    // from the top level, as git itself does after finding the work tree.
    let index = std::env::var_os("GIT_INDEX_FILE")
        .filter(|v| !v.is_empty())
        .map(|v| Path::new(&top).join(v));
    let staged = staged_queue_paths(Path::new(&top), index.as_deref())?;
    let archives = changed_archives(Path::new(&top), index.as_deref())?;
    if let Some(first) = archives.first() {
        let more = match archives.len() {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        return Err(Failure::refused(format!(
            "refused: the archive {first}{more} is changed or removed in the index: an archive is written once and never changed; restore it with `git reset -q -- {}`",
            archives.join(" ")
        )));
    }
    match staged.as_slice() {
        [] => Ok(()),
        [one] => Err(Failure::refused(format!(
            "refused: {one} is staged (its index entry differs from HEAD's): the queue is committed only by `mosaic-queue commit`; unstage it with `git reset -q -- {one}`"
        ))),
        _ => Err(Failure::refused(format!(
            "refused: {} are staged (their index entries differ from HEAD's): the queue is committed only by `mosaic-queue commit`; unstage them with `git reset -q -- {}`",
            staged.join(" and "),
            staged.join(" ")
        ))),
    }
}

/// The queue paths whose entries in `index` (the default index when `None`) differ from
/// HEAD's: mode, blob and stage, so an added, removed or conflicted entry counts too. Before
/// the first commit HEAD has no entries.
fn staged_queue_paths(top: &Path, index: Option<&Path>) -> Result<Vec<&'static str>, Failure> {
    let in_index = |args: &[&str]| {
        git::text(top, args, index)
            .map_err(|e| Failure::failed(format!("git {} failed: {e}", args.join(" "))))
    };
    let head = git::run(top, &["rev-parse", "-q", "--verify", "HEAD^{commit}"]).ok();
    let mut staged = Vec::new();
    for path in QUEUE_PATHS {
        // `<mode> <blob> <stage>\t<path>`, one line per entry.
        let listed = in_index(&["ls-files", "-s", "--", path])?;
        let entries: Vec<&str> = listed.lines().collect();
        let committed = match &head {
            None => Vec::new(),
            Some(h) => {
                let tree = git::run(top, &["ls-tree", "--full-tree", h, "--", path])
                    .map_err(|e| Failure::failed(format!("git ls-tree {h} failed: {e}")))?;
                // `<mode> <type> <blob>\t<path>` in ls-files' shape, at stage 0.
                tree.lines()
                    .filter_map(|l| {
                        let (meta, name) = l.split_once('\t')?;
                        let mut f = meta.split(' ');
                        let (mode, _, blob) = (f.next()?, f.next()?, f.next()?);
                        Some(format!("{mode} {blob} 0\t{name}"))
                    })
                    .collect()
            }
        };
        if entries != committed {
            staged.push(path);
        }
    }
    Ok(staged)
}

/// The archives HEAD holds whose entries in `index` differ from HEAD's (changed, removed or in
/// conflict). A new archive is no change to one HEAD holds; `mosaic-queue commit` adds it.
fn changed_archives(top: &Path, index: Option<&Path>) -> Result<Vec<String>, Failure> {
    let Ok(head) = git::run(top, &["rev-parse", "-q", "--verify", "HEAD^{commit}"]) else {
        return Ok(Vec::new());
    };
    let dir = crate::store::cut::epochs::DIR;
    let tree = git::run(top, &["ls-tree", "-r", "--full-tree", &head, "--", dir])
        .map_err(|e| Failure::failed(format!("git ls-tree {head} failed: {e}")))?;
    let args = ["ls-files", "-s", "--", dir];
    let listed = git::text(top, &args, index)
        .map_err(|e| Failure::failed(format!("git {} failed: {e}", args.join(" "))))?;
    // ls-files says `<mode> <blob> <stage>\t<path>`, ls-tree `<mode> <type> <blob>\t<path>`.
    let in_index: Vec<(&str, String)> = listed
        .lines()
        .filter_map(|l| {
            let (meta, name) = l.split_once('\t')?;
            Some((name, meta.to_owned()))
        })
        .collect();
    let mut changed = Vec::new();
    for line in tree.lines() {
        let Some((meta, name)) = line.split_once('\t') else {
            continue;
        };
        let mut f = meta.split(' ');
        let (Some(mode), Some(_), Some(blob)) = (f.next(), f.next(), f.next()) else {
            continue;
        };
        let committed = format!("{mode} {blob} 0");
        let entries: Vec<&String> = in_index
            .iter()
            .filter(|(n, _)| *n == name)
            .map(|(_, m)| m)
            .collect();
        if entries != [&committed] {
            changed.push(name.to_owned());
        }
    }
    Ok(changed)
}

/// `install-hook` as `by` (else `$MOSAIC_AGENT_NAME`; jason or sage).
pub fn install_hook(by: Option<&str>, reply: &mut dyn Reply) -> Replied {
    let by = actor(by, reply)?;
    let paths = session::locate()?;
    crate::checkout::require_git()?;
    let receipt = install_hook_in(&paths.root, &by)?;
    reply.line(&receipt)
}

/// Installs the checkout's hook script at `root` as jason or sage; returns the receipt line.
pub fn install_hook_in(root: &Path, by: &str) -> Result<String, Failure> {
    if !is_privileged(by) {
        return Err(Failure::refused(format!(
            "refused: {by} may not install the guard: jason or sage only"
        )));
    }
    refuse_hooks_path(root)?;
    let source = root.join(HOOK_SOURCE);
    let meta = std::fs::symlink_metadata(&source).map_err(|e| {
        Failure::refused(format!("refused: there is no {HOOK_SOURCE} in this checkout ({e}); check out the branch that ships it"),
        )
    })?;
    if !meta.file_type().is_file() {
        return Err(Failure::refused(format!(
            "refused: {HOOK_SOURCE} is not a regular file (a symlink or directory would install something else); restore it from git"
        )));
    }
    // O_NOFOLLOW: a symlink swapped in after the check above fails here instead of being read.
    let bytes = read_file(&source, Kind::Hook)?;
    write_hook(&root.join(HOOK_TARGET), &bytes)
        .map_err(|e| Failure::failed(format!("cannot install {HOOK_TARGET}: {e}")))?;
    let digest: String = Sha256::digest(&bytes)
        .iter()
        .take(6)
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok(format!("ok install-hook {HOOK_TARGET} ({digest})"))
}

/// A hook elsewhere would make `.git/hooks/pre-commit` dead code, so any `core.hooksPath` in
/// any scope (including `-c` and GIT_CONFIG_* given to this process) refuses.
fn refuse_hooks_path(root: &Path) -> Result<(), Failure> {
    match git::run(
        root,
        &["config", "--show-origin", "--get-all", "core.hooksPath"],
    ) {
        Ok(found) => Err(Failure::refused(format!(
            "refused: core.hooksPath is set ({}), so git would not run .git/hooks/pre-commit; unset it in every scope first",
            found.replace('\t', " ").replace('\n', "; ")
        ))),
        // Exit 1 with nothing on stderr is git's "not set".
        Err(e) if e.is_empty() => Ok(()),
        Err(e) => Err(Failure::failed(format!("cannot read core.hooksPath: {e}"))),
    }
}

/// Writes `bytes` to `target` with mode 0755: a synced temp file renamed over it, then the
/// directory synced, so a crash leaves the old hook or the new one, never half of one.
fn write_hook(target: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = target.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let temp: PathBuf = dir.join(format!(
        ".pre-commit.mosaic-queue-{}.tmp",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&temp);
    let written = (|| -> std::io::Result<()> {
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::CLOEXEC | OFlags::NOFOLLOW;
        let fd = rfs::open(&temp, flags, Mode::from_raw_mode(0o755))?;
        // The umask may have taken bits off the mode given to open.
        rfs::fchmod(&fd, Mode::from_raw_mode(0o755))?;
        let mut file = std::fs::File::from(fd);
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temp, target)?;
        std::fs::File::open(dir)?.sync_all()
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}
