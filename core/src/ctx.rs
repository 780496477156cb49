//! What an entry is applied under (its revision, op, actor, time and semantics), and the
//! refusal of an actor the rules do not allow. Every verb, the review verbs included, takes a
//! `Ctx`; `replay` and `queue` build one per entry.

use alloc::string::String;

use crate::error::VerbError;

/// What an entry is applied under.
#[derive(Clone, Copy, Debug)]
pub struct Ctx<'a> {
    pub rev: u64,
    pub op: &'a str,
    pub by: &'a str,
    pub at: &'a str,
    pub semantics: u8,
}

/// Refuses `ctx`'s actor unless it is the lead, jason or sage; `action` says what was asked
/// (built only for the refusal).
pub(crate) fn lead_or_privileged(
    ctx: &Ctx,
    action: impl FnOnce() -> String,
) -> Result<(), VerbError> {
    if crate::rules::is_lead_or_privileged(ctx.by) {
        return Ok(());
    }
    Err(not_allowed(ctx, action(), "the lead, jason or sage only"))
}

pub(crate) fn not_allowed(ctx: &Ctx, action: String, who: &'static str) -> VerbError {
    VerbError::NotAllowed {
        actor: String::from(ctx.by),
        action,
        who,
    }
}
