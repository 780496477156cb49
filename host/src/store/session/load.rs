//! Loading under the witness rule: the unlocked reads (the read view when it answers, else
//! queue.json read and replayed, once more under the lock if that failed), the loads under the
//! lock, and QUEUE.md as read under it.

use std::io;
use std::path::Path;

use mosaic_queue_core::{BodyStatus, Queue, State, markdown};

use super::error::SessionError;
use super::open::Session;
use crate::checkout::Paths;
use crate::io::{Io, Kind, RealIo};
use crate::store::view::Listing;
use crate::store::world::World;
use crate::store::{self, Loaded};

/// A file read as the store reads its own (docs/limits.md): never blocking, only a regular
/// file within `kind`'s cap, and never through a symlink unless a person named the path.
pub fn read_file(path: &Path, kind: Kind) -> io::Result<Vec<u8>> {
    RealIo.read(path, kind)
}

/// What an unlocked read sees: the state, and whether the witness confirms it durable.
pub struct Seen {
    pub state: State,
    pub durable: bool,
}

/// The unlocked read (list, show, next, verify-commit). The read view answers when the witness
/// and queue.json are exactly what the last durable write left; otherwise the file is read and
/// replayed unlocked, and once more under the lock if that failed, so a write in progress never
/// reads as loss.
pub fn read_unlocked(world: World<'_>, paths: &Paths) -> Result<Seen, SessionError> {
    let io = world.io;
    if let Ok(Some(witness)) = store::read_witness(io, paths)
        && let Some(state) = store::view::load(io, paths, &witness)
    {
        world.repo.check_state(paths, &state)?;
        return Ok(Seen {
            state,
            durable: true,
        });
    }
    let loaded = load_unlocked(world, paths)?;
    Ok(Seen {
        durable: !loaded.ahead_of_witness(),
        state: loaded.queue.state().clone(),
    })
}

/// The read view as a `Listing` for `list --json`, which prints the rows' text as the view
/// holds it, checked against the checkout; `None` when the view cannot answer, and the
/// caller reads as `read_unlocked` does.
pub fn read_listing(world: World<'_>, paths: &Paths) -> Result<Option<Listing>, SessionError> {
    let io = world.io;
    if let Ok(Some(witness)) = store::read_witness(io, paths)
        && let Some(listing) = store::view::load_listing(io, paths, &witness)
    {
        world.repo.check_state(paths, &listing.state)?;
        return Ok(Some(listing));
    }
    Ok(None)
}

/// The state the witness vouches durable (for `wait`), or `None` while the file is ahead of it
/// (a write in progress, or one killed before its witness): the next witness wakes the
/// caller. Never takes the lock; a read that fails is tried once more, since the first may
/// have met a write between its two files.
pub fn read_durable(world: World<'_>, paths: &Paths) -> Result<Option<State>, SessionError> {
    let io = world.io;
    if let Ok(Some(w)) = store::read_witness(io, paths)
        && let Some(state) = store::view::load(io, paths, &w)
    {
        world.repo.check_state(paths, &state)?;
        return Ok(Some(state));
    }
    let loaded = match store::load(io, paths) {
        Ok(l) => l,
        Err(_) => store::load(io, paths)?,
    };
    world.repo.check_queue(paths, &loaded.queue)?;
    if loaded.witness.is_none() {
        return Err(SessionError::NothingDurable);
    }
    if loaded.ahead_of_witness() {
        return Ok(None);
    }
    Ok(Some(loaded.queue.state().clone()))
}

/// The whole verified queue, read as `read_unlocked` falls back to reading it (for a read that
/// needs the log, which the read view does not hold): queue.json read and replayed without the
/// lock, and once more under it if that failed (a write in progress), checked against the
/// checkout.
pub fn load_unlocked(world: World<'_>, paths: &Paths) -> Result<Loaded, SessionError> {
    let loaded = match store::load(world.io, paths) {
        Ok(l) => l,
        Err(_) => {
            let session = Session::open(world, paths, Some("unlocked-read"), "read")?;
            let l = store::load(world.io, paths)?;
            session.release()?;
            l
        }
    };
    world.repo.check_queue(paths, &loaded.queue)?;
    Ok(loaded)
}

impl Session<'_> {
    /// Loads under the witness rule: the file verifies, extends the witness, which must exist,
    /// and belongs to this checkout.
    pub fn load(&self) -> Result<Loaded, SessionError> {
        let loaded = store::load(self.io, &self.paths)?;
        self.world.repo.check_queue(&self.paths, &loaded.queue)?;
        if loaded.witness.is_none() {
            return Err(SessionError::NoWitness);
        }
        Ok(loaded)
    }

    /// Loads a file that must verify and belong to this checkout but need not extend the
    /// witness: for the verbs that run in that state (`accept-history`, `sync`).
    pub fn load_unchecked(&self) -> Result<Loaded, SessionError> {
        let loaded = store::load_unchecked(self.io, &self.paths)?;
        self.world.repo.check_queue(&self.paths, &loaded.queue)?;
        Ok(loaded)
    }

    /// QUEUE.md's bytes as they are now.
    pub fn read_table(&self) -> Result<Vec<u8>, SessionError> {
        self.io
            .read(&self.paths.queue_md, Kind::QueueMd)
            .map_err(|e| match e.kind() {
                io::ErrorKind::NotFound => SessionError::TableMissing,
                _ => store::io_err("read", &self.paths.queue_md)(e).into(),
            })
    }

    /// QUEUE.md's text: every verb that reads it refuses a non-UTF-8 file alike.
    pub fn table_text(&self) -> Result<String, SessionError> {
        String::from_utf8(self.read_table()?).map_err(|_| SessionError::TableNotUtf8)
    }

    /// QUEUE.md as read under the lock, refused when its markers are missing or its body is a
    /// hand edit (a write would overwrite it).
    pub fn table(&self, queue: &Queue, then: &'static str) -> Result<String, SessionError> {
        let md = self.table_text()?;
        let body = markdown::body(&md).map_err(|e| SessionError::TableMarkers(e.to_string()))?;
        if store::table_status(self.io, &self.paths, queue, body) == BodyStatus::Unknown {
            return Err(SessionError::HandEdit { then });
        }
        Ok(md)
    }
}
