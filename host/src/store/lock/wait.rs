//! Waiting for a live holder to let go without a fixed-interval sleep: an inotify watch on
//! `.git` wakes the waiter when the lock's name is deleted or renamed away.

use std::ffi::OsStr;
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::fs::inotify;
use rustix::io::Errno;

/// Waits for a directory entry to leave: inotify when the kernel gives us an instance, else
/// (instances exhausted) a growing sleep, so the wait still ends.
pub(super) enum Waiter {
    Watch { fd: OwnedFd, name: Vec<u8> },
    Backoff(Duration),
}

const BACKOFF_START: Duration = Duration::from_millis(10);
const BACKOFF_MAX: Duration = Duration::from_millis(500);

impl Waiter {
    pub(super) fn new(dir: &Path, name: &OsStr) -> Waiter {
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
    pub(super) fn wait(&mut self, timeout: Duration) -> io::Result<()> {
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
