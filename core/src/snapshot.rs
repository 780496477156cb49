//! Verifying a snapshot: the pair `queue.json` + `QUEUE.md` is valid, the table is the
//! current render of the file, and with a base, the file's log extends the base's log entry
//! for entry (through the snapshot's archives where the base is older than its cut). Bytes in,
//! verdict out, so the native CLI and the wasm sandbox give one verdict.

use alloc::vec::Vec;

use crate::chain::digest_at;
use crate::digest::sha256_hex;
use crate::entry::{Args, Entry, Verb};
use crate::error::SnapshotError;
use crate::file::{QueueFile, parse_queue};
use crate::hex::hex;
use crate::queue::Queue;
use crate::table::{self, BodyStatus};

/// A snapshot that passed (certified): its revision, and the base revision it extends. (A
/// reviewer's approve or changes is `model::Verdict`; this is not one.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Certified {
    pub revision: u64,
    pub base_revision: Option<u64>,
}

/// Verifies `json` and `md` as a snapshot, against `base` (another queue.json) when given.
pub fn verify_snapshot(
    json: &[u8],
    md: &[u8],
    base: Option<&[u8]>,
) -> Result<Certified, SnapshotError> {
    verify_snapshot_archived(json, md, base, &[])
}

/// `verify_snapshot` with the snapshot's archives (the bytes under `docs/plans/archive/`, in
/// any order): a base older than the snapshot's cut is compared with the entries the archives
/// hold. Each archive used must hash to the sha the snapshot's epoch records.
pub fn verify_snapshot_archived(
    json: &[u8],
    md: &[u8],
    base: Option<&[u8]>,
    archives: &[&[u8]],
) -> Result<Certified, SnapshotError> {
    let queue = Queue::verify(json).map_err(SnapshotError::Invalid)?;
    let revision = queue.revision();
    let text = core::str::from_utf8(md).map_err(|_| SnapshotError::TableNotUtf8)?;
    let body = table::body(text).map_err(SnapshotError::Markers)?;
    match queue.body_status(body) {
        BodyStatus::Current => {}
        BodyStatus::Stale { rev } => {
            return Err(SnapshotError::Stale {
                rendered: rev,
                revision,
            });
        }
        BodyStatus::Unknown => return Err(SnapshotError::UnknownTable),
    }
    let Some(base_bytes) = base else {
        return Ok(Certified {
            revision,
            base_revision: None,
        });
    };
    let base = Queue::verify(base_bytes).map_err(SnapshotError::BaseInvalid)?;
    let base_revision = base.revision();
    if base_revision > revision {
        return Err(SnapshotError::Behind {
            revision,
            base: base_revision,
        });
    }
    let older = needed_archives(queue.file(), base.file(), archives)?;
    let mut files: Vec<&QueueFile> = older.iter().collect();
    files.push(queue.file());
    // Both files re-serialize byte for byte, so equal entries are equal canonical bytes, which
    // is what the witness's digest chain hashes. Walking names the first difference.
    for theirs in &base.file().log {
        if counterpart(&files, theirs) != Some(theirs) {
            return Err(SnapshotError::Diverged { rev: theirs.rev });
        }
    }
    Ok(Certified {
        revision,
        base_revision: Some(base_revision),
    })
}

/// The archives of `ours` from the first that holds an entry `base` has and `ours` no longer
/// does through the last, parsed, in order: each picked from `given` by the sha the epoch
/// records, and each ending at the digest the next epoch entry records, so the chain the
/// base's entries are compared along is the snapshot's own.
fn needed_archives(
    ours: &QueueFile,
    base: &QueueFile,
    given: &[&[u8]],
) -> Result<Vec<QueueFile>, SnapshotError> {
    let Some(epoch) = ours.epoch() else {
        return Ok(Vec::new());
    };
    let base_start = base.chain_start().map_or(0, |s| s.0);
    let base_epoch = base.epoch().map(|e| e.epoch);
    let mut out: Vec<QueueFile> = Vec::new();
    let mut prev_rev = 0;
    for info in &epoch.archives {
        let holds_entries = prev_rev < base.revision && info.rev > base_start;
        let holds_epoch = base_epoch.is_some_and(|j| j + 1 == info.epoch);
        prev_rev = info.rev;
        if out.is_empty() && !(holds_entries || holds_epoch) {
            continue;
        }
        let bad = |why| SnapshotError::Archive {
            base: base.revision,
            epoch: info.epoch,
            why,
        };
        let bytes = given
            .iter()
            .find(|b| sha256_hex(b) == info.sha)
            .ok_or(bad("is not among the snapshot's archives"))?;
        let file = parse_queue(bytes).map_err(|_| bad("is not a queue file"))?;
        if let Some(last) = out.last() {
            let start = file.epoch().map(|e| e.digest.as_str());
            if digest_at(last, last.revision).map(|d| hex(&d)).as_deref() != start {
                return Err(bad(
                    "does not go on from the chain of the archive before it",
                ));
            }
        }
        out.push(file);
    }
    if let Some(last) = out.last()
        && digest_at(last, last.revision).map(|d| hex(&d)).as_deref() != Some(&epoch.digest)
    {
        return Err(SnapshotError::Archive {
            base: base.revision,
            epoch: epoch.epoch,
            why: "does not end at the digest the snapshot's epoch records",
        });
    }
    Ok(out)
}

/// The entry of `files` (archives in order, then the snapshot) that stands where `entry`
/// stands in its own file: the epoch entry that opens a file at its revision, or the entry of
/// the chain at its revision.
fn counterpart<'a>(files: &[&'a QueueFile], entry: &Entry) -> Option<&'a Entry> {
    if let Args::Epoch(_) = entry.args {
        return files.iter().find_map(|f| {
            let first = f.log.first()?;
            (first.verb == Verb::Epoch && first.rev == entry.rev).then_some(first)
        });
    }
    files.iter().find_map(|f| {
        let (start, _) = f.chain_start()?;
        if start < entry.rev && entry.rev <= f.revision {
            f.entry(entry.rev)
        } else {
            None
        }
    })
}
