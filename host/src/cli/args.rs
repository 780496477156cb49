//! Turns a change verb's flags into the core's `Command`: statuses, issue lists, evidence,
//! set values typed by their field and verdicts through the parsers every face uses
//! (`crate::values`), and the candidate digest, which `review::candidate` computes from the
//! manifest file or the commit named by `--candidate`, or from the manifest's text given
//! inline or on stdin.

use mosaic_queue_core::{
    AbandonCmd, AssignArgs, Command, IdArgs, LeaseDefaultArgs, MoveArgs, NewRow, NoteArgs,
    ReclaimCmd, RecordArgs, SetArgs, manifest,
};

use super::grammar::{Change, ReviewVerb, Verb};
use crate::reply::Failure;
use crate::review::candidate::{candidate, manifest_text};
use crate::values::{self, number};

/// The core command for a change verb, with its `--op`/`--by`.
pub fn command(verb: Verb) -> Result<(Command, Change), Failure> {
    Ok(match verb {
        Verb::Add {
            piece,
            owner,
            issues,
            gate,
            reviewers,
            brief,
            note,
            status,
            after,
            change,
        } => {
            let row = NewRow {
                piece,
                owner,
                status: values::status(&status)?,
                gate,
                issues: values::numbers("--issues", &issues, number::id)?,
                reviewers: values::seats(&reviewers),
                brief,
                note,
                after: values::numbers("--after", &after, number::id)?,
            };
            (Command::Add(row), change)
        }
        Verb::Move {
            id,
            status,
            reason,
            candidate,
            manifest_text,
            manifest_stdin,
            issue,
            evidence,
            lease,
            change,
        } => {
            let candidate = match (candidate, manifest_text) {
                (Some(given), _) => Given::Named(given),
                (None, Some(text)) => Given::Text("--manifest-text", text),
                (None, None) if manifest_stdin => Given::Text("stdin", stdin_manifest()?),
                (None, None) => Given::None,
            };
            let args = MoveArgs {
                lease,
                ..move_args(id, &status, reason, candidate, issue, evidence)?
            };
            (Command::Move(args), change)
        }
        Verb::Release { id, change } => (Command::Release(IdArgs { id }), change),
        Verb::Assign { id, seat, change } => {
            (Command::Assign(AssignArgs { id, owner: seat }), change)
        }
        Verb::Note { id, text, change } => {
            let text = Some(text);
            (Command::Note(NoteArgs { id, text }), change)
        }
        Verb::Set {
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
        Verb::LeaseDefault { lease, change } => {
            let args = LeaseDefaultArgs { lease: lease.0 };
            (Command::LeaseDefault(args), change)
        }
        Verb::Reclaim { id, reason, change } => {
            let args = ReclaimCmd {
                id,
                reason,
                heartbeat: None,
            };
            (Command::Reclaim(args), change)
        }
        Verb::Review { verb } => review_command(verb)?,
        other => unreachable!("not a change verb: {other:?}"),
    })
}

/// The candidate a move was given: `--candidate`, or a manifest's text and where it came from.
enum Given {
    None,
    Named(String),
    Text(&'static str, String),
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
fn move_args(
    id: u64,
    status: &str,
    reason: Option<String>,
    candidate: Given,
    issue: Option<u64>,
    evidence: Option<String>,
) -> Result<MoveArgs, Failure> {
    let candidate = match candidate {
        Given::None => None,
        Given::Named(given) => {
            let here = std::env::current_dir().map_err(|e| Failure::failed(e.to_string()))?;
            Some(self::candidate(&here, &given)?)
        }
        Given::Text(from, text) => Some(manifest_text(from, text)?),
    };
    let (candidate, manifest) = match candidate {
        Some(c) => (Some(c.digest), c.manifest),
        None => (None, None),
    };
    Ok(MoveArgs {
        id,
        to: values::status(status)?,
        reason,
        candidate,
        manifest,
        issue,
        evidence: evidence.as_deref().map(values::evidence).transpose()?,
        lease: None,
    })
}

/// The review verbs that write one entry as they are: request, abandon and record.
fn review_command(verb: ReviewVerb) -> Result<(Command, Change), Failure> {
    Ok(match verb {
        ReviewVerb::Request { id, change } => (Command::ReviewRequest(IdArgs { id }), change),
        ReviewVerb::Abandon {
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
        ReviewVerb::Record {
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
