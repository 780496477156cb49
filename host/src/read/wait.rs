//! `wait ID --status S[,S...]` and `wait --revision-after N`: block, without the lock and
//! without polling, until the condition holds in what the witness vouches durable, then give
//! the row (like `show`) or the new revision. A write still in progress is never reported.

use std::time::{Duration, Instant};

use mosaic_queue_core::{State, Status};
use serde::Serialize;

use super::describe::describe;
use super::rows::RowJson;
use crate::reply::{Failure, Replied, Reply};
use crate::store::StoreError;
use crate::store::session::{self, SessionError};
use crate::store::watch::WitnessWatch;
use crate::store::world::World;
use crate::values;
use crate::values::number;

/// What `wait` waits for.
pub enum Until {
    /// Row `id` in one of `statuses`.
    Status { id: u64, statuses: Vec<Status> },
    /// A durable revision above this one.
    RevisionAfter(u64),
}

#[derive(Serialize)]
struct RevisionJson {
    revision: u64,
    durable: bool,
}

/// The condition from the flags: exactly one form, each status known.
pub fn until(
    id: Option<u64>,
    statuses: &[String],
    revision_after: Option<u64>,
) -> Result<Until, Failure> {
    match (id, revision_after) {
        (Some(id), None) => {
            let statuses = statuses
                .iter()
                .map(|s| s.trim())
                .filter(|s| !s.is_empty())
                .map(values::status)
                .collect::<Result<Vec<_>, _>>()?;
            if statuses.is_empty() {
                return Err(Failure::usage("wait ID needs --status S[,S...]"));
            }
            Ok(Until::Status { id, statuses })
        }
        (None, Some(n)) if statuses.is_empty() => Ok(Until::RevisionAfter(n)),
        _ => Err(Failure::usage(
            "wait takes either ID --status S[,S...] or --revision-after N",
        )),
    }
}

/// `--timeout SECONDS`: a non-negative number of seconds, fractions allowed.
pub fn timeout(given: Option<&str>) -> Result<Option<Duration>, Failure> {
    let Some(text) = given else {
        return Ok(None);
    };
    number::seconds(text, MAX_TIMEOUT_SECS)
        .map(|s| Some(Duration::from_secs_f64(s)))
        .map_err(|e| number::refused("--timeout", &e))
}

/// A year: longer than any wait a seat means, short enough to hold in an `Instant`.
const MAX_TIMEOUT_SECS: f64 = 31_536_000.0;

/// Waits until `until` holds in what the witness vouches durable, or `timeout` runs out.
pub fn wait(until: &Until, timeout: Option<Duration>, reply: &mut dyn Reply) -> Replied {
    let paths = session::locate()?;
    // Watch first, look second: a write that lands between the look and the wait still wakes it.
    let mut watch = WitnessWatch::new(&paths)
        .map_err(|e| Failure::failed(format!("cannot watch .git for the witness: {e}")))?;
    let deadline = timeout.map(|t| Instant::now() + t);
    let mut seen: Option<State> = None;
    loop {
        // A witness that does not parse is one a writer that does not rename (a person's
        // `cp`) has not finished, as like as not: not looked at, as a witness removed is not,
        // until the next write into place or closed. A read that only waits never calls for
        // Manual recovery; `doctor` diagnoses a witness that stays so.
        let (durable, torn) = match session::read_durable(World::real(), &paths) {
            Ok(state) => (state, false),
            Err(SessionError::Store(StoreError::BadWitness { .. })) => (None, true),
            Err(e) => return Err(e.into()),
        };
        if let Some(state) = durable {
            let lacking = match until {
                Until::Status { id, statuses } if state.row(*id).is_err() => {
                    if archived(&paths, *id, statuses, state.revision, reply)? {
                        return Ok(());
                    }
                    true
                }
                _ => false,
            };
            if !lacking && holds(until, &state)? {
                return report(until, &state, reply);
            }
            seen = Some(state);
        }
        let woke = watch
            .wait(deadline)
            .map_err(|e| Failure::failed(format!("cannot wait on the witness: {e}")))?;
        if !woke {
            let mut failure = timed_out(until, timeout.unwrap_or_default(), seen.as_ref());
            if torn {
                failure.message = format!(
                    "{} (the witness {} could not be read: `mosaic-queue doctor` says why)",
                    failure.message,
                    paths.witness.display()
                );
            }
            return Err(failure);
        }
    }
}

