//! A change as a caller asks for it (`Command`), and how it becomes an entry's arguments:
//! `normalize` for a new entry, `matches` for the retry of one already recorded. The host and
//! the wasm build parse commands into this type; `Queue::execute` takes it.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::entry::{
    AbandonArgs, AcceptHistoryArgs, AddArgs, AdoptArgs, Args, AssignArgs, IdArgs, LeaseDefaultArgs,
    MoveArgs, NoteArgs, OutcomeArgs, ReclaimArgs, Reclaimed, RecordArgs, ReplicationArgs,
    ResolveArgs, SetArgs, SetValue, TakeArgs, Verb,
};
use crate::error::{ClaimError, VerbError};
use crate::liveness::{Claim, Heartbeat, Signs, judge};
use crate::model::{Row, Status, Witness};
use crate::pick::{self, Pick};
use crate::state::State;

/// A change as a caller asks for it, before normalization. Mirrors `Args`, except that `add`
/// has no id yet and `accept-history` carries its confirmation and the witness it replaces.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(tag = "verb", rename_all = "kebab-case")]
pub enum Command {
    Add(NewRow),
    Move(MoveArgs),
    Release(IdArgs),
    Assign(AssignArgs),
    Note(NoteArgs),
    Set(SetArgs),
    AcceptHistory(AcceptHistoryCmd),
    ReviewRequest(IdArgs),
    /// Logged by the host as op `<attempt>.outcome` once the transport has answered.
    ReviewOutcome(OutcomeArgs),
    ReviewResolve(ResolveArgs),
    ReviewAbandon(AbandonCmd),
    ReviewRecord(RecordArgs),
    /// Claim the row `next` names for the actor (semantics 3), reclaiming another seat's
    /// expired claim when `next` names one (semantics 7).
    Take(TakeCmd),
    /// Set or clear the queue's default lease (semantics 7).
    LeaseDefault(LeaseDefaultArgs),
    /// End a claim at once: the lead, jason or sage (semantics 7).
    Reclaim(ReclaimCmd),
    /// Whether receipts wait for the follower's push (semantics 8).
    Replication(ReplicationArgs),
    /// Take the queue over in a standby's checkout (semantics 8); the host fills every field
    /// from the replicated ref it verified and the checkout it runs in.
    Adopt(AdoptArgs),
}

/// The verbs a `Command` names, as it spells them and in its order (every verb but genesis),
/// built from `Verb::as_str`: what a reader of command JSON lists for an unknown verb.
pub const COMMAND_VERBS: [&str; 17] = {
    let mut out = [""; 17];
    let mut i = 0;
    while i < out.len() {
        out[i] = Verb::ALL[i + 1].as_str();
        i += 1;
    }
    out
};

/// `take`: the row is the one `next` names for the actor when it is written, judged with the
/// heartbeats the host read at the entry's time. `TakeCmd::default()` gives no lease (the
/// queue's default applies), allows a reclaim and knows no heartbeat, so it never reclaims.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TakeCmd {
    /// The claim's lease in seconds (`--lease 2h` read by `parse_lease`); none takes the
    /// queue's default.
    #[serde(default)]
    pub lease: Option<u32>,
    /// `take --no-reclaim`: queued rows only, never another seat's expired claim.
    #[serde(default)]
    pub no_reclaim: bool,
    /// The heartbeats the host read, by seat.
    #[serde(default)]
    pub heartbeats: Signs,
}

/// `reclaim ID --reason TEXT`, with the holder's heartbeat the host read (`None`: unknown).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReclaimCmd {
    pub id: u64,
    pub reason: String,
    #[serde(default)]
    pub heartbeat: Option<String>,
}

/// `review abandon ID OP --reason TEXT --yes`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct AbandonCmd {
    pub id: u64,
    pub attempt: String,
    pub reason: String,
    #[serde(default)]
    pub yes: bool,
}

/// `add`'s arguments as given.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct NewRow {
    pub piece: String,
    #[serde(default)]
    pub owner: Option<String>,
    #[serde(default = "queued")]
    pub status: Status,
    #[serde(default)]
    pub gate: Option<String>,
    #[serde(default)]
    pub issues: Vec<u64>,
    #[serde(default)]
    pub reviewers: Vec<String>,
    #[serde(default)]
    pub brief: Option<String>,
    #[serde(default)]
    pub note: Option<String>,
    /// The rows the new row waits on (`--after 3,5`).
    #[serde(default)]
    pub after: Vec<u64>,
}

fn queued() -> Status {
    Status::Queued
}

/// `accept-history --reason TEXT --yes`, with the witness the host found (or none).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct AcceptHistoryCmd {
    pub reason: String,
    #[serde(default)]
    pub old_witness: Option<Witness>,
    #[serde(default)]
    pub yes: bool,
}

/// What accept-history records about the lost range.
pub(crate) const AT_MOST_ONCE_NOTICE: &str = "at-most-once does not hold for ops lost before this entry; their op ids are no longer deduplicated";

