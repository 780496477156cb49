//! The engine: one typed request in, one answer out. `run` judges a `Request` under the
//! `Policy` the face hands it, runs its verb in the checkout around the working directory, and
//! gives the answer to the face's `Reply` (which prints it, gathers it as a document, or
//! pages it). Every face (the command line, the MCP server, the OpenSSH gate) only builds a
//! request and shows the answer; nothing here parses or prints a face's text.

mod command;
mod policy;
mod request;
mod verbs;

pub use self::command::command as change_command;
pub use self::policy::{MAX_WAIT_SECS, Policy, PolicyError, Remote};
pub use self::request::{Candidate, Change, MoveText, NewRowText, Request, Review};

use crate::reply::{Replied, Reply};

/// Runs `request` under `policy`, giving its answer to `reply`.
pub fn run(request: Request, policy: &Policy, reply: &mut dyn Reply) -> Replied {
    policy.admit(&request)?;
    verbs::run(request, reply)
}
