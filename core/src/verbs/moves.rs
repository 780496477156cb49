//! `move` and `release`: status changes checked against the matrix, plus what a move carries
//! with it (the blocked reason, a new review round on entering in-review, the approvals or
//! evidence that closing a round needs). Semantics 1 entries replay under the old rules.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{claims, coord};
use crate::ctx::{Ctx, not_allowed};
use crate::entry::{HARDENED_SEMANTICS, IdArgs, MoveArgs};
use crate::error::{ClaimError, ReviewError};
use crate::error::{VerbError, issue_list};
use crate::matrix::{self, Needs, Via};
use crate::model::{Review, Round, Row, Status};
use crate::render::push_number;
use crate::review::{self, attempts, manifest, verdicts};
use crate::rules;
use crate::state::State;

pub(super) fn move_row(
    state: &mut State,
    a: &MoveArgs,
    ctx: &Ctx,
    out: &mut String,
) -> Result<(), VerbError> {
    let pos = state.open_pos(a.id)?;
    let row = &state.rows[pos];
    let from = row.status;
    if from == a.to {
        return Err(VerbError::SameStatus {
            id: a.id,
            status: from,
            owner: row.owner.clone(),
        });
    }
    let rule = matrix::rule(from, a.to, Via::Move).ok_or(VerbError::NoTransition {
        id: a.id,
        from,
        to: a.to,
    })?;
    if !rule.who.allows(ctx.by, row.owner.as_deref()) {
        let action = format!("move row {} from {from} to {}", a.id, a.to);
        return Err(not_allowed(ctx, action, rule.who.describe()));
    }
    check_flags(a, from)?;
    let claim = row.owner.is_none() && rule.who == matrix::Who::OwnerOrClaimer;
    let lease = match a.lease {
        Some(_) if a.to != Status::InProgress => {
            return Err(ClaimError::LeaseNotClaim {
                what: "a move that is not into in-progress",
            }
            .into());
        }
        Some(_) if row.owner.is_none() && !claim => {
            return Err(ClaimError::LeaseNotClaim {
                what: "a move that leaves the row without an owner",
            }
            .into());
        }
        seconds => claims::lease_from(seconds, ctx)?,
    };
    let mut new_round = None;
    match rule.needs {
        Needs::Nothing => {}
        Needs::Reason if a.reason.is_none() => {
            return Err(VerbError::MissingReason { id: a.id, to: a.to });
        }
        Needs::Reason => {}
        Needs::Candidate => new_round = Some(check_round_opens(row, a, ctx)?),
        Needs::Approval => check_round_closes(row, a, ctx)?,
    }
    // Every check has passed: nothing below may refuse.
    let row = state.row_mut(pos);
    let mut requested_on = None;
    if let Some(issue) = new_round {
        requested_on = open_round(row, a, ctx, issue);
    }
    if claim {
        row.owner = Some(String::from(ctx.by));
    }
    if a.to == Status::Blocked {
        row.blocked_reason.clone_from(&a.reason);
    } else {
        row.blocked_reason = None;
    }
    row.status = a.to;
    row.lease = lease;
    let rounds = row.review.as_ref().map_or(0, |r| r.rounds.len());
    let reason = match a.to {
        Status::Blocked => None,
        _ => a.reason.as_deref(),
    };
    state.set_move_reason(a.id, reason);
    describe(out, a, from, rounds, requested_on);
    Ok(())
}

/// The entry's description: `move ID FROM -> TO`, the round moved into review, the issue a
/// request goes to, and the lease.
fn describe(
    out: &mut String,
    a: &MoveArgs,
    from: Status,
    rounds: usize,
    requested_on: Option<u64>,
) {
    out.push_str("move ");
    push_number(out, a.id);
    out.push(' ');
    out.push_str(from.as_str());
    out.push_str(" -> ");
    out.push_str(a.to.as_str());
    if a.to == Status::InReview {
        out.push_str(" round ");
        push_number(out, rounds as u64);
    }
    if let Some(issue) = requested_on {
        out.push_str(" request on #");
        push_number(out, issue);
    }
    coord::push_lease(out, a.lease);
}

