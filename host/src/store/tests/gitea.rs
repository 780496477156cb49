//! Gitea in memory and the review request carried out against it, as the CLI carries one out:
//! the change that opens the attempt, the lock released, the steps `request-sending` and
//! `request-posted` around the POST, then the outcome logged as `<attempt>.outcome`. A retry
//! of a recorded attempt posts nothing and answers by the attempt's state.

use std::sync::Mutex;

use mosaic_queue_core::{Command, Outcome, OutcomeArgs, Queue, ReviewRequest};
use serde_json::json;

use crate::exit::Exit;
use crate::in_memory::{Failed, Process, Ran};
use crate::store::session::{self, SessionError};

/// A comment on an issue.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Comment {
    pub id: u64,
    pub issue: u64,
    pub body: String,
}

/// Gitea's issues: the comments posted, and whether the next POST is refused.
#[derive(Debug, Default)]
pub struct Gitea {
    comments: Mutex<Vec<Comment>>,
    refuse: Mutex<bool>,
}

impl Gitea {
    pub fn comments(&self) -> Vec<Comment> {
        self.comments.lock().unwrap().clone()
    }

    pub fn set_comments(&self, comments: Vec<Comment>) {
        *self.comments.lock().unwrap() = comments;
    }

    /// The next POST answers 404, and nothing is stored.
    pub fn refuse_next(&self) {
        *self.refuse.lock().unwrap() = true;
    }

    /// The id of the comment carrying `op`'s marker, if one is on an issue.
    pub fn find(&self, op: &str) -> Option<u64> {
        let marker = format!("<!-- mosaic-queue-op: {op} -->");
        self.comments()
            .iter()
            .find(|c| c.body.contains(&marker))
            .map(|c| c.id)
    }

    /// The POST: the comment's id, or `None` when refused.
    fn post(&self, issue: u64, body: &str) -> Option<u64> {
        if std::mem::take(&mut *self.refuse.lock().unwrap()) {
            return None;
        }
        let mut comments = self.comments.lock().unwrap();
        let id = 4101 + comments.len() as u64;
        comments.push(Comment {
            id,
            issue,
            body: body.to_owned(),
        });
        Some(id)
    }
}

/// A change that may open a review request, carried out as the CLI carries it out.
pub fn request(p: &Process, gitea: &Gitea, command: &Command, op: &str, by: &str) -> Ran {
    let mut out = Vec::new();
    let (outcome, queue) = session::change(p.world(), p.paths(), command, op, by, |q, _| {
        receipt(p, q, op, &mut out)
    })?;
    let Some(req) = outcome.request().cloned() else {
        return Ok(out);
    };
    let outcome_op = format!("{}.outcome", req.attempt);
    if let Outcome::Recorded { .. } = outcome {
        receipt(p, &queue, &outcome_op, &mut out)?;
        return settled(&queue, &req, out);
    }
    let io = p.world().io;
    io.step("request-sending");
    let posted = gitea.post(req.issue, &req.body);
    io.step("request-posted");
    let args: OutcomeArgs = serde_json::from_value(match posted {
        Some(id) => json!({"id": req.id, "attempt": req.attempt, "result": "posted",
            "status": 201, "detail": "created", "comment": id}),
        None => json!({"id": req.id, "attempt": req.attempt, "result": "failed",
            "status": 404, "detail": "rejected", "comment": null}),
    })
    .expect("outcome arguments");
    let after = session::log_outcome(p.world(), p.paths(), args, by, |q, _| {
        receipt(p, q, &outcome_op, &mut out)
    })
    .map_err(|e: SessionError| Failed {
        exit: Exit::Uncertain,
        message: format!("the outcome is not logged ({e}); resolve or abandon it"),
    })?;
    settled(&after, &req, out)
}

/// Prints the receipt of `op`, if the log holds it.
fn receipt(
    p: &Process,
    queue: &Queue,
    op: &str,
    out: &mut Vec<String>,
) -> Result<(), SessionError> {
    if let Some(entry) = queue.entry_for_op(op) {
        p.print(&entry.receipt, out);
    }
    Ok(())
}

/// The exit the attempt's state stands for: posted is done, failed or abandoned failed, and
/// anything else is uncertain until a person looks on the issue.
fn settled(queue: &Queue, req: &ReviewRequest, out: Vec<String>) -> Ran {
    let state = queue
        .state()
        .row(req.id)
        .ok()
        .and_then(|row| row.review.as_ref())
        .and_then(|review| {
            review
                .rounds
                .iter()
                .flat_map(|r| &r.attempts)
                .find(|a| a.op == req.attempt)
        })
        .map_or("requesting", |a| a.state.as_str());
    let exit = match state {
        "posted" => return Ok(out),
        "failed" | "abandoned" => Exit::Failed,
        _ => Exit::Uncertain,
    };
    Err(Failed {
        exit,
        message: format!(
            "review request {} on row {} is {state}",
            req.attempt, req.id
        ),
    })
}
