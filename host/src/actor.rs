//! Who a command acts as, by the contract's rule for every face: `--by NAME`, else
//! `$MOSAIC_AGENT_NAME` (a warning when both are set and differ); and the seat a read is for.

use crate::reply::{Failure, Reply};

/// The actor: `by`, else `$MOSAIC_AGENT_NAME`; a warning when both are set and differ.
pub fn actor(by: Option<&str>, reply: &mut dyn Reply) -> Result<String, Failure> {
    let env = match std::env::var("MOSAIC_AGENT_NAME") {
        Ok(s) => Some(s).filter(|s| !s.is_empty()),
        // Set, but to bytes no actor name can be: refused, not taken for unset, unless --by
        // names the actor anyway.
        Err(std::env::VarError::NotUnicode(v)) if by.is_none() => {
            return Err(Failure::refused(format!(
                "refused: MOSAIC_AGENT_NAME {:?} is not UTF-8, so it names no actor; set it to your seat or pass --by NAME",
                v.to_string_lossy()
            )));
        }
        Err(_) => None,
    };
    match (by, env) {
        (Some(b), Some(e)) if b != e => {
            reply.warn(&format!(
                "warning: --by {b} differs from MOSAIC_AGENT_NAME={e}; acting as {b}"
            ));
            Ok(b.to_owned())
        }
        (Some(b), _) => Ok(b.to_owned()),
        (None, Some(e)) => Ok(e),
        (None, None) => Err(Failure::usage(
            "no actor: pass --by NAME or set MOSAIC_AGENT_NAME",
        )),
    }
}

/// The seat a read is for: `seat`, else `$MOSAIC_AGENT_NAME` (an empty one counts as unset).
/// The contract: `next` without a seat refuses (exit 2), as does a name that is no seat, before
/// anything is read; `prime` and `next --explain` answer the same way. `verb` names the verb
/// in the refusal.
pub fn seat_or_agent(seat: Option<String>, verb: &str) -> Result<String, Failure> {
    seat_or(
        seat,
        &format!(
            "refused: {verb} needs a seat: pass `mosaic-queue {verb} SEAT` or set MOSAIC_AGENT_NAME"
        ),
    )
}

/// `seat`, else `$MOSAIC_AGENT_NAME` (an empty one counts as unset), checked as every verb
/// checks a seat; `missing` is the refusal when neither names one.
pub fn seat_or(seat: Option<String>, missing: &str) -> Result<String, Failure> {
    let seat = match seat {
        Some(s) => s,
        None => match std::env::var_os("MOSAIC_AGENT_NAME") {
            Some(v) if !v.is_empty() => v.into_string().map_err(|v| {
                Failure::refused(format!(
                    "refused: MOSAIC_AGENT_NAME {:?} is not a seat name; set it to your seat",
                    v.to_string_lossy()
                ))
            })?,
            _ => return Err(Failure::refused(missing)),
        },
    };
    mosaic_queue_core::check_seat(&seat)?;
    Ok(seat)
}
