//! A change as a caller asks for it (`Command`), and how it becomes an entry's arguments:
//! `normalize` for a new entry, `matches` for the retry of one already recorded. The host and
//! the wasm build parse commands into this type; `Queue::execute` takes it.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::entry::{
    AbandonArgs, AcceptHistoryArgs, AddArgs, Args, AssignArgs, IdArgs, MoveArgs, NoteArgs,
    OutcomeArgs, RecordArgs, ResolveArgs, SetArgs, SetValue, Verb,
};
use crate::error::VerbError;
use crate::model::{Status, Witness};
use crate::next;
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
    /// Claim the row `next` names for the actor (semantics 3).
    Take(TakeCmd),
}

/// The verbs a `Command` names, as it spells them and in its order (every verb but genesis),
/// built from `Verb::as_str`: what a reader of command JSON lists for an unknown verb.
pub const COMMAND_VERBS: [&str; 13] = {
    let mut out = [""; 13];
    let mut i = 0;
    while i < out.len() {
        out[i] = Verb::ALL[i + 1].as_str();
        i += 1;
    }
    out
};

/// `take`: no arguments; the row is the one `next` names for the actor when it is written.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct TakeCmd {}

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
        }
    }

    /// The entry arguments this command becomes at revision `rev` of `state` when `by` gives
    /// it (`take` names the row `next` gives `by`).
    pub fn normalize(&self, state: &State, rev: u64, by: &str) -> Result<Args, VerbError> {
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
            Command::Take(_) => match next::take_pick(&state.rows, by) {
                next::Pick::Row(id) => Args::Take(IdArgs { id }),
                _ => {
                    return Err(VerbError::NothingToTake {
                        seat: String::from(by),
                    });
                }
            },
        })
    }

    /// Whether a recorded entry's arguments are this command's: the retry test. The parts
    /// assigned at write time (add's id, accept-history's revision) are taken from the record.
    pub fn matches(&self, recorded: &Args, state: &State, by: &str) -> bool {
        // A take's row is whatever `next` named when it was written; the queue has moved on.
        if let Command::Take(_) = self {
            return matches!(recorded, Args::Take(_));
        }
        let Ok(mut mine) = self.normalize(state, 0, by) else {
            return false;
        };
        match (&mut mine, recorded) {
            (Args::Add(m), Args::Add(r)) => m.id = r.id,
            (Args::AcceptHistory(m), Args::AcceptHistory(r)) => m.new_revision = r.new_revision,
            _ => {}
        }
        &mine == recorded
    }
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
