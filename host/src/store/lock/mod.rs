//! The queue lock `.git/mosaic-queue.lock` and the unlock gate `.git/mosaic-queue.unlock`: taken
//! by hard-linking an fsynced temp file into place (never overwriting), classified by probing the
//! holder's process, never broken for its age; only `unlock` removes a dead or mismatched lock.
//! A lock this host wrote during an earlier boot is dead: no process of that boot still runs.

use std::ffi::OsStr;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mosaic_queue_core::{one_line, parse_canonical, to_canonical};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::checkout::Paths;
use crate::exit::Exit;
use crate::io::{Io, Kind};

mod probe;
mod wait;

use probe::BOOT_ID;
pub use probe::{Probe, RealProbe};
use wait::Waiter;

/// What a lock or gate file holds: who took it, and enough to tell later whether that process
/// still runs (pid plus start time, on this host and this boot).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Holder {
    pub pid: u32,
    /// Process start time in clock ticks since boot (field 22 of `/proc/<pid>/stat`).
    pub start: u64,
    pub host: String,
    pub boot: String,
    pub op: Option<String>,
    pub verb: String,
    pub at: String,
}

impl fmt::Display for Holder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The fields come from a file anyone could edit; keep the message on one line.
        let op = self
            .op
            .as_deref()
            .map_or_else(|| "none".to_owned(), one_line);
        let (verb, at) = (one_line(&self.verb), one_line(&self.at));
        write!(f, "pid {} (op {op}, verb {verb}, at {at})", self.pid)
    }
}

/// What an existing lock or gate file says about its holder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Class {
    /// The process runs, with the recorded start time.
    Live(Holder),
    /// Same host and boot; the process is gone.
    Dead(Holder),
    /// Same host, an earlier boot (a power loss or crash mid-write): no process of that boot
    /// still runs, so it is dead too, whatever its pid names now.
    Rebooted(Holder),
    /// Same host and boot; the pid runs but started at another time, so it was reused.
    Mismatch(Holder),
    /// Taken on another host: nothing here can check it.
    Unknown(Holder),
    /// Unreadable, not canonical, or fields that cannot be a holder.
    Invalid(String),
}

impl Class {
    /// The contract's word for the class.
    pub fn name(&self) -> &'static str {
        match self {
            Class::Live(_) => "live",
            Class::Dead(_) | Class::Rebooted(_) => "dead",
            Class::Mismatch(_) => "mismatch",
            Class::Unknown(_) => "unknown",
            Class::Invalid(_) => "invalid",
        }
    }

    pub fn holder(&self) -> Option<&Holder> {
        match self {
            Class::Live(h)
            | Class::Dead(h)
            | Class::Rebooted(h)
            | Class::Mismatch(h)
            | Class::Unknown(h) => Some(h),
            Class::Invalid(_) => None,
        }
    }

    /// What to do about a lock `unlock` will not remove.
    fn refusal(&self) -> &'static str {
        match self {
            Class::Live(_) => "it is in use; wait for that command to finish",
            _ => "a person must check that no queue command is running and remove it by hand",
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Class::Live(h) => write!(f, "live: {h} is running"),
            Class::Rebooted(h) => write!(
                f,
                "dead: {h} was taken during an earlier boot of this host (boot {}), so it is no longer running",
                one_line(&h.boot)
            ),
            Class::Dead(h) => write!(f, "dead: {h} is no longer running"),
            Class::Mismatch(h) => write!(
                f,
                "mismatch: {h} is gone and its pid now belongs to another process"
            ),
            Class::Unknown(h) => write!(
                f,
                "unknown: {h} was taken on host {}, boot {}, which this host cannot check",
                one_line(&h.host),
                one_line(&h.boot)
            ),
            Class::Invalid(reason) => write!(f, "invalid: {reason}"),
        }
    }
}

