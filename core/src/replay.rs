//! Replay from genesis: every entry re-applied under its own semantics against the matrix,
//! its receipt reproduced exactly, and the result compared with the file's `rows` and
//! `revision`. Body hashes are records of past renders and are not re-rendered here.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;

use crate::digest::is_hex;
use crate::error::ReplayError;
use crate::model::{FORMAT_VERSION, QueueFile, Row};
use crate::state::State;
use crate::verbs::{self, Ctx};

/// Replays `file.log` and checks it yields `file.rows` and `file.revision`.
pub fn replay(file: &QueueFile) -> Result<State, ReplayError> {
    if file.version != FORMAT_VERSION {
        return Err(ReplayError::Version {
            found: file.version,
            supported: FORMAT_VERSION,
        });
    }
    if file.log.is_empty() {
        return Err(ReplayError::EmptyLog);
    }
    let mut state = State::default();
    for (index, entry) in file.log.iter().enumerate() {
        let expected = index as u64 + 1;
        if entry.rev != expected {
            return Err(ReplayError::RevSequence {
                index,
                expected,
                found: entry.rev,
            });
        }
        if let Some(first) = state.op_rev(&entry.op) {
            return Err(ReplayError::DuplicateOp {
                rev: entry.rev,
                op: entry.op.clone(),
                first,
            });
        }
        if !is_hex(&entry.body, 64) {
            return Err(ReplayError::BodyHash { rev: entry.rev });
        }
        let ctx = Ctx {
            rev: entry.rev,
            op: &entry.op,
            by: &entry.by,
            at: &entry.at,
            semantics: entry.semantics,
        };
        let receipt =
            verbs::apply(&mut state, &entry.args, &ctx).map_err(|e| ReplayError::Refused {
                rev: entry.rev,
                source: Box::new(e),
            })?;
        if receipt != entry.receipt {
            return Err(ReplayError::Receipt {
                rev: entry.rev,
                expected: receipt,
                found: entry.receipt.clone(),
            });
        }
    }
    if state.root.as_deref() != Some(file.canonical_root.as_str()) {
        return Err(ReplayError::Root {
            recorded: state.root.clone().unwrap_or_default(),
            found: file.canonical_root.clone(),
        });
    }
    if file.revision != state.revision {
        return Err(ReplayError::Revision {
            expected: state.revision,
            found: file.revision,
        });
    }
    if file.rows != state.rows {
        return Err(ReplayError::Rows {
            detail: rows_diff(&file.rows, &state.rows),
        });
    }
    Ok(state)
}

/// Names the first row and field where the file and the replay part ways.
fn rows_diff(file: &[Row], replayed: &[Row]) -> String {
    for (i, (f, r)) in file.iter().zip(replayed).enumerate() {
        if f == r {
            continue;
        }
        if f.id != r.id {
            return format!(
                "position {} holds row {} but replay puts row {} there",
                i + 1,
                f.id,
                r.id
            );
        }
        let field = [
            ("piece", f.piece == r.piece),
            ("owner", f.owner == r.owner),
            ("status", f.status == r.status),
            ("gate", f.gate == r.gate),
            ("issues", f.issues == r.issues),
            ("closes", f.closes == r.closes),
            ("closesNarrowed", f.closes_narrowed == r.closes_narrowed),
            ("reviewers", f.reviewers == r.reviewers),
            ("brief", f.brief == r.brief),
            ("note", f.note == r.note),
            ("blockedReason", f.blocked_reason == r.blocked_reason),
            ("review", f.review == r.review),
        ]
        .into_iter()
        .find(|(_, same)| !same)
        .map_or("a field", |(name, _)| name);
        return format!("row {} has a {field} the log does not produce", f.id);
    }
    format!(
        "the file has {} rows but the log produces {}",
        file.len(),
        replayed.len()
    )
}
