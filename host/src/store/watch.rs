//! Waking a reader when the witness changes: an inotify watch on `.git` that reports each
//! time `mosaic-queue.head` is renamed into place or a write of it is closed, so `wait` looks
//! again only when a write has become durable, never on a timer. No lock is taken.
//!
//! A watch follows an inode, not a path, so a `.git` replaced while the reader waits (a copy
//! moved into place, or swapped in) would leave it watching the old directory. A second watch
//! on the checkout's root reports `.git` arriving or leaving there, and the watch on `.git`
//! reports the directory itself moving or going: either moves the watch to whatever `.git`
//! now is, and the reader looks again.
//!
//! A long-lived caller (the MCP server) can end a wait early: `stoppable` names a descriptor
//! that this thread's waits also watch, and one that becomes readable ends them.

use std::cell::RefCell;
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::OwnedFd;
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::fs::inotify::{self, ReadFlags, WatchFlags};
use rustix::io::Errno;

use crate::checkout::Paths;

thread_local! {
    static STOP: RefCell<Option<Arc<OwnedFd>>> = const { RefCell::new(None) };
}

/// Runs `f` with every wait on this thread also ended, with an `Interrupted` error, once
/// `stop` is readable (an eventfd written by whoever cancels).
pub fn stoppable<T>(stop: Arc<OwnedFd>, f: impl FnOnce() -> T) -> T {
    STOP.set(Some(stop));
    let value = f();
    STOP.set(None);
    value
}

/// A watch on the witness's directory, set up before the caller first looks, so that a write
/// that lands between the look and the wait still wakes it.
pub struct WitnessWatch {
    fd: OwnedFd,
    /// The file names inside `.git` whose arrival wakes the reader: the witness's, or those a
    /// caller names (`for_names`).
    names: Vec<Vec<u8>>,
    git_dir: PathBuf,
    root: PathBuf,
    root_wd: i32,
    /// The watch on `.git` and the directory it follows (device, inode); `None` while no
    /// directory stands at `.git` (between a replacement's two renames).
    dir: Option<Watched>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
struct Watched {
    wd: i32,
    id: (u64, u64),
}

/// What one read of the pending events asks for.
#[derive(Default)]
struct Wake {
    /// The witness may have changed: look again.
    look: bool,
    /// `.git` (or the root) may stand for another directory now: watch it again.
    rearm: bool,
}

/// The events that end or move a watched directory itself.
const GONE: ReadFlags = ReadFlags::DELETE_SELF
    .union(ReadFlags::MOVE_SELF)
    .union(ReadFlags::IGNORED)
    .union(ReadFlags::UNMOUNT);

impl WitnessWatch {
    pub fn new(paths: &Paths) -> io::Result<WitnessWatch> {
        let name = paths
            .witness
            .file_name()
            .map(|n| n.as_encoded_bytes().to_vec())
            .unwrap_or_default();
        WitnessWatch::for_names(paths, vec![name])
    }

