//! Semantics 7, leases: the queue's default lease, a claim's lease on its row, the reclaim of
//! a claim (by `take` once it expired, or at once by the lead, jason or sage), and the fence
//! that refuses the previous holder's changes afterwards. Replay holds each reclaim to what
//! the log can prove: the holder it names, the lease, and a time past the lease counted from
//! the holder's last entry on the row.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::String;

use crate::ctx::{Ctx, lead_or_privileged, not_allowed};
use crate::entry::{Args, LeaseDefaultArgs, ReclaimArgs, Reclaimed};
use crate::error::{ClaimError, VerbError};
use crate::lease::{check_lease, lease_text};
use crate::matrix::{self, Via};
use crate::model::{Fence, Lease, Row, Status};
use crate::render::push_number;
use crate::rules;
use crate::state::State;
use crate::time;

/// `lease-default 2h` or `off`: the lead, jason or sage.
pub(super) fn lease_default(
    state: &mut State,
    a: &LeaseDefaultArgs,
    ctx: &Ctx,
    out: &mut String,
) -> Result<(), VerbError> {
    lead_or_privileged(ctx, || String::from("set the default lease"))?;
    if let Some(seconds) = a.lease {
        check_lease(u64::from(seconds))?;
    }
    state.set_lease_default(a.lease);
    out.push_str("lease-default ");
    match a.lease {
        Some(seconds) => out.push_str(&lease_text(seconds)),
        None => out.push_str("off"),
    }
    Ok(())
}

/// A claim's lease as its row keeps it: `seconds` (checked within bounds) from this entry.
pub(super) fn lease_from(seconds: Option<u32>, ctx: &Ctx) -> Result<Option<Lease>, VerbError> {
    let Some(seconds) = seconds else {
        return Ok(None);
    };
    check_lease(u64::from(seconds))?;
    Ok(Some(Lease {
        seconds,
        since: ctx.rev,
        seen: String::from(ctx.at),
    }))
}

/// Row `pos` is now `holder`'s by this entry (a take, an assign, a move that claims it): its
/// lease, if any, counts from here, and `holder` is no longer fenced off it.
pub(super) fn given(state: &mut State, pos: usize, holder: &str, ctx: &Ctx) {
    let row = state.row_mut(pos);
    if let Some(lease) = &mut row.lease {
        lease.since = ctx.rev;
        ctx.at.clone_into(&mut lease.seen);
    }
    row.fenced.retain(|f| f.seat != holder);
}

/// Refuses a fenced seat's change to a row (`move`, `release`, `note`, `set`): the changes a
/// holder makes while it works. A take or an assign gives it the row anew; a review verdict or
/// outcome is a fact about a round, not the claim; a reclaim is the lead's, jason's or sage's.
pub(super) fn check_fence(state: &State, args: &Args, ctx: &Ctx) -> Result<(), VerbError> {
    if !matches!(
        args,
        Args::Move(_) | Args::Release(_) | Args::Note(_) | Args::Set(_)
    ) {
        return Ok(());
    }
    let Some(row) = args.row().and_then(|id| state.row(id).ok()) else {
        return Ok(());
    };
    let Some(fence) = row.fenced.iter().find(|f| f.seat == ctx.by) else {
        return Ok(());
    };
    Err(ClaimError::Fenced {
        id: row.id,
        seat: fence.seat.clone(),
        rev: fence.rev,
        held: held(row),
    }
    .into())
}

/// Who holds `row` now, and since which revision when its lease says.
fn held(row: &Row) -> String {
    match (&row.owner, row.status, &row.lease) {
        (Some(o), Status::InProgress, Some(l)) => format!("{o} holds it since rev {}", l.since),
        (Some(o), Status::InProgress, None) => format!("{o} holds it now"),
        (Some(o), status, _) => format!("it is {status}, owned by {o}"),
        (None, status, _) => format!("it is {status} with no owner"),
    }
}

/// After an entry by `ctx.by` on its row: the holder's entry is a sign of life the log proves,
/// so a leased claim's `seen` becomes the later of the two times.
pub(super) fn logged_sign(state: &mut State, args: &Args, ctx: &Ctx) {
    let Some(pos) = args.row().and_then(|id| state.pos(id).ok()) else {
        return;
    };
    let row = &state.rows[pos];
    let later = row.status == Status::InProgress
        && row.owner.as_deref() == Some(ctx.by)
        && row.lease.as_ref().is_some_and(|l| ctx.at > l.seen.as_str());
    if later && let Some(lease) = &mut state.row_mut(pos).lease {
        ctx.at.clone_into(&mut lease.seen);
    }
}

