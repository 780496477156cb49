//! The review request comment: its text, its two markers, and the checks `review resolve`
//! makes on a comment the host fetched. The host posts and fetches; the decisions are here so
//! every face agrees on them.

use alloc::format;
use alloc::string::String;

use super::locate;
use crate::error::ReviewError;
use crate::model::{Attempt, Round, Row};
use crate::rules::gitea_login;

/// `<!-- mosaic-queue-op: OP -->`
pub fn op_marker(op: &str) -> String {
    format!("<!-- mosaic-queue-op: {op} -->")
}

/// `<!-- mosaic-queue-round: ID ROUND DIGEST -->`
pub fn round_marker(id: u64, round: u32, candidate: &str) -> String {
    format!("<!-- mosaic-queue-round: {id} {round} {candidate} -->")
}

/// The comment a request attempt posts on the round's issue.
pub fn request_body(row: &Row, round: &Round, attempt: &Attempt) -> String {
    let candidate = round.candidate.as_deref().unwrap_or("-");
    let mut reviewers = String::new();
    for seat in row
        .reviewers
        .iter()
        .filter(|s| row.owner.as_ref() != Some(*s))
    {
        if !reviewers.is_empty() {
            reviewers.push_str(", ");
        }
        reviewers.push('@');
        reviewers.push_str(gitea_login(seat));
    }
    if reviewers.is_empty() {
        reviewers.push_str("(none besides the owner)");
    }
    format!(
        "Review request: queue row {id} ({piece}), round {round}.\n\n\
         Candidate: `{candidate}`\n\
         Requested by: {by}\n\
         Reviewers: {reviewers}\n\n\
         Each reviewer records a verdict with `mosaic-queue review record {id} --verdict approve|changes --comment N --candidate {candidate}`.\n\n\
         {op}\n{marker}\n",
        id = row.id,
        piece = row.piece,
        round = round.round,
        by = attempt.by,
        op = op_marker(&attempt.op),
        marker = round_marker(row.id, round.round, candidate),
    )
}

/// What the host fetched for `review resolve`: only these facts are checked.
#[derive(Clone, Copy, Debug)]
pub struct Fetched<'a> {
    pub id: u64,
    /// The issue the comment is on, from its `issue_url`; `None` for a pull request's.
    pub issue: Option<u64>,
    pub login: &'a str,
    pub body: &'a str,
}

/// Refuses unless `comment` is on the round's issue, written by the requester's login, and
/// carries both markers for attempt `op`, its round and its candidate.
pub fn check(row: &Row, op: &str, comment: &Fetched) -> Result<(), ReviewError> {
    let (round, attempt) = locate(row, op).ok_or_else(|| ReviewError::NoSuchAttempt {
        id: row.id,
        attempt: String::from(op),
    })?;
    let wrong = |why: String| ReviewError::WrongComment {
        comment: comment.id,
        attempt: String::from(op),
        why,
    };
    if comment.issue != round.issue {
        let on = comment
            .issue
            .map_or_else(|| String::from("no issue"), |i| format!("issue #{i}"));
        return Err(wrong(format!(
            "it is on {on}, not the round's issue #{}",
            round.issue.unwrap_or(0)
        )));
    }
    let login = gitea_login(&attempt.by);
    if comment.login != login {
        return Err(wrong(format!(
            "it was written by {}, not the requester's login {login}",
            comment.login
        )));
    }
    let has_line = |wanted: &str| {
        comment
            .body
            .lines()
            .any(|l| l.trim_end_matches('\r').trim() == wanted)
    };
    if !has_line(&op_marker(op)) {
        return Err(wrong(format!("it lacks the marker {}", op_marker(op))));
    }
    let marker = round_marker(
        row.id,
        round.round,
        round.candidate.as_deref().unwrap_or("-"),
    );
    if !has_line(&marker) {
        return Err(wrong(format!("it lacks the marker {marker}")));
    }
    Ok(())
}
