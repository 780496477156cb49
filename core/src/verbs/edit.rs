//! Verbs that change a row's fields without moving it: `add`, `assign`, `note`, `set`, and
//! `accept-history`, which changes no row but records a recovery in the log.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::check::{check_issues, check_opt_text, check_seats};
use super::command::AT_MOST_ONCE_NOTICE;
use super::{claims, coord};
use crate::ctx::{Ctx, lead_or_privileged, not_allowed};
use crate::entry::{AcceptHistoryArgs, AddArgs, AssignArgs, NoteArgs, SetArgs, SetField, SetValue};
use crate::error::{VerbError, issue_list};
use crate::model::{Row, Status};
use crate::render::push_number;
use crate::rules::{self, is_lead_or_privileged};
use crate::state::State;

pub(super) fn add(
    state: &mut State,
    a: &AddArgs,
    ctx: &Ctx,
    out: &mut String,
) -> Result<(), VerbError> {
    lead_or_privileged(ctx, || String::from("add rows"))?;
    if a.id != state.next_id() {
        return Err(VerbError::BadText {
            field: "add id",
            why: "must be one more than the highest row id",
        });
    }
    if !matches!(a.status, Status::Queued | Status::Parked) {
        return Err(VerbError::BadText {
            field: "--status",
            why: "must be queued or parked for a new row",
        });
    }
    rules::check_text("piece", &a.piece)?;
    if let Some(o) = &a.owner {
        rules::check_seat(o)?;
    }
    check_opt_text("gate", &a.gate)?;
    check_opt_text("note", &a.note)?;
    if let Some(b) = &a.brief {
        rules::check_anchor(b)?;
    }
    check_issues(&a.issues)?;
    check_seats(&a.reviewers)?;
    coord::check_after(state, a.id, &a.after)?;
    state.put_row(Row {
        id: a.id,
        piece: a.piece.clone(),
        owner: a.owner.clone(),
        status: a.status,
        gate: a.gate.clone(),
        issues: a.issues.clone(),
        closes: a.issues.clone(),
        closes_narrowed: false,
        reviewers: a.reviewers.clone(),
        brief: a.brief.clone(),
        note: a.note.clone(),
        blocked_reason: None,
        review: None,
        after: a.after.clone(),
        lease: None,
        fenced: Vec::new(),
    });
    out.push_str("add ");
    push_number(out, a.id);
    out.push(' ');
    out.push_str(a.status.as_str());
    Ok(())
}

pub(super) fn assign(
    state: &mut State,
    a: &AssignArgs,
    ctx: &Ctx,
    out: &mut String,
) -> Result<(), VerbError> {
    lead_or_privileged(ctx, || format!("assign row {}", a.id))?;
    rules::check_seat(&a.owner)?;
    let pos = state.open_pos(a.id)?;
    a.owner
        .clone_into(state.row_mut(pos).owner.get_or_insert_default());
    claims::given(state, pos, &a.owner, ctx);
    out.push_str("assign ");
    push_number(out, a.id);
    out.push(' ');
    out.push_str(&a.owner);
    Ok(())
}

pub(super) fn note(
    state: &mut State,
    a: &NoteArgs,
    ctx: &Ctx,
    out: &mut String,
) -> Result<(), VerbError> {
    let pos = state.open_pos(a.id)?;
    let row = &state.rows[pos];
    let is_reviewer = row.reviewers.iter().any(|r| r == ctx.by);
    if !(row.owner.as_deref() == Some(ctx.by) || is_reviewer || is_lead_or_privileged(ctx.by)) {
        let action = format!("note row {}", a.id);
        return Err(not_allowed(
            ctx,
            action,
            "the owner, a listed reviewer, the lead, jason or sage only",
        ));
    }
    check_opt_text("note", &a.text)?;
    state.row_mut(pos).note.clone_from(&a.text);
    out.push_str("note ");
    push_number(out, a.id);
    if a.text.is_none() {
        out.push_str(" cleared");
    }
    Ok(())
}