/// Why a lock or the gate could not be taken, checked or released. Each message says what to
/// do next.
#[derive(Debug, Error)]
pub enum LockError {
    #[error(
        "the queue lock {} is held by {holder} and was not released within {:.1}s; retry the same op once that command finishes",
        path.display(),
        waited.as_secs_f64()
    )]
    Held {
        path: PathBuf,
        holder: Box<Holder>,
        waited: Duration,
    },
    #[error(
        "the queue lock {} is stale ({class}); writers never break it: run `mosaic-queue unlock`, then retry the same op",
        path.display()
    )]
    Stale { path: PathBuf, class: Box<Class> },
    #[error(
        "the queue lock {} is {class}; locks are never removed for their age: a person must check that no queue command is running and remove it by hand",
        path.display()
    )]
    NeedsPerson { path: PathBuf, class: Box<Class> },
    #[error(
        "the unlock gate {} exists ({class}); another unlock is running or was killed: run `mosaic-queue unlock --check-gate`",
        path.display()
    )]
    GateHeld { path: PathBuf, class: Box<Class> },
    #[error("not removing the queue lock {} ({class}): {}", path.display(), class.refusal())]
    Refused { path: PathBuf, class: Box<Class> },
    #[error(
        "the queue lock {} changed while unlock ran and was left as it is; run `mosaic-queue unlock` again",
        path.display()
    )]
    Changed { path: PathBuf },
    #[error(
        "{} was removed or replaced while this command held it and was left as found; run `mosaic-queue verify --current`",
        path.display()
    )]
    Lost { path: PathBuf },
    #[error("cannot {what} {}: {source}; check the repository's .git and retry", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        source: io::Error,
    },
}

impl LockError {
    /// Every lock failure is "the operation failed": nothing was written.
    pub fn exit(&self) -> Exit {
        Exit::Failed
    }

    /// The stable kind `--json` prints.
    pub fn kind(&self) -> &'static str {
        match self {
            LockError::Held { .. } => "lock-held",
            LockError::Stale { .. } => "lock-stale",
            LockError::NeedsPerson { .. } => "lock-needs-person",
            LockError::GateHeld { .. } => "unlock-gate-held",
            LockError::Refused { .. } => "unlock-refused",
            LockError::Changed { .. } => "lock-changed",
            LockError::Lost { .. } => "lock-lost",
            LockError::Io { .. } => "lock-io",
        }
    }

    /// A lock wait that ran out: the same op may simply be run again once the holder is done.
    pub fn retryable(&self) -> bool {
        matches!(self, LockError::Held { .. })
    }
}

// Edition 2024: the returned closure captures `path`'s lifetime without a `+ '_`.
fn io_err(what: &'static str, path: &Path) -> impl FnOnce(io::Error) -> LockError {
    move |source| LockError::Io {
        what,
        path: path.to_path_buf(),
        source,
    }
}

/// This host and boot, read once per command.
struct Here {
    host: String,
    boot: String,
}

fn here(probe: &dyn Probe) -> Result<Here, LockError> {
    let boot = probe
        .boot_id()
        .map_err(io_err("read the boot id from", Path::new(BOOT_ID)))?;
    Ok(Here {
        host: probe.host(),
        boot,
    })
}

fn me(
    probe: &dyn Probe,
    here: &Here,
    op: Option<&str>,
    verb: &str,
    at: &str,
) -> Result<Holder, LockError> {
    let pid = probe.own_pid();
    let start = probe.start_time(pid).ok_or_else(|| LockError::Io {
        what: "read this process's start time from",
        path: PathBuf::from(format!("/proc/{pid}/stat")),
        source: io::Error::new(io::ErrorKind::InvalidData, "missing or unparsable"),
    })?;
    Ok(Holder {
        pid,
        start,
        host: here.host.clone(),
        boot: here.boot.clone(),
        op: op.map(str::to_owned),
        verb: verb.to_owned(),
        at: at.to_owned(),
    })
}

fn parse_holder(bytes: &[u8]) -> Result<Holder, String> {
    let holder: Holder = parse_canonical(bytes).map_err(|e| one_line(&e.to_string()))?;
    // pid 0 would make kill(0, 0) probe our own process group.
    if holder.pid == 0 || i32::try_from(holder.pid).is_err() {
        return Err(format!("pid {} is not a process id", holder.pid));
    }
    if holder.host.is_empty() || holder.boot.is_empty() || holder.verb.is_empty() {
        return Err("host, boot or verb is empty".to_owned());
    }
    Ok(holder)
}

fn classify_at(probe: &dyn Probe, here: &Here, bytes: &[u8]) -> Class {
    let holder = match parse_holder(bytes) {
        Ok(h) => h,
        Err(reason) => return Class::Invalid(reason),
    };
    // A pid means nothing on another host or after a reboot. Another host's process may still
    // run; none of this host's earlier boot can.
    if holder.host != here.host {
        return Class::Unknown(holder);
    }
    if holder.boot != here.boot {
        return Class::Rebooted(holder);
    }
    if !probe.running(holder.pid) {
        return Class::Dead(holder);
    }
    match probe.start_time(holder.pid) {
        Some(start) if start == holder.start => Class::Live(holder),
        Some(_) => Class::Mismatch(holder),
        // Exited in between, or runs with an unreadable start time: when it still runs, call it
        // live, the class that removes nothing.
        None if probe.running(holder.pid) => Class::Live(holder),
        None => Class::Dead(holder),
    }
}

