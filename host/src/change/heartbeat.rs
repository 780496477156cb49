//! `heartbeat [--by SEAT]`: a seat's sign of life, written to its file under `.git` with this
//! host's clock. It renews every leased claim the seat holds; it takes no lock, reads no queue
//! and writes no log entry, so it costs a rename and can run after every tool call.

use serde::Serialize;

use crate::actor::actor;
use crate::checkout::Paths;
use crate::reply::{Failure, Replied, Reply};
use crate::store::heartbeat;
use crate::store::session::At;
use crate::store::world::World;

/// What `heartbeat --json` prints.
#[derive(Serialize)]
struct HeartbeatJson<'a> {
    verb: &'static str,
    seat: &'a str,
    at: &'a str,
    text: &'a str,
}

/// `heartbeat` by `by` (else `$MOSAIC_AGENT_NAME`), `at` its world and checkout.
pub fn heartbeat(at: At<'_>, by: Option<&str>, reply: &mut dyn Reply) -> Replied {
    let seat = actor(by, reply)?;
    // The seat names a file: it is checked as every seat is before anything is written.
    mosaic_queue_core::check_seat(&seat)?;
    heartbeat_in(at.world, &at.paths()?, &seat, reply)
}

/// `heartbeat` for `seat` (already checked) in the checkout at `paths`, stamped with
/// `world`'s clock.
pub fn heartbeat_in(world: World<'_>, paths: &Paths, seat: &str, reply: &mut dyn Reply) -> Replied {
    let at = world.clock.now();
    heartbeat::write(world.io, paths, seat, &at).map_err(|e| {
        Failure::failed(format!(
            "cannot write the heartbeat {}: {e}; check that .git is writable, then run it again",
            heartbeat::path(paths, seat).display()
        ))
    })?;
    let text = format!("heartbeat {seat} at {at}");
    if reply.documents() {
        return reply.serialized(&HeartbeatJson {
            verb: "heartbeat",
            seat,
            at: &at,
            text: &text,
        });
    }
    reply.line(&text)
}