impl Command {
    /// The verb this command logs.
    pub fn verb(&self) -> Verb {
        match self {
            Command::Add(_) => Verb::Add,
            Command::Move(_) => Verb::Move,
            Command::Release(_) => Verb::Release,
            Command::Assign(_) => Verb::Assign,
            Command::Note(_) => Verb::Note,
            Command::Set(_) => Verb::Set,
            Command::AcceptHistory(_) => Verb::AcceptHistory,
            Command::ReviewRequest(_) => Verb::ReviewRequest,
            Command::ReviewOutcome(_) => Verb::ReviewOutcome,
            Command::ReviewResolve(_) => Verb::ReviewResolve,
            Command::ReviewAbandon(_) => Verb::ReviewAbandon,
            Command::ReviewRecord(_) => Verb::ReviewRecord,
            Command::Take(_) => Verb::Take,
            Command::LeaseDefault(_) => Verb::LeaseDefault,
            Command::Reclaim(_) => Verb::Reclaim,
            Command::Replication(_) => Verb::Replication,
            Command::Adopt(_) => Verb::Adopt,
        }
    }

    /// The entry arguments this command becomes at revision `rev` of `state` when `by` gives
    /// it at `at` (`take` names the row `next` gives `by`, judged at `at`; a claim without a
    /// lease takes the queue's default).
    pub fn normalize(
        &self,
        state: &State,
        rev: u64,
        by: &str,
        at: &str,
    ) -> Result<Args, VerbError> {
        Ok(match self {
            Command::Add(n) => Args::Add(Box::new(AddArgs {
                id: state.next_id(),
                piece: n.piece.clone(),
                owner: n.owner.clone(),
                status: n.status,
                gate: non_empty(&n.gate),
                issues: sorted_unique(&n.issues),
                reviewers: unique(&n.reviewers),
                brief: non_empty(&n.brief),
                note: non_empty(&n.note),
                after: sorted_unique(&n.after),
            })),
            Command::Move(m) => Args::Move(Box::new(MoveArgs {
                reason: non_empty(&m.reason),
                lease: m.lease.or_else(|| default_lease(state, m)),
                ..m.clone()
            })),
            Command::Release(a) => Args::Release(a.clone()),
            Command::Assign(a) => Args::Assign(a.clone()),
            Command::Note(a) => Args::Note(NoteArgs {
                id: a.id,
                text: non_empty(&a.text),
            }),
            Command::Set(a) => Args::Set(Box::new(SetArgs {
                value: match &a.value {
                    SetValue::Text(t) => SetValue::Text(non_empty(t)),
                    SetValue::Numbers(n) => SetValue::Numbers(sorted_unique(n)),
                    SetValue::Seats(s) => SetValue::Seats(unique(s)),
                },
                reason: non_empty(&a.reason),
                ..a.clone()
            })),
            Command::AcceptHistory(a) => {
                if !a.yes {
                    return Err(VerbError::NeedsConfirmation {
                        what: "accept-history",
                    });
                }
                Args::AcceptHistory(Box::new(AcceptHistoryArgs {
                    reason: a.reason.clone(),
                    old_witness: a.old_witness.clone(),
                    new_revision: rev,
                    notice: String::from(AT_MOST_ONCE_NOTICE),
                }))
            }
            Command::ReviewRequest(a) => Args::ReviewRequest(a.clone()),
            Command::ReviewOutcome(a) => Args::ReviewOutcome(Box::new(a.clone())),
            Command::ReviewResolve(a) => Args::ReviewResolve(a.clone()),
            Command::ReviewAbandon(a) => {
                if !a.yes {
                    return Err(VerbError::NeedsConfirmation {
                        what: "review abandon",
                    });
                }
                Args::ReviewAbandon(Box::new(AbandonArgs {
                    id: a.id,
                    attempt: a.attempt.clone(),
                    reason: a.reason.clone(),
                }))
            }
            Command::ReviewRecord(a) => Args::ReviewRecord(Box::new(a.clone())),
            Command::Take(t) => take(state, t, by, at)?,
            Command::LeaseDefault(a) => Args::LeaseDefault(a.clone()),
            Command::Reclaim(r) => reclaim(state, r, at)?,
            Command::Replication(a) => Args::Replication(a.clone()),
            Command::Adopt(a) => Args::Adopt(Box::new(a.clone())),
        })
    }

