//! The reads of what a cut archived: `show ID`, `log ID`, `wait ID` and `review
//! verify-commit ID` of an archived row read the archives its epoch names (bounded, each
//! checked against its SHA-256) instead of queue.json, so a row done long ago still shows as
//! it ended and with every entry that touched it.

use mosaic_queue_core::{Entry, Queue, Row, State, Verb, VerbError};

use crate::checkout::Paths;
use crate::io::{Io, RealIo};
use crate::reply::{Failure, Reply};
use crate::store::cut::epochs;
use crate::store::session::SessionError;
use crate::store::world::World;

/// An archived row as it stood at its cut, with the archive's verified queue (its state for
/// the move reason and dependencies, its log for a round's manifest) and its path.
pub struct Archived {
    pub queue: Queue,
    pub file: String,
    pub id: u64,
}

impl Archived {
    pub fn state(&self) -> &State {
        self.queue.state()
    }

    pub fn row(&self) -> Result<&Row, Failure> {
        Ok(self.state().row(self.id)?)
    }
}

/// Where row `id` is when the state the read view gave lacks it (the view holds the rows, not
/// the epoch): in queue.json after all (a write since the view; its queue), or in an archive.
/// Refused as `no row` when neither holds it.
pub enum Found {
    Now(Queue),
    Archived(Archived),
}

pub fn find(
    world: World<'_>,
    paths: &Paths,
    id: u64,
    reply: &mut dyn Reply,
) -> Result<Found, Failure> {
    let queue = super::load::load_unlocked(world, paths, reply)?.queue;
    match queue.state().row(id) {
        Ok(_) => Ok(Found::Now(queue)),
        Err(VerbError::RowArchived { epoch, .. }) => {
            Ok(Found::Archived(row(world.io, paths, &queue, id, epoch)?))
        }
        Err(e) => Err(e.into()),
    }
}

/// Row `id`, which `queue`'s epoch says cut `epoch` archived, read from that archive (which
/// is verified: it is a queue file of its own).
pub fn row(
    io: &dyn Io,
    paths: &Paths,
    queue: &Queue,
    id: u64,
    epoch: u32,
) -> Result<Archived, Failure> {
    let info = queue
        .epoch()
        .and_then(|e| e.archives.iter().find(|a| a.epoch == epoch))
        .ok_or_else(|| Failure::from(mosaic_queue_core::VerbError::NoSuchRow { id }))?;
    let bytes = epochs::read(io, paths, &info.file, &info.sha).map_err(SessionError::from)?;
    let queue = Queue::verify(&bytes).map_err(SessionError::from)?;
    Ok(Archived {
        queue,
        file: info.file.clone(),
        id,
    })
}

/// Every entry of the archives 1 to `epoch` (oldest first), the epoch entries that open the
/// later ones left out: each archive goes on where the one before it stopped.
pub fn entries(paths: &Paths, queue: &Queue, epoch: u32) -> Result<Vec<Entry>, Failure> {
    let Some(e) = queue.epoch() else {
        return Ok(Vec::new());
    };
    let mut all = Vec::new();
    for info in e.archives.iter().filter(|a| a.epoch <= epoch) {
        let bytes =
            epochs::read(&RealIo, paths, &info.file, &info.sha).map_err(SessionError::from)?;
        let file = mosaic_queue_core::parse_queue(&bytes).map_err(|e| {
            SessionError::from(crate::store::StoreError::ArchiveInvalid {
                file: info.file.clone(),
                why: e.to_string(),
            })
        })?;
        all.extend(file.log.into_iter().filter(|e| e.verb != Verb::Epoch));
    }
    Ok(all)
}
