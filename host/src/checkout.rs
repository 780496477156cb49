//! The canonical-checkout rules: every verb but `verify --snapshot` runs only in the checkout
//! whose top level genesis recorded, from its own `.git` (no linked worktree, no GIT_DIR and
//! friends), on the genesis branch. A symlink to the root works.

use std::path::{Path, PathBuf};

use mosaic_queue_core::Queue;
use mosaic_queue_core::state::State;
use thiserror::Error;

use crate::exit::Exit;
use crate::git;
use crate::store::Paths;

#[derive(Debug, Error)]
pub enum CheckoutError {
    #[error("{0} is set; unset it: the queue runs only in its canonical checkout's own .git")]
    GitEnv(&'static str),
    #[error("not inside a git checkout ({0}); run the queue from the canonical checkout")]
    NotGit(String),
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
            CheckoutError::NoGit(_) => Exit::Failed,
            _ => Exit::Refused,
        }
    }

    /// The stable kind `--json` prints.
    pub fn kind(&self) -> &'static str {
        match self {
            CheckoutError::GitEnv(_) => "git-env",
            CheckoutError::NotGit(_) => "not-git",
            CheckoutError::NoGit(_) => "git-missing",
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

/// `locate` without the environment check: git runs with those variables cleared anyway, so
/// `doctor` can report them and still look at the checkout.
pub fn locate_ignoring_env(cwd: &Path) -> Result<Paths, CheckoutError> {
    // One git process for both answers: each spawn costs about as much as a write's fsyncs.
    let both =
        git::run(cwd, &["rev-parse", "--show-toplevel", "--absolute-git-dir"]).map_err(|e| {
            if git::could_not_run(&e) {
                CheckoutError::NoGit(e)
            } else {
                CheckoutError::NotGit(e)
            }
        })?;
    // Two lines, one per answer; more means a newline inside the path itself.
    let lines: Vec<&str> = both.split('\n').collect();
    let [top, git_dir] = lines[..] else {
        return Err(if lines.len() > 2 {
            CheckoutError::NewlineInPath(cwd.to_path_buf())
        } else {
            CheckoutError::NotGit(String::from("git rev-parse named no git dir"))
        });
    };
    let root = PathBuf::from(top);
    let expected = root.join(".git");
    if !same_file(&expected, Path::new(&git_dir)) || !expected.is_dir() {
        return Err(CheckoutError::Worktree(root));
    }
    Ok(Paths::new(&root))
}

/// Checks the checkout against what genesis recorded: the root and the branch.
pub fn check_queue(paths: &Paths, queue: &Queue) -> Result<(), CheckoutError> {
    check_state(paths, queue.state())
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
    let found = git::run(&paths.root, &["symbolic-ref", "-q", "--short", "HEAD"])
        .unwrap_or_else(|_| String::from("detached HEAD"));
    if found != branch {
        return Err(CheckoutError::WrongBranch { branch, found });
    }
    Ok(())
}

/// Mutating verbs refuse until HEAD holds the genesis commit of queue.json.
pub fn check_genesis_committed(paths: &Paths) -> Result<(), CheckoutError> {
    if git::head_has(&paths.root, "docs/plans/queue.json") {
        Ok(())
    } else {
        Err(CheckoutError::GenesisNotCommitted)
    }
}

/// Two paths name the same file once symlinks are resolved.
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}
