//! Verdicts and approvals: `review record` stores one verdict per reviewer per round on the
//! round's candidate, and leaving in-review for done or waiting-on-jason on a request round
//! needs an approval from every listed reviewer other than the owner.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::attempts::needs_semantics_2;
use super::current_round;
use crate::ctx::{Ctx, not_allowed};
use crate::entry::RecordArgs;
use crate::error::{ReviewError, VerbError};
use crate::model::{Round, Row, Status, Verdict, VerdictKind};
use crate::render::push_number;
use crate::rules;
use crate::state::State;

/// `review record ID --verdict approve|changes --comment N --candidate DIGEST`.
pub(crate) fn record(
    state: &mut State,
    a: &RecordArgs,
    ctx: &Ctx,
    out: &mut String,
) -> Result<(), VerbError> {
    needs_semantics_2("review-record", ctx)?;
    if a.comment == 0 {
        return Err(ReviewError::BadComment { value: 0 }.into());
    }
    rules::check_digest(&a.candidate)?;
    let pos = state.open_pos(a.id)?;
    let row = &state.rows[pos];
    let reviewer =
        row.reviewers.iter().any(|r| r == ctx.by) && row.owner.as_deref() != Some(ctx.by);
    if !reviewer {
        let action = format!("record a verdict on row {}", a.id);
        return Err(not_allowed(
            ctx,
            action,
            "a listed reviewer other than the owner",
        ));
    }
    if row.status != Status::InReview {
        return Err(ReviewError::NotInReview {
            id: a.id,
            status: row.status,
            what: "record",
        }
        .into());
    }
    let round = current_round(row).ok_or(ReviewError::NoRound { id: a.id })?;
    let expected = round.candidate.as_deref().unwrap_or("-");
    if a.candidate != expected {
        return Err(ReviewError::CandidateMismatch {
            id: a.id,
            round: round.round,
            given: a.candidate.clone(),
            expected: String::from(expected),
        }
        .into());
    }
    if round.verdicts.iter().any(|v| v.by == ctx.by) {
        return Err(ReviewError::VerdictTwice {
            id: a.id,
            round: round.round,
            by: String::from(ctx.by),
        }
        .into());
    }
    let number = round.round;
    let review = state.row_mut(pos).review.as_mut().expect("a round exists");
    review
        .rounds
        .last_mut()
        .expect("a round exists")
        .verdicts
        .push(Verdict {
            by: String::from(ctx.by),
            verdict: a.verdict,
            comment: a.comment,
            candidate: a.candidate.clone(),
        });
    out.push_str("review record ");
    push_number(out, a.id);
    out.push_str(" round ");
    push_number(out, u64::from(number));
    out.push(' ');
    out.push_str(a.verdict.as_str());
    out.push_str(" comment ");
    push_number(out, a.comment);
    Ok(())
}

/// The reviewers (other than the owner) who have not approved `round`'s candidate.
pub(crate) fn missing_approvals<'a>(row: &'a Row, round: &Round) -> Vec<&'a str> {
    row.reviewers
        .iter()
        .filter(|r| row.owner.as_ref() != Some(*r))
        .filter(|r| {
            !round.verdicts.iter().any(|v| {
                &v.by == *r
                    && v.verdict == VerdictKind::Approve
                    && Some(&v.candidate) == round.candidate.as_ref()
            })
        })
        .map(String::as_str)
        .collect()
}
