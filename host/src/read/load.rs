//! How the reads load: the unlocked read of what the witness vouches (`session::read_unlocked`),
//! or the whole verified queue for a read that needs its log. A file ahead of the witness is
//! said, in a warning, to be visible, not confirmed durable.

use mosaic_queue_core::Queue;

use crate::checkout::Paths;
use crate::reply::{Failure, Reply};
use crate::store::Loaded;
use crate::store::session::{self, Seen};
use crate::store::world::World;

/// Loads for a read in the checkout around the working directory.
pub fn load_for_read(reply: &mut dyn Reply) -> Result<Seen, Failure> {
    load_for_read_in(World::real(), &session::locate()?, reply)
}

/// `load_for_read` in `world` on the checkout at `paths` (the demo reads its scratch
/// checkout).
pub fn load_for_read_in(
    world: World<'_>,
    paths: &Paths,
    reply: &mut dyn Reply,
) -> Result<Seen, Failure> {
    let seen = session::read_unlocked(world, paths)?;
    if !seen.durable {
        reply.warn(&format!(
            "rev {} visible, not confirmed durable",
            seen.state.revision
        ));
    }
    Ok(seen)
}

/// The whole verified queue for a read that needs its log (`log`), which the read view does
/// not hold: read unlocked as the other reads' fallback does.
pub fn load_queue_for_read(reply: &mut dyn Reply) -> Result<Queue, Failure> {
    Ok(load_unlocked(World::real(), &session::locate()?, reply)?.queue)
}

/// queue.json read and replayed without the lock (and once more under it if that failed),
/// checked against the checkout. A file ahead of the witness is said to be visible, not
/// confirmed durable.
pub fn load_unlocked(
    world: World<'_>,
    paths: &Paths,
    reply: &mut dyn Reply,
) -> Result<Loaded, Failure> {
    let loaded = session::load_unlocked(world, paths)?;
    if loaded.ahead_of_witness() {
        reply.warn(&format!(
            "rev {} visible, not confirmed durable",
            loaded.queue.revision()
        ));
    }
    Ok(loaded)
}
