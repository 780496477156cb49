//! `archive`: the entry after a cut log's window. It changes no row (the epoch state already
//! lacks the archived ones); it must say exactly what the epoch entry it follows implies, once.

use alloc::string::String;

use crate::ctx::{Ctx, lead_or_privileged};
use crate::entry::EPOCH_SEMANTICS;
use crate::epoch::ArchiveArgs;
use crate::error::VerbError;
use crate::render::push_number;
use crate::state::State;

pub(super) fn archive(
    state: &mut State,
    a: &ArchiveArgs,
    ctx: &Ctx,
    out: &mut String,
) -> Result<(), VerbError> {
    if ctx.semantics < EPOCH_SEMANTICS {
        return Err(VerbError::EpochEntry {
            why: "an archive entry is written under semantics 6 (7 in a queue that reached 7)",
        });
    }
    lead_or_privileged(ctx, || String::from("cut the history"))?;
    let Some(seed) = state.seed_mut() else {
        return Err(VerbError::EpochEntry {
            why: "an archive entry follows the epoch entry it pins; this log has none",
        });
    };
    if seed.archived_at.is_some() {
        return Err(VerbError::EpochEntry {
            why: "the log holds a second archive entry for its epoch",
        });
    }
    if *a != seed.expected {
        return Err(VerbError::EpochEntry {
            why: "the archive entry does not name the epoch entry, archive and counts the log starts with",
        });
    }
    seed.archived_at = Some(ctx.rev);
    out.push_str("archived ");
    push_number(out, a.entries);
    out.push_str(" entries and ");
    push_number(out, a.rows);
    out.push_str(" done rows to ");
    out.push_str(&a.file);
    Ok(())
}
