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

use mosaic_queue_core::rules::shown;

use super::number::{self, NumberError};
use super::{Change, Failure, ReviewVerb, Verb};
use crate::git;
use crate::io::{Kind, Refusal};

/// A status as a move's STATUS, `add --status` and `wait --status` take it.
pub(super) fn status(s: &str) -> Result<Status, Failure> {
    Status::parse(s.trim()).ok_or_else(|| {
        invalid(format!(
            "refused: unknown status {}; use queued, in-progress, in-review, waiting-on-jason, blocked, parked or done",
            shown(s)
        ))
    })
}

/// A value the command line gave that is not valid: invalid data, exit 2, nothing read.
pub(super) fn invalid(message: String) -> Failure {
    Failure::refused(message).kind(number::INVALID_VALUE)
}

/// Numbers as given to `name`, comma-separated, each read by `parse` (`number::id` for row ids
/// and issues); empty items are skipped, so `''` is none.
fn numbers(
    name: &str,
    items: &[String],
    parse: fn(&str) -> Result<u64, NumberError>,
) -> Result<Vec<u64>, Failure> {
    items
        .iter()
        .filter(|s| !s.trim().is_empty())
        .map(|s| parse(s).map_err(|e| number::refused(name, &e)))
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
        invalid(format!(
            "refused: --evidence {} is not evidence; write comment=<id>,round=<n>,candidate=<digest>",
            shown(text)
        ))
    };
    let (mut comment, mut round, mut candidate) = (None, None, None);
    for part in text.split(',') {
        let (key, value) = part.split_once('=').ok_or_else(bad)?;
        let number = |name: &str| {
            number::parse(value.trim())
                .map_err(|e| invalid(format!("refused: --evidence {name}={e}")))
        };
        match key.trim() {
            "comment" if comment.is_none() => comment = Some(number("comment")?),
            "round" if round.is_none() => {
                let n = number("round")?;
                round = Some(u32::try_from(n).map_err(|_| {
                    invalid(format!(
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
        // The rules for stored text first: a path holding a secret is refused as such.
        mosaic_queue_core::admission::manifest_text(&text)
            .map_err(|e| Failure::refused(format!("manifest {given}: {e}")))?;
        manifest::parse(&text).map_err(|e| Failure::refused(format!("manifest {given}: {e}")))?;
        return Ok(Candidate {
            digest: manifest::digest(&text),
            manifest: Some(text),
        });
    }
    let sha = git::run(
        root,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            // A candidate may start with `-`: it is a revision, never an option.
            "--end-of-options",
            &format!("{given}^{{commit}}"),
        ],
    )
    .map_err(|_| {
        Failure::refused(format!(
            "--candidate {} is neither a manifest file nor a commit",
            shown(given)
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
                issues: numbers("--issues", &is, number::id)?,
                reviewers: seats(&reviewers),
                brief,
                note,
                after: numbers("--after", &after, number::id)?,
            }),
            change,
        ),
        Verb::Move {
            id,
            status: st,
            reason,
            candidate,
            issue,
            evidence: ev,
            change,
        } => {
            let candidate = match candidate {
                Some(c) => {
                    let here =
                        std::env::current_dir().map_err(|e| Failure::failed(e.to_string()))?;
                    Some(self::candidate(&here, &c)?)
                }
                None => None,
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
                invalid(format!(
                    "refused: unknown field {}; use piece, gate, issues, closes, reviewers, brief or after",
                    shown(&field)
                ))
            })?;
            let items: Vec<String> = value.split(',').map(str::to_owned).collect();
            let value = match field {
                SetField::Piece | SetField::Gate | SetField::Brief => SetValue::Text(Some(value)),
                SetField::Issues | SetField::Closes => {
                    SetValue::Numbers(numbers(field.as_str(), &items, number::id)?)
                }
                SetField::Reviewers => SetValue::Seats(seats(&items)),
                SetField::After => SetValue::Numbers(numbers("after", &items, number::id)?),
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
                    return Err(invalid(format!(
                        "refused: unknown verdict {}; use approve or changes",
                        shown(other)
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
        let e = evidence("comment=1,round=2").unwrap_err();
        assert_eq!(
            (e.exit, e.message.as_str()),
            (
                Exit::Refused,
                "refused: --evidence \"comment=1,round=2\" is not evidence; write comment=<id>,round=<n>,candidate=<digest>"
            )
        );
        // A value a credential could hide in is not repeated.
        let e = evidence("comment=1,comment=2,round=1,candidate=c").unwrap_err();
        assert_eq!(
            (e.exit, e.message.as_str()),
            (
                Exit::Refused,
                "refused: --evidence (not shown: it looks like a credential) is not evidence; write comment=<id>,round=<n>,candidate=<digest>"
            )
        );
        let e = evidence("comment=x,round=1,candidate=c").unwrap_err();
        assert_eq!(
            e.message,
            "refused: --evidence comment=\"x\" is not a whole number; give digits, as in 12"
        );
        for big in [
            "comment=9007199254740992,round=1,candidate=c",
            "comment=1,round=9007199254740992,candidate=c",
            "comment=1,round=4294967296,candidate=c",
        ] {
            assert_eq!(evidence(big).unwrap_err().exit, Exit::Refused, "{big}");
        }
    }

    #[test]
    fn issues_and_rows_accept_hashes_and_refuse_words_with_exit_2() {
        assert_eq!(
            numbers(
                "--issues",
                &["#12".into(), " 14".into(), "".into(), " ".into()],
                number::id
            )
            .unwrap(),
            vec![12, 14]
        );
        let words = numbers("--after", &["3".into(), "twelve".into()], number::id).unwrap_err();
        assert_eq!(
            (words.exit, words.message.as_str(), words.kind_name()),
            (
                Exit::Refused,
                "refused: --after \"twelve\" is not a whole number; give digits, as in 12",
                "invalid-value"
            )
        );
        let big = numbers("--issues", &["#9007199254740992".into()], number::id).unwrap_err();
        assert_eq!(
            (big.exit, big.message.as_str()),
            (
                Exit::Refused,
                "refused: --issues 9007199254740992 is above 9007199254740991 (2^53-1), the largest number queue.json can hold; give the real number"
            )
        );
    }
}
