//! A checkout in memory (test and fault-injection builds only): the queue's files on a `Disk`,
//! a repository that answers the checkout's facts, processes that live until the next one
//! starts, and a fixed clock. Each `Process` hands the session a `World` over them with the
//! hook a test chooses, so whole verbs run as the binary runs them, with no process, no socket
//! and no real file system; what a verb would print comes back as lines, and a request run
//! through the engine (`Checkout::engine`) comes back as its `--json` document.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use mosaic_queue_core::{Queue, State};

use crate::checkout::CheckoutError;
use crate::checkout::Paths;
use crate::engine::{self, Policy, Request};
use crate::exit::Exit;
use crate::io::hook::Hook;
use crate::io::memory::{Disk, MemIo};
use crate::reply::{Finished, Gathered};
use crate::store::lock::Probe;
use crate::store::session::SessionError;
use crate::store::world::{Clock, Guard, Repository, World};

/// Where the checkout lives on the disk.
pub const ROOT: &str = "/mem/repo";

/// The hand-written QUEUE.md the checkout starts with: header, markers around a legacy table,
/// footer.
pub const QUEUE_MD: &str = "\
# Queue

Hand-written header: the table below is generated.

<!-- mosaic-queue:begin -->
| # | What | Who |
| 1 | parser | darkwing |
legacy text kept as the legacy view
<!-- mosaic-queue:end -->

Hand-written footer.
";

/// The reviewed migration map genesis reads.
pub const MAP: &str = "\
# Migration map

source: docs/plans/QUEUE.md blob 0123456789abcdef0123456789abcdef01234567

| # | Piece | Owner | Status | Gate | Issues | Note |
| --- | --- | --- | --- | --- | --- | --- |
| 1 | Parser | darkwing | queued | | #12, #14 | first |
| 2 | Render | | queued | jason | #20 | |
| 3 | Old thing | sage | parked | | | later |
";

/// The time every command in memory starts at.
pub const NOW: &str = "2026-03-04T05:06:07.089Z";

/// The repository's facts: the root and branch, and whether HEAD holds genesis. The guard is
/// always installed; `published` is what the last commit put at HEAD.
#[derive(Debug)]
pub struct MemRepository {
    root: PathBuf,
    branch: String,
    genesis_committed: AtomicBool,
    published: Mutex<Option<(Vec<u8>, Vec<u8>)>>,
}

impl MemRepository {
    /// Records a commit of queue.json and QUEUE.md's bytes at HEAD.
    pub fn publish(&self, queue_json: Vec<u8>, queue_md: Vec<u8>) {
        self.genesis_committed.store(true, Ordering::Relaxed);
        *self.published.lock().unwrap_or_else(|p| p.into_inner()) = Some((queue_json, queue_md));
    }

    /// The two files' bytes HEAD holds, if a commit put them there.
    pub fn published(&self) -> Option<(Vec<u8>, Vec<u8>)> {
        self.published
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

impl Clone for MemRepository {
    fn clone(&self) -> MemRepository {
        MemRepository {
            root: self.root.clone(),
            branch: self.branch.clone(),
            genesis_committed: AtomicBool::new(self.genesis_committed.load(Ordering::Relaxed)),
            published: Mutex::new(self.published()),
        }
    }
}

impl Repository for MemRepository {
    fn check_state(&self, paths: &Paths, state: &State) -> Result<(), CheckoutError> {
        let recorded = state.root.clone().unwrap_or_default();
        if Path::new(&recorded) != paths.root {
            return Err(CheckoutError::NotCanonical {
                here: paths.root.clone(),
                recorded,
            });
        }
        let branch = state.branch.clone().unwrap_or_default();
        let found = self.head_branch(paths).unwrap_or_default();
        if found != branch {
            return Err(CheckoutError::WrongBranch { branch, found });
        }
        Ok(())
    }

    fn genesis_committed(&self, _: &Paths) -> bool {
        self.genesis_committed.load(Ordering::Relaxed)
    }

    fn head_branch(&self, paths: &Paths) -> Option<String> {
        (paths.root == self.root).then(|| self.branch.clone())
    }

    fn guard(&self, _: &Paths) -> Guard {
        Guard::Fine
    }
}

/// One process in memory: its pid on this host and boot. No other process runs: every other
/// pid is gone, which is what a process that exited or was killed leaves.
#[derive(Debug, Clone)]
pub struct MemProbe {
    pub pid: u32,
    pub boot: String,
}

impl Probe for MemProbe {
    fn own_pid(&self) -> u32 {
        self.pid
    }
    fn running(&self, pid: u32) -> bool {
        pid == self.pid
    }
    fn start_time(&self, pid: u32) -> Option<u64> {
        (pid == self.pid).then_some(1)
    }
    fn host(&self) -> String {
        "memory".to_owned()
    }
    fn boot_id(&self) -> std::io::Result<String> {
        Ok(self.boot.clone())
    }
}

/// A clock that always says `NOW`, so two runs that do the same leave the same bytes.
#[derive(Debug, Clone, Copy)]
pub struct FixedClock;

impl Clock for FixedClock {
    fn now(&self) -> String {
        NOW.to_owned()
    }
}

/// How a command run in memory failed: its exit and its one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failed {
    pub exit: Exit,
    pub message: String,
}

impl From<SessionError> for Failed {
    fn from(e: SessionError) -> Failed {
        Failed {
            exit: e.exit(),
            message: e.to_string(),
        }
    }
}

/// What a command run in memory printed, or how it failed.
pub type Ran = Result<Vec<String>, Failed>;

/// A canonical checkout in memory: `docs/plans/QUEUE.md` by hand, no genesis yet.
#[derive(Debug)]
pub struct Checkout {
    pub disk: Disk,
    pub repo: MemRepository,
    pub paths: Paths,
    boot: AtomicU64,
    pids: AtomicU32,
}

impl Clone for Checkout {
    /// A copy to run on: the files, the repository's facts, the boot and the pids to come.
    fn clone(&self) -> Checkout {
        Checkout {
            disk: self.disk.clone(),
            repo: self.repo.clone(),
            paths: self.paths.clone(),
            boot: AtomicU64::new(self.boot.load(Ordering::Relaxed)),
            pids: AtomicU32::new(self.pids.load(Ordering::Relaxed)),
        }
    }
}

impl Default for Checkout {
    fn default() -> Checkout {
        Checkout::new()
    }
}

impl Checkout {
    pub fn new() -> Checkout {
        Checkout::at(ROOT, "main")
    }