/// The file at `path` and its class; `None` when there is none. An unreadable file is invalid.
fn inspect_at(
    io: &dyn Io,
    probe: &dyn Probe,
    here: &Here,
    path: &Path,
) -> Option<(Vec<u8>, Class)> {
    match io.read(path, kind_of(path)) {
        Ok(bytes) => {
            let class = classify_at(probe, here, &bytes);
            Some((bytes, class))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => {
            let why = match crate::io::refusal(&e) {
                Some(refused) => format!("it {}", refused.reason()),
                None => format!("cannot read it: {e}"),
            };
            Some((Vec::new(), Class::Invalid(why)))
        }
    }
}

/// The lock and the gate share their format and cap; the kind names which one a refusal is
/// about.
fn kind_of(path: &Path) -> Kind {
    if path.file_name() == Some(OsStr::new("mosaic-queue.unlock")) {
        Kind::Gate
    } else {
        Kind::Lock
    }
}

/// Classifies the lock or gate at `path` without touching it; `None` when there is none.
pub fn inspect(io: &dyn Io, probe: &dyn Probe, path: &Path) -> Result<Option<Class>, LockError> {
    let here = here(probe)?;
    Ok(inspect_at(io, probe, &here, path).map(|(_, class)| class))
}

/// `unlock --check-gate`: classifies a stale unlock gate and removes nothing. A person removes
/// the gate by hand only after it says dead or mismatch.
pub fn check_gate_with(
    io: &dyn Io,
    probe: &dyn Probe,
    paths: &Paths,
) -> Result<Option<Class>, LockError> {
    inspect(io, probe, &paths.gate)
}

/// A held lock or gate. `release` removes it; dropping it without `release` does the same, best
/// effort, so an error path never leaves its own lock behind.
pub struct Lock<'a> {
    io: &'a dyn Io,
    path: PathBuf,
    dir: PathBuf,
    bytes: Vec<u8>,
    holder: Holder,
    released: bool,
}

impl fmt::Debug for Lock<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Lock")
            .field("path", &self.path)
            .field("holder", &self.holder)
            .field("released", &self.released)
            .finish()
    }
}

impl Lock<'_> {
    /// Who took the lock, as its file says (the tests read it back).
    #[cfg(test)]
    pub fn holder(&self) -> &Holder {
        &self.holder
    }

    /// Removes the file if it still holds this lock's content, then fsyncs `.git`.
    pub fn release(mut self) -> Result<(), LockError> {
        self.released = true;
        self.remove_ours()
    }

    fn remove_ours(&self) -> Result<(), LockError> {
        // Someone may have removed it by hand and another command taken it since: never remove
        // a lock that is not ours.
        match self.io.read(&self.path, kind_of(&self.path)) {
            Ok(bytes) if bytes == self.bytes => {}
            Ok(_) => {
                return Err(LockError::Lost {
                    path: self.path.clone(),
                });
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(LockError::Lost {
                    path: self.path.clone(),
                });
            }
            Err(e) => {
                LEFT_BEHIND.store(true, Ordering::SeqCst);
                return Err(io_err("re-read", &self.path)(e));
            }
        }
        if let Err(e) = self.io.remove(&self.path) {
            LEFT_BEHIND.store(true, Ordering::SeqCst);
            return Err(io_err("remove", &self.path)(e));
        }
        // Removed: a failed fsync may bring it back only after a crash, with this process gone.
        self.io
            .sync_dir(&self.dir)
            .map_err(io_err("fsync", &self.dir))
    }
}

/// Set once this process has failed to remove a lock or gate file of its own, which stays
/// live for as long as the process runs: a process that outlives its commands (the MCP
/// server) ends then, so the lock becomes dead and `unlock` can clear it.
static LEFT_BEHIND: AtomicBool = AtomicBool::new(false);

/// Whether this process may have left a lock or gate file of its own in place.
pub fn left_behind() -> bool {
    LEFT_BEHIND.load(Ordering::SeqCst)
}

