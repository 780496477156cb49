//! What the follower pushed last: `.git/mosaic-queue.replicated`, one small canonical JSON
//! file beside the witness, written by temp file, fsync and rename after each push that
//! returned, and by `adopt` on the host that adopted. A change under `replication required`
//! answers only once it names a revision at or past the change's; `show`, `list --json`,
//! the board and `doctor` read it as every file of the tool is read.

use std::io;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use mosaic_queue_core::{parse_canonical, to_canonical};
use serde::{Deserialize, Serialize};

use crate::checkout::Paths;
use crate::io::{Io, Kind};
use crate::store::watch::WitnessWatch;

/// The record's file name under `.git`.
pub const NAME: &str = "mosaic-queue.replicated";

/// `.git/mosaic-queue.replicated`.
pub fn path(paths: &Paths) -> PathBuf {
    paths.git_dir.join(NAME)
}

/// One push that returned: the revision it carried (with the witness's chain digest at it),
/// the commit REF names since, the remote and ref as `follow` was given them, and when.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Replicated {
    pub revision: u64,
    pub log_digest: String,
    pub commit: String,
    pub remote: String,
    #[serde(rename = "ref")]
    pub reference: String,
    pub at: String,
}

/// What reading the record found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    /// No follower has pushed from this checkout.
    Missing,
    Read(Replicated),
    /// There, but not a record this tool writes (torn, edited, not a regular file, over its
    /// cap): nothing is believed of it, and nothing counts as replicated.
    Unreadable(String),
}

impl Record {
    /// The record, when one could be read.
    pub fn read_ok(&self) -> Option<&Replicated> {
        match self {
            Record::Read(r) => Some(r),
            _ => None,
        }
    }

    /// The revision the record vouches pushed: 0 when none can be believed.
    pub fn revision(&self) -> u64 {
        self.read_ok().map_or(0, |r| r.revision)
    }
}

/// Reads the record. Never an error: an unreadable record is what no record is for the
/// acknowledgement (nothing counts as replicated), and a reason for `doctor`.
pub fn read(io: &dyn Io, paths: &Paths) -> Record {
    let file = path(paths);
    match io.read(&file, Kind::Replicated) {
        Ok(bytes) => match parse_canonical::<Replicated>(&bytes) {
            Ok(r) => Record::Read(r),
            Err(e) => Record::Unreadable(format!("{} is not a record: {e}", file.display())),
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => Record::Missing,
        Err(e) => match crate::io::into_refusal(e) {
            Ok(refused) => Record::Unreadable(refused.to_string()),
            Err(e) => Record::Unreadable(format!("cannot read {}: {e}", file.display())),
        },
    }
}

/// Writes the record durably: a temp file in `.git`, its fsync, the rename, the fsync of
/// `.git`. A crash leaves the old record or the new one, never a torn one that reads as
/// either; a record that is behind what was pushed only makes the follower look again at the
/// ref, which it does on every start.
pub fn write(io: &dyn Io, paths: &Paths, record: &Replicated) -> io::Result<()> {
    crate::store::write::replace(io, &path(paths), &to_canonical(record), "replicated")?;
    io.sync_dir(&paths.git_dir)?;
    io.step("replicated-dir-synced");
    Ok(())
}

/// How a wait for a revision to be replicated ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reached {
    /// The record names the revision or a later one.
    Yes,
    /// The wait ran out first.
    Timeout,
    /// The fence appeared: the queue was adopted elsewhere, and the line says where.
    Adopted(String),
    /// `.git` could not be watched; the reason.
    Unwatched(String),
}

/// Where a change under `replication required` learns that the follower pushed its revision.
pub trait Replicas {
    /// Until the record names `rev` or later, the fence appears, or `wait` passes.
    fn await_revision(&self, io: &dyn Io, paths: &Paths, rev: u64, wait: Duration) -> Reached;
}

/// What the record and the fence say now, without waiting.
fn look(io: &dyn Io, paths: &Paths, rev: u64) -> Option<Reached> {
    if let Some(line) = crate::store::adopted::read(io, paths).refusal() {
        return Some(Reached::Adopted(line));
    }
    (read(io, paths).revision() >= rev).then_some(Reached::Yes)
}

/// The real wait: the witness watch on `.git`, woken by the record or the fence arriving;
/// each wake reads them again. No timer but the deadline.
#[derive(Debug, Default, Clone, Copy)]
pub struct WatchedReplicas;

impl Replicas for WatchedReplicas {
    fn await_revision(&self, io: &dyn Io, paths: &Paths, rev: u64, wait: Duration) -> Reached {
        let until = Instant::now() + wait;
        // Set up before the first look, so a push that lands between the two still wakes it.
        let names = [NAME, crate::store::adopted::NAME]
            .map(|n| n.as_bytes().to_vec())
            .to_vec();
        let mut watch = match WitnessWatch::for_names(paths, names) {
            Ok(w) => w,
            Err(e) => {
                return look(io, paths, rev)
                    .unwrap_or_else(|| Reached::Unwatched(format!("cannot watch .git: {e}")));
            }
        };
        loop {
            if let Some(reached) = look(io, paths, rev) {
                return reached;
            }
            match watch.wait(Some(until)) {
                Ok(true) => {}
                Ok(false) => return Reached::Timeout,
                Err(e) => return Reached::Unwatched(format!("cannot watch .git: {e}")),
            }
        }
    }
}

/// A look without a wait, for a world in memory: what the record says when the change asks
/// is all it learns (a follower there would be a test's own step).
#[cfg(any(test, feature = "fault-injection"))]
#[derive(Debug, Default, Clone, Copy)]
pub struct LookOnce;

#[cfg(any(test, feature = "fault-injection"))]
impl Replicas for LookOnce {
    fn await_revision(&self, io: &dyn Io, paths: &Paths, rev: u64, _: Duration) -> Reached {
        look(io, paths, rev).unwrap_or(Reached::Timeout)
    }
}