/// The flags a move carries, each only where it applies: a reason that is table text, a
/// candidate and an issue only into in-review, evidence only from in-review to done.
fn check_flags(a: &MoveArgs, from: Status) -> Result<(), VerbError> {
    if let Some(r) = &a.reason {
        rules::check_text("--reason", r)?;
    }
    if a.to != Status::InReview {
        if a.candidate.is_some() {
            return Err(VerbError::CandidateNotAllowed {
                flag: "--candidate",
            });
        }
        if a.issue.is_some() {
            return Err(VerbError::CandidateNotAllowed { flag: "--issue" });
        }
    }
    if a.evidence.is_some() && !(from == Status::InReview && a.to == Status::Done) {
        return Err(VerbError::EvidenceNotAllowed);
    }
    Ok(())
}

pub(super) fn release(
    state: &mut State,
    a: &IdArgs,
    ctx: &Ctx,
    out: &mut String,
) -> Result<(), VerbError> {
    let pos = state.open_pos(a.id)?;
    let row = &state.rows[pos];
    let from = row.status;
    let rule = matrix::rule(from, Status::Queued, Via::Release).ok_or(VerbError::NoTransition {
        id: a.id,
        from,
        to: Status::Queued,
    })?;
    if !rule.who.allows(ctx.by, row.owner.as_deref()) {
        let action = format!("release row {}", a.id);
        return Err(not_allowed(ctx, action, rule.who.describe()));
    }
    let row = state.row_mut(pos);
    row.status = Status::Queued;
    row.owner = None;
    row.lease = None;
    state.set_move_reason(a.id, None);
    out.push_str("release ");
    push_number(out, a.id);
    out.push(' ');
    out.push_str(from.as_str());
    out.push_str(" -> queued");
    Ok(())
}

/// Checks that the next review round may open and returns the issue it records. Under
/// semantics 1 the round posts nothing and records no issue; the candidate, if given, is kept.
fn check_round_opens(row: &Row, a: &MoveArgs, ctx: &Ctx) -> Result<Option<u64>, VerbError> {
    if let Some(c) = &a.candidate {
        rules::check_digest(c)?;
    }
    check_manifest(a, ctx)?;
    if ctx.semantics == 1 {
        return Ok(None);
    }
    if a.candidate.is_none() {
        return Err(VerbError::MissingCandidate { id: a.id });
    }
    review::check_settled(row)?;
    Ok(Some(choose_issue(row, a.issue)?))
}

/// A `sha256:` candidate is a manifest whose text the entry carries; a `git:` one carries none.
/// Semantics-1 history may name a manifest digest without its text.
fn check_manifest(a: &MoveArgs, ctx: &Ctx) -> Result<(), VerbError> {
    let Some(candidate) = &a.candidate else {
        return match a.manifest {
            Some(_) => Err(VerbError::CandidateNotAllowed { flag: "a manifest" }),
            None => Ok(()),
        };
    };
    let presence = |why| ReviewError::ManifestPresence {
        candidate: candidate.clone(),
        why,
    };
    match (&a.manifest, candidate.starts_with("sha256:")) {
        (None, true) if ctx.semantics == 1 => Ok(()),
        (None, true) => Err(presence("the manifest's text is missing").into()),
        (Some(_), false) => Err(presence("a commit candidate carries no manifest").into()),
        (None, false) => Ok(()),
        (Some(text), true) => {
            manifest::parse(text)?;
            let found = manifest::digest(text);
            if &found != candidate {
                return Err(ReviewError::ManifestDigest {
                    expected: candidate.clone(),
                    found,
                }
                .into());
            }
            Ok(())
        }
    }
}

