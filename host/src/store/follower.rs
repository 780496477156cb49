//! One follower per checkout: `.git/mosaic-queue.follow`, a file the running follower holds an
//! exclusive `flock` on for as long as it runs. The kernel drops the lock when the process
//! ends however it ends, so a killed follower never leaves a lock behind, and `doctor` tells
//! a running follower from none by asking for the lock without taking it for long.

use std::io;
use std::os::fd::OwnedFd;
use std::path::PathBuf;

use rustix::fs::{self, FileType, FlockOperation, Mode, OFlags};
use rustix::io::Errno;

use crate::checkout::Paths;

/// The file's name under `.git`.
pub const NAME: &str = "mosaic-queue.follow";

pub fn path(paths: &Paths) -> PathBuf {
    paths.git_dir.join(NAME)
}

/// The held lock; dropped, the follower is no longer running.
#[derive(Debug)]
pub struct Running {
    _fd: OwnedFd,
}

/// Whether a follower runs in the checkout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Follower {
    Running,
    NotRunning,
    /// The lock file could not be looked at: what went wrong.
    Unknown(String),
}

/// Opens the lock file without following a symlink or blocking, and checks what it is.
fn open(paths: &Paths, create: bool) -> io::Result<OwnedFd> {
    let mut flags = OFlags::RDWR | OFlags::CLOEXEC | OFlags::NOFOLLOW | OFlags::NONBLOCK;
    if create {
        flags |= OFlags::CREATE;
    }
    let fd = fs::open(path(paths), flags, Mode::from_raw_mode(0o600))?;
    if FileType::from_raw_mode(fs::fstat(&fd)?.st_mode) != FileType::RegularFile {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a regular file; remove it", path(paths).display()),
        ));
    }
    Ok(fd)
}

/// Takes the lock for this process, or says which follower holds it.
pub fn take(paths: &Paths) -> Result<Running, String> {
    let file = path(paths);
    let fd = open(paths, true).map_err(|e| format!("cannot open {}: {e}", file.display()))?;
    match fs::flock(&fd, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(Running { _fd: fd }),
        Err(e) if e == Errno::WOULDBLOCK => Err(String::from(
            "another follower is running in this checkout; stop it first (one follower pushes a checkout's queue)",
        )),
        Err(e) => Err(format!("cannot lock {}: {e}", file.display())),
    }
}

/// Whether a follower holds the lock now (nothing is created; the probe's own lock is
/// dropped at once).
pub fn probe(paths: &Paths) -> Follower {
    let fd = match open(paths, false) {
        Ok(fd) => fd,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Follower::NotRunning,
        Err(e) => return Follower::Unknown(e.to_string()),
    };
    match fs::flock(&fd, FlockOperation::NonBlockingLockShared) {
        Ok(()) => Follower::NotRunning,
        Err(e) if e == Errno::WOULDBLOCK => Follower::Running,
        Err(e) => Follower::Unknown(e.to_string()),
    }
}
