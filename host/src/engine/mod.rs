//! The engine: one typed request in, one answer out. `run` judges a `Request` under the
//! `Policy` the face hands it, runs its verb in the checkout around the working directory
//! (`run_in`: in a world and checkout passed as values, as tests do in memory), and gives the
//! answer to the face's `Reply` (which prints it, gathers it as a document, or pages it). Every face (the command line, the MCP server, the OpenSSH gate) only builds a
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

use crate::checkout::Paths;
use crate::reply::{Failure, Replied, Reply};
use crate::store::session::{self, At};
use crate::store::world::World;

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

/// Runs `request` under `policy` in the checkout around the working directory, giving its
/// answer to `reply`. Outside a checkout each verb still answers as it always has: one that
/// needs none runs, the others refuse where they look for it.
pub fn run(request: Request, policy: &Policy, reply: &mut dyn Reply) -> Replied {
    match session::locate() {
        Ok(paths) => run_at(request, At::new(World::real(), &paths), policy, reply),
        Err(_) => run_at(request, At::unlocated(), policy, reply),
    }
}

/// Runs `request` under `policy` in `world` on the checkout at `paths`, giving its answer to
/// `reply`: the reads of rows and the changes (`Request::runs_in_any_world`); any other
/// request is refused, since it would reach the real checkout whatever `world` is.
pub fn run_in(
    request: Request,
    world: World<'_>,
    paths: &Paths,
    policy: &Policy,
    reply: &mut dyn Reply,
) -> Replied {
    // The other verbs still reach the real checkout themselves (verbs.rs says why): given a
    // world of its own, one of them would act on the working directory instead.
    if !request.runs_in_any_world() {
        return Err(Failure::failed(format!(
            "{} runs on the real checkout only; run it with engine::run",
            request.name()
        )));
    }
    run_at(request, At::new(world, paths), policy, reply)
}

fn run_at(request: Request, at: At<'_>, policy: &Policy, reply: &mut dyn Reply) -> Replied {
    policy.admit(&request)?;
    // `--replication-timeout`: the world given, and the real world the verbs that reach the
    // checkout themselves build, wait that long for the follower.
    let wait = request
        .change()
        .and_then(|c| c.replication_timeout)
        .map(|s| std::time::Duration::from_secs(u64::from(s)));
    match wait {
        Some(wait) => {
            let at = at.waiting_for_replicas(wait);
            crate::store::world::with_replication_wait(wait, || verbs::run(request, at, reply))
        }
        None => verbs::run(request, at, reply),
    }
}

/// The follower (`follow`): a long-running face runs it until `stop` is readable.
pub use crate::replication::{DEFAULT_GIT_TIMEOUT, DEFAULT_REF, Event as FollowEvent, Target};

/// Runs the follower of the checkout around the working directory for `to` and `reference`,
/// each remote call within `deadline`, giving each event to `event`.
pub fn follow(
    to: &str,
    reference: &str,
    deadline: std::time::Duration,
    stop: std::sync::Arc<std::os::fd::OwnedFd>,
    event: &mut dyn FnMut(FollowEvent) -> Replied,
) -> Replied {
    let target = crate::replication::target(to, reference, deadline).map_err(Failure::usage)?;
    crate::replication::follow(&target, stop, event)
}