/// Whether the condition holds; a row that does not exist, or is done when done is not
/// wanted, can never satisfy it and is refused at once.
fn holds(until: &Until, state: &State) -> Result<bool, Failure> {
    match until {
        Until::RevisionAfter(n) => Ok(state.revision > *n),
        Until::Status { id, statuses } => {
            let row = state.row(*id).map_err(Failure::from)?;
            if statuses.contains(&row.status) {
                return Ok(true);
            }
            if row.status == Status::Done {
                return Err(Failure::refused(format!(
                    "row {id} is done and never moves again, so it will not be {}",
                    names(statuses)
                )));
            }
            Ok(false)
        }
    }
}

/// `wait ID --status ...` on a row the durable state lacks: a row a cut archived is done for
/// good, so the wait for done is over at once (the row as its archive holds it: `true`) and
/// any other is refused as for a done row; a row no cut archived is refused as no row. A row
/// a write since brought is waited on from the next durable state (`false`).
fn archived(
    paths: &crate::checkout::Paths,
    id: u64,
    statuses: &[Status],
    revision: u64,
    reply: &mut dyn Reply,
) -> Result<bool, Failure> {
    let archived = match super::cut::find(crate::store::world::World::real(), paths, id, reply)? {
        super::cut::Found::Archived(archived) => archived,
        super::cut::Found::Now(_) => return Ok(false),
    };
    if !statuses.contains(&Status::Done) {
        return Err(Failure::refused(format!(
            "row {id} is done and never moves again, so it will not be {}",
            names(statuses)
        )));
    }
    let row = archived.row()?;
    if reply.documents() {
        reply.serialized(&RowJson {
            revision,
            durable: true,
            replicated: None,
            row: Some(row),
            archive: Some(&archived.file),
            claim: None,
        })?;
    } else {
        reply.text(&super::rows::describe_archived(&archived, row))?;
    }
    Ok(true)
}

fn report(until: &Until, state: &State, reply: &mut dyn Reply) -> Replied {
    let json = reply.documents();
    match until {
        Until::RevisionAfter(_) if json => reply.serialized(&RevisionJson {
            revision: state.revision,
            durable: true,
        }),
        Until::RevisionAfter(_) => reply.text(&format!("rev {}\n", state.revision)),
        Until::Status { id, .. } => {
            let row = state.row(*id).map_err(Failure::from)?;
            if json {
                reply.serialized(&RowJson {
                    revision: state.revision,
                    durable: true,
                    replicated: None,
                    row: Some(row),
                    archive: None,
                    claim: None,
                })
            } else {
                reply.text(&describe(state, row))
            }
        }
    }
}

fn timed_out(until: &Until, after: Duration, seen: Option<&State>) -> Failure {
    let secs = after.as_secs_f64();
    let now = match (until, seen) {
        (_, None) => String::from("no durable revision was confirmed meanwhile"),
        (Until::RevisionAfter(_), Some(st)) => format!("the queue is at rev {}", st.revision),
        (Until::Status { id, .. }, Some(st)) => match st.row(*id) {
            Ok(row) => format!("it is {} at rev {}", row.status, st.revision),
            Err(_) => format!("rev {}", st.revision),
        },
    };
    let what = match until {
        Until::RevisionAfter(n) => format!("a revision after {n}"),
        Until::Status { id, statuses } => format!("row {id} to be {}", names(statuses)),
    };
    Failure::failed(format!("timed out after {secs}s waiting for {what}; {now}"))
}

fn names(statuses: &[Status]) -> String {
    let v: Vec<&str> = statuses.iter().map(|s| s.as_str()).collect();
    v.join(" or ")
}