impl Drop for Lock<'_> {
    fn drop(&mut self) {
        if !self.released {
            self.released = true;
            let _ = self.remove_ours();
        }
    }
}

/// Our temp file beside the target; removed when dropped. Its name is unique to this call, so
/// removing it never touches another process's leftover.
struct Temp<'a> {
    io: &'a dyn Io,
    path: PathBuf,
}

impl Drop for Temp<'_> {
    fn drop(&mut self) {
        let _ = self.io.remove(&self.path);
    }
}

/// 16 hex digits that differ between processes and between calls in one process, without a
/// random number crate: pid, wall clock nanoseconds, a stack address (ASLR) and a call counter,
/// mixed by the splitmix64 finalizer.
fn suffix() -> String {
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let local = 0u8;
    let addr = std::ptr::from_ref(&local).addr() as u64;
    let calls = CALLS.fetch_add(1, Ordering::Relaxed);
    let mut x = nanos
        ^ u64::from(std::process::id()).rotate_left(32)
        ^ addr.rotate_left(13)
        ^ calls.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^= x >> 31;
    format!("{x:016x}")
}

/// `<target>.<pid>.<16 hex>.tmp`, the name the contract tells a person to look for.
fn temp_name(target: &Path, pid: u32) -> PathBuf {
    let name = target
        .file_name()
        .unwrap_or(OsStr::new("lock"))
        .to_string_lossy();
    target.with_file_name(format!("{name}.{pid}.{}.tmp", suffix()))
}

fn write_temp<'a>(
    io: &'a dyn Io,
    target: &Path,
    pid: u32,
    bytes: &[u8],
) -> Result<Temp<'a>, LockError> {
    let mut tries = 0;
    loop {
        let path = temp_name(target, pid);
        match io.create_synced(&path, bytes) {
            Ok(()) => return Ok(Temp { io, path }),
            // Not ours: leave it and pick another name.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && tries < 3 => tries += 1,
            Err(e) => {
                if e.kind() != io::ErrorKind::AlreadyExists {
                    let _ = io.remove(&path);
                }
                return Err(io_err("write", &path)(e));
            }
        }
    }
}

/// Links the temp file to `target`; `false` when `target` exists (held by someone).
fn link_into(io: &dyn Io, temp: &Temp<'_>, target: &Path) -> Result<bool, LockError> {
    match io.link(&temp.path, target) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(io_err("link", target)(e)),
    }
}

/// Whether the lock file at `path` still holds exactly `seen`.
fn still_holds(io: &dyn Io, path: &Path, seen: &[u8]) -> Result<bool, LockError> {
    match io.read_matches(path, Kind::Lock, seen) {
        Ok(same) => Ok(same),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(io_err("re-read", path)(e)),
    }
}

/// Takes the queue lock. A live holder is waited for, up to `wait`, by watching `.git` for the
/// lock's removal; a dead or mismatched lock is never broken (run `unlock`); an unknown or
/// invalid one waits for a person. `op` is `None` for a command that has no op id.
pub fn acquire_with<'a>(
    io: &'a dyn Io,
    probe: &dyn Probe,
    paths: &Paths,
    op: Option<&str>,
    verb: &str,
    at: &str,
    wait: Duration,
) -> Result<Lock<'a>, LockError> {
    let started = Instant::now();
    let here = here(probe)?;
    let holder = me(probe, &here, op, verb, at)?;
    let bytes = to_canonical(&holder);
    let temp = write_temp(io, &paths.lock, holder.pid, &bytes)?;
    let name = paths.lock.file_name().unwrap_or_default();
    let mut waiter: Option<Waiter> = None;
    while !link_into(io, &temp, &paths.lock)? {
        match inspect_at(io, probe, &here, &paths.lock) {
            // Released between the link and the read: try again at once.
            None => {}
            Some((_, Class::Live(current))) => {
                let remaining = wait.saturating_sub(started.elapsed());
                if remaining.is_zero() {
                    return Err(LockError::Held {
                        path: paths.lock.clone(),
                        holder: Box::new(current),
                        waited: started.elapsed(),
                    });
                }
                match &mut waiter {
                    // Arm the watch, then look again before waiting, so a release between the
                    // failed link and the watch is not missed.
                    None => waiter = Some(Waiter::new(&paths.git_dir, name)),
                    Some(w) => w.wait(remaining).map_err(io_err("watch", &paths.git_dir))?,
                }
            }
            Some((seen, class @ (Class::Dead(_) | Class::Rebooted(_) | Class::Mismatch(_)))) => {
                // A holder releases before it exits, so a lock read just before its release
                // names a process that is gone by the probe. Only a lock still there, unchanged,
                // after its process was seen gone is stale; otherwise look again.
                if !still_holds(io, &paths.lock, &seen)? {
                    continue;
                }
                return Err(LockError::Stale {
                    path: paths.lock.clone(),
                    class: Box::new(class),
                });
            }
            Some((_, class)) => {
                return Err(LockError::NeedsPerson {
                    path: paths.lock.clone(),
                    class: Box::new(class),
                });
            }
        }
    }
    drop(temp);
    let lock = Lock {
        io,
        path: paths.lock.clone(),
        dir: paths.git_dir.clone(),
        bytes,
        holder,
        released: false,
    };
    // No fsync of `.git` here: the lock excludes running processes only, and none survives a
    // crash. Whether the link then survives or not, its content was fsynced before the link,
    // so a lock left by a crash reads as dead (an earlier boot) and `unlock` removes it.
    io.step("lock-taken");
    Ok(lock)
}

