//! The review request driver: a change that opens a request attempt gets back from the core
//! the comment to post; `carry_out` posts it outside the lock, then logs what the transport
//! said as `<op>.outcome`, and ends as the attempt's state says. A retry gives what the log
//! holds and never posts. Every change goes through it (`change::change_in`), whichever face
//! asked.

use mosaic_queue_core::{
    AttemptState, Delivery, Outcome, OutcomeArgs, Queue, ReviewRequest, comment, locate,
};

use crate::checkout::Paths;
use crate::gitea::{self, PostOutcome};
use crate::reply::{Failure, Replied, Reply, acknowledge};
use crate::store::session;
use crate::store::world::World;

/// Carries out `request`, which `outcome` (of op `request.attempt` by `by`) returned. The first
/// time, the comment is posted and its outcome logged; on a retry the outcome the log already
/// holds is given and the attempt's state decides the exit. The outcome's receipt goes to
/// `reply` after the change's own.
pub fn carry_out(
    world: World<'_>,
    paths: &Paths,
    outcome: &Outcome,
    request: &ReviewRequest,
    queue: &Queue,
    by: &str,
    reply: &mut dyn Reply,
) -> Replied {
    let (id, op, issue) = (request.id, request.attempt.as_str(), request.issue);
    if let Outcome::Recorded { .. } = outcome {
        if let Some(entry) = queue.entry_for_op(&outcome_op(op)) {
            reply.receipt(entry, true)?;
        }
        return settled(id, op, issue, attempt_state(queue, id, op));
    }
    let posted = gitea::post_request(request);
    let args = outcome_args(id, op, &posted);
    let outcome_op = outcome_op(op);
    let after = session::log_outcome(world, paths, args, by, acknowledge(reply, &outcome_op))
        .map_err(|f: Failure| unlogged(id, op, issue, &posted, f))?;
    match (&posted, attempt_state(&after, id, op)) {
        (PostOutcome::Failed { message, .. }, AttemptState::Failed) => {
            Err(Failure::failed(format!(
                "review request for row {id} failed: {message}; once fixed, run `mosaic-queue review request {id} --op NEW-OP`"
            )))
        }
        (PostOutcome::Uncertain { message, .. }, AttemptState::Uncertain) => Err(
            Failure::uncertain(format!("{message}; {}", look_on_issue(id, op, issue))),
        ),
        (_, state) => settled(id, op, issue, state),
    }
}

/// Where the attempt `op` on row `id` stands in `queue`.
fn attempt_state(queue: &Queue, id: u64, op: &str) -> AttemptState {
    queue
        .state()
        .row(id)
        .ok()
        .and_then(|row| locate(row, op))
        .map_or(AttemptState::Requesting, |(_, a)| a.state)
}

/// The exit a request's attempt state stands for, with what to do next.
fn settled(id: u64, op: &str, issue: u64, state: AttemptState) -> Replied {
    match state {
        AttemptState::Posted => Ok(()),
        AttemptState::Failed => Err(Failure::failed(format!(
            "review request {op} on row {id} failed; run `mosaic-queue review request {id} --op NEW-OP` once the cause is fixed"
        ))),
        AttemptState::Abandoned => Err(Failure::failed(format!(
            "review request {op} on row {id} was abandoned; `mosaic-queue review request {id} --op NEW-OP` makes a new attempt"
        ))),
        AttemptState::Requesting | AttemptState::Uncertain | AttemptState::Conflict => {
            Err(Failure::uncertain(format!(
                "review request {op} on row {id} is {}, not known to be posted; {}",
                state.as_str(),
                look_on_issue(id, op, issue)
            )))
        }
    }
}

fn look_on_issue(id: u64, op: &str, issue: u64) -> String {
    format!(
        "look on issue #{issue} for a comment carrying {}: if it is there run `mosaic-queue review resolve {id} {op} --comment N`, if not have jason or sage run `mosaic-queue review abandon {id} {op} --reason TEXT --yes`",
        comment::op_marker(op)
    )
}

/// The outcome could not be logged (the lock stayed held, the file changed under us): the
/// attempt stays requesting, and whether a comment exists is said plainly.
fn unlogged(id: u64, op: &str, issue: u64, posted: &PostOutcome, f: Failure) -> Failure {
    let what = match posted {
        PostOutcome::Posted { comment_id, .. } => format!(
            "comment {comment_id} was posted but its outcome is not logged ({}); run `mosaic-queue review resolve {id} {op} --comment {comment_id}`",
            f.message
        ),
        PostOutcome::Failed { message, .. } => format!(
            "the request failed ({message}) and that outcome is not logged ({}); have jason or sage run `mosaic-queue review abandon {id} {op} --reason TEXT --yes`",
            f.message
        ),
        PostOutcome::Uncertain { message, .. } => format!(
            "the request is uncertain ({message}) and that outcome is not logged ({}); {}",
            f.message,
            look_on_issue(id, op, issue)
        ),
    };
    Failure::uncertain(what)
}

fn outcome_op(op: &str) -> String {
    format!("{op}.outcome")
}

fn outcome_args(id: u64, op: &str, posted: &PostOutcome) -> OutcomeArgs {
    let (result, status, detail, comment) = match posted {
        PostOutcome::Posted { status, comment_id } => (
            Delivery::Posted,
            Some(*status),
            "created",
            Some(*comment_id),
        ),
        PostOutcome::Failed { status, detail, .. } => (Delivery::Failed, *status, *detail, None),
        PostOutcome::Uncertain { status, detail, .. } => {
            (Delivery::Uncertain, *status, *detail, None)
        }
    };
    OutcomeArgs {
        id,
        attempt: String::from(op),
        result,
        status,
        detail: String::from(detail),
        comment,
    }
}
