//! Turns a change verb's flags into the core's `Command`: statuses, issue lists, evidence, set
//! values typed by their field, and the candidate digest, which the host computes from the
//! manifest file or the commit named by `--candidate`.

use std::path::Path;

use mosaic_queue_core::entry::{
    AssignArgs, Evidence, IdArgs, MoveArgs, NoteArgs, RecordArgs, SetArgs, SetField, SetValue,
};
use mosaic_queue_core::model::VerdictKind;
use mosaic_queue_core::review::manifest;
use mosaic_queue_core::verbs::{AbandonCmd, Command, NewRow};
use mosaic_queue_core::{Status, rules};

use super::number::{self, NumberError};
use super::{Change, Failure, ReviewVerb, Verb};
use crate::git;
use crate::io::{Kind, Refusal};

fn status(s: &str) -> Result<Status, Failure> {
    Status::parse(s).ok_or_else(|| {
        Failure::usage(format!(
            "unknown status {s:?}: use queued, in-progress, in-review, waiting-on-jason, blocked, parked or done"
        ))
    })
}

/// Issue numbers as given to `field`: `12`, `#12`, comma-separated; empty items are skipped.
/// One queue.json could not hold is refused (exit 2) before anything is read.
fn issues(field: &str, items: &[String]) -> Result<Vec<u64>, Failure> {
    items
        .iter()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .map(|s| match number::parse(s.trim_start_matches('#')) {
            Ok(n) => Ok(n),
            Err(e @ NumberError::TooLarge(_)) => {
                Err(Failure::refused(format!("refused: {field} {e}")))
            }
            Err(NumberError::NotANumber) => {
                Err(Failure::usage(format!("issue {s:?} is not a number")))
            }
        })
        .collect()
}

/// Row ids as given: `3`, `#3`, comma-separated; empty items are skipped, so `''` is none.
fn rows(items: &[String]) -> Result<Vec<u64>, Failure> {
    items
        .iter()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.trim_start_matches('#')
                .parse::<u64>()
                .map_err(|_| Failure::usage(format!("row {s:?} is not a number")))
        })
        .collect()
}

fn seats(items: &[String]) -> Vec<String> {
    items
        .iter()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

/// `comment=<id>,round=<n>,candidate=<digest>`, each key once.
fn evidence(text: &str) -> Result<Evidence, Failure> {
    let bad = || {
        Failure::usage(format!(
            "--evidence {text:?}: write comment=<id>,round=<n>,candidate=<digest>"
        ))
    };
    let (mut comment, mut round, mut candidate) = (None, None, None);
    for part in text.split(',') {
        let (key, value) = part.split_once('=').ok_or_else(bad)?;
        // Numbers queue.json could not hold are refused data (exit 2); words are usage slips.
        let number = |name: &str| match number::parse(value.trim()) {
            Ok(n) => Ok(n),
            Err(e @ NumberError::TooLarge(_)) => {
                Err(Failure::refused(format!("refused: --evidence {name}={e}")))
            }
            Err(NumberError::NotANumber) => Err(bad()),
        };
        match key.trim() {
            "comment" if comment.is_none() => comment = Some(number("comment")?),
            "round" if round.is_none() => {
                let n = number("round")?;
                round = Some(u32::try_from(n).map_err(|_| {
                    Failure::refused(format!(
                        "refused: --evidence round={n} is no row's round; give the current round's number"
                    ))
                })?)
            }
            "candidate" if candidate.is_none() => candidate = Some(value.trim().to_owned()),
            _ => return Err(bad()),
        }
    }
    Ok(Evidence {
        comment: comment.ok_or_else(bad)?,
        round: round.ok_or_else(bad)?,
        candidate: candidate.ok_or_else(bad)?,
    })
}

/// A candidate as a move records it: its digest and, for a manifest, the manifest's text.
pub struct Candidate {
    pub digest: String,
    pub manifest: Option<String>,
}

/// `--candidate`: an existing file is a manifest (`sha256:` of its bytes, each line
/// `<sha256> <path>`, kept in the round); anything else must name a commit reachable from a
/// branch or tag.
pub fn candidate(root: &Path, given: &str) -> Result<Candidate, Failure> {
    let path = root.join(given);
    let read = match crate::io::read_checked(&path, Kind::Manifest) {
        Ok(bytes) => Some(bytes),
        // A directory is never a manifest, and may share a branch's name: try the commit.
        Err(e) => match crate::io::into_refusal(e) {
            Ok(Refusal::NotRegular {
                what: "a directory",
                ..
            }) => None,
            Ok(refused) => {
                return Err(Failure::refused(format!("--candidate: {}", refused.line())));
            }
            Err(_) => None,
        },
    };
    if let Some(bytes) = read {
        let text = String::from_utf8(bytes)
            .map_err(|_| Failure::refused(format!("manifest {given}: is not UTF-8")))?;
        return inline(given, text);
    }
    let sha = git::run(
        root,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            &format!("{given}^{{commit}}"),
        ],
    )
    .map_err(|_| {
        Failure::refused(format!(
            "--candidate {given:?} is neither a manifest file nor a commit"
        ))
    })?;
    let refs = git::run(
        root,
        &[
            "for-each-ref",
            "--contains",
            &sha,
            "--format=%(refname)",
            "refs/heads",
            "refs/tags",
        ],
    )
    .unwrap_or_default();
    if refs.trim().is_empty() {
        return Err(Failure::refused(format!(
            "--candidate commit {sha} is not reachable from any branch or tag; push it to a branch first"
        )));
    }
    Ok(Candidate {
        digest: format!("git:{sha}"),
        manifest: None,
    })
}