/// Opens the next review round with its frozen candidate and the issue `check_round_opens`
/// chose. A semantics-2 round on a row with reviewers is a request round: it starts with this
/// entry's attempt requesting, and the issue it posts on is returned.
fn open_round(row: &mut Row, a: &MoveArgs, ctx: &Ctx, issue: Option<u64>) -> Option<u64> {
    let requested = ctx.semantics >= 2 && !row.reviewers.is_empty();
    let review = row
        .review
        .get_or_insert_with(|| Review { rounds: Vec::new() });
    let number = u32::try_from(review.rounds.len() + 1).unwrap_or(u32::MAX);
    let attempts = if requested {
        alloc::vec![attempts::requesting(ctx)]
    } else {
        Vec::new()
    };
    // From semantics 4 the text is stored once, in this entry's args (`Queue::round_manifest`).
    let manifest = if ctx.semantics >= HARDENED_SEMANTICS {
        None
    } else {
        a.manifest.clone()
    };
    review.rounds.push(Round {
        round: number,
        issue,
        candidate: a.candidate.clone(),
        manifest,
        requested,
        opened_by: String::from(ctx.by),
        opened_rev: ctx.rev,
        attempts,
        verdicts: Vec::new(),
        duplicate_risk: false,
    });
    issue.filter(|_| requested)
}

/// Lead decision 23: the round's issue is `--issue` (one of the row's), else the previous
/// round's issue while the row still lists it, else the row's only issue.
fn choose_issue(row: &Row, given: Option<u64>) -> Result<u64, VerbError> {
    let listed = |i: u64| row.issues.contains(&i);
    if row.issues.is_empty() {
        return Err(VerbError::NoIssues { id: row.id });
    }
    let not_listed = |issue| VerbError::IssueNotListed {
        id: row.id,
        issue,
        issues: issue_list(&row.issues),
    };
    if let Some(i) = given {
        return if listed(i) { Ok(i) } else { Err(not_listed(i)) };
    }
    let kept = row
        .review
        .as_ref()
        .and_then(|r| r.rounds.iter().rev().find_map(|round| round.issue));
    match kept {
        Some(i) if listed(i) => Ok(i),
        Some(i) => Err(not_listed(i)),
        None if row.issues.len() == 1 => Ok(row.issues[0]),
        None => Err(VerbError::IssueRequired {
            id: row.id,
            issues: issue_list(&row.issues),
        }),
    }
}

/// What leaving in-review for done or waiting-on-jason needs under semantics 2: on a request
/// round, every reviewer's approval of its candidate; on a round that posted nothing, the
/// evidence (for done). A row that entered in-review before genesis has no round to close.
fn check_round_closes(row: &Row, a: &MoveArgs, ctx: &Ctx) -> Result<(), VerbError> {
    if ctx.semantics == 1 {
        return Ok(());
    }
    review::check_settled(row)?;
    let Some(round) = review::current_round(row) else {
        return match a.evidence {
            Some(_) => Err(VerbError::EvidenceMismatch {
                id: a.id,
                why: "the row has no review round",
            }),
            None => Ok(()),
        };
    };
    if round.requested {
        if a.evidence.is_some() {
            return Err(VerbError::EvidenceNotAllowed);
        }
        let missing = verdicts::missing_approvals(row, round);
        if !missing.is_empty() {
            return Err(VerbError::NotApproved {
                id: a.id,
                round: round.round,
                missing: missing.join(", "),
            });
        }
        return Ok(());
    }
    if a.to != Status::Done {
        return match a.evidence {
            Some(_) => Err(VerbError::EvidenceNotAllowed),
            None => Ok(()),
        };
    }
    let Some(ev) = &a.evidence else {
        return Err(VerbError::EvidenceRequired { id: a.id });
    };
    if ev.round != round.round {
        return Err(VerbError::EvidenceMismatch {
            id: a.id,
            why: "round= is not the current round",
        });
    }
    if Some(&ev.candidate) != round.candidate.as_ref() {
        return Err(VerbError::EvidenceMismatch {
            id: a.id,
            why: "candidate= is not the current round's candidate",
        });
    }
    Ok(())
}
