//! The canonical-checkout rules: every verb but `verify --snapshot` runs only in the checkout
//! whose top level genesis recorded, from its own `.git` (no linked worktree, no GIT_DIR and
//! friends), on the genesis branch. A symlink to the root works. The repository is read
//! in-process with gitoxide, so these checks start no `git` process.

use std::path::{Path, PathBuf};

use mosaic_queue_core::State;
use thiserror::Error;

use crate::exit::Exit;

/// The queue's files in a checkout.
#[derive(Debug, Clone)]
pub struct Paths {
    pub root: PathBuf,
    pub git_dir: PathBuf,
    pub plans: PathBuf,
    pub queue_json: PathBuf,
    pub queue_md: PathBuf,
    /// `docs/plans/archive/`, where each cut's archive is written once.
    pub archive: PathBuf,
    pub witness: PathBuf,
    pub lock: PathBuf,
    pub gate: PathBuf,
}

impl Paths {
    pub fn new(root: &Path) -> Paths {
        let git_dir = root.join(".git");
        let plans = root.join("docs/plans");
        Paths {
            root: root.to_path_buf(),
            queue_json: plans.join("queue.json"),
            queue_md: plans.join("QUEUE.md"),
            archive: plans.join("archive"),
            witness: git_dir.join("mosaic-queue.head"),
            lock: git_dir.join("mosaic-queue.lock"),
            gate: git_dir.join("mosaic-queue.unlock"),
            plans,
            git_dir,
        }
    }
}

#[derive(Debug, Error)]
pub enum CheckoutError {
    #[error("{0} is set; unset it: the queue runs only in its canonical checkout's own .git")]
    GitEnv(&'static str),
    #[error("not inside a git checkout ({0}); run the queue from the canonical checkout")]
    NotGit(String),
    /// A `.git` is there but cannot be listed (its mode, its owner): the checkout could not
    /// be looked at, which is no refusal of where the command ran.
    #[error("cannot list {}: {source}; check the checkout's permissions", path.display())]
    Unlistable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}; install git or put it on PATH, then retry")]
    NoGit(String),
    #[error(
        "the checkout's path {0:?} holds a newline, which git's answers cannot carry; move the checkout to a path without one"
    )]
    NewlineInPath(PathBuf),
    #[error(
        "{} is a linked worktree or uses a separate git dir; run the queue from the canonical checkout",
        .0.display()
    )]
    Worktree(PathBuf),
    #[error(
        "this checkout ({}) is not the canonical root {recorded} recorded at genesis; run the queue there",
        here.display()
    )]
    NotCanonical { here: PathBuf, recorded: String },
    #[error("HEAD is not on the genesis branch {branch} ({found}); check out {branch} first")]
    WrongBranch { branch: String, found: String },
    #[error(
        "genesis not committed: commit docs/plans/queue.json with `mosaic-queue commit --genesis -m MSG` first"
    )]
    GenesisNotCommitted,
}

impl CheckoutError {
    /// Every checkout rule is a refusal: run the queue from the right place. A git that cannot be
    /// run is a failure of the environment (exit 1), not a refusal.
    pub fn exit(&self) -> Exit {
        match self {
            CheckoutError::NoGit(_) | CheckoutError::Unlistable { .. } => Exit::Failed,
            _ => Exit::Refused,
        }
    }

    /// The stable kind `--json` prints.
    pub fn kind(&self) -> &'static str {
        match self {
            CheckoutError::GitEnv(_) => "git-env",
            CheckoutError::NotGit(_) => "not-git",
            CheckoutError::NoGit(_) => "git-missing",
            CheckoutError::Unlistable { .. } => "unlistable",
            CheckoutError::NewlineInPath(_) => "newline-in-path",
            CheckoutError::Worktree(_) => "worktree",
            CheckoutError::NotCanonical { .. } => "not-canonical-root",
            CheckoutError::WrongBranch { .. } => "wrong-branch",
            CheckoutError::GenesisNotCommitted => "genesis-not-committed",
        }
    }
}

/// Finds the checkout around `cwd` and checks its shape (not yet against the queue).
pub fn locate(cwd: &Path) -> Result<Paths, CheckoutError> {
    if let Some(var) = git_env() {
        return Err(CheckoutError::GitEnv(var));
    }
    locate_ignoring_env(cwd)
}

/// The first variable set that would point git at another repository.
pub fn git_env() -> Option<&'static str> {
    ["GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR"]
        .into_iter()
        .find(|var| std::env::var_os(var).is_some())
}

/// `locate` without the environment check: the repository is opened isolated from those
/// variables anyway, so `doctor` can report them and still look at the checkout.
pub fn locate_ignoring_env(cwd: &Path) -> Result<Paths, CheckoutError> {
    let repo = gix::discover_opts(cwd, Default::default(), isolated())
        .map_err(|e| unlistable(cwd).unwrap_or_else(|| CheckoutError::NotGit(one_line(&e))))?;
    let top = repo
        .workdir()
        .ok_or_else(|| CheckoutError::NotGit(String::from("this repository has no work tree")))?;
    // A path holding a newline is refused by every verb alike, as when every verb asked git
    // for the top level (one path per line); commit and the guard still run git there.
    if top.as_os_str().as_encoded_bytes().contains(&b'\n') {
        return Err(CheckoutError::NewlineInPath(top.to_path_buf()));
    }
    let root = top.canonicalize().unwrap_or_else(|_| top.to_path_buf());
    let expected = root.join(".git");
    if !same_file(&expected, repo.git_dir()) || !expected.is_dir() {
        return Err(CheckoutError::Worktree(root));
    }
    let paths = Paths::new(&root);
    keep(&paths, repo);
    Ok(paths)
}

