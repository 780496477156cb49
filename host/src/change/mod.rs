//! The changes: one log entry each (add, move, take, release, assign, note, set, the review
//! verbs that write), and genesis. Each reads one way: the store session locks, loads, lets
//! the core decide, writes durably and gives the receipt; a change that opened a review
//! request attempt is then carried out by the request driver (`review::request`).

pub mod cut;
pub mod genesis;
pub mod heartbeat;

use mosaic_queue_core::{Command, NOTHING_TO_TAKE, Outcome, Queue, Row, TakeCmd};
use serde::Serialize;

use crate::actor::actor;
use crate::checkout::Paths;
use crate::reply::{Replied, Reply, acknowledge, entry_row};
use crate::review::request::carry_out;
use crate::store::session::{self, At};
use crate::store::world::World;
use crate::values::check_op;

/// `command` as op `op` by `by` (else `$MOSAIC_AGENT_NAME`), `at` its world and checkout: add, move, release, assign, note, set, and the review verbs that write
/// one entry (`review resolve` fetches its comment first: `review::resolve`).
pub fn change(
    at: At<'_>,
    command: &Command,
    op: &str,
    by: Option<&str>,
    reply: &mut dyn Reply,
) -> Replied {
    check_op(op)?;
    let by = actor(by, reply)?;
    change_in(at.world, &at.paths()?, command, op, &by, reply)
}

/// A change in `world` on the checkout at `paths` by `by` (already resolved): the one path of every
/// change, which `demo` also runs in its scratch checkout. When the core says the change
/// opened a review request attempt, the request is carried out next.
pub fn change_in(
    world: World<'_>,
    paths: &Paths,
    command: &Command,
    op: &str,
    by: &str,
    reply: &mut dyn Reply,
) -> Replied {
    let (outcome, queue) = session::change(world, paths, command, op, by, acknowledge(reply, op))?;
    match outcome.request() {
        Some(request) => carry_out(world, paths, &outcome, request, &queue, by, reply),
        None => Ok(()),
    }
}

/// What `take --json` prints when there is nothing to take: the keys of the receipt object it
/// prints after a take (docs/json.md), with no row taken and no entry written.
#[derive(Serialize)]
struct NothingJson<'a> {
    op: &'a str,
    /// The revision `next` looked at; nothing was written.
    revision: u64,
    verb: &'static str,
    row: Option<u64>,
    recorded: bool,
    text: &'a str,
    /// The seat's own in-progress row when `next` names it (why nothing was taken), else null.
    current: Option<&'a Row>,
}

/// `take` as op `op` by `by` (else `$MOSAIC_AGENT_NAME`): under the lock, the row `next SEAT`
/// names moves to in-progress for SEAT as one entry, whose receipt it gives. A retry of the
/// op answers with its original receipt, however the queue moved on.
pub fn take(
    at: At<'_>,
    take: &TakeCmd,
    op: &str,
    by: Option<&str>,
    reply: &mut dyn Reply,
) -> Replied {
    check_op(op)?;
    let by = actor(by, reply)?;
    take_with(at.world, &at.paths()?, take, op, &by, reply)
}

/// `take` in `world` on the checkout at `paths` by `by` (already resolved); `demo` runs it
/// too. The receipt object carries `current`, the row taken as it now stands.
pub fn take_in(
    world: World<'_>,
    paths: &Paths,
    op: &str,
    by: &str,
    reply: &mut dyn Reply,
) -> Replied {
    take_with(world, paths, &TakeCmd::default(), op, by, reply)
}

/// `take` with its lease and `--no-reclaim` as given; the session reads the heartbeats the
/// choice of an expired claim needs.
fn take_with(
    world: World<'_>,
    paths: &Paths,
    take: &TakeCmd,
    op: &str,
    by: &str,
    reply: &mut dyn Reply,
) -> Replied {
    let take = Command::Take(take.clone());
    let (outcome, queue) = session::change(world, paths, &take, op, by, acknowledge(reply, op))?;
    match outcome {
        Outcome::NothingToTake { held } => nothing_to_take(&queue, op, by, held, reply),
        Outcome::Applied { .. } | Outcome::Recorded { .. } => {
            let taken = queue.entry_for_op(op).and_then(|e| entry_row(&e.args));
            if let Some(row) = taken.and_then(|id| queue.state().row(id).ok()) {
                reply.taken(row);
            }
            Ok(())
        }
    }
}

/// What `take` says when it writes nothing: `nothing to take`, and why when the seat already
/// has the row `next` names in progress; as a document, `NothingJson`.
fn nothing_to_take(
    queue: &Queue,
    op: &str,
    by: &str,
    held: Option<u64>,
    reply: &mut dyn Reply,
) -> Replied {
    let text = match held {
        Some(id) => format!("{NOTHING_TO_TAKE}: {by} has row {id} in progress"),
        None => String::from(NOTHING_TO_TAKE),
    };
    if reply.documents() {
        let state = queue.state();
        return reply.serialized(&NothingJson {
            op,
            revision: state.revision,
            verb: "take",
            row: None,
            recorded: false,
            text: &text,
            current: held.and_then(|id| state.row(id).ok()),
        });
    }
    reply.text(&format!("{text}\n"))
}
