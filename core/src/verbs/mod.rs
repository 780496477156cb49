//! The verbs as pure functions. `apply` takes the state, one entry's arguments and its
//! context (op, actor, time, semantics, revision) and either changes the state and returns the
//! receipt, or refuses and leaves the state as it was. Writes and replay both go through it.
//! This file only dispatches: the verbs live in the files below it (the review verbs in
//! `review`), and none of them imports from here.

mod check;
mod claims;
pub(crate) mod command;
mod coord;
mod cut;
mod edit;
mod genesis;
mod moves;
pub(crate) mod numbers;
mod replication;

use alloc::string::String;

use crate::admission;
use crate::ctx::Ctx;
use crate::entry::{
    Args, COORDINATION_SEMANTICS, CURRENT_SEMANTICS, EPOCH_SEMANTICS, HARDENED_SEMANTICS,
    LEASE_SEMANTICS, REPLICATION_SEMANTICS,
};
use crate::error::{ClaimError, ReplicationError, VerbError};
use crate::render::push_number;
use crate::review::{attempts, verdicts};
use crate::rules;
use crate::state::State;

pub use command::{
    AbandonCmd, AcceptHistoryCmd, COMMAND_VERBS, Command, NewRow, ReclaimCmd, TakeCmd,
};

/// Applies one entry's arguments. On success the state moves to `ctx.rev` and the receipt is
/// returned; on refusal the state is untouched.
pub fn apply(state: &mut State, args: &Args, ctx: &Ctx) -> Result<String, VerbError> {
    let mut receipt = String::with_capacity(ctx.op.len() + 64);
    apply_into(state, args, ctx, &mut receipt)?;
    Ok(receipt)
}

/// `apply`, writing the receipt into `receipt` (cleared first) so that replay can reuse one
/// buffer for every entry. On refusal the state is untouched and `receipt` holds nothing useful.
pub(crate) fn apply_into(
    state: &mut State,
    args: &Args,
    ctx: &Ctx,
    receipt: &mut String,
) -> Result<(), VerbError> {
    // An outcome's op is its attempt's op plus `.outcome`, which `outcome` checks.
    if !matches!(args, Args::ReviewOutcome(_)) {
        rules::check_logged_op(ctx.op)?;
    }
    rules::check_actor(ctx.by)?;
    rules::check_timestamp(ctx.at)?;
    numbers::args(args)?;
    check_semantics(state, args, ctx)?;
    claims::check_fence(state, args, ctx)?;
    receipt.clear();
    receipt.push_str("ok ");
    receipt.push_str(ctx.op);
    receipt.push_str(" rev ");
    push_number(receipt, ctx.rev);
    receipt.push(' ');
    match args {
        Args::Genesis(a) => genesis::apply(state, a, ctx, receipt)?,
        _ if state.branch.is_none() => return Err(VerbError::NoGenesis),
        Args::Add(a) => edit::add(state, a, ctx, receipt)?,
        Args::Move(a) => moves::move_row(state, a, ctx, receipt)?,
        Args::Release(a) => moves::release(state, a, ctx, receipt)?,
        Args::Assign(a) => edit::assign(state, a, ctx, receipt)?,
        Args::Note(a) => edit::note(state, a, ctx, receipt)?,
        Args::Set(a) => edit::set(state, a, ctx, receipt)?,
        Args::AcceptHistory(a) => edit::accept_history(a, ctx, receipt)?,
        Args::ReviewRequest(a) => attempts::request(state, a, ctx, receipt)?,
        Args::ReviewOutcome(a) => attempts::outcome(state, a, ctx, receipt)?,
        Args::ReviewResolve(a) => attempts::resolve(state, a, ctx, receipt)?,
        Args::ReviewAbandon(a) => attempts::abandon(state, a, ctx, receipt)?,
        Args::ReviewRecord(a) => verdicts::record(state, a, ctx, receipt)?,
        Args::Take(a) => coord::take(state, a, ctx, receipt)?,
        Args::LeaseDefault(a) => claims::lease_default(state, a, ctx, receipt)?,
        Args::Reclaim(a) => claims::reclaim(state, a, ctx, receipt)?,
        Args::Archive(a) => cut::archive(state, a, ctx, receipt)?,
        Args::Replication(a) => replication::replication(state, a, ctx, receipt)?,
        Args::Adopt(a) => replication::adopt(state, a, ctx, receipt)?,
        // Replay starts from it; anywhere else in a log it is refused.
        Args::Epoch(_) => {
            return Err(VerbError::EpochEntry {
                why: "an epoch entry stands only first in a log",
            });
        }
    }
    claims::logged_sign(state, args, ctx);
    state.leases |= ctx.semantics >= LEASE_SEMANTICS;
    state.replicating |= ctx.semantics >= REPLICATION_SEMANTICS;
    state.semantics = ctx.semantics;
    state.revision = ctx.rev;
    Ok(())
}

/// The semantics an entry is under, checked against what it holds and what came before it:
/// one this build knows (6 only in a cut log), the rules it brought for what it carries, and
/// never below 7 once the log reached 7.
fn check_semantics(state: &State, args: &Args, ctx: &Ctx) -> Result<(), VerbError> {
    let cut = state.seed().is_some();
    if !(1..=CURRENT_SEMANTICS).contains(&ctx.semantics)
        || (ctx.semantics == EPOCH_SEMANTICS && !cut)
    {
        return Err(VerbError::UnknownSemantics {
            semantics: ctx.semantics,
            current: CURRENT_SEMANTICS,
        });
    }
    if ctx.semantics >= EPOCH_SEMANTICS && !matches!(args, Args::ReviewOutcome(_)) {
        rules::check_op(ctx.op)?;
    }
    // A semantics 4 entry was held to the rules for new entries when it was written; one that
    // breaks them was written by hand.
    if ctx.semantics >= HARDENED_SEMANTICS {
        admission::check(args, ctx.op)?;
    }
    if ctx.semantics < COORDINATION_SEMANTICS && args.uses_coordination() {
        return Err(VerbError::NeedsSemantics3 {
            what: if matches!(args, Args::Take(_)) {
                "take"
            } else {
                "a dependency between rows"
            },
            semantics: ctx.semantics,
        });
    }
    if ctx.semantics < LEASE_SEMANTICS {
        if let Some(what) = args.uses_leases() {
            let semantics = ctx.semantics;
            return Err(ClaimError::NeedsSemantics7 { what, semantics }.into());
        }
        if state.leases {
            let semantics = ctx.semantics;
            return Err(ClaimError::SemanticsDropped { semantics }.into());
        }
    }
    if ctx.semantics < REPLICATION_SEMANTICS {
        let semantics = ctx.semantics;
        if let Some(what) = args.uses_replication() {
            return Err(ReplicationError::NeedsSemantics8 { what, semantics }.into());
        }
        if state.replicating {
            return Err(ReplicationError::SemanticsDropped { semantics }.into());
        }
    }
    Ok(())
}
