//! Waking a reader when the witness changes: an inotify watch on `.git` that reports each
//! time `mosaic-queue.head` is renamed into place or written, so `wait` looks again only when
//! a write has become durable, never on a timer. No lock is taken.

use std::io;
use std::mem::MaybeUninit;
use std::os::fd::OwnedFd;
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::fs::inotify;
use rustix::io::Errno;

use super::Paths;

/// A watch on the witness's directory, set up before the caller first looks, so that a write
/// that lands between the look and the wait still wakes it.
pub struct WitnessWatch {
    fd: OwnedFd,
    name: Vec<u8>,
}

impl WitnessWatch {
    pub fn new(paths: &Paths) -> io::Result<WitnessWatch> {
        let fd = inotify::init(inotify::CreateFlags::CLOEXEC | inotify::CreateFlags::NONBLOCK)?;
        // A witness arrives by rename (a write, sync, accept-history); CREATE and CLOSE_WRITE
        // cover one written in place, DELETE one that disappears.
        let flags = inotify::WatchFlags::MOVED_TO
            | inotify::WatchFlags::CREATE
            | inotify::WatchFlags::CLOSE_WRITE
            | inotify::WatchFlags::DELETE
            | inotify::WatchFlags::ONLYDIR;
        inotify::add_watch(&fd, &paths.git_dir, flags)?;
        let name = paths
            .witness
            .file_name()
            .map(|n| n.as_encoded_bytes().to_vec())
            .unwrap_or_default();
        Ok(WitnessWatch { fd, name })
    }

    /// Blocks until the witness may have changed (true) or `until` passes (false); `None`
    /// waits for as long as it takes.
    pub fn wait(&self, until: Option<Instant>) -> io::Result<bool> {
        loop {
            let timeout = match until {
                Some(t) => {
                    let left = t.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Ok(false);
                    }
                    // Capped so the conversion cannot overflow; the loop waits again.
                    Some(Timespec::try_from(left.min(DAY)).map_err(io::Error::other)?)
                }
                None => None,
            };
            let mut fds = [PollFd::new(&self.fd, PollFlags::IN)];
            match poll(&mut fds, timeout.as_ref()) {
                Ok(0) => continue,
                Ok(_) => {}
                Err(e) if e == Errno::INTR => continue,
                Err(e) => return Err(e.into()),
            }
            if self.drain()? {
                return Ok(true);
            }
        }
    }

    /// Reads every pending event; true when one names the witness, or events were lost or the
    /// watch ended, when the caller must look again.
    fn drain(&self) -> io::Result<bool> {
        let mut buf = [MaybeUninit::<u8>::uninit(); 4096];
        let mut events = inotify::Reader::new(&self.fd, &mut buf);
        let mut hit = false;
        loop {
            match events.next() {
                Ok(event) => {
                    let lost = inotify::ReadFlags::QUEUE_OVERFLOW | inotify::ReadFlags::IGNORED;
                    hit |= event.events().intersects(lost)
                        || event.file_name().is_some_and(|n| n.to_bytes() == self.name);
                }
                Err(e) if e == Errno::AGAIN => return Ok(hit),
                Err(e) if e == Errno::INTR => {}
                Err(e) => return Err(e.into()),
            }
        }
    }
}

const DAY: Duration = Duration::from_secs(86_400);
