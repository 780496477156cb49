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

pub(crate) fn not_allowed(ctx: &Ctx, action: String, who: &'static str) -> VerbError {
    VerbError::NotAllowed {
        actor: String::from(ctx.by),
        action,
        who,
    }
}