/// Checks that `r`, the claim a take or a reclaim ends on row `pos`, is the claim the row
/// holds: in progress under `r.from`, with the lease it names.
fn check_holder(row: &Row, from: &str, lease: Option<u32>) -> Result<(), VerbError> {
    let Some(holder) = row
        .owner
        .as_deref()
        .filter(|_| row.status == Status::InProgress)
    else {
        return Err(ClaimError::NoClaim {
            id: row.id,
            status: row.status,
        }
        .into());
    };
    if holder != from {
        return Err(ClaimError::NotHolder {
            id: row.id,
            from: String::from(from),
            now: format!("{holder} holds it"),
        }
        .into());
    }
    let claim = row.lease.as_ref().map(|l| l.seconds);
    if claim != lease {
        let said = |l: Option<u32>| match l {
            Some(s) => format!("a lease of {}", lease_text(s)),
            None => String::from("no lease"),
        };
        return Err(ClaimError::ReclaimLease {
            id: row.id,
            from: String::from(from),
            recorded: said(lease),
            claim: said(claim),
        }
        .into());
    }
    Ok(())
}

/// What the log proves of a take that reclaims: the claim it names is the row's, the sign it
/// cites is not before the holder's last entry on the row, and the entry's time is past the
/// lease counted from that sign.
pub(super) fn check_expired(row: &Row, r: &Reclaimed, ctx: &Ctx) -> Result<(), VerbError> {
    check_holder(row, &r.from, Some(r.lease))?;
    if r.from == ctx.by {
        return Err(ClaimError::NotHolder {
            id: row.id,
            from: r.from.clone(),
            now: String::from("a seat does not reclaim its own claim; it carries on with it"),
        }
        .into());
    }
    rules::check_timestamp(&r.seen)?;
    let logged = row.lease.as_ref().map_or("", |l| l.seen.as_str());
    if r.seen.as_str() < logged {
        return Err(ClaimError::ReclaimSign {
            id: row.id,
            from: r.from.clone(),
            seen: r.seen.clone(),
            logged: String::from(logged),
        }
        .into());
    }
    let (Some(sign), Some(at)) = (time::millis(&r.seen), time::millis(ctx.at)) else {
        return Err(VerbError::BadTimestamp { at: r.seen.clone() });
    };
    let end = sign + i64::from(r.lease) * time::SECOND;
    if at < end {
        let when = format!(
            "at {}, but its lease of {} counted from {} runs until {}",
            ctx.at,
            lease_text(r.lease),
            r.seen,
            time::stamp(end)
        );
        return Err(ClaimError::ReclaimEarly {
            id: row.id,
            from: r.from.clone(),
            when,
        }
        .into());
    }
    Ok(())
}

/// Row `pos` taken by `ctx.by` with `lease` (every check passed): the row is the taker's, in
/// progress, its lease counting from here; a previous holder whose expired claim the take
/// ended is fenced off it, and the taker is not.
pub(super) fn take_over(state: &mut State, pos: usize, lease: Option<Lease>, ctx: &Ctx) {
    let row = state.row_mut(pos);
    if row.status == Status::InProgress
        && let Some(previous) = row.owner.take()
    {
        fence(row, &previous, ctx.rev);
    }
    row.owner = Some(String::from(ctx.by));
    row.status = Status::InProgress;
    row.blocked_reason = None;
    row.lease = lease;
    row.fenced.retain(|f| f.seat != ctx.by);
}

/// Fences `seat` off `row` from revision `rev` (a seat fenced before moves to the end).
fn fence(row: &mut Row, seat: &str, rev: u64) {
    row.fenced.retain(|f| f.seat != seat);
    row.fenced.push(Fence {
        seat: String::from(seat),
        rev,
    });
}

/// `reclaim ID --reason TEXT`: the lead, jason or sage ends the claim at once, needing no
/// expiry. The row goes back to queued with no owner, free work for the next `take`, its
/// reason shown with the status; the previous holder is fenced off it.
pub(super) fn reclaim(
    state: &mut State,
    a: &ReclaimArgs,
    ctx: &Ctx,
    out: &mut String,
) -> Result<(), VerbError> {
    // The matrix's rule (in-progress to queued by reclaim) says who; the claim checks the rest.
    let rule = matrix::rule(Status::InProgress, Status::Queued, Via::Reclaim);
    if !rule.is_some_and(|r| r.who.allows(ctx.by, None)) {
        let action = format!("reclaim row {}", a.id);
        let who = rule.map_or("the lead, jason or sage only", |r| r.who.describe());
        return Err(not_allowed(ctx, action, who));
    }
    rules::check_text("--reason", &a.reason)?;
    if let Some(seen) = &a.seen {
        rules::check_timestamp(seen)?;
    }
    let pos = state.open_pos(a.id)?;
    check_holder(&state.rows[pos], &a.from, a.lease)?;
    let row = state.row_mut(pos);
    fence(row, &a.from, ctx.rev);
    row.status = Status::Queued;
    row.owner = None;
    row.lease = None;
    state.set_move_reason(a.id, Some(&a.reason));
    out.push_str("reclaim ");
    push_number(out, a.id);
    out.push_str(" in-progress -> queued, from ");
    out.push_str(&a.from);
    Ok(())
}
