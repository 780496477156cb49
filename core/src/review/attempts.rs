//! Request attempts: the first one a request round opens with, `review request` after a
//! failed or abandoned one, the `<op>.outcome` entry that records what the transport said
//! (the one entry a done row still accepts), and the resolve and abandon a person runs.

use alloc::format;
use alloc::string::String;

use super::{check_settled, current_round};
use crate::ctx::{Ctx, not_allowed};
use crate::entry::{AbandonArgs, Delivery, IdArgs, OutcomeArgs, ResolveArgs};
use crate::error::{ReviewError, VerbError};
use crate::model::{Attempt, AttemptState, Status};
use crate::render::push_number;
use crate::rules;
use crate::state::State;

/// Review entries came with piece D: a semantics-1 log cannot hold them.
pub(crate) fn needs_semantics_2(verb: &'static str, ctx: &Ctx) -> Result<(), ReviewError> {
    if ctx.semantics < 2 {
        return Err(ReviewError::NeedsSemantics2 {
            verb,
            semantics: ctx.semantics,
        });
    }
    Ok(())
}

/// A new attempt by the entry's actor, waiting for its outcome.
pub(crate) fn requesting(ctx: &Ctx) -> Attempt {
    Attempt {
        op: String::from(ctx.op),
        by: String::from(ctx.by),
        state: AttemptState::Requesting,
        status: None,
        detail: None,
        comment: None,
    }
}

/// Where attempt `op` sits in row `pos`: (round index, attempt index).
fn find(state: &State, pos: usize, op: &str) -> Result<(usize, usize), ReviewError> {
    let row = &state.rows[pos];
    row.review
        .as_ref()
        .and_then(|r| {
            r.rounds.iter().enumerate().find_map(|(ri, round)| {
                round
                    .attempts
                    .iter()
                    .position(|a| a.op == op)
                    .map(|ai| (ri, ai))
            })
        })
        .ok_or_else(|| ReviewError::NoSuchAttempt {
            id: row.id,
            attempt: String::from(op),
        })
}

fn attempt_mut(state: &mut State, pos: usize, (ri, ai): (usize, usize)) -> &mut Attempt {
    let review = state.row_mut(pos).review.as_mut().expect("found above");
    &mut review.rounds[ri].attempts[ai]
}

fn owner_or_privileged(owner: Option<&str>, actor: &str) -> bool {
    owner == Some(actor) || rules::is_privileged(actor)
}

/// `review request ID`: a new attempt in the current round after a failed or abandoned one.
pub(crate) fn request(
    state: &mut State,
    a: &IdArgs,
    ctx: &Ctx,
    out: &mut String,
) -> Result<(), VerbError> {
    needs_semantics_2("review-request", ctx)?;
    let pos = state.open_pos(a.id)?;
    let row = &state.rows[pos];
    if !owner_or_privileged(row.owner.as_deref(), ctx.by) {
        let action = format!("request review of row {}", a.id);
        return Err(not_allowed(ctx, action, "the owner, jason or sage"));
    }
    if row.status != Status::InReview {
        return Err(ReviewError::NotInReview {
            id: a.id,
            status: row.status,
            what: "request",
        }
        .into());
    }
    let round = current_round(row).ok_or(ReviewError::NoRound { id: a.id })?;
    if !round.requested {
        return Err(ReviewError::NotRequestRound {
            id: a.id,
            round: round.round,
        }
        .into());
    }
    check_settled(row)?;
    if let Some(last) = round
        .attempts
        .last()
        .filter(|l| l.state == AttemptState::Posted)
    {
        return Err(ReviewError::NotRetryable {
            id: a.id,
            round: round.round,
            attempt: last.op.clone(),
            state: last.state.as_str(),
        }
        .into());
    }
    let (number, issue) = (round.round, round.issue.unwrap_or(0));
    let review = state.row_mut(pos).review.as_mut().expect("a round exists");
    let round = review.rounds.last_mut().expect("a round exists");
    round.attempts.push(requesting(ctx));
    let attempt = round.attempts.len();
    out.push_str("review request ");
    push_number(out, a.id);
    out.push_str(" round ");
    push_number(out, u64::from(number));
    out.push_str(" attempt ");
    push_number(out, attempt as u64);
    out.push_str(" on #");
    push_number(out, issue);
    Ok(())
}

