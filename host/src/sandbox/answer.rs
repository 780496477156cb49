//! The answer `verify --snapshot` prints from, whichever way the core ran: natively, or in the
//! sandbox and decoded from its result buffer. Two answers compare equal exactly when the CLI
//! would print the same line, which is what the differential test checks.

use mosaic_queue_core::snapshot::{self, SnapshotError, Verdict};

/// A snapshot's verdict, or why it failed.
pub type Answer = Result<Verdict, Refusal>;

/// A failed snapshot: the core's kind, and what the message is made from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub kind: String,
    pub reason: Reason,
}

/// The parts of a `SnapshotError` the host words itself (they name the base's path, which the
/// core never sees); every other failure is the core's own message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// The base is not a valid queue.json: the inner error's message.
    BaseInvalid(String),
    /// The base is ahead of the snapshot.
    Behind { revision: u64, base: u64 },
    /// The logs first differ at `rev`.
    Diverged { rev: u64 },
    /// The core's whole message.
    Other(String),
}

impl From<&SnapshotError> for Refusal {
    fn from(e: &SnapshotError) -> Refusal {
        let reason = match e {
            SnapshotError::BaseInvalid(inner) => Reason::BaseInvalid(inner.to_string()),
            SnapshotError::Behind { revision, base } => Reason::Behind {
                revision: *revision,
                base: *base,
            },
            SnapshotError::Diverged { rev } => Reason::Diverged { rev: *rev },
            other => Reason::Other(other.to_string()),
        };
        Refusal {
            kind: e.kind().to_owned(),
            reason,
        }
    }
}

impl Refusal {
    /// The line the CLI prints, naming the base as `base_shown`.
    pub fn message(&self, base_shown: &str) -> String {
        match &self.reason {
            Reason::BaseInvalid(inner) => format!("the base {base_shown} is invalid: {inner}"),
            Reason::Behind { revision, base } => format!(
                "the snapshot (rev {revision}) is behind the base {base_shown} (rev {base}): history was lost"
            ),
            Reason::Diverged { rev } => format!(
                "the snapshot's log differs from the base {base_shown} at rev {rev}: history was rewritten"
            ),
            Reason::Other(message) => message.clone(),
        }
    }
}

/// The core run natively: the reference the sandbox is held to.
pub fn native(json: &[u8], md: &[u8], base: Option<&[u8]>) -> Answer {
    snapshot::verify_snapshot(json, md, base).map_err(|e| Refusal::from(&e))
}
