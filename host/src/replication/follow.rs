//! `follow --to REMOTE [--ref REF]`: the long-running follower of a canonical checkout. It
//! blocks on the witness watch `wait` uses, and for each newest durable revision pushes one
//! commit (`round`): revisions that land during a push go with the next one, so the lag never
//! grows with the write rate. A push the remote refuses or does not answer is tried again
//! after a pause that doubles up to half a minute; a ref that moved under it is looked at again
//! (`start`), and one that holds an adopt of this queue fences the host and ends the follower.

use std::os::fd::OwnedFd;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};

use super::objects::Blobs;
use super::round::{Follower, Pushed, Round, Stop, Target};
use super::start::{self, Inspected, Refusal};
use crate::checkout::Paths;
use crate::io::RealIo;
use crate::reply::{Failure, Replied};
use crate::store::adopted::{self, Adopted, Fence};
use crate::store::replicated;
use crate::store::watch::{WitnessWatch, stoppable};
use crate::store::world::{GitRepository, Repository};
use crate::store::{self, follower, session};

/// The longest pause between two tries of a push that failed.
const MAX_PAUSE: Duration = Duration::from_secs(30);

/// What the follower has to say, as it happens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// It starts on top of this push (`None`: the ref does not exist yet).
    Following {
        remote: String,
        reference: String,
        last: Option<(u64, String)>,
    },
    /// One push that returned.
    Pushed {
        revision: u64,
        commit: String,
        lag: Duration,
        bytes: u64,
    },
    /// The newest revision cannot be pushed as it stands, or the push failed and is tried
    /// again: one line, and the pause before the next try when there is one.
    Held {
        line: String,
        pause: Option<Duration>,
    },
}

/// Runs the follower until `stop` is readable (SIGTERM, Ctrl-C: after the push in flight),
/// giving each event to `event`. Ends with a failure when it cannot start, when the ref may not
/// be pushed to, or when the queue was adopted elsewhere (the fence is written first).
pub fn follow(
    target: &Target,
    stop: Arc<OwnedFd>,
    event: &mut dyn FnMut(Event) -> Replied,
) -> Replied {
    let paths = session::locate()?;
    session::check_filesystem(&paths)?;
    let io = &RealIo;
    let loaded = store::load(io, &paths)?;
    GitRepository.check_queue(&paths, &loaded.queue)?;
    if let Some(line) = fenced(&paths)? {
        return Err(Failure::refused(line).kind("adopted-elsewhere"));
    }
    let _running =
        follower::take(&paths).map_err(|why| Failure::refused(why).kind("follower-running"))?;
    store::sweep_follower_temps(io, &paths);
    let repo = gix::open_opts(&paths.git_dir, gix::open::Options::isolated())
        .map_err(|e| Failure::failed(format!("cannot open the repository: {e}")))?;
    // Set up before the ref is looked at, so a write that lands meanwhile still wakes it.
    let mut watch = WitnessWatch::new(&paths)
        .map_err(|e| Failure::failed(format!("cannot watch .git: {e}")))?;
    let last = match start::inspect(io, &paths, target, &repo, &loaded) {
        Ok(Inspected::Ready(last)) => last,
        Ok(Inspected::Adopted(a)) => return Err(fence(&paths, &a)),
        Err(refusal) => return Err(refused(refusal)),
    };
    event(Event::Following {
        remote: target.remote.clone(),
        reference: target.reference.clone(),
        last: last.as_ref().map(|l| (l.revision, l.commit.to_string())),
    })?;
    let mut follower = Follower {
        paths: paths.clone(),
        target: target.clone(),
        repo,
        blobs: Blobs::default(),
        last,
        pending_since: None,
    };
    // A crash between a push and its record, or a power loss that took the record back,
    // leaves the ref ahead of the record: what the ref holds of this queue is replicated, and
    // a change under `required` waiting for it is answered now, not at the next write.
    if let Some(last) = follower.last.clone() {
        let record = replicated::read(io, &paths);
        let named = record
            .read_ok()
            .is_some_and(|r| r.revision == last.revision && r.commit == last.commit);
        if !named {
            follower.record(io, &last).map_err(|stop| match stop {
                Stop::Queue(why) => Failure::failed(why),
                other => Failure::failed(format!("{other:?}")),
            })?;
        }
    }
    let mut pause: Option<Duration> = None;
    let mut said = String::new();
    loop {
        if stopped(&stop) {
            return Ok(());
        }
        match follower.round(io) {
            Ok(Round::Pushed { pushed, sent, lag }) => {
                pause = None;
                said.clear();
                event(pushed_event(&pushed, sent, lag))?;
                // Revisions that landed during the push go now, before any wait.
                continue;
            }
            Ok(Round::Nothing) => pause = None,
            Ok(Round::Held(line)) => {
                pause = None;
                if line != said {
                    event(Event::Held {
                        line: line.clone(),
                        pause: None,
                    })?;
                    said = line;
                }
            }
            Err(Stop::Remote(failure)) => {
                let next = pause.map_or(Duration::from_secs(1), |p| (p * 2).min(MAX_PAUSE));
                pause = Some(next);
                event(Event::Held {
                    line: format!("push failed: {failure}"),
                    pause: Some(next),
                })?;
            }
            Err(Stop::Rejected) => {
                let loaded = store::load(io, &paths)?;
                match start::inspect(io, &paths, target, &follower.repo, &loaded) {
                    Ok(Inspected::Ready(last)) => {
                        follower.last = last;
                        continue;
                    }
                    Ok(Inspected::Adopted(a)) => return Err(fence(&paths, &a)),
                    Err(refusal) => return Err(refused(refusal)),
                }
            }
            Err(Stop::Queue(why)) => return Err(Failure::failed(why)),
        }
        let until = pause.map(|p| Instant::now() + p);
        match stoppable(stop.clone(), || watch.wait(until)) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => return Ok(()),
            Err(e) => return Err(Failure::failed(format!("cannot watch .git: {e}"))),
        }
    }
}