    /// A checkout at `root` on `branch` (a fixture's canonical root and branch), with the
    /// hand-written QUEUE.md and no genesis yet.
    pub fn at(root: &str, branch: &str) -> Checkout {
        let root = PathBuf::from(root);
        let paths = Paths::new(&root);
        let disk = Disk::new();
        disk.mkdir_all(&paths.git_dir);
        disk.put(&paths.queue_md, QUEUE_MD.as_bytes());
        Checkout {
            disk,
            repo: MemRepository {
                root,
                branch: branch.to_owned(),
                genesis_committed: AtomicBool::new(false),
                published: Mutex::new(None),
            },
            paths,
            boot: AtomicU64::new(1),
            pids: AtomicU32::new(1000),
        }
    }

    /// The checkout after `genesis --op genesis-0001 --by jason`, committed.
    pub fn genesis() -> Checkout {
        let checkout = Checkout::new();
        let ran = checkout.process(None).genesis("genesis-0001", "jason");
        assert!(ran.is_ok(), "genesis in memory: {ran:?}");
        checkout.commit();
        checkout
    }

    /// A new process (a new pid) on this boot; its calls pass `hook`.
    pub fn process<'a>(&'a self, hook: Option<&'a dyn Hook>) -> Process<'a> {
        Process {
            checkout: self,
            io: self.disk.io(hook),
            hook,
            probe: MemProbe {
                pid: self.pids.fetch_add(1, Ordering::Relaxed),
                boot: format!("boot-{}", self.boot.load(Ordering::Relaxed)),
            },
        }
    }

    /// The host reboots: processes from now on run on a new boot.
    pub fn reboot(&self) {
        self.boot.fetch_add(1, Ordering::Relaxed);
    }

    /// Commits queue.json and QUEUE.md as they are (what `commit` publishes).
    pub fn commit(&self) {
        let file = |p: &Path| self.disk.get(p).unwrap_or_default();
        self.repo
            .publish(file(&self.paths.queue_json), file(&self.paths.queue_md));
    }

    /// Runs `request` under `policy` through the engine in a new process with no hook, its
    /// answer gathered as `--json` (and the MCP server) gives it.
    pub fn engine(&self, request: Request, policy: &Policy) -> Finished {
        let process = self.process(None);
        let (verb, change) = (request.name(), request.is_change());
        let mut gathered = Gathered::new(true);
        let result = engine::run_in(request, process.world(), &self.paths, policy, &mut gathered);
        gathered.finish(verb, change, &result)
    }

    /// queue.json as it is now, verified; `None` when it is missing or does not verify.
    pub fn queue(&self) -> Option<Queue> {
        Queue::verify(&self.disk.get(&self.paths.queue_json)?).ok()
    }
}

/// One command's process: the checkout's world, with its own pid and hook.
pub struct Process<'a> {
    checkout: &'a Checkout,
    io: MemIo<'a>,
    hook: Option<&'a dyn Hook>,
    probe: MemProbe,
}

impl Process<'_> {
    /// The world the session runs in: this process's calls, pid and boot, the checkout's
    /// repository, the fixed clock, and no wait for a live lock or a follower.
    pub fn world(&self) -> World<'_> {
        World {
            io: &self.io,
            probe: &self.probe,
            repo: &self.checkout.repo,
            clock: &FixedClock,
            lock_wait: Duration::ZERO,
            // No follower runs in memory: a change under `replication required` answers
            // from what the record says when it asks.
            replicas: &crate::store::replicated::LookOnce,
            replication_wait: Duration::ZERO,
            // A warning after the answer (a lock left by a failed release) is what doctor
            // then finds on disk; the test reads the disk, not stderr.
            warn: |_| {},
        }
    }

    pub fn paths(&self) -> &Paths {
        &self.checkout.paths
    }

    /// This process's pid.
    pub fn pid(&self) -> u32 {
        self.probe.pid
    }

    /// The checkout this process runs in.
    pub fn checkout(&self) -> &Checkout {
        self.checkout
    }

    /// Prints `line`: the hook marks it, as the binary's trace marks each line on stdout.
    pub fn print(&self, line: &str, out: &mut Vec<String>) {
        if let Some(hook) = self.hook {
            hook.mark("printed", line);
        }
        out.push(line.to_owned());
    }
}

#[cfg(test)]
mod replication;
#[cfg(test)]
mod tests;
mod verbs;
