//! What the store session needs from the world, passed in as values: the file system calls
//! (`Io`), the facts that classify a lock's holder (`Probe`), the checkout's facts read from
//! git (`Repository`), the clock and the wait for a live lock. The shipped binary has one world,
//! `World::real`; tests run whole verbs over one in memory (`in_memory`).

use std::time::Duration;

use mosaic_queue_core::{Queue, State};

use super::guard;
use super::lock::{Probe, RealProbe};
use super::replicated::{Replicas, WatchedReplicas};
use crate::checkout::Paths;
use crate::checkout::{self, CheckoutError};

use crate::io::{Io, RealIo};

/// How long a command waits for a live lock before it gives up.
pub const LOCK_WAIT: Duration = Duration::from_secs(30);

/// How long a change under `replication required` waits for the follower's push before it
/// exits 3 (`--replication-timeout`).
pub const REPLICATION_WAIT: Duration = Duration::from_secs(10);

/// The pre-commit guard, as `doctor` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Guard {
    /// Installed as HEAD has it, or HEAD names no commit yet: nothing to say.
    Fine,
    /// HEAD holds no guard (`scripts/git-hooks/pre-commit`) to install.
    NoSource,
    /// Not in force; the one-line reason ends with what to do.
    Off(String),
    /// git could not be started, or failed where it should have answered: the guard is
    /// unknown, never taken as fine. Holds what git said.
    Unchecked(String),
}

/// The checkout's facts the session checks against the queue: the root and branch genesis
/// recorded, whether HEAD holds genesis, and the guard (for `doctor`).
pub trait Repository {
    /// The checkout against what genesis recorded (a state carries both): the root, then
    /// the branch HEAD is on.
    fn check_state(&self, paths: &Paths, state: &State) -> Result<(), CheckoutError>;
    /// Whether HEAD's tree holds docs/plans/queue.json.
    fn genesis_committed(&self, paths: &Paths) -> bool;
    /// The branch HEAD names, short; `None` when HEAD is detached or cannot be read.
    fn head_branch(&self, paths: &Paths) -> Option<String>;
    /// Whether the pre-commit guard is in force.
    fn guard(&self, paths: &Paths) -> Guard;

    /// `check_state` of a verified queue.
    fn check_queue(&self, paths: &Paths, queue: &Queue) -> Result<(), CheckoutError> {
        self.check_state(paths, queue.state())
    }

    /// Mutating verbs refuse until HEAD holds the genesis commit of queue.json.
    fn check_genesis_committed(&self, paths: &Paths) -> Result<(), CheckoutError> {
        if self.genesis_committed(paths) {
            Ok(())
        } else {
            Err(CheckoutError::GenesisNotCommitted)
        }
    }
}

/// The time a command starts, as entries, locks and the witness record it.
pub trait Clock {
    fn now(&self) -> String;
}

/// The repository on disk, read in-process with gitoxide (`checkout`); only the guard's check
/// runs git.
#[derive(Debug, Default, Clone, Copy)]
pub struct GitRepository;

impl Repository for GitRepository {
    fn check_state(&self, paths: &Paths, state: &State) -> Result<(), CheckoutError> {
        checkout::check_state(paths, state)
    }

    fn genesis_committed(&self, paths: &Paths) -> bool {
        checkout::check_genesis_committed(paths).is_ok()
    }

    fn head_branch(&self, paths: &Paths) -> Option<String> {
        checkout::head_branch(paths)
    }

    fn guard(&self, paths: &Paths) -> Guard {
        let head = match crate::git::run(
            &paths.root,
            &["rev-parse", "--verify", "-q", "HEAD^{commit}"],
        ) {
            Ok(head) => head,
            // `-q` makes "no commit yet" an exit 1 with nothing said; anything said is a failure.
            Err(why) if why.is_empty() => return Guard::Fine,
            Err(why) => return Guard::Unchecked(why),
        };
        let source = format!("HEAD:{}", guard::HOOK_SOURCE);
        match crate::git::run(&paths.root, &["cat-file", "-e", &source]) {
            Ok(_) => {}
            Err(why) if crate::git::could_not_run(&why) => return Guard::Unchecked(why),
            Err(_) => return Guard::NoSource,
        }
        match guard::check_installed(&paths.root, &paths.git_dir, &head) {
            Ok(()) => Guard::Fine,
            Err(why) => Guard::Off(why),
        }
    }
}

/// The wall clock (`clock::now`).
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> String {
        crate::clock::now()
    }
}

/// Everything the session takes from the world. Copied freely: it only borrows.
#[derive(Clone, Copy)]
pub struct World<'w> {
    pub io: &'w dyn Io,
    pub probe: &'w dyn Probe,
    pub repo: &'w dyn Repository,
    pub clock: &'w dyn Clock,
    /// How long to wait for a live lock.
    pub lock_wait: Duration,
    /// Where a change under `replication required` learns its revision was pushed.
    pub replicas: &'w dyn Replicas,
    /// How long it waits for that.
    pub replication_wait: Duration,
    /// Where a warning goes once the command has answered (the lock left behind): stderr.
    pub warn: fn(&str),
}

impl World<'static> {
    /// This machine: the real file system, processes, repository and clock. The
    /// fault-injection build may shorten the lock wait (`MOSAIC_LOCK_WAIT_MS`).
    pub fn real() -> World<'static> {
        World {
            io: &RealIo,
            probe: &RealProbe,
            repo: &GitRepository,
            clock: &SystemClock,
            lock_wait: crate::io::seams::lock_wait(LOCK_WAIT),
            replicas: &WatchedReplicas,
            replication_wait: WAIT.get().unwrap_or(REPLICATION_WAIT),
            warn: stderr_line,
        }
    }
}

thread_local! {
    /// The wait `--replication-timeout` gave the request this thread runs, for the verbs that
    /// build the real world themselves.
    static WAIT: std::cell::Cell<Option<Duration>> = const { std::cell::Cell::new(None) };
}

/// Runs `f` with every real world built on this thread waiting `wait` for the follower.
pub fn with_replication_wait<T>(wait: Duration, f: impl FnOnce() -> T) -> T {
    let before = WAIT.replace(Some(wait));
    let value = f();
    WAIT.set(before);
    value
}

impl<'w> World<'w> {
    /// This world with changes waiting `wait` for the follower (`--replication-timeout`).
    pub fn waiting_for_replicas(self, wait: Duration) -> World<'w> {
        World {
            replication_wait: wait,
            ..self
        }
    }
}

/// Writes `line` to stderr; one that cannot be written is lost, and nothing else.
fn stderr_line(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}
