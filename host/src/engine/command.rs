//! A change request's arguments as the core's `Command`: statuses, issue lists, evidence, set
//! values typed by their field and verdicts through the parsers every face uses
//! (`crate::values`), and a move's candidate digest, which `review::candidate` computes from
//! the manifest file or commit named, or from the manifest's text given inline or on stdin.

use mosaic_queue_core::{
    AbandonCmd, AssignArgs, Command, IdArgs, LeaseDefaultArgs, MoveArgs, NewRow, NoteArgs,
    ReclaimCmd, RecordArgs, SetArgs, manifest,
};

use super::request::{Candidate, Change, MoveText, Request, Review};
use crate::reply::Failure;
use crate::review::candidate::{candidate, manifest_text};
use crate::values::{self, number};

/// The core command for a change request, with its `--op`/`--by`.
pub fn command(request: Request) -> Result<(Command, Change), Failure> {
    Ok(match request {
        Request::Add { row, change } => {
            let row = NewRow {
                piece: row.piece,
                owner: row.owner,
                status: values::status(&row.status)?,
                gate: row.gate,
                issues: values::numbers("--issues", &row.issues, number::id)?,
                reviewers: values::seats(&row.reviewers),
                brief: row.brief,
                note: row.note,
                after: values::numbers("--after", &row.after, number::id)?,
            };
            (Command::Add(row), change)
        }
        Request::Move { moved, change } => (Command::Move(move_args(moved)?), change),
        Request::Release { id, change } => (Command::Release(IdArgs { id }), change),
        Request::Assign { id, seat, change } => {
            (Command::Assign(AssignArgs { id, owner: seat }), change)
        }
        Request::Note { id, text, change } => {
            let text = Some(text);
            (Command::Note(NoteArgs { id, text }), change)
        }
        Request::Set {
            id,
            field,
            value,
            reason,
            change,
        } => {
            let (field, value) = values::set_value(&field, value)?;
            let args = SetArgs {
                id,
                field,
                value,
                reason,
            };
            (Command::Set(args), change)
        }
        Request::LeaseDefault { lease, change } => {
            (Command::LeaseDefault(LeaseDefaultArgs { lease }), change)
        }
        Request::Reclaim { id, reason, change } => {
            let args = ReclaimCmd {
                id,
                reason,
                heartbeat: None,
            };
            (Command::Reclaim(args), change)
        }
        Request::Replication { mode, change } => (
            Command::Replication(mosaic_queue_core::ReplicationArgs { mode }),
            change,
        ),
        Request::Review(review) => review_command(review)?,
        other => unreachable!("not a change request: {}", other.name()),
    })
}

/// `--manifest-stdin`: the manifest's text from stdin, at most the manifest cap, as UTF-8.
fn stdin_manifest() -> Result<String, Failure> {
    use std::io::Read;
    let cap = manifest::MAX_BYTES;
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(cap as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Failure::failed(format!("cannot read the manifest from stdin: {e}")))?;
    if bytes.len() > cap {
        return Err(Failure::refused(format!(
            "the manifest on stdin is over {cap} bytes; list fewer files"
        )));
    }
    String::from_utf8(bytes)
        .map_err(|_| Failure::refused("manifest stdin: is not UTF-8; send the manifest as UTF-8"))
}

/// `move ID STATUS`'s arguments. The candidate is computed first (it reads a file or asks
/// git, relative to the working directory, or checks the text given), then the status and
/// the evidence.
fn move_args(moved: MoveText) -> Result<MoveArgs, Failure> {
    let candidate = match moved.candidate {
        None => None,
        Some(Candidate::Named(given)) => {
            let here = std::env::current_dir().map_err(|e| Failure::failed(e.to_string()))?;
            Some(self::candidate(&here, &given)?)
        }
        Some(Candidate::Text { from, text }) => Some(manifest_text(from, text)?),
        Some(Candidate::Stdin) => Some(manifest_text("stdin", stdin_manifest()?)?),
    };
    let (candidate, manifest) = match candidate {
        Some(c) => (Some(c.digest), c.manifest),
        None => (None, None),
    };
    Ok(MoveArgs {
        id: moved.id,
        to: values::status(&moved.status)?,
        reason: moved.reason,
        candidate,
        manifest,
        issue: moved.issue,
        evidence: moved
            .evidence
            .as_deref()
            .map(values::evidence)
            .transpose()?,
        lease: moved.lease,
    })
}

/// The review verbs that write one entry as they are: request, abandon and record.
fn review_command(review: Review) -> Result<(Command, Change), Failure> {
    Ok(match review {
        Review::Request { id, change } => (Command::ReviewRequest(IdArgs { id }), change),
        Review::Abandon {
            id,
            attempt,
            reason,
            yes,
            change,
        } => {
            let args = AbandonCmd {
                id,
                attempt,
                reason,
                yes,
            };
            (Command::ReviewAbandon(args), change)
        }
        Review::Record {
            id,
            verdict,
            comment,
            candidate,
            change,
        } => {
            let record = RecordArgs {
                id,
                verdict: values::verdict(&verdict)?,
                comment,
                candidate,
            };
            (Command::ReviewRecord(record), change)
        }
        other => unreachable!("not a plain review change: {other:?}"),
    })
}
