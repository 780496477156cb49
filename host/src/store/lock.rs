//! The queue lock `.git/mosaic-queue.lock` and the unlock gate `.git/mosaic-queue.unlock`: taken
//! by hard-linking an fsynced temp file into place (never overwriting), classified by probing the
//! holder's process, never broken for its age; only `unlock` removes a dead or mismatched lock.

use std::ffi::OsStr;
use std::fmt;
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mosaic_queue_core::canon::{one_line, parse_canonical, to_canonical};
use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::fs::inotify;
use rustix::io::Errno;
use rustix::process::{Pid, test_kill_process};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::Paths;
use crate::io::Io;
use crate::seam;

/// How long the CLI waits for a live holder before it gives up.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(30);

const BOOT_ID: &str = "/proc/sys/kernel/random/boot_id";

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
    /// Same host and boot; the pid runs but started at another time, so it was reused.
    Mismatch(Holder),
    /// Taken on another host or before a reboot: nothing here can check it.
    Unknown(Holder),
    /// Unreadable, not canonical, or fields that cannot be a holder.
    Invalid(String),
}

impl Class {
    /// The contract's word for the class.
    pub fn name(&self) -> &'static str {
        match self {
            Class::Live(_) => "live",
            Class::Dead(_) => "dead",
            Class::Mismatch(_) => "mismatch",
            Class::Unknown(_) => "unknown",
            Class::Invalid(_) => "invalid",
        }
    }

    pub fn holder(&self) -> Option<&Holder> {
        match self {
            Class::Live(h) | Class::Dead(h) | Class::Mismatch(h) | Class::Unknown(h) => Some(h),
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

/// Facts about processes and this machine, behind a trait so tests can fake every class.
pub trait Probe {
    /// This process's pid.
    fn own_pid(&self) -> u32;
    /// Whether `pid` is a process that still runs.
    fn running(&self, pid: u32) -> bool;
    /// The start time of `pid` in clock ticks since boot; `None` when it cannot be read.
    fn start_time(&self, pid: u32) -> Option<u64>;
    /// The node name.
    fn host(&self) -> String;
    /// The kernel's boot id, which changes at every boot.
    fn boot_id(&self) -> io::Result<String>;
}

/// The real machine: `kill(pid, 0)`, `/proc` and `uname`.
#[derive(Debug, Default, Clone, Copy)]
pub struct RealProbe;

impl Probe for RealProbe {
    fn own_pid(&self) -> u32 {
        std::process::id()
    }

    fn running(&self, pid: u32) -> bool {
        let Some(raw) = i32::try_from(pid)
            .ok()
            .filter(|&p| p > 0)
            .and_then(Pid::from_raw)
        else {
            return false;
        };
        match test_kill_process(raw) {
            Err(e) if e == Errno::SRCH => false,
            // EPERM also means the process exists. A zombie has exited and only waits for its
            // parent to reap it, so it holds nothing: count it as gone.
            _ => !matches!(read_stat(pid), Some((state, _)) if state == 'Z' || state == 'X'),
        }
    }

    fn start_time(&self, pid: u32) -> Option<u64> {
        read_stat(pid).map(|(_, start)| start)
    }

    fn host(&self) -> String {
        rustix::system::uname()
            .nodename()
            .to_string_lossy()
            .into_owned()
    }

    fn boot_id(&self) -> io::Result<String> {
        Ok(std::fs::read_to_string(BOOT_ID)?.trim().to_owned())
    }
}

fn read_stat(pid: u32) -> Option<(char, u64)> {
    // The command name may be any bytes, so no UTF-8 requirement on the whole line.
    let bytes = std::fs::read(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&String::from_utf8_lossy(&bytes))
}

/// The state (field 3) and start time (field 22) of a `/proc/<pid>/stat` line. Field 2, the
/// command name, is in parentheses and may hold spaces and ')', so counting starts after the
/// last ')'.
fn parse_stat(line: &str) -> Option<(char, u64)> {
    let rest = &line[line.rfind(')')? + 1..];
    let mut fields = rest.split_ascii_whitespace();
    let state = fields.next()?.chars().next()?;
    // After field 3, `nth(18)` skips fields 4 to 21 and yields field 22.
    let start = fields.nth(18)?.parse().ok()?;
    Some((state, start))
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
    pub fn exit_code(&self) -> i32 {
        1
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

/// Classifies the bytes of a lock or gate file.
pub fn classify(probe: &dyn Probe, bytes: &[u8]) -> Result<Class, LockError> {
    Ok(classify_at(probe, &here(probe)?, bytes))
}

fn classify_at(probe: &dyn Probe, here: &Here, bytes: &[u8]) -> Class {
    let holder = match parse_holder(bytes) {
        Ok(h) => h,
        Err(reason) => return Class::Invalid(reason),
    };
    // A pid means nothing on another host or after a reboot.
    if holder.host != here.host || holder.boot != here.boot {
        return Class::Unknown(holder);
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
    match io.read(path) {
        Ok(bytes) => {
            let class = classify_at(probe, here, &bytes);
            Some((bytes, class))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => Some((Vec::new(), Class::Invalid(format!("cannot read it: {e}")))),
    }
}

/// Classifies the lock or gate at `path` without touching it; `None` when there is none.
pub fn inspect(io: &dyn Io, probe: &dyn Probe, path: &Path) -> Result<Option<Class>, LockError> {
    let here = here(probe)?;
    Ok(inspect_at(io, probe, &here, path).map(|(_, class)| class))
}

/// `unlock --check-gate` on this machine (`RealProbe`); see `check_gate_with`.
pub fn check_gate(io: &dyn Io, paths: &Paths) -> Result<Option<Class>, LockError> {
    check_gate_with(io, &RealProbe, paths)
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
    pub fn holder(&self) -> &Holder {
        &self.holder
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the file if it still holds this lock's content, then fsyncs `.git`.
    pub fn release(mut self) -> Result<(), LockError> {
        self.released = true;
        self.remove_ours()
    }

    fn remove_ours(&self) -> Result<(), LockError> {
        // Someone may have removed it by hand and another command taken it since: never remove
        // a lock that is not ours.
        match self.io.read(&self.path) {
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
            Err(e) => return Err(io_err("re-read", &self.path)(e)),
        }
        self.io
            .remove(&self.path)
            .map_err(io_err("remove", &self.path))?;
        self.io
            .sync_dir(&self.dir)
            .map_err(io_err("fsync", &self.dir))
    }
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

/// Takes the queue lock for a command on this machine (`RealProbe`); see `acquire_with`.
pub fn acquire<'a>(
    io: &'a dyn Io,
    paths: &Paths,
    op: &str,
    verb: &str,
    at: &str,
    wait: Duration,
) -> Result<Lock<'a>, LockError> {
    acquire_with(io, &RealProbe, paths, Some(op), verb, at, wait)
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
            Some((_, class @ (Class::Dead(_) | Class::Mismatch(_)))) => {
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
    // On failure the guard's drop removes the lock again.
    io.sync_dir(&paths.git_dir)
        .map_err(io_err("fsync", &paths.git_dir))?;
    seam::step("lock-taken");
    Ok(lock)
}

/// Waits for a directory entry to leave: inotify when the kernel gives us an instance, else
/// (instances exhausted) a growing sleep, so the wait still ends.
enum Waiter {
    Watch { fd: OwnedFd, name: Vec<u8> },
    Backoff(Duration),
}

const BACKOFF_START: Duration = Duration::from_millis(10);
const BACKOFF_MAX: Duration = Duration::from_millis(500);

impl Waiter {
    fn new(dir: &Path, name: &OsStr) -> Waiter {
        let watch = || -> io::Result<OwnedFd> {
            let fd = inotify::init(inotify::CreateFlags::CLOEXEC | inotify::CreateFlags::NONBLOCK)?;
            let flags = inotify::WatchFlags::DELETE
                | inotify::WatchFlags::MOVED_FROM
                | inotify::WatchFlags::ONLYDIR;
            inotify::add_watch(&fd, dir, flags)?;
            Ok(fd)
        };
        match watch() {
            Ok(fd) => Waiter::Watch {
                fd,
                name: name.as_bytes().to_vec(),
            },
            Err(_) => Waiter::Backoff(BACKOFF_START),
        }
    }

    /// Returns once the entry may have left, or after `timeout`; the caller looks again.
    fn wait(&mut self, timeout: Duration) -> io::Result<()> {
        match self {
            Waiter::Backoff(step) => {
                std::thread::sleep((*step).min(timeout));
                *step = (*step * 2).min(BACKOFF_MAX);
                Ok(())
            }
            Waiter::Watch { fd, name } => {
                let deadline = Instant::now() + timeout;
                loop {
                    let remaining = deadline.saturating_duration_since(Instant::now());
                    if remaining.is_zero() {
                        return Ok(());
                    }
                    // Capped so the conversion cannot overflow; the loop waits again.
                    let capped = remaining.min(Duration::from_secs(86_400));
                    let ts = Timespec::try_from(capped).map_err(io::Error::other)?;
                    let mut fds = [PollFd::new(&*fd, PollFlags::IN)];
                    match poll(&mut fds, Some(&ts)) {
                        Ok(0) => continue,
                        Ok(_) => {}
                        Err(e) if e == Errno::INTR => continue,
                        Err(e) => return Err(e.into()),
                    }
                    if drain(fd, name)? {
                        return Ok(());
                    }
                }
            }
        }
    }
}

/// Reads every pending event; true when one concerns `name`, or events were lost or the watch
/// ended, when the caller must look again.
fn drain(fd: &OwnedFd, name: &[u8]) -> io::Result<bool> {
    let mut buf = [MaybeUninit::<u8>::uninit(); 4096];
    let mut events = inotify::Reader::new(fd, &mut buf);
    let mut hit = false;
    loop {
        match events.next() {
            Ok(event) => {
                let lost = inotify::ReadFlags::QUEUE_OVERFLOW | inotify::ReadFlags::IGNORED;
                hit |= event.events().intersects(lost)
                    || event.file_name().is_some_and(|n| n.to_bytes() == name);
            }
            Err(e) if e == Errno::AGAIN => return Ok(hit),
            Err(e) if e == Errno::INTR => {}
            Err(e) => return Err(e.into()),
        }
    }
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

/// `unlock` on this machine (`RealProbe`); see `unlock_with`.
pub fn unlock(io: &dyn Io, paths: &Paths, at: &str) -> Result<Unlocked, LockError> {
    unlock_with(io, &RealProbe, paths, at)
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
        Class::Dead(h) => Unlocked::Dead(h),
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
    match io.read(&paths.lock) {
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
mod tests {
    use super::*;
    use crate::io::RealIo;
    use std::collections::HashMap;

    /// A scratch checkout with an empty `.git`, removed when dropped.
    struct Scratch {
        root: PathBuf,
    }

    impl Scratch {
        fn new(name: &str) -> Scratch {
            let nanos = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_nanos();
            let root = std::env::temp_dir().join(format!(
                "mosaic-queue-lock-{name}-{}-{nanos}",
                std::process::id()
            ));
            std::fs::create_dir_all(root.join(".git")).unwrap();
            Scratch { root }
        }

        fn paths(&self) -> Paths {
            Paths::new(&self.root)
        }

        /// Everything in `.git`, sorted.
        fn git_entries(&self) -> Vec<String> {
            let mut names: Vec<String> = std::fs::read_dir(self.root.join(".git"))
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }

    /// This process is pid 100 (start 5) on host `h`, boot `b`; `procs` are the running ones.
    struct Fake {
        procs: HashMap<u32, u64>,
    }

    impl Fake {
        fn new() -> Fake {
            Fake {
                procs: HashMap::from([(100, 5), (300, 7)]),
            }
        }
    }

    impl Probe for Fake {
        fn own_pid(&self) -> u32 {
            100
        }
        fn running(&self, pid: u32) -> bool {
            self.procs.contains_key(&pid)
        }
        fn start_time(&self, pid: u32) -> Option<u64> {
            self.procs.get(&pid).copied()
        }
        fn host(&self) -> String {
            "h".to_owned()
        }
        fn boot_id(&self) -> io::Result<String> {
            Ok("b".to_owned())
        }
    }

    fn holder(pid: u32, start: u64, host: &str, boot: &str) -> Holder {
        Holder {
            pid,
            start,
            host: host.to_owned(),
            boot: boot.to_owned(),
            op: Some("darkwing-9-start-1".to_owned()),
            verb: "move".to_owned(),
            at: "2026-01-02T03:04:05.678Z".to_owned(),
        }
    }

    fn live() -> Holder {
        holder(300, 7, "h", "b")
    }
    fn dead() -> Holder {
        holder(200, 7, "h", "b")
    }
    fn mismatch() -> Holder {
        holder(300, 6, "h", "b")
    }
    fn other_host() -> Holder {
        holder(300, 7, "elsewhere", "b")
    }
    fn other_boot() -> Holder {
        holder(300, 7, "h", "old-boot")
    }

    fn plant(path: &Path, h: &Holder) -> Vec<u8> {
        let bytes = to_canonical(h);
        std::fs::write(path, &bytes).unwrap();
        bytes
    }

    const AT: &str = "2026-01-02T03:04:05.678Z";
    const SHORT: Duration = Duration::from_millis(200);

    fn take<'a>(
        io: &'a dyn Io,
        probe: &dyn Probe,
        paths: &Paths,
        wait: Duration,
    ) -> Result<Lock<'a>, LockError> {
        acquire_with(io, probe, paths, Some("seat-op-0001"), "move", AT, wait)
    }

    #[test]
    fn parse_stat_counts_from_the_last_paren() {
        let tail = "S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 987654 20 21";
        assert_eq!(parse_stat(&format!("42 (cat) {tail}")), Some(('S', 987654)));
        assert_eq!(
            parse_stat(&format!("42 (a) (b c)) ) {tail}")),
            Some(('S', 987654))
        );
        assert_eq!(parse_stat("42 (cat) S 1 2"), None);
        assert_eq!(parse_stat("no paren at all"), None);
    }

    #[test]
    fn real_probe_sees_this_process() {
        let probe = RealProbe;
        let pid = probe.own_pid();
        assert!(probe.running(pid));
        assert!(probe.start_time(pid).is_some());
        assert!(!probe.boot_id().unwrap().is_empty());
        assert!(!probe.running(0));
        assert!(!probe.running(u32::MAX));
    }

    #[test]
    fn temp_names_have_the_documented_shape_and_differ() {
        let target = Path::new("/x/.git/mosaic-queue.lock");
        let a = temp_name(target, 42);
        let b = temp_name(target, 42);
        assert_ne!(a, b);
        let name = a.file_name().unwrap().to_str().unwrap();
        let hex = name
            .strip_prefix("mosaic-queue.lock.42.")
            .and_then(|r| r.strip_suffix(".tmp"))
            .unwrap();
        assert_eq!(hex.len(), 16);
        assert!(hex.bytes().all(|c| c.is_ascii_hexdigit()));
    }

    #[test]
    fn take_and_release() {
        let s = Scratch::new("take");
        let paths = s.paths();
        let lock = take(&RealIo, &RealProbe, &paths, SHORT).unwrap();
        let bytes = std::fs::read(&paths.lock).unwrap();
        let on_disk: Holder = parse_canonical(&bytes).unwrap();
        assert_eq!(&on_disk, lock.holder());
        assert_eq!(on_disk.pid, std::process::id());
        assert_eq!(on_disk.op.as_deref(), Some("seat-op-0001"));
        assert_eq!(on_disk.verb, "move");
        let keys: Vec<&str> = std::str::from_utf8(&bytes)
            .unwrap()
            .lines()
            .filter_map(|l| l.trim().strip_prefix('"')?.split('"').next())
            .collect();
        assert_eq!(keys, ["pid", "start", "host", "boot", "op", "verb", "at"]);
        // The temp file is gone once the link is made.
        assert_eq!(s.git_entries(), ["mosaic-queue.lock"]);
        lock.release().unwrap();
        assert!(s.git_entries().is_empty());
    }

    #[test]
    fn drop_releases() {
        let s = Scratch::new("drop");
        let paths = s.paths();
        drop(take(&RealIo, &RealProbe, &paths, SHORT).unwrap());
        assert!(s.git_entries().is_empty());
        take(&RealIo, &RealProbe, &paths, SHORT)
            .unwrap()
            .release()
            .unwrap();
    }

    #[test]
    fn release_leaves_a_lock_that_is_not_ours() {
        let s = Scratch::new("lost");
        let paths = s.paths();
        let lock = take(&RealIo, &RealProbe, &paths, SHORT).unwrap();
        let other = plant(&paths.lock, &live());
        let err = lock.release().unwrap_err();
        assert!(matches!(err, LockError::Lost { .. }), "{err}");
        assert_eq!(std::fs::read(&paths.lock).unwrap(), other);
    }

    #[test]
    fn second_acquire_times_out_naming_the_holder() {
        let s = Scratch::new("held");
        let paths = s.paths();
        let first = acquire(&RealIo, &paths, "first-op-0001", "add", AT, SHORT).unwrap();
        let t = Instant::now();
        let err = take(&RealIo, &RealProbe, &paths, SHORT).unwrap_err();
        assert!(t.elapsed() >= SHORT);
        match &err {
            LockError::Held { holder, .. } => assert_eq!(**holder, *first.holder()),
            other => panic!("expected Held, got {other}"),
        }
        let msg = err.to_string();
        assert!(
            msg.contains(&format!("pid {}", std::process::id())),
            "{msg}"
        );
        assert!(
            msg.contains("op first-op-0001") && msg.contains("verb add") && msg.contains(AT),
            "{msg}"
        );
        assert!(!msg.contains('\n'));
        assert_eq!(err.exit_code(), 1);
        // The waiter's temp file is gone; the holder's lock is untouched.
        assert_eq!(s.git_entries(), ["mosaic-queue.lock"]);
        first.release().unwrap();
    }

    #[test]
    fn waiter_wakes_when_the_holder_releases() {
        let s = Scratch::new("wake");
        let paths = s.paths();
        let held = take(&RealIo, &RealProbe, &paths, SHORT).unwrap();
        let timeout = Duration::from_secs(5);
        let waiter_paths = paths.clone();
        let waiter = std::thread::spawn(move || {
            let t = Instant::now();
            let io = RealIo;
            let got = take(&io, &RealProbe, &waiter_paths, timeout).map(Lock::release);
            (t.elapsed(), got.map_err(|e| e.to_string()))
        });
        std::thread::sleep(Duration::from_millis(300));
        held.release().unwrap();
        let (elapsed, got) = waiter.join().unwrap();
        got.unwrap().unwrap();
        assert!(elapsed < timeout, "waited {elapsed:?}");
        assert!(s.git_entries().is_empty());
    }

    #[test]
    fn watch_wakes_for_its_name_only() {
        let s = Scratch::new("watch");
        let paths = s.paths();
        let other = paths.git_dir.join("index.lock");
        std::fs::write(&other, b"").unwrap();
        std::fs::write(&paths.lock, b"").unwrap();
        let mut waiter = Waiter::new(&paths.git_dir, OsStr::new("mosaic-queue.lock"));
        assert!(
            matches!(waiter, Waiter::Watch { .. }),
            "inotify is available"
        );
        // Git's own lock files come and go in .git; they must not end the wait.
        std::fs::remove_file(&other).unwrap();
        let t = Instant::now();
        waiter.wait(SHORT).unwrap();
        assert!(t.elapsed() >= SHORT);
        let lock = paths.lock.clone();
        let remover = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            std::fs::remove_file(lock).unwrap();
        });
        let t = Instant::now();
        waiter.wait(Duration::from_secs(5)).unwrap();
        assert!(t.elapsed() < Duration::from_secs(5));
        remover.join().unwrap();
    }

    #[test]
    fn classes() {
        let probe = Fake::new();
        let class = |h: &Holder| classify(&probe, &to_canonical(h)).unwrap();
        assert_eq!(class(&live()), Class::Live(live()));
        assert_eq!(class(&dead()), Class::Dead(dead()));
        assert_eq!(class(&mismatch()), Class::Mismatch(mismatch()));
        assert_eq!(class(&other_host()), Class::Unknown(other_host()));
        assert_eq!(class(&other_boot()), Class::Unknown(other_boot()));
        let compact = serde_json::to_vec(&live()).unwrap();
        // Canonical layout, but a field a holder does not have.
        let text = String::from_utf8(to_canonical(&live())).unwrap();
        let extra = text.replace("\n}\n", ",\n  \"extra\": 1\n}\n").into_bytes();
        assert_ne!(extra, text.as_bytes());
        let missing = b"{\n  \"pid\": 300\n}\n".to_vec();
        for bad in [
            b"".to_vec(),
            b"garbage".to_vec(),
            compact,
            extra,
            missing,
            to_canonical(&holder(0, 7, "h", "b")),
            to_canonical(&holder(u32::MAX, 7, "h", "b")),
        ] {
            let c = classify(&probe, &bad).unwrap();
            assert_eq!(c.name(), "invalid", "{c}");
            assert!(!c.to_string().contains('\n'));
        }
    }

    #[test]
    fn acquire_refuses_and_keeps_dead_and_mismatched_locks() {
        for (h, name) in [(dead(), "dead"), (mismatch(), "mismatch")] {
            let s = Scratch::new(name);
            let paths = s.paths();
            let bytes = plant(&paths.lock, &h);
            let t = Instant::now();
            let err = take(&RealIo, &Fake::new(), &paths, Duration::from_secs(5)).unwrap_err();
            assert!(t.elapsed() < Duration::from_secs(5), "it failed at once");
            match &err {
                LockError::Stale { class, .. } => assert_eq!(class.name(), name),
                other => panic!("expected Stale, got {other}"),
            }
            let msg = err.to_string();
            assert!(
                msg.contains("mosaic-queue unlock")
                    && msg.contains("pid ")
                    && msg.contains("op darkwing-9-start-1"),
                "{msg}"
            );
            assert_eq!(std::fs::read(&paths.lock).unwrap(), bytes);
            assert_eq!(s.git_entries(), ["mosaic-queue.lock"]);
        }
    }

    #[test]
    fn acquire_refuses_unknown_and_invalid_locks() {
        for (bytes, name) in [
            (to_canonical(&other_host()), "unknown"),
            (to_canonical(&other_boot()), "unknown"),
            (b"{}".to_vec(), "invalid"),
        ] {
            let s = Scratch::new(name);
            let paths = s.paths();
            std::fs::write(&paths.lock, &bytes).unwrap();
            let err = take(&RealIo, &Fake::new(), &paths, Duration::from_secs(5)).unwrap_err();
            match &err {
                LockError::NeedsPerson { class, .. } => assert_eq!(class.name(), name),
                other => panic!("expected NeedsPerson, got {other}"),
            }
            assert!(err.to_string().contains("a person must"), "{err}");
            assert_eq!(std::fs::read(&paths.lock).unwrap(), bytes);
            assert_eq!(s.git_entries(), ["mosaic-queue.lock"]);
        }
    }

    #[test]
    fn acquire_with_a_fake_probe_writes_its_facts() {
        let s = Scratch::new("fake");
        let paths = s.paths();
        let lock = take(&RealIo, &Fake::new(), &paths, SHORT).unwrap();
        assert_eq!((lock.holder().pid, lock.holder().start), (100, 5));
        let err = take(&RealIo, &Fake::new(), &paths, SHORT).unwrap_err();
        assert!(matches!(err, LockError::Held { .. }), "{err}");
        lock.release().unwrap();
    }

    #[test]
    fn unlock_removes_only_dead_and_mismatched_locks() {
        let probe = Fake::new();
        for (h, want) in [
            (dead(), Unlocked::Dead(dead())),
            (mismatch(), Unlocked::Mismatch(mismatch())),
        ] {
            let s = Scratch::new("unlock-stale");
            let paths = s.paths();
            plant(&paths.lock, &h);
            let done = unlock_with(&RealIo, &probe, &paths, AT).unwrap();
            assert_eq!(done, want);
            assert!(done.to_string().starts_with("removed the"));
            assert!(s.git_entries().is_empty(), "lock and gate are gone");
        }
        for (bytes, name) in [
            (to_canonical(&live()), "live"),
            (to_canonical(&other_host()), "unknown"),
            (b"not json".to_vec(), "invalid"),
        ] {
            let s = Scratch::new("unlock-refuse");
            let paths = s.paths();
            std::fs::write(&paths.lock, &bytes).unwrap();
            let err = unlock_with(&RealIo, &probe, &paths, AT).unwrap_err();
            match &err {
                LockError::Refused { class, .. } => assert_eq!(class.name(), name),
                other => panic!("expected Refused, got {other}"),
            }
            assert_eq!(err.exit_code(), 1);
            assert_eq!(std::fs::read(&paths.lock).unwrap(), bytes);
            assert_eq!(s.git_entries(), ["mosaic-queue.lock"], "the gate is gone");
        }
        let s = Scratch::new("unlock-none");
        assert_eq!(
            unlock_with(&RealIo, &probe, &s.paths(), AT).unwrap(),
            Unlocked::NoLock
        );
        assert!(s.git_entries().is_empty());
    }

    #[test]
    fn unlock_refuses_while_the_gate_is_held() {
        let probe = Fake::new();
        let s = Scratch::new("gate-held");
        let paths = s.paths();
        let lock = plant(&paths.lock, &dead());
        let gate = plant(&paths.gate, &live());
        let err = unlock_with(&RealIo, &probe, &paths, AT).unwrap_err();
        match &err {
            LockError::GateHeld { class, .. } => assert_eq!(class.name(), "live"),
            other => panic!("expected GateHeld, got {other}"),
        }
        assert!(err.to_string().contains("--check-gate"), "{err}");
        assert_eq!(std::fs::read(&paths.lock).unwrap(), lock);
        assert_eq!(std::fs::read(&paths.gate).unwrap(), gate);
        assert_eq!(
            s.git_entries(),
            ["mosaic-queue.lock", "mosaic-queue.unlock"]
        );
    }

    #[test]
    fn unlock_gate_records_the_unlock() {
        // A probe that looks at the gate while unlock holds it.
        struct Peek<'a> {
            inner: Fake,
            gate: &'a Path,
            seen: std::cell::RefCell<Option<Vec<u8>>>,
        }
        impl Probe for Peek<'_> {
            fn own_pid(&self) -> u32 {
                self.inner.own_pid()
            }
            fn running(&self, pid: u32) -> bool {
                if self.seen.borrow().is_none() {
                    *self.seen.borrow_mut() = std::fs::read(self.gate).ok();
                }
                self.inner.running(pid)
            }
            fn start_time(&self, pid: u32) -> Option<u64> {
                self.inner.start_time(pid)
            }
            fn host(&self) -> String {
                self.inner.host()
            }
            fn boot_id(&self) -> io::Result<String> {
                self.inner.boot_id()
            }
        }
        let s = Scratch::new("gate-content");
        let paths = s.paths();
        plant(&paths.lock, &dead());
        let probe = Peek {
            inner: Fake::new(),
            gate: &paths.gate,
            seen: None.into(),
        };
        unlock_with(&RealIo, &probe, &paths, AT).unwrap();
        let seen: Holder = parse_canonical(&probe.seen.take().unwrap()).unwrap();
        assert_eq!(
            (seen.pid, seen.start, seen.op, seen.verb),
            (100, 5, None, "unlock".to_owned())
        );
    }

    #[test]
    fn check_gate_classifies_and_removes_nothing() {
        let probe = Fake::new();
        let s = Scratch::new("check-gate");
        let paths = s.paths();
        assert_eq!(check_gate_with(&RealIo, &probe, &paths).unwrap(), None);
        for (bytes, name) in [
            (to_canonical(&live()), "live"),
            (to_canonical(&dead()), "dead"),
            (to_canonical(&mismatch()), "mismatch"),
            (to_canonical(&other_boot()), "unknown"),
            (b"{\"pid\": 1}".to_vec(), "invalid"),
        ] {
            std::fs::write(&paths.gate, &bytes).unwrap();
            let class = check_gate_with(&RealIo, &probe, &paths).unwrap().unwrap();
            assert_eq!(class.name(), name, "{class}");
            assert_eq!(std::fs::read(&paths.gate).unwrap(), bytes);
        }
    }

    #[test]
    fn stray_temp_files_are_never_read_or_removed() {
        let probe = Fake::new();
        let s = Scratch::new("stray");
        let paths = s.paths();
        let stray_lock = paths
            .git_dir
            .join("mosaic-queue.lock.4242.0123456789abcdef.tmp");
        let stray_gate = paths
            .git_dir
            .join("mosaic-queue.unlock.4242.fedcba9876543210.tmp");
        // Garbage, so reading either as a lock would show up as an invalid class.
        std::fs::write(&stray_lock, b"stray lock temp").unwrap();
        std::fs::write(&stray_gate, b"stray gate temp").unwrap();

        let lock = take(&RealIo, &probe, &paths, SHORT).unwrap();
        assert!(matches!(
            take(&RealIo, &probe, &paths, SHORT),
            Err(LockError::Held { .. })
        ));
        lock.release().unwrap();
        assert_eq!(
            unlock_with(&RealIo, &probe, &paths, AT).unwrap(),
            Unlocked::NoLock
        );
        plant(&paths.lock, &dead());
        assert!(matches!(
            take(&RealIo, &probe, &paths, SHORT),
            Err(LockError::Stale { .. })
        ));
        assert_eq!(
            unlock_with(&RealIo, &probe, &paths, AT).unwrap(),
            Unlocked::Dead(dead())
        );
        assert_eq!(check_gate_with(&RealIo, &probe, &paths).unwrap(), None);

        assert_eq!(std::fs::read(&stray_lock).unwrap(), b"stray lock temp");
        assert_eq!(std::fs::read(&stray_gate).unwrap(), b"stray gate temp");
        assert_eq!(
            s.git_entries(),
            [
                "mosaic-queue.lock.4242.0123456789abcdef.tmp",
                "mosaic-queue.unlock.4242.fedcba9876543210.tmp"
            ]
        );
    }
}
