//! The values a verb takes as text, checked and typed the same way for every face: statuses,
//! numbers and number lists, seats, evidence, verdicts, `set`'s field and value, op ids. A value
//! that is not valid is invalid data (exit 2), refused in one line before anything is read.

pub mod number;

use mosaic_queue_core::{Evidence, SetField, SetValue, Status, VerdictKind, shown};

use self::number::NumberError;
use crate::reply::Failure;

/// A status as a move's STATUS, `add --status` and `wait --status` take it.
pub fn status(s: &str) -> Result<Status, Failure> {
    Status::parse(s.trim()).ok_or_else(|| {
        invalid(format!(
            "refused: unknown status {}; use queued, in-progress, in-review, waiting-on-jason, blocked, parked or done",
            shown(s)
        ))
    })
}

/// A value given that is not valid: invalid data, exit 2, nothing read.
pub fn invalid(message: String) -> Failure {
    Failure::refused(message).kind(number::INVALID_VALUE)
}

/// Numbers as given to `name`, comma-separated, each read by `parse` (`number::id` for row ids
/// and issues); empty items are skipped, so `''` is none.
pub fn numbers(
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

/// Seat names as listed, trimmed; empty items are skipped.
pub fn seats(items: &[String]) -> Vec<String> {
    items
        .iter()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

/// `comment=<id>,round=<n>,candidate=<digest>`, each key once.
pub fn evidence(text: &str) -> Result<Evidence, Failure> {
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

/// `set`'s FIELD and VALUE: the value typed by its field (text, a number list, a seat list;
/// lists comma-separated).
pub fn set_value(field: &str, value: String) -> Result<(SetField, SetValue), Failure> {
    let field = SetField::parse(field).ok_or_else(|| {
        invalid(format!(
            "refused: unknown field {}; use piece, gate, issues, closes, reviewers, brief or after",
            shown(field)
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
    Ok((field, value))
}

/// A verdict as `review record --verdict` takes it: approve or changes.
pub fn verdict(text: &str) -> Result<VerdictKind, Failure> {
    match text {
        "approve" => Ok(VerdictKind::Approve),
        "changes" => Ok(VerdictKind::Changes),
        other => Err(invalid(format!(
            "refused: unknown verdict {}; use approve or changes",
            shown(other)
        ))),
    }
}

/// Refuses a malformed or token-like op id before anything is read or written (the lock
/// records the op), so a typo costs nothing and a pasted secret goes nowhere.
pub fn check_op(op: &str) -> Result<(), Failure> {
    mosaic_queue_core::check_op(op)
        .and_then(|()| mosaic_queue_core::check_new_op(op))
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
