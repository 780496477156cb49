//! The review verbs. A request (from `move ID in-review` on a row with reviewers, or
//! `review request`) logs its attempt, posts one comment outside the lock, then logs what the
//! transport said as `<op>.outcome`. A retry prints what the log holds and never posts.

use mosaic_queue_core::entry::{Delivery, OutcomeArgs, RecordArgs, ResolveArgs};
use mosaic_queue_core::model::{AttemptState, VerdictKind};
use mosaic_queue_core::review::{self, comment};
use mosaic_queue_core::verbs::{AbandonCmd, Command};
use mosaic_queue_core::{Outcome, Queue, entry::IdArgs};

use super::write::{self, here};
use super::{CliResult, Failure, ReviewVerb, actor, args};
use crate::creds::login_of;
use crate::gitea::{self, GiteaConfig, PostOutcome};
use crate::seam;
use crate::store::Paths;

/// `review request|resolve|abandon|record` (verify-commit is `review_commit`).
pub fn run(verb: ReviewVerb) -> CliResult {
    match verb {
        ReviewVerb::Request { id, change } => {
            write::change(&Command::ReviewRequest(IdArgs { id }), &change)
        }
        ReviewVerb::Resolve {
            id,
            attempt,
            comment,
            change,
        } => resolve(id, &attempt, comment, &change),
        ReviewVerb::Abandon {
            id,
            attempt,
            reason,
            yes,
            change,
        } => write::change(
            &Command::ReviewAbandon(AbandonCmd {
                id,
                attempt,
                reason,
                yes,
            }),
            &change,
        ),
        ReviewVerb::Record {
            id,
            verdict,
            comment,
            candidate,
            change,
        } => {
            let verdict = match verdict.as_str() {
                "approve" => VerdictKind::Approve,
                "changes" => VerdictKind::Changes,
                other => {
                    return Err(Failure::usage(format!(
                        "--verdict {other:?}: write approve or changes"
                    )));
                }
            };
            let record = RecordArgs {
                id,
                verdict,
                comment,
                candidate,
            };
            write::change(&Command::ReviewRecord(record), &change)
        }
        ReviewVerb::VerifyCommit { id, reference } => {
            super::review_commit::verify_commit(id, &reference)
        }
    }
}

/// After any change: when `op` made a request attempt, post it (first time) or report what
/// the log holds (a retry). Other changes are done once their receipt printed.
pub(super) fn after_change(
    paths: &Paths,
    queue: &Queue,
    command: &Command,
    op: &str,
    by: &str,
    outcome: &Outcome,
) -> CliResult {
    let id = match command {
        Command::Move(m) => m.id,
        Command::ReviewRequest(r) => r.id,
        _ => return Ok(()),
    };
    let Ok(row) = queue.state().row(id) else {
        return Ok(());
    };
    let Some((round, attempt)) = review::locate(row, op) else {
        return Ok(());
    };
    let issue = round.issue.unwrap_or(0);
    if let Outcome::Recorded { .. } = outcome {
        if let Some(entry) = queue.entry_for_op(&outcome_op(op)) {
            super::output::receipt(entry, true)?;
        }
        return settled(id, op, issue, attempt.state);
    }
    seam::step("request-sending");
    let body = comment::request_body(row, round, attempt);
    let posted = match GiteaConfig::from_env() {
        Ok(cfg) => gitea::post_comment(&cfg, login_of(by), issue, &body),
        Err(e) => PostOutcome::Failed {
            status: None,
            detail: "config-invalid",
            message: e.to_string(),
        },
    };
    seam::step("request-posted");
    let args = outcome_args(id, op, &posted);
    let (_, after) = write::apply(paths, &Command::ReviewOutcome(args), &outcome_op(op), by)
        .map_err(|f| unlogged(id, op, issue, &posted, f))?;
    seam::step("outcome-logged");
    let state = after
        .state()
        .row(id)
        .ok()
        .and_then(|row| review::locate(row, op))
        .map_or(AttemptState::Requesting, |(_, a)| a.state);
    match (&posted, state) {
        (PostOutcome::Failed { message, .. }, AttemptState::Failed) => {
            Err(Failure::failed(format!(
                "review request for row {id} failed: {message}; once fixed, run `mosaic-queue review request {id} --op NEW-OP`"
            )))
        }
        (PostOutcome::Uncertain { message, .. }, AttemptState::Uncertain) => Err(
            Failure::uncertain(format!("{message}; {}", look_on_issue(id, op, issue))),
        ),
        _ => settled(id, op, issue, state),
    }
}

/// The exit a request's attempt state stands for, with what to do next.
fn settled(id: u64, op: &str, issue: u64, state: AttemptState) -> CliResult {
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

/// `review resolve ID OP --comment N`: fetches the comment and checks it answers the attempt
/// before logging anything. A retry of a recorded resolve fetches nothing.
fn resolve(id: u64, attempt: &str, comment_id: u64, change: &super::Change) -> CliResult {
    args::check_op(&change.op)?;
    let by = actor(&change.by)?;
    let paths = here()?;
    let command = Command::ReviewResolve(ResolveArgs {
        id,
        attempt: String::from(attempt),
        comment: comment_id,
    });
    let current = write::read_locked(&paths)?;
    if current.entry_for_op(&change.op).is_none() {
        // The core's own checks first (actor, row, attempt state), on a copy, so a resolve
        // that would be refused anyway costs no network call.
        current
            .clone()
            .execute(&command, &change.op, &by, &crate::clock::now())?;
        let row = current.state().row(id)?;
        let cfg = GiteaConfig::from_env().map_err(|e| Failure::failed(e.to_string()))?;
        let fetched = gitea::fetch_comment(&cfg, login_of(&by), comment_id).map_err(|e| {
            Failure::new(e.exit(), format!("cannot fetch comment {comment_id}: {e}"))
        })?;
        let facts = comment::Fetched {
            id: fetched.id,
            issue: fetched.issue,
            login: &fetched.login,
            body: &fetched.body,
        };
        comment::check(row, attempt, &facts)?;
    }
    write::apply(&paths, &command, &change.op, &by).map(|_| ())
}
