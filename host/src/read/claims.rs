//! What the reads say of leased claims: each row in progress under a seat with a lease, its
//! holder, the lease's end, the last sign of life and its state, judged with the heartbeats
//! read from their files at the world's clock. A queue without leases shows nothing new.

use mosaic_queue_core::signs::{Claim, Judged, Liveness, Signs, judge, turns_at};
use mosaic_queue_core::{Row, State, lease_text};
use serde::Serialize;

use crate::checkout::Paths;
use crate::store::heartbeat;
use crate::store::world::World;

/// The signs of life of the queue's leased claims, read now, and now as the log writes it.
pub struct Seen {
    pub signs: Signs,
    pub now: String,
}

impl Seen {
    /// Reads the heartbeats of the holders of leased claims in `state` (none when it holds no
    /// leased claim, so a queue without leases opens no file).
    pub fn read(world: World<'_>, paths: &Paths, state: &State) -> Seen {
        Seen {
            signs: heartbeat::signs(world.io, paths, state),
            now: world.clock.now(),
        }
    }

    /// Row `row`'s leased claim as judged now; `None` for a row that holds no leased claim.
    pub fn judge(&self, row: &Row) -> Option<ClaimJson> {
        let claim = Claim::of(row).filter(|c| c.lease.is_some())?;
        Some(ClaimJson::new(row.id, &claim, self.judged(&claim)))
    }

    /// `claim` judged with its holder's heartbeat, now.
    pub fn judged(&self, claim: &Claim) -> Judged {
        judge(claim, &self.signs.heartbeat(claim.holder), &self.now)
    }

    /// The first moment (milliseconds since the epoch) at which `claim`, judged with its
    /// holder's heartbeat as read, turns another state with time alone (`signs::turns_at`).
    pub fn turns(&self, claim: &Claim) -> Option<i64> {
        turns_at(claim, &self.signs.heartbeat(claim.holder), &self.now)
    }

    /// Every leased claim in `state`, in row order.
    pub fn all(&self, state: &State) -> Vec<ClaimJson> {
        state.rows.iter().filter_map(|r| self.judge(r)).collect()
    }
}

/// A leased claim as the documents hold it (docs/json.md).
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ClaimJson {
    pub id: u64,
    pub holder: String,
    /// The lease as written back (`2h`).
    pub lease: String,
    pub lease_end: Option<String>,
    pub last_sign: Option<String>,
    pub state: Liveness,
}

impl ClaimJson {
    fn new(id: u64, claim: &Claim, judged: Judged) -> ClaimJson {
        ClaimJson {
            id,
            holder: claim.holder.to_owned(),
            lease: claim.lease.map(lease_text).unwrap_or_default(),
            lease_end: judged.lease_end,
            last_sign: judged.last_sign,
            state: judged.state,
        }
    }

    /// One line: `row 7: louie, lease 1m, ends T, last sign of life T: expired`.
    pub fn line(&self) -> String {
        format!(
            "row {}: {}, lease {}, ends {}, last sign of life {}: {}",
            self.id,
            self.holder,
            self.lease,
            self.lease_end.as_deref().unwrap_or("-"),
            self.last_sign.as_deref().unwrap_or("-"),
            self.state.as_str()
        )
    }

    /// The line `show` prints under the row's fields.
    pub fn show_line(&self) -> String {
        format!(
            "  claim: {}, lease {}, ends {}, last sign of life {}: {}\n",
            self.holder,
            self.lease,
            self.lease_end.as_deref().unwrap_or("-"),
            self.last_sign.as_deref().unwrap_or("-"),
            self.state.as_str()
        )
    }
}

/// The claims section `list` prints under the table; empty when there is no leased claim.
pub fn section(claims: &[ClaimJson]) -> String {
    if claims.is_empty() {
        return String::new();
    }
    let mut text = String::from("\n**Claims**\n\n");
    for c in claims {
        text.push_str(&format!("- {}\n", c.line()));
    }
    text
}