    /// The same watch, woken by any of `names` under `.git` instead of the witness (the
    /// follower's record and the fence, which a change under `replication required` awaits).
    pub fn for_names(paths: &Paths, names: Vec<Vec<u8>>) -> io::Result<WitnessWatch> {
        let fd = inotify::init(inotify::CreateFlags::CLOEXEC | inotify::CreateFlags::NONBLOCK)?;
        let root_wd = watch_root(&fd, &paths.root)?;
        let mut watch = WitnessWatch {
            fd,
            names,
            git_dir: paths.git_dir.clone(),
            root: paths.root.clone(),
            root_wd,
            dir: None,
        };
        watch.dir = Some(watch.watch_git_dir()?.ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                "the checkout has no .git directory",
            )
        })?);
        Ok(watch)
    }

    /// Blocks until the witness may have changed (true) or `until` passes (false); `None`
    /// waits for as long as it takes. While no directory stands at `.git` it keeps waiting
    /// for one to arrive: a replacement half done is nothing to look at.
    pub fn wait(&mut self, until: Option<Instant>) -> io::Result<bool> {
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
            let stop = STOP.with_borrow(Clone::clone);
            let mut fds = vec![PollFd::new(&self.fd, PollFlags::IN)];
            if let Some(stop) = &stop {
                fds.push(PollFd::new(stop.as_ref(), PollFlags::IN));
            }
            match poll(&mut fds, timeout.as_ref()) {
                Ok(0) => continue,
                Ok(_) => {}
                Err(e) if e == Errno::INTR => continue,
                Err(e) => return Err(e.into()),
            }
            if fds.get(1).is_some_and(|f| !f.revents().is_empty()) {
                return Err(io::Error::new(
                    io::ErrorKind::Interrupted,
                    "the wait was cancelled",
                ));
            }
            let wake = self.drain()?;
            // A witness event from a directory no longer at `.git` is another directory's.
            let moved = wake.look
                && self
                    .dir
                    .is_some_and(|d| identity(&self.git_dir) != Some(d.id));
            if wake.rearm || moved {
                self.rearm(wake.rearm)?;
                // A write may have landed in the new `.git` before its watch: look there.
                if self.dir.is_some() {
                    return Ok(true);
                }
            } else if wake.look {
                return Ok(true);
            }
        }
    }

    /// Reads every pending event and says what they ask for. A lost event (the queue
    /// overflowed) may have been any of them.
    fn drain(&self) -> io::Result<Wake> {
        let mut buf = [MaybeUninit::<u8>::uninit(); 4096];
        let mut events = inotify::Reader::new(&self.fd, &mut buf);
        let mut wake = Wake::default();
        loop {
            let event = match events.next() {
                Ok(event) => event,
                Err(e) if e == Errno::AGAIN => return Ok(wake),
                Err(e) if e == Errno::INTR => continue,
                Err(e) => return Err(e.into()),
            };
            let flags = event.events();
            let named = |n: &[u8]| event.file_name().is_some_and(|f| f.to_bytes() == n);
            if flags.contains(ReadFlags::QUEUE_OVERFLOW) {
                wake.look = true;
                wake.rearm = true;
            } else if event.wd() == self.root_wd {
                wake.rearm |= flags.intersects(GONE) || named(b".git");
            } else if self.dir.is_some_and(|d| d.wd == event.wd()) {
                wake.rearm |= flags.intersects(GONE);
                wake.look |= self.names.iter().any(|n| named(n));
            }
            // Anything else is from a watch already replaced, whose directory is not `.git`.
        }
    }

    /// Moves the watch on `.git` to the directory standing there now, if one does; with
    /// `root` the root's watch too (the root itself may have been replaced).
    fn rearm(&mut self, root: bool) -> io::Result<()> {
        if root {
            // Watching the same inode again returns the same descriptor, so no event is lost.
            self.root_wd = watch_root(&self.fd, &self.root)?;
        }
        if let Some(old) = self.dir.take() {
            // It may be gone already (IGNORED): nothing to remove then.
            let _ = inotify::remove_watch(&self.fd, old.wd);
        }
        self.dir = self.watch_git_dir()?;
        Ok(())
    }

    /// A watch on the directory at `.git` now; `None` when nothing stands there.
    fn watch_git_dir(&self) -> io::Result<Option<Watched>> {
        // The identity is taken first: if `.git` is replaced before the watch is set, the
        // next wake finds the two differ and watches again, never the other way round.
        let Some(id) = identity(&self.git_dir) else {
            return Ok(None);
        };
        // A witness arrives by rename (a write, sync, accept-history); CLOSE_WRITE covers one
        // written in place, once its writer closes it (a witness just created is empty, so its
        // CREATE is not looked on). One removed is not looked at: without a witness nothing
        // is durable, and the `.git` it went with may be on its way out while a copy takes its
        // place. The SELF events say the directory itself moved or went.
        let flags = WatchFlags::MOVED_TO
            | WatchFlags::CLOSE_WRITE
            | WatchFlags::DELETE_SELF
            | WatchFlags::MOVE_SELF
            | WatchFlags::ONLYDIR;
        match inotify::add_watch(&self.fd, &self.git_dir, flags) {
            Ok(wd) => Ok(Some(Watched { wd, id })),
            Err(e) if e == Errno::NOENT => Ok(None),
            Err(e) => Err(e.into()),
        }
    }
}

/// The watch on the checkout's root: `.git` renamed or created there, removed or renamed
/// away, and the root itself moving or going.
fn watch_root(fd: &OwnedFd, root: &std::path::Path) -> io::Result<i32> {
    let flags = WatchFlags::MOVED_TO
        | WatchFlags::MOVED_FROM
        | WatchFlags::CREATE
        | WatchFlags::DELETE
        | WatchFlags::DELETE_SELF
        | WatchFlags::MOVE_SELF
        | WatchFlags::ONLYDIR;
    Ok(inotify::add_watch(fd, root, flags)?)
}

/// The device and inode of the directory at `path` (through a symlink), if one stands there.
fn identity(path: &std::path::Path) -> Option<(u64, u64)> {
    std::fs::metadata(path)
        .ok()
        .filter(|m| m.is_dir())
        .map(|m| (m.dev(), m.ino()))
}

const DAY: Duration = Duration::from_secs(86_400);
