//! The verbs that look after the queue's files rather than its rows, as the session runs them:
//! `verify` (the file, its history, the table), `render` (a stale table rewritten), `sync` (a
//! visible tail made durable) and `unlock` (a dead lock removed). Each returns what the CLI
//! prints; none logs an entry.

use mosaic_queue_core::{BodyStatus, Entry, markdown};

use super::lock::{self, Class, Unlocked};
use super::session::{Session, SessionError};
use super::world::World;
use super::{Loaded, StoreError};
use crate::checkout::Paths;
use crate::io::Io;

/// What `verify` found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    pub rev: u64,
    pub entries: usize,
    /// The witness's revision (0 with none, which `load` refuses).
    pub witness_rev: u64,
}

/// What `render` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rendered {
    /// The table was current at this revision: nothing written.
    Current(u64),
    /// The table was stale and is now rendered at this revision.
    Rewritten(u64),
}

/// What `sync` confirmed: the revision, the ops it made durable (oldest first), and the op it
/// was asked about.
#[derive(Debug, Clone)]
pub struct Synced {
    pub rev: u64,
    pub tail: Vec<Entry>,
    pub asked: Option<Entry>,
    /// The archive that holds the op asked about, when a cut archived it.
    pub archived: Option<String>,
}

impl Session<'_> {
    /// `verify [--current]`: the file verifies and extends the witness; with `current`, the
    /// table is a current render of it.
    pub fn verify(&self, current: bool) -> Result<Verified, SessionError> {
        let loaded = self.load()?;
        if current {
            let md = self.table_text()?;
            let body =
                markdown::body(&md).map_err(|e| SessionError::TableMarkers(e.to_string()))?;
            match super::table_status(self.world().io, self.paths(), &loaded.queue, body) {
                BodyStatus::Current => {}
                BodyStatus::Stale { rev } => {
                    return Err(SessionError::TableStale {
                        rev,
                        then: "look, then run `mosaic-queue render`",
                    });
                }
                BodyStatus::Unknown => {
                    return Err(SessionError::NotARender(
                        "restore it with git, then run `mosaic-queue render`",
                    ));
                }
            }
        }
        Ok(Verified {
            rev: loaded.queue.revision(),
            entries: loaded.queue.file().log.len(),
            witness_rev: loaded.witness.as_ref().map_or(0, |w| w.revision),
        })
    }

    /// `render [--check]`: rewrites a stale table (with `check`, refuses it instead); a
    /// current one is left alone.
    pub fn render(&self, check: bool) -> Result<Rendered, SessionError> {
        let loaded = self.load()?;
        let md = self.table_text()?;
        let body = markdown::body(&md).map_err(|e| SessionError::TableMarkers(e.to_string()))?;
        let rev = loaded.queue.revision();
        match super::table_status(self.world().io, self.paths(), &loaded.queue, body) {
            BodyStatus::Current => Ok(Rendered::Current(rev)),
            BodyStatus::Stale { rev: old } if check => Err(SessionError::TableStale {
                rev: old,
                then: "run `mosaic-queue render`",
            }),
            BodyStatus::Stale { .. } => {
                self.rewrite_table(&loaded.queue, &md)?;
                Ok(Rendered::Rewritten(rev))
            }
            BodyStatus::Unknown => Err(SessionError::NotARender(
                "restore it with git or re-apply the edit as queue ops first",
            )),
        }
    }

    /// `sync [--op ID]`: writes the verified file again, then the witness, for a file ahead of
    /// it. An op asked about that is not in the log is refused before anything is written.
    pub fn sync(&self, op: Option<&str>) -> Result<Synced, SessionError> {
        // Unchecked, so that a file that does not extend the witness gets sync's own refusal.
        let loaded = self.load_unchecked()?;
        let (io, paths) = (self.world().io, self.paths());
        let confirmed = confirmed_rev(io, paths, &loaded)?;
        let queue = &loaded.queue;
        let rev = queue.revision();
        let (asked, archived) = match op {
            Some(op) => match queue.entry_for_op(op) {
                Some(e) => (Some(e.clone()), None),
                // An op a cut archived is durable: its archive was before the cut was.
                None => {
                    let (e, file) = super::cut::history::archived_entry(io, paths, queue, op)?
                        .ok_or_else(|| SessionError::NotInLog {
                            op: op.to_owned(),
                            rev,
                        })?;
                    (Some(e), Some(file))
                }
            },
            None => (None, None),
        };
        let tail = super::cut::history::entries_after(io, paths, queue, confirmed)?;
        if !tail.is_empty() {
            // Loaded unchecked: the chain is hashed from genesis, not continued from the old
            // witness.
            self.confirm(&loaded, None)?;
        }
        Ok(Synced {
            rev,
            tail,
            asked,
            archived,
        })
    }
}

