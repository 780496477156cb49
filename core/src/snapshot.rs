//! Verifying a snapshot: the pair `queue.json` + `QUEUE.md` is valid, the table is the
//! current render of the file, and with a base, the file's log extends the base's log entry
//! for entry. Bytes in, verdict out, so the native CLI and the wasm sandbox give one verdict.

use thiserror::Error;

use crate::error::{QueueError, TableError};
use crate::queue::Queue;
use crate::table::{self, BodyStatus};

/// A snapshot that passed (certified): its revision, and the base revision it extends. (A
/// reviewer's approve or changes is `model::Verdict`; this is not one.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Certified {
    pub revision: u64,
    pub base_revision: Option<u64>,
}

/// Why a snapshot fails.
#[derive(Error, Debug, Clone, PartialEq, Eq)]
pub enum SnapshotError {
    #[error("snapshot {0}")]
    Invalid(QueueError),
    #[error("snapshot QUEUE.md is not UTF-8")]
    TableNotUtf8,
    #[error("snapshot {0}")]
    Markers(TableError),
    #[error(
        "snapshot QUEUE.md is stale: rendered at rev {rendered}, queue.json is at rev {revision}"
    )]
    Stale { rendered: u64, revision: u64 },
    #[error("snapshot QUEUE.md's table is not a render of its queue.json")]
    UnknownTable,
    #[error("the base is invalid: {0}")]
    BaseInvalid(QueueError),
    #[error("the snapshot (rev {revision}) is behind the base (rev {base}): history was lost")]
    Behind { revision: u64, base: u64 },
    #[error("the snapshot's log differs from the base at rev {rev}: history was rewritten")]
    Diverged { rev: u64 },
}

impl SnapshotError {
    pub fn kind(&self) -> &'static str {
        match self {
            SnapshotError::Invalid(e) => e.kind(),
            SnapshotError::TableNotUtf8 => "table-not-utf8",
            SnapshotError::Markers(e) => e.kind(),
            SnapshotError::Stale { .. } => "table-stale",
            SnapshotError::UnknownTable => "table-unknown",
            SnapshotError::BaseInvalid(_) => "base-invalid",
            SnapshotError::Behind { .. } => "snapshot-behind",
            SnapshotError::Diverged { .. } => "snapshot-diverged",
        }
    }
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
