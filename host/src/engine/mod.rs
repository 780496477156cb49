//! The engine: one typed request in, one answer out. `run` judges a `Request` under the
//! `Policy` the face hands it, runs its verb in the checkout around the working directory, and
//! gives the answer to the face's `Reply` (which prints it, gathers it as a document, or
//! pages it). Every face (the command line, the MCP server, the OpenSSH gate) only builds a
//! request and shows the answer; nothing here parses or prints a face's text.

pub mod board;
mod command;
pub mod demo;
mod policy;
pub mod renew;
mod request;
mod verbs;

/// A change request as the core's command: the demo's steps are checked to be changes.
#[cfg(test)]
pub use self::command::command as change_command;
pub use self::policy::{MAX_WAIT_SECS, Policy, PolicyError, Remote};
pub use self::request::{Candidate, Change, MoveText, NewRowText, Request, Review};

pub use crate::read::prime::{Reach, rules as prime_rules};
pub use crate::store::lock::left_behind as lock_left_behind;
pub use crate::store::watch::stoppable;

use crate::reply::{Failure, Replied, Reply};

/// The seat a server serves (`seat`, else `MOSAIC_AGENT_NAME`), checked as every verb checks
/// a seat, in a checkout: what an MCP server refuses before it serves anything.
pub fn server_seat(seat: Option<String>) -> Result<String, Failure> {
    let seat = crate::actor::seat_or(
        seat,
        "refused: mcp needs a seat: pass --seat SEAT or set MOSAIC_AGENT_NAME",
    )?;
    crate::store::session::locate()?;
    Ok(seat)
}

/// Runs `request` under `policy`, giving its answer to `reply`.
pub fn run(request: Request, policy: &Policy, reply: &mut dyn Reply) -> Replied {
    policy.admit(&request)?;
    verbs::run(request, reply)
}