pub(super) fn set(
    state: &mut State,
    a: &SetArgs,
    ctx: &Ctx,
    out: &mut String,
) -> Result<(), VerbError> {
    let pos = state.open_pos(a.id)?;
    let row = &state.rows[pos];
    if !(row.owner.as_deref() == Some(ctx.by) || is_lead_or_privileged(ctx.by)) {
        let action = format!("set {} on row {}", a.field.as_str(), a.id);
        return Err(not_allowed(
            ctx,
            action,
            "the owner, the lead, jason or sage only",
        ));
    }
    check_opt_text("--reason", &a.reason)?;
    let mut suffix = "";
    // Each arm checks against `row` before it changes anything through `row_mut`.
    match (a.field, &a.value) {
        (SetField::Piece, SetValue::Text(Some(t))) => {
            rules::check_text("piece", t)?;
            t.clone_into(&mut state.row_mut(pos).piece);
        }
        (SetField::Gate, SetValue::Text(t)) => {
            check_opt_text("gate", t)?;
            state.row_mut(pos).gate.clone_from(t);
        }
        (SetField::Brief, SetValue::Text(t)) => {
            if let Some(b) = t {
                rules::check_anchor(b)?;
            }
            state.row_mut(pos).brief.clone_from(t);
        }
        (SetField::Issues, SetValue::Numbers(n)) => suffix = set_issues(state, pos, n)?,
        (SetField::Closes, SetValue::Numbers(n)) => set_closes(state, pos, a, n)?,
        (SetField::Reviewers, SetValue::Seats(s)) => {
            check_seats(s)?;
            state.row_mut(pos).reviewers.clone_from(s);
        }
        (SetField::After, SetValue::Numbers(n)) => {
            coord::set_after(state, pos, a.id, n, ctx)?;
        }
        (field, _) => return Err(wrong_type(field)),
    }
    out.push_str("set ");
    push_number(out, a.id);
    out.push(' ');
    out.push_str(a.field.as_str());
    out.push_str(suffix);
    Ok(())
}

/// `set ID issues`: the row's closes follow its issues, unless they were narrowed, when they
/// only lose the issues no longer listed (what the receipt's suffix says).
fn set_issues(state: &mut State, pos: usize, n: &[u64]) -> Result<&'static str, VerbError> {
    check_issues(n)?;
    let row = state.row_mut(pos);
    let suffix = if row.closes_narrowed {
        row.closes.retain(|c| n.contains(c));
        " (kept narrowed)"
    } else {
        replace(&mut row.closes, n);
        ""
    };
    replace(&mut row.issues, n);
    Ok(suffix)
}

/// `set ID closes`: a subset of the row's issues; fewer than all of them needs a reason.
fn set_closes(state: &mut State, pos: usize, a: &SetArgs, n: &[u64]) -> Result<(), VerbError> {
    check_issues(n)?;
    let row = &state.rows[pos];
    if let Some(&missing) = n.iter().find(|c| !row.issues.contains(c)) {
        return Err(VerbError::ClosesNotSubset {
            issues: issue_list(&row.issues),
            missing,
        });
    }
    let narrowed = *n != row.issues;
    if narrowed && a.reason.is_none() {
        return Err(VerbError::NarrowNeedsReason { id: a.id });
    }
    let row = state.row_mut(pos);
    replace(&mut row.closes, n);
    row.closes_narrowed = narrowed;
    Ok(())
}

/// `list` holding `n`, in the buffer it had.
fn replace(list: &mut Vec<u64>, n: &[u64]) {
    list.clear();
    list.extend_from_slice(n);
}

/// The refusal of a `set` whose value is not of its field's kind.
fn wrong_type(field: SetField) -> VerbError {
    let expected = match field {
        SetField::Piece => "a non-empty text",
        SetField::Gate | SetField::Brief => "a text (empty clears it)",
        SetField::Issues | SetField::Closes => "a list of issue numbers",
        SetField::Reviewers => "a list of seats",
        SetField::After => "a list of row numbers (empty clears it)",
    };
    VerbError::SetValueType {
        field: field.as_str(),
        expected,
    }
}

pub(super) fn accept_history(
    a: &AcceptHistoryArgs,
    ctx: &Ctx,
    out: &mut String,
) -> Result<(), VerbError> {
    if !rules::is_privileged(ctx.by) {
        return Err(not_allowed(
            ctx,
            String::from("accept history"),
            "jason or sage only",
        ));
    }
    rules::check_text("--reason", &a.reason)?;
    if a.new_revision != ctx.rev || a.notice != AT_MOST_ONCE_NOTICE {
        return Err(VerbError::BadText {
            field: "accept-history record",
            why: "must name its own revision and carry the at-most-once notice",
        });
    }
    out.push_str("accept-history replaces ");
    match &a.old_witness {
        Some(w) => {
            out.push_str("witness rev ");
            push_number(out, w.revision);
        }
        None => out.push_str("no witness"),
    }
    out.push_str("; at-most-once not guaranteed before rev ");
    push_number(out, ctx.rev);
    Ok(())
}