    /// Whether a recorded entry's arguments are this command's: the retry test. The parts
    /// assigned at write time (add's id, accept-history's revision) are taken from the record.
    pub fn matches(&self, recorded: &Args, state: &State, by: &str) -> bool {
        // A take's row is whatever `next` named when it was written, and a reclaim's holder and
        // signs whatever held then; the queue has moved on.
        match (self, recorded) {
            (Command::Take(_), _) => return matches!(recorded, Args::Take(_)),
            (Command::Reclaim(c), Args::Reclaim(r)) => return c.id == r.id && c.reason == r.reason,
            _ => {}
        }
        let Ok(mut mine) = self.normalize(state, 0, by, "") else {
            return false;
        };
        match (self, &mut mine, recorded) {
            (_, Args::Add(m), Args::Add(r)) => m.id = r.id,
            (_, Args::AcceptHistory(m), Args::AcceptHistory(r)) => m.new_revision = r.new_revision,
            // A move given no lease recorded the default in force when it was written.
            (Command::Move(c), Args::Move(m), Args::Move(r)) if c.lease.is_none() => {
                m.lease = r.lease
            }
            _ => {}
        }
        &mine == recorded
    }
}

/// The queue's default lease for a move into in-progress that gives none, when the row will
/// have a holder after it (its owner, or the seat that claims an unowned queued row).
fn default_lease(state: &State, m: &MoveArgs) -> Option<u32> {
    let row = state.row(m.id).ok()?;
    let held = row.owner.is_some() || row.status == Status::Queued;
    (m.to == Status::InProgress && held)
        .then(|| state.lease_default())
        .flatten()
}

/// `take`'s arguments: the row `take_pick_with` names, the lease given (within bounds) or the
/// default, and for another seat's expired claim what ends it.
fn take(state: &State, t: &TakeCmd, by: &str, at: &str) -> Result<Args, VerbError> {
    let lease = match t.lease {
        Some(seconds) => Some(crate::lease::check_lease(u64::from(seconds))?),
        None => state.lease_default(),
    };
    let (id, reclaim) =
        match pick::take_pick_with(&state.rows, by, &t.heartbeats, at, !t.no_reclaim) {
            Pick::Row(id) => (id, None),
            Pick::Reclaim(id) => (id, Some(reclaimed(state.row(id)?, &t.heartbeats, at)?)),
            Pick::Held(_) | Pick::Nothing => {
                return Err(VerbError::NothingToTake {
                    seat: String::from(by),
                });
            }
        };
    Ok(Args::Take(Box::new(TakeArgs { id, lease, reclaim })))
}

/// What a take records of the expired claim on `row` it ends.
fn reclaimed(row: &Row, signs: &Signs, at: &str) -> Result<Reclaimed, VerbError> {
    let no_claim = || ClaimError::NoClaim {
        id: row.id,
        status: row.status,
    };
    let claim = Claim::of(row).ok_or_else(no_claim)?;
    let judged = judge(&claim, &signs.heartbeat(claim.holder), at);
    match (judged.last_sign, claim.lease) {
        (Some(seen), Some(lease)) => Ok(Reclaimed {
            from: String::from(claim.holder),
            seen,
            lease,
        }),
        _ => Err(no_claim().into()),
    }
}

/// `reclaim`'s arguments: the claim on the row as it stands, its last sign of life judged
/// with the heartbeat the host read at `at`.
fn reclaim(state: &State, r: &ReclaimCmd, at: &str) -> Result<Args, VerbError> {
    let row = state.open_row(r.id)?;
    let claim = Claim::of(row).ok_or(ClaimError::NoClaim {
        id: r.id,
        status: row.status,
    })?;
    let heartbeat = r
        .heartbeat
        .as_ref()
        .map_or(Heartbeat::Unknown, |t| Heartbeat::At(t.clone()));
    Ok(Args::Reclaim(Box::new(ReclaimArgs {
        id: r.id,
        from: String::from(claim.holder),
        seen: judge(&claim, &heartbeat, at).last_sign,
        lease: claim.lease,
        reason: r.reason.clone(),
    })))
}

fn non_empty(text: &Option<String>) -> Option<String> {
    text.as_ref().filter(|t| !t.is_empty()).cloned()
}

fn sorted_unique(numbers: &[u64]) -> Vec<u64> {
    let mut v = numbers.to_vec();
    v.sort_unstable();
    v.dedup();
    v
}

fn unique(seats: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(seats.len());
    for s in seats {
        if !out.contains(s) {
            out.push(s.clone());
        }
    }
    out
}
#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::string::ToString;

    /// `Verb::as_str` is the spelling serde derives for both `Verb` and `Command`, in the same
    /// order: the unknown-verb message lists exactly `COMMAND_VERBS`.
    #[test]
    fn one_spelling_of_every_verb() {
        for verb in Verb::ALL {
            let derived = serde_json::to_string(&verb).unwrap();
            assert_eq!(derived, format!("\"{}\"", verb.as_str()));
        }
        let err = serde_json::from_str::<Command>(r#"{"verb":"fly"}"#).unwrap_err();
        let listed: Vec<String> = COMMAND_VERBS.iter().map(|v| format!("`{v}`")).collect();
        assert_eq!(
            err.to_string(),
            format!(
                "unknown variant `fly`, expected one of {} at line 1 column 13",
                listed.join(", ")
            )
        );
    }
}
