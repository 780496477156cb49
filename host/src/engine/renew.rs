//! Renewing a seat's claims: its heartbeat written now when it holds a leased claim, and how
//! long until the next renewal (a third of its shortest lease). What a server that holds
//! claims for its seat (the MCP server) runs on its timer.

use std::time::Duration;

use mosaic_queue_core::signs::Claim;
use mosaic_queue_core::{MIN_LEASE, State};

use crate::checkout::Paths;
use crate::store::world::World;
use crate::store::{self, heartbeat, session};

/// How long to wait for the seat's first leased claim: a third of the shortest lease there
/// can be, so a claim taken by hand beside the server is renewed in time too.
pub const IDLE: Duration = Duration::from_secs(MIN_LEASE as u64 / 3);

/// One renewal in the checkout around the working directory; `IDLE` outside one.
pub fn here(seat: &str) -> Duration {
    match session::locate() {
        Ok(paths) => tick(World::real(), &paths, seat),
        Err(_) => IDLE,
    }
}

/// One renewal: when `seat` holds a leased claim, its heartbeat now; then how long until the
/// next (a third of its shortest lease, else `IDLE`). A queue that cannot be read, or a
/// heartbeat that cannot be written, is tried again at the next tick; the verbs say why.
pub fn tick(world: World<'_>, paths: &Paths, seat: &str) -> Duration {
    let Some(state) = state(world, paths) else {
        return IDLE;
    };
    let Some(shortest) = shortest_lease(&state, seat) else {
        return IDLE;
    };
    let _ = heartbeat::write(world.io, paths, seat, &world.clock.now());
    Duration::from_secs(u64::from(shortest / 3).max(1))
}

/// The queue's state as the read view holds it, else as queue.json does, read without the
/// lock: a renewal must never hold off a writer, and a read that meets a write in progress
/// is simply tried at the next tick.
fn state(world: World<'_>, paths: &Paths) -> Option<State> {
    if let Ok(Some(witness)) = store::read_witness(world.io, paths)
        && let Some(state) = store::view::load(world.io, paths, &witness)
    {
        return Some(state);
    }
    store::load(world.io, paths)
        .ok()
        .map(|loaded| loaded.queue.state().clone())
}

/// The shortest lease among `seat`'s claims in `state`, in seconds.
pub fn shortest_lease(state: &State, seat: &str) -> Option<u32> {
    state
        .rows
        .iter()
        .filter_map(Claim::of)
        .filter(|c| c.holder == seat)
        .filter_map(|c| c.lease)
        .min()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::in_memory::Checkout;
    use mosaic_queue_core::{Command, TakeCmd};

    /// A tick writes the heartbeat of a seat that holds a leased claim and waits a third of
    /// its lease; for a seat that holds none it writes nothing and looks again in 20 s.
    #[test]
    fn a_tick_renews_only_a_seat_with_a_leased_claim_every_third_of_its_lease() {
        let c = Checkout::genesis();
        let take = Command::Take(TakeCmd {
            lease: Some(90),
            ..TakeCmd::default()
        });
        let ran = c.process(None).change(&take, "huey-take-0001", "huey");
        assert_eq!(
            ran,
            Ok(vec![
                "ok huey-take-0001 rev 2 take 2 queued -> in-progress, lease 90s".to_owned()
            ])
        );
        let file = heartbeat::path(&c.paths, "huey");
        c.disk.remove(&file);
        let p = c.process(None);
        assert_eq!(tick(p.world(), &c.paths, "louie"), Duration::from_secs(20));
        assert_eq!(
            c.disk.names(&heartbeat::folder(&c.paths)),
            Vec::<String>::new()
        );
        assert_eq!(tick(p.world(), &c.paths, "huey"), Duration::from_secs(30));
        let now = crate::in_memory::NOW;
        assert_eq!(c.disk.get(&file), Some(format!("{now}\n").into_bytes()));
    }
}