/// Checks an outcome entry's fields agree with its result.
fn check_shape(a: &OutcomeArgs) -> Result<(), VerbError> {
    let shape = |why| ReviewError::OutcomeShape {
        result: a.result.as_str(),
        why,
    };
    match (a.result, a.status, a.comment) {
        (Delivery::Posted, Some(201), Some(c)) if c > 0 => {}
        (Delivery::Posted, _, _) => return Err(shape("needs status 201 and a comment id").into()),
        (_, _, Some(_)) => return Err(shape("carries no comment id").into()),
        _ => {}
    }
    if a.detail.is_empty() {
        return Err(shape("needs a detail").into());
    }
    rules::check_text("the outcome detail", &a.detail)?;
    Ok(())
}

/// `<op>.outcome`: what the transport said. A late outcome meets a resolve or an abandon:
/// agreement keeps the attempt as it is; a different comment, a failure after a resolve, or
/// a posted comment after an abandon makes it a conflict for a resolve to settle.
pub(crate) fn outcome(
    state: &mut State,
    a: &OutcomeArgs,
    ctx: &Ctx,
    out: &mut String,
) -> Result<(), VerbError> {
    needs_semantics_2("review-outcome", ctx)?;
    rules::check_logged_op(&a.attempt)?;
    if ctx.op.strip_suffix(".outcome") != Some(a.attempt.as_str()) {
        return Err(ReviewError::OutcomeOp {
            op: String::from(ctx.op),
            attempt: a.attempt.clone(),
        }
        .into());
    }
    check_shape(a)?;
    let pos = state.pos(a.id)?;
    let at = find(state, pos, &a.attempt)?;
    let round_number = state.rows[pos].review.as_ref().expect("found").rounds[at.0].round;
    let attempt = attempt_mut(state, pos, at);
    if attempt.by != ctx.by {
        return Err(ReviewError::OutcomeActor {
            attempt: a.attempt.clone(),
            requester: attempt.by.clone(),
            actor: String::from(ctx.by),
        }
        .into());
    }
    let next = match (attempt.state, a.result) {
        (AttemptState::Requesting, Delivery::Posted) => AttemptState::Posted,
        (AttemptState::Requesting, Delivery::Failed) => AttemptState::Failed,
        (AttemptState::Requesting, Delivery::Uncertain) => AttemptState::Uncertain,
        (AttemptState::Posted, Delivery::Posted) if attempt.comment == a.comment => {
            AttemptState::Posted
        }
        (AttemptState::Posted, Delivery::Uncertain) => AttemptState::Posted,
        (AttemptState::Posted, _) => AttemptState::Conflict,
        (AttemptState::Abandoned, Delivery::Posted) => AttemptState::Conflict,
        (AttemptState::Abandoned, _) => AttemptState::Abandoned,
        (done, _) => {
            return Err(ReviewError::OutcomeTwice {
                attempt: a.attempt.clone(),
                state: done.as_str(),
            }
            .into());
        }
    };
    // Nothing below may refuse. A comment id is taken from the outcome only where the attempt
    // had none; after a resolve the resolved id stays and the log keeps the outcome's.
    let before = attempt.state;
    if attempt.comment.is_none() {
        attempt.comment = a.comment;
    }
    attempt.state = next;
    attempt.status = a.status;
    attempt.detail = Some(a.detail.clone());
    push_head(out, "review ", a.id, round_number, &a.attempt);
    out.push_str(a.result.as_str());
    if let Some(s) = a.status {
        out.push_str(" http ");
        push_number(out, u64::from(s));
    }
    if let Some(c) = a.comment {
        out.push_str(" comment ");
        push_number(out, c);
    }
    if before != AttemptState::Requesting {
        out.push_str(" after ");
        out.push_str(before.as_str());
        out.push_str(", now ");
        out.push_str(next.as_str());
    }
    Ok(())
}

