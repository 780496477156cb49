//! Verifying a snapshot: the pair `queue.json` + `QUEUE.md` is valid, the table is the
//! current render of the file, and with a base, the file's log extends the base's log entry
//! for entry. Bytes in, verdict out, so the native CLI and the wasm sandbox give one verdict.

use crate::error::SnapshotError;
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
    // Both files re-serialize byte for byte, so equal entries are equal canonical bytes, which
    // is what the witness's digest chain hashes. Walking names the first difference.
    let (ours, theirs) = (&queue.file().log, &base.file().log);
    if let Some(e) = ours
        .iter()
        .zip(theirs)
        .find(|(a, b)| a != b)
        .map(|(_, b)| b)
    {
        return Err(SnapshotError::Diverged { rev: e.rev });
    }
    Ok(Certified {
        revision,
        base_revision: Some(base_revision),
    })
}