/// The revision already confirmed durable: the witness's, or 0 for a file holding genesis
/// alone with no witness. Anything else that does not extend the witness is Manual recovery.
/// A witness older than the epoch is checked through the archives, as every load checks it
/// (an archive missing or changed is its own refusal).
fn confirmed_rev(io: &dyn Io, paths: &Paths, loaded: &Loaded) -> Result<u64, SessionError> {
    let rev = loaded.queue.revision();
    match &loaded.witness {
        None if rev == 1 => Ok(0),
        None => Err(SessionError::SyncWithoutWitness { rev }),
        Some(w) => {
            match super::cut::history::check_extends(io, paths, &loaded.queue, &loaded.sha, w) {
                Ok(()) => Ok(w.revision),
                Err(StoreError::Witness(e)) => {
                    let msg = e.to_string();
                    let hint = if msg.contains("Manual recovery") {
                        ""
                    } else {
                        " (see Manual recovery)"
                    };
                    Err(SessionError::SyncLost(format!("{msg}{hint}")))
                }
                Err(e) => Err(e.into()),
            }
        }
    }
}

/// `unlock`: removes a dead or mismatched queue lock under the unlock gate. It never takes the
/// queue lock and does not need a valid queue.json, since a killed recovery may have left it.
pub fn unlock(world: World<'_>, paths: &Paths) -> Result<Unlocked, SessionError> {
    // A standby's adopt runs where queue.json still names the old host's root, so the lock a
    // killed adopt leaves there must come off there too, or its retry could never run.
    if !adopt_left_it(world, paths) {
        check_canonical(world, paths)?;
    }
    Ok(lock::unlock_with(
        world.io,
        world.probe,
        paths,
        &world.clock.now(),
    )?)
}

/// `unlock --check-gate`: classifies a stale unlock gate and removes nothing.
pub fn check_gate(world: World<'_>, paths: &Paths) -> Result<Option<Class>, SessionError> {
    check_canonical(world, paths)?;
    Ok(lock::check_gate_with(world.io, world.probe, paths)?)
}

/// Whether the queue lock here is an `adopt`'s (the verb that runs outside the canonical
/// root); `unlock_with` still removes it only when its holder is dead or mismatched.
fn adopt_left_it(world: World<'_>, paths: &Paths) -> bool {
    matches!(
        lock::inspect(world.io, world.probe, &paths.lock),
        Ok(Some(class)) if class.holder().is_some_and(|h| h.verb == "adopt")
    )
}

/// The canonical-checkout rules, as far as queue.json can tell them: a file that is missing or
/// does not verify still lets `unlock` run, because the lock lives in this checkout's own .git
/// and Manual recovery may need it removed.
fn check_canonical(world: World<'_>, paths: &Paths) -> Result<(), SessionError> {
    match super::load_unchecked(world.io, paths) {
        Ok(loaded) => Ok(world.repo.check_queue(paths, &loaded.queue)?),
        Err(_) => Ok(()),
    }
}
