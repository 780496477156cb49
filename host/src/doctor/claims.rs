//! Doctor's look at leased claims: each expired claim, with the commands that end it, and
//! each claim past its lease by the log whose holder's heartbeat cannot be read (so it is
//! never reclaimed by `take`), with the file to look at.

use mosaic_queue_core::State;
use mosaic_queue_core::signs::{Claim, Heartbeat, Liveness, judge};

use super::{Finding, Kind, choice};
use crate::checkout::Paths;
use crate::store::heartbeat;
use crate::store::world::World;

/// Adds a finding for every leased claim in `state` that is expired or unknown now.
pub(super) fn inspect(world: World<'_>, paths: &Paths, state: &State, out: &mut Vec<Finding>) {
    let signs = heartbeat::signs(world.io, paths, state);
    let now = world.clock.now();
    for row in &state.rows {
        let Some(claim) = Claim::of(row).filter(|c| c.lease.is_some()) else {
            continue;
        };
        let beat = signs.heartbeat(claim.holder);
        let judged = judge(&claim, &beat, &now);
        let last = judged.last_sign.as_deref().unwrap_or("none");
        match judged.state {
            Liveness::Expired => out.push(Finding::choose(
                Kind::ClaimExpired,
                format!(
                    "row {}: the claim by {} expired at {} (last sign of life {last}); another seat's `mosaic-queue take` reclaims it, or the lead, jason or sage runs `mosaic-queue reclaim {} --reason TEXT`",
                    row.id,
                    claim.holder,
                    judged.lease_end.as_deref().unwrap_or("-"),
                    row.id
                ),
                choice::end_claim(row.id, claim.holder).into(),
            )),
            Liveness::Unknown => {
                let file = heartbeat::path(paths, claim.holder);
                let why = match beat {
                    Heartbeat::Unknown => format!(
                        "its heartbeat {} is missing or unreadable (not a regular file of one timestamp)",
                        file.display()
                    ),
                    Heartbeat::At(at) => format!("its last sign of life {at} stands ahead of this host's clock"),
                };
                out.push(Finding::choose(
                    Kind::ClaimUnknown,
                    format!(
                        "row {}: the claim by {} is past its lease by the log (last sign {last}), but {why}, so no take reclaims it; {} runs `mosaic-queue heartbeat` if it is still at work, else the lead, jason or sage runs `mosaic-queue reclaim {} --reason TEXT`",
                        row.id, claim.holder, claim.holder, row.id
                    ),
                    choice::end_claim(row.id, claim.holder)[1..].to_vec(),
                ));
            }
            _ => {}
        }
    }
}