fn pushed_event(pushed: &Pushed, sent: u64, lag: Duration) -> Event {
    Event::Pushed {
        revision: pushed.revision,
        commit: pushed.commit.to_string(),
        lag,
        bytes: sent,
    }
}

/// The fence's line when one stands already; an unreadable fence is an I/O failure.
fn fenced(paths: &Paths) -> Result<Option<String>, Failure> {
    match adopted::read(&RealIo, paths) {
        Fence::Failed(e) => Err(Failure::failed(format!(
            "cannot read {}: {e}",
            adopted::path(paths).display()
        ))),
        fence => Ok(fence.refusal()),
    }
}

/// Writes the fence for `a` and says why the follower stops.
fn fence(paths: &Paths, a: &Adopted) -> Failure {
    if let Err(e) = adopted::write(&RealIo, paths, a) {
        return Failure::failed(format!(
            "this queue was adopted at {} (rev {}), but the fence cannot be written ({e}); stop every change here by hand",
            a.root, a.revision
        ));
    }
    let line = Fence::Adopted(a.clone()).refusal().unwrap_or_default();
    Failure::refused(format!("the follower stops: {line}")).kind("adopted-elsewhere")
}

fn refused(refusal: Refusal) -> Failure {
    match refusal {
        Refusal::Remote(failure) => Failure::uncertain(format!(
            "{failure}; check the remote and start follow again"
        ))
        .kind("remote"),
        Refusal::Ref(line) => Failure::refused(line).kind("ref-moved"),
    }
}

/// Whether `stop` is readable.
fn stopped(stop: &OwnedFd) -> bool {
    let mut fds = [PollFd::new(stop, PollFlags::IN)];
    let zero = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    matches!(poll(&mut fds, Some(&zero)), Ok(n) if n > 0)
}
