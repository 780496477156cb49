//! Semantics 8, replication: `replication required|off`, which makes a change's receipt wait
//! for the follower's push (the host does the waiting; the queue only records the setting),
//! and `adopt`, the entry a standby's checkout writes when it takes the queue over from the
//! replicated ref: the queue's canonical root moves to the standby's from that entry on.

use alloc::borrow::ToOwned;
use alloc::string::String;

use crate::ctx::{Ctx, lead_or_privileged};
use crate::entry::{AdoptArgs, ReplicationArgs};
use crate::error::{ReplicationError, VerbError};
use crate::hex::is_hex;
use crate::render::push_number;
use crate::state::State;

/// `replication required` or `replication off`: the lead, jason or sage.
pub(super) fn replication(
    state: &mut State,
    a: &ReplicationArgs,
    ctx: &Ctx,
    out: &mut String,
) -> Result<(), VerbError> {
    lead_or_privileged(ctx, || String::from("set replication"))?;
    state.set_replication(a.mode);
    out.push_str("replication ");
    out.push_str(a.mode.as_str());
    Ok(())
}

/// `adopt`: the lead, jason or sage, right after the revision it adopts, naming the root the
/// queue had; the root moves to `a.root`.
pub(super) fn adopt(
    state: &mut State,
    a: &AdoptArgs,
    ctx: &Ctx,
    out: &mut String,
) -> Result<(), VerbError> {
    lead_or_privileged(ctx, || String::from("adopt the queue"))?;
    let root = state.root.as_deref().unwrap_or_default();
    if a.from != root {
        return Err(ReplicationError::From {
            from: a.from.clone(),
            root: root.to_owned(),
        }
        .into());
    }
    if a.revision.checked_add(1) != Some(ctx.rev) {
        return Err(ReplicationError::Revision {
            named: a.revision,
            rev: ctx.rev,
        }
        .into());
    }
    if !a.root.starts_with('/') || a.root.chars().any(char::is_control) {
        return Err(ReplicationError::Root {
            root: a.root.clone(),
        }
        .into());
    }
    if a.host.is_empty() || a.host.len() > 255 || a.host.chars().any(|c| c.is_control() || c == ' ')
    {
        return Err(ReplicationError::Host {
            host: a.host.clone(),
        }
        .into());
    }
    if !is_hex(&a.commit, 40) && !is_hex(&a.commit, 64) {
        return Err(ReplicationError::Commit {
            commit: a.commit.clone(),
        }
        .into());
    }
    state.set_root(&a.root);
    out.push_str("adopt rev ");
    push_number(out, a.revision);
    out.push_str(" from ");
    out.push_str(&a.from);
    out.push_str(" (commit ");
    out.push_str(&a.commit[..12]);
    out.push_str(") to ");
    out.push_str(&a.host);
    out.push(':');
    out.push_str(&a.root);
    Ok(())
}