/// A manifest candidate from its text, `from` naming where the text came from: checked as
/// stored text first (a path holding a secret is refused as such), then as a manifest.
fn inline(from: &str, text: String) -> Result<Candidate, Failure> {
    mosaic_queue_core::admission::manifest_text(&text)
        .map_err(|e| Failure::refused(format!("manifest {from}: {e}")))?;
    manifest::parse(&text).map_err(|e| Failure::refused(format!("manifest {from}: {e}")))?;
    Ok(Candidate {
        digest: manifest::digest(&text),
        manifest: Some(text),
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

/// The core command for a change verb, with its `--op`/`--by`.
pub fn command(verb: Verb) -> Result<(Command, Change), Failure> {
    Ok(match verb {
        Verb::Add {
            piece,
            owner,
            issues: is,
            gate,
            reviewers,
            brief,
            note,
            status: st,
            after,
            change,
        } => (
            Command::Add(NewRow {
                piece,
                owner,
                status: status(&st)?,
                gate,
                issues: issues("--issues", &is)?,
                reviewers: seats(&reviewers),
                brief,
                note,
                after: rows(&after)?,
            }),
            change,
        ),
        Verb::Move {
            id,
            status: st,
            reason,
            candidate,
            manifest_text,
            manifest_stdin,
            issue,
            evidence: ev,
            change,
        } => {
            let candidate = match (candidate, manifest_text) {
                (Some(c), _) => {
                    let here =
                        std::env::current_dir().map_err(|e| Failure::failed(e.to_string()))?;
                    Some(self::candidate(&here, &c)?)
                }
                (None, Some(text)) => Some(inline("--manifest-text", text)?),
                (None, None) if manifest_stdin => Some(inline("stdin", stdin_manifest()?)?),
                (None, None) => None,
            };
            let (candidate, manifest) = match candidate {
                Some(c) => (Some(c.digest), c.manifest),
                None => (None, None),
            };
            (
                Command::Move(MoveArgs {
                    id,
                    to: status(&st)?,
                    reason,
                    candidate,
                    manifest,
                    issue,
                    evidence: ev.as_deref().map(evidence).transpose()?,
                }),
                change,
            )
        }
        Verb::Release { id, change } => (Command::Release(IdArgs { id }), change),
        Verb::Assign { id, seat, change } => {
            (Command::Assign(AssignArgs { id, owner: seat }), change)
        }
        Verb::Note { id, text, change } => (
            Command::Note(NoteArgs {
                id,
                text: Some(text),
            }),
            change,
        ),
        Verb::Set {
            id,
            field,
            value,
            reason,
            change,
        } => {
            let field = SetField::parse(&field).ok_or_else(|| {
                Failure::usage(format!(
                    "unknown field {field:?}: use piece, gate, issues, closes, reviewers, brief or after"
                ))
            })?;
            let items: Vec<String> = value.split(',').map(str::to_owned).collect();
            let value = match field {
                SetField::Piece | SetField::Gate | SetField::Brief => SetValue::Text(Some(value)),
                SetField::Issues | SetField::Closes => {
                    SetValue::Numbers(issues(field.as_str(), &items)?)
                }
                SetField::Reviewers => SetValue::Seats(seats(&items)),
                SetField::After => SetValue::Numbers(rows(&items)?),
            };
            (
                Command::Set(SetArgs {
                    id,
                    field,
                    value,
                    reason,
                }),
                change,
            )
        }
        Verb::Review {
            verb: ReviewVerb::Request { id, change },
        } => (Command::ReviewRequest(IdArgs { id }), change),
        Verb::Review {
            verb:
                ReviewVerb::Abandon {
                    id,
                    attempt,
                    reason,
                    yes,
                    change,
                },
        } => (
            Command::ReviewAbandon(AbandonCmd {
                id,
                attempt,
                reason,
                yes,
            }),
            change,
        ),
        Verb::Review {
            verb:
                ReviewVerb::Record {
                    id,
                    verdict,
                    comment,
                    candidate,
                    change,
                },
        } => {
            let verdict = match verdict.as_str() {
                "approve" => VerdictKind::Approve,
                "changes" => VerdictKind::Changes,
                other => {
                    return Err(Failure::usage(format!(
                        "--verdict {other:?}: write approve or changes"
                    )));
                }
            };
            let record = RecordArgs {
                id,
                verdict,
                comment,
                candidate,
            };
            (Command::ReviewRecord(record), change)
        }
        other => unreachable!("not a change verb: {other:?}"),
    })
}

/// Refuses a malformed or token-like op id before anything is read or written (the lock
/// records the op), so a typo costs nothing and a pasted secret goes nowhere.
pub fn check_op(op: &str) -> Result<(), Failure> {
    rules::check_op(op)
        .and_then(|()| mosaic_queue_core::admission::check_op(op))
        .map_err(Failure::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exit::Exit;

    #[test]
    fn evidence_parses_and_refuses() {
        let e = evidence("comment=12,round=2,candidate=sha256:ab").unwrap();
        assert_eq!(
            (e.comment, e.round, e.candidate.as_str()),
            (12, 2, "sha256:ab")
        );
        for bad in [
            "comment=1,round=2",
            "comment=x,round=1,candidate=c",
            "comment=1,comment=2,round=1,candidate=c",
        ] {
            assert_eq!(evidence(bad).unwrap_err().exit, Exit::Usage, "{bad}");
        }
        for big in [
            "comment=9007199254740992,round=1,candidate=c",
            "comment=1,round=9007199254740992,candidate=c",
            "comment=1,round=4294967296,candidate=c",
        ] {
            assert_eq!(evidence(big).unwrap_err().exit, Exit::Refused, "{big}");
        }
    }

    #[test]
    fn issues_accept_hashes_and_refuse_words() {
        assert_eq!(
            issues("--issues", &["#12".into(), " 14".into(), "".into()]).unwrap(),
            vec![12, 14]
        );
        assert_eq!(
            issues("--issues", &["twelve".into()]).unwrap_err().exit,
            Exit::Usage
        );
        let big = issues("--issues", &["#9007199254740992".into()]).unwrap_err();
        assert_eq!(
            (big.exit, big.message.as_str()),
            (
                Exit::Refused,
                "refused: --issues 9007199254740992 is above 9007199254740991 (2^53-1), the largest number queue.json can hold; give the real number"
            )
        );
    }
}