/// The nearest `.git` directory at or above `cwd`, when it is there but cannot be listed:
/// discovery passes over such a one as if there were none, yet the checkout is there and
/// could not be looked at (exit 1 from every verb, as doctor's own look at `.git` gives). A
/// directory is opened to list it, which never blocks.
pub fn unlistable(cwd: &Path) -> Option<CheckoutError> {
    let git = cwd
        .ancestors()
        .map(|dir| dir.join(".git"))
        .find(|git| git.symlink_metadata().is_ok())?;
    if !git.symlink_metadata().is_ok_and(|meta| meta.is_dir()) {
        return None;
    }
    match std::fs::read_dir(&git) {
        Err(source) if source.kind() == std::io::ErrorKind::PermissionDenied => {
            Some(CheckoutError::Unlistable { path: git, source })
        }
        _ => None,
    }
}

/// Opening options that read the repository's own files and nothing else: no global or
/// system configuration, no environment (the GIT_* variables are refused above).
fn isolated() -> gix::open::Options {
    gix::open::Options::isolated()
}

thread_local! {
    /// The repository this command located, by its `.git`: the checks after `locate` (branch,
    /// genesis committed) use it instead of opening it again, which costs as much as each of
    /// them. gitoxide reads refs from disk on every lookup, so a kept handle still sees a
    /// HEAD that moved (`wait` checks the branch on each wake).
    static OPENED: std::cell::RefCell<Option<(PathBuf, gix::Repository)>> =
        const { std::cell::RefCell::new(None) };
}

fn keep(paths: &Paths, repo: gix::Repository) {
    OPENED.with(|kept| *kept.borrow_mut() = Some((paths.git_dir.clone(), repo)));
}

/// The repository whose `.git` is `paths.git_dir`: the one `locate` opened, or opened now by
/// path (no discovery).
fn open(paths: &Paths) -> Result<gix::Repository, String> {
    let kept = OPENED.with(|kept| match &*kept.borrow() {
        Some((dir, repo)) if *dir == paths.git_dir => Some(repo.clone()),
        _ => None,
    });
    match kept {
        Some(repo) => Ok(repo),
        None => {
            let repo = gix::open_opts(&paths.git_dir, isolated()).map_err(|e| one_line(&e))?;
            keep(paths, repo.clone());
            Ok(repo)
        }
    }
}

/// gitoxide's errors end up in one-line messages.
fn one_line(e: &dyn std::fmt::Display) -> String {
    e.to_string().trim().replace('\n', "; ")
}

/// The branch HEAD names, short (`main` for `refs/heads/main`); `None` when HEAD is detached or
/// cannot be read.
pub fn head_branch(paths: &Paths) -> Option<String> {
    let name = open(paths).ok()?.head_name().ok()??;
    Some(name.shorten().to_string())
}

/// For the verbs that run git themselves (`commit`, `install-hook`): names a git missing from
/// PATH before anything is read, since the checkout checks above no longer start one. PATH is
/// searched as the spawn would search it; without PATH the spawn itself decides.
pub fn require_git() -> Result<(), CheckoutError> {
    let Some(path) = std::env::var_os("PATH") else {
        return Ok(());
    };
    if std::env::split_paths(&path).any(|dir| executable(&dir.join("git"))) {
        return Ok(());
    }
    let missing = std::io::Error::from_raw_os_error(rustix::io::Errno::NOENT.raw_os_error());
    Err(CheckoutError::NoGit(format!("cannot run git: {missing}")))
}

fn executable(file: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(file).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The same check from a state (the read view carries root and branch without the file).
pub fn check_state(paths: &Paths, state: &State) -> Result<(), CheckoutError> {
    let recorded = state.root.clone().unwrap_or_default();
    if !same_file(Path::new(&recorded), &paths.root) {
        return Err(CheckoutError::NotCanonical {
            here: paths.root.clone(),
            recorded,
        });
    }
    let branch = state.branch.clone().unwrap_or_default();
    let found = head_branch(paths).unwrap_or_else(|| String::from("detached HEAD"));
    if found != branch {
        return Err(CheckoutError::WrongBranch { branch, found });
    }
    Ok(())
}

/// Mutating verbs refuse until HEAD holds the genesis commit of queue.json.
pub fn check_genesis_committed(paths: &Paths) -> Result<(), CheckoutError> {
    if head_has(paths, "docs/plans/queue.json") {
        Ok(())
    } else {
        Err(CheckoutError::GenesisNotCommitted)
    }
}

/// Whether HEAD's tree holds `path` (what `git cat-file -e HEAD:<path>` answers).
fn head_has(paths: &Paths, path: &str) -> bool {
    let Ok(repo) = open(paths) else {
        return false;
    };
    let found = repo
        .head_commit()
        .ok()
        .and_then(|commit| commit.tree().ok())
        .and_then(|tree| tree.lookup_entry_by_path(path).ok());
    matches!(found, Some(Some(_)))
}

/// Two paths name the same file once symlinks are resolved.
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_repository_sees_head_move() {
        let root =
            std::env::temp_dir().join(format!("mosaic-checkout-head-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        support::git(&root, &["init", "-q", "-b", "main"]);
        let paths = locate_ignoring_env(&root).unwrap();
        assert_eq!(head_branch(&paths).as_deref(), Some("main"));
        // Another process switches branches while this one holds the handle.
        std::fs::write(paths.git_dir.join("HEAD"), "ref: refs/heads/other\n").unwrap();
        assert_eq!(head_branch(&paths).as_deref(), Some("other"));
        std::fs::write(
            paths.git_dir.join("HEAD"),
            "0123456789012345678901234567890123456789\n",
        )
        .unwrap();
        assert_eq!(head_branch(&paths), None);
        let _ = std::fs::remove_dir_all(&root);
    }
}
