//! What a session is and how it starts and ends: the held queue lock with the world, the
//! checkout's paths and the command's start time that every read and write under it uses;
//! `locate` finds the checkout, `At` is a world with its checkout (located, or to be where a
//! verb looks), and `check_filesystem` refuses one durability does not cover.

use super::error::SessionError;
use crate::checkout::{self, Paths};
use crate::io::{Io, RealIo};
use crate::store::lock::{self, Lock, LockError};
use crate::store::world::World;
use crate::store::{self, StoreError};

/// The checkout around the working directory, its shape checked (not yet against the queue).
pub fn locate() -> Result<Paths, SessionError> {
    let cwd = std::env::current_dir().map_err(SessionError::WorkingDir)?;
    Ok(checkout::locate(&cwd)?)
}

/// Where a verb runs: a world, and the checkout in it, located already or (the real world
/// outside a checkout) located where the verb looks for it, so it refuses as it always has.
#[derive(Clone, Copy)]
pub struct At<'a> {
    pub world: World<'a>,
    located: Option<&'a Paths>,
}

impl<'a> At<'a> {
    /// `world` with its checkout at `paths`.
    pub fn new(world: World<'a>, paths: &'a Paths) -> At<'a> {
        At {
            world,
            located: Some(paths),
        }
    }

    /// The real world, its checkout not yet located: `paths` looks around the working
    /// directory and refuses as `locate` does.
    pub fn unlocated() -> At<'static> {
        At {
            world: World::real(),
            located: None,
        }
    }

    /// This place with changes waiting `wait` for the follower.
    pub fn waiting_for_replicas(self, wait: std::time::Duration) -> At<'a> {
        At {
            world: self.world.waiting_for_replicas(wait),
            ..self
        }
    }

    /// The checkout's paths.
    pub fn paths(&self) -> Result<Paths, SessionError> {
        match self.located {
            Some(paths) => Ok(paths.clone()),
            None => locate(),
        }
    }
}

/// Refuses a checkout whose directories are on a filesystem the durability claims do not cover.
pub fn check_filesystem(paths: &Paths) -> Result<(), StoreError> {
    store::check_filesystem(&RealIo, paths)
}

/// A held queue lock and what the session needs to read and write under it.
pub struct Session<'w> {
    pub(super) world: World<'w>,
    pub(super) io: &'w dyn Io,
    pub(super) paths: Paths,
    lock: Lock<'w>,
    pub(super) at: String,
}

impl Session<'static> {
    /// Takes the lock in the real world for `verb`, recording `op` (`None` for a command
    /// that has no op id of its own). A verb that writes the queue calls `check_filesystem`
    /// first.
    pub fn begin(paths: &Paths, op: Option<&str>, verb: &str) -> Result<Self, SessionError> {
        Session::open(World::real(), paths, op, verb)
    }
}

impl<'w> Session<'w> {
    /// Takes the lock in `world`, stamped with the time this command started.
    pub fn open(
        world: World<'w>,
        paths: &Paths,
        op: Option<&str>,
        verb: &str,
    ) -> Result<Self, SessionError> {
        let at = world.clock.now();
        let lock =
            lock::acquire_with(world.io, world.probe, paths, op, verb, &at, world.lock_wait)?;
        Ok(Session {
            world,
            io: world.io,
            paths: paths.clone(),
            lock,
            at,
        })
    }

    pub fn paths(&self) -> &Paths {
        &self.paths
    }

    /// The world this session runs in.
    pub fn world(&self) -> World<'w> {
        self.world
    }

    /// The time this command started, as entries and the witness record it.
    pub fn at(&self) -> &str {
        &self.at
    }

    /// Removes the lock.
    pub fn release(self) -> Result<(), SessionError> {
        Ok(self.lock.release()?)
    }

    /// Removes the lock once the command's answer has printed. A failure then cannot undo what
    /// was acknowledged, so it is a warning on stderr naming the cure (the lock may be left,
    /// dead once this process exits), not a failed exit.
    pub fn release_after_answer(self) {
        let warn = self.world.warn;
        let line = match self.lock.release() {
            Ok(()) => return,
            // Someone else removed or replaced it: what to check is in the message.
            Err(e @ LockError::Lost { .. }) => format!("warning: done, but {e}"),
            Err(e) => format!(
                "warning: done, but the queue lock may not be released ({e}); if `mosaic-queue doctor` names a dead lock, run `mosaic-queue unlock`"
            ),
        };
        warn(&line);
    }
}
