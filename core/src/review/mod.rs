//! The review state machine: request rounds and their attempts, the outcome a transport
//! reports, resolve and abandon, verdicts, manifests and the markers a request comment
//! carries. `verbs` dispatches the review entries here; the host calls `comment` and
//! `manifest` to build a request and to check what it fetched, and `gitea` to read the answers.

pub(crate) mod attempts;
pub(crate) mod comment;
pub(crate) mod gitea;
pub(crate) mod manifest;
pub(crate) mod verdicts;

use crate::error::ReviewError;
use crate::model::{Attempt, Round, Row};

/// The round and attempt that `op` made on `row`, in any round.
pub fn locate<'a>(row: &'a Row, op: &str) -> Option<(&'a Round, &'a Attempt)> {
    row.review.as_ref()?.rounds.iter().find_map(|round| {
        round
            .attempts
            .iter()
            .find(|a| a.op == op)
            .map(|attempt| (round, attempt))
    })
}

/// The first attempt on `row` that is still unresolved (requesting, uncertain or conflict),
/// with its round.
pub(crate) fn unresolved(row: &Row) -> Option<(&Round, &Attempt)> {
    row.review.as_ref()?.rounds.iter().find_map(|round| {
        round
            .attempts
            .iter()
            .find(|a| a.state.is_unresolved())
            .map(|attempt| (round, attempt))
    })
}

/// Refuses while `row` has an unresolved request, naming it and what to do about it.
pub(crate) fn check_settled(row: &Row) -> Result<(), ReviewError> {
    match unresolved(row) {
        None => Ok(()),
        Some((round, attempt)) => Err(ReviewError::Unresolved {
            id: row.id,
            attempt: attempt.op.clone(),
            state: attempt.state.as_str(),
            issue: round.issue.unwrap_or(0),
        }),
    }
}

/// The row's current (last) round.
pub fn current_round(row: &Row) -> Option<&Round> {
    row.review.as_ref().and_then(|r| r.rounds.last())
}