/// What `review resolve` is refused for on `state` as it stands, before anything changes: a
/// comment id of 0, a row that is done or missing, an actor who is not the owner, jason or
/// sage, an attempt that is not there or already posted or failed. `resolve` applies through
/// it, and `Queue::check_resolve` asks it before the host fetches the comment. Returns the
/// row's position and the attempt's.
pub(crate) fn check_resolve(
    state: &State,
    a: &ResolveArgs,
    by: &str,
) -> Result<(usize, (usize, usize)), VerbError> {
    if a.comment == 0 {
        return Err(ReviewError::BadComment { value: 0 }.into());
    }
    let pos = state.open_pos(a.id)?;
    if !owner_or_privileged(state.rows[pos].owner.as_deref(), by) {
        return Err(VerbError::NotAllowed {
            actor: String::from(by),
            action: format!("resolve a request on row {}", a.id),
            who: "the owner, jason or sage",
        });
    }
    let at = find(state, pos, &a.attempt)?;
    let round = &state.rows[pos].review.as_ref().expect("found").rounds[at.0];
    let before = round.attempts[at.1].state;
    if matches!(before, AttemptState::Posted | AttemptState::Failed) {
        return Err(ReviewError::CannotResolve {
            attempt: a.attempt.clone(),
            state: before.as_str(),
        }
        .into());
    }
    Ok((pos, at))
}

/// `review resolve ID OP --comment N`: the comment a person found (and the host fetched and
/// checked) is the attempt's; the attempt becomes posted.
pub(crate) fn resolve(
    state: &mut State,
    a: &ResolveArgs,
    ctx: &Ctx,
    out: &mut String,
) -> Result<(), VerbError> {
    needs_semantics_2("review-resolve", ctx)?;
    let (pos, at) = check_resolve(state, a, ctx.by)?;
    let round_number = state.rows[pos].review.as_ref().expect("found").rounds[at.0].round;
    let attempt = attempt_mut(state, pos, at);
    let before = attempt.state;
    attempt.state = AttemptState::Posted;
    attempt.comment = Some(a.comment);
    push_head(out, "review resolve ", a.id, round_number, &a.attempt);
    out.push_str(before.as_str());
    out.push_str(" -> posted comment ");
    push_number(out, a.comment);
    Ok(())
}

/// `review abandon ID OP --reason TEXT --yes`: nobody found the comment. The round keeps a
/// duplicate risk, since the comment may still land.
pub(crate) fn abandon(
    state: &mut State,
    a: &AbandonArgs,
    ctx: &Ctx,
    out: &mut String,
) -> Result<(), VerbError> {
    needs_semantics_2("review-abandon", ctx)?;
    if !rules::is_privileged(ctx.by) {
        let action = format!("abandon a request on row {}", a.id);
        return Err(not_allowed(ctx, action, "jason or sage"));
    }
    rules::check_text("--reason", &a.reason)?;
    let pos = state.open_pos(a.id)?;
    let at = find(state, pos, &a.attempt)?;
    let before = state.rows[pos].review.as_ref().expect("found").rounds[at.0].attempts[at.1].state;
    if !matches!(before, AttemptState::Requesting | AttemptState::Uncertain) {
        return Err(ReviewError::CannotAbandon {
            attempt: a.attempt.clone(),
            state: before.as_str(),
        }
        .into());
    }
    let review = state.row_mut(pos).review.as_mut().expect("found");
    let round = &mut review.rounds[at.0];
    round.duplicate_risk = true;
    round.attempts[at.1].state = AttemptState::Abandoned;
    let number = round.round;
    push_head(out, "review abandon ", a.id, number, &a.attempt);
    out.push_str(before.as_str());
    out.push_str(" -> abandoned (duplicate risk)");
    Ok(())
}

/// `<words><id> round <round> <attempt> `: how every attempt receipt begins.
fn push_head(out: &mut String, words: &str, id: u64, round: u32, attempt: &str) {
    out.push_str(words);
    push_number(out, id);
    out.push_str(" round ");
    push_number(out, u64::from(round));
    out.push(' ');
    out.push_str(attempt);
    out.push(' ');
}