/// What `unlock` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unlocked {
    /// Removed a lock whose process is gone.
    Dead(Holder),
    /// Removed a lock whose pid was reused by another process.
    Mismatch(Holder),
    /// There was no lock.
    NoLock,
}

impl fmt::Display for Unlocked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unlocked::Dead(h) => write!(f, "removed the dead queue lock of {h}"),
            Unlocked::Mismatch(h) => write!(
                f,
                "removed the mismatched queue lock of {h} (its pid now belongs to another process)"
            ),
            Unlocked::NoLock => f.write_str("no queue lock: .git/mosaic-queue.lock does not exist"),
        }
    }
}

/// `unlock`: under the unlock gate, removes the queue lock only when it is dead or mismatched.
/// A held gate refuses; a live, unknown or invalid lock is left and refused.
pub fn unlock_with(
    io: &dyn Io,
    probe: &dyn Probe,
    paths: &Paths,
    at: &str,
) -> Result<Unlocked, LockError> {
    let here = here(probe)?;
    let holder = me(probe, &here, None, "unlock", at)?;
    let bytes = to_canonical(&holder);
    let temp = write_temp(io, &paths.gate, holder.pid, &bytes)?;
    while !link_into(io, &temp, &paths.gate)? {
        // The gate is not waited for: an unlock is quick, and a stale gate needs a person.
        if let Some((_, class)) = inspect_at(io, probe, &here, &paths.gate) {
            return Err(LockError::GateHeld {
                path: paths.gate.clone(),
                class: Box::new(class),
            });
        }
    }
    drop(temp);
    let gate = Lock {
        io,
        path: paths.gate.clone(),
        dir: paths.git_dir.clone(),
        bytes,
        holder,
        released: false,
    };
    io.sync_dir(&paths.git_dir)
        .map_err(io_err("fsync", &paths.git_dir))?;
    let outcome = remove_stale(io, probe, &here, paths);
    let released = gate.release();
    let outcome = outcome?;
    released?;
    Ok(outcome)
}

fn remove_stale(
    io: &dyn Io,
    probe: &dyn Probe,
    here: &Here,
    paths: &Paths,
) -> Result<Unlocked, LockError> {
    let Some((bytes, class)) = inspect_at(io, probe, here, &paths.lock) else {
        return Ok(Unlocked::NoLock);
    };
    let outcome = match class {
        Class::Dead(h) | Class::Rebooted(h) => Unlocked::Dead(h),
        Class::Mismatch(h) => Unlocked::Mismatch(h),
        class => {
            return Err(LockError::Refused {
                path: paths.lock.clone(),
                class: Box::new(class),
            });
        }
    };
    // The gate keeps other unlocks out and writers never break a stale lock, so only a hand
    // edit could change it now; compare once more to keep that window small.
    match io.read(&paths.lock, Kind::Lock) {
        Ok(now) if now == bytes => {}
        Ok(_) => {
            return Err(LockError::Changed {
                path: paths.lock.clone(),
            });
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Unlocked::NoLock),
        Err(e) => return Err(io_err("re-read", &paths.lock)(e)),
    }
    io.remove(&paths.lock)
        .map_err(io_err("remove", &paths.lock))?;
    io.sync_dir(&paths.git_dir)
        .map_err(io_err("fsync", &paths.git_dir))?;
    Ok(outcome)
}

#[cfg(test)]
mod tests;
