//! `genesis --map FILE`: the first entry, from the reviewed migration map; QUEUE.md keeps the
//! text between its markers as the legacy view.

use std::path::Path;

use mosaic_queue_core::migration;

use crate::actor::actor;
use crate::checkout;
use crate::checkout::Paths;
use crate::named_files::read_map;
use crate::reply::{Failure, Replied, Reply, acknowledge};
use crate::store::session::{self, Session};
use crate::values::check_op;

/// Genesis from the map at `map_path` as op `op` by `by` (else `$MOSAIC_AGENT_NAME`), in the
/// checkout around the working directory.
pub fn genesis(map_path: &Path, op: &str, by: Option<&str>, reply: &mut dyn Reply) -> Replied {
    check_op(op)?;
    let by = actor(by, reply)?;
    genesis_in(&session::locate()?, map_path, op, &by, reply)
}

/// Genesis in the checkout at `paths` by `by` (already resolved), which `demo` also runs.
pub fn genesis_in(
    paths: &Paths,
    map_path: &Path,
    op: &str,
    by: &str,
    reply: &mut dyn Reply,
) -> Replied {
    session::check_filesystem(paths)?;
    let map_text = read_map(map_path)?;
    let map = migration::parse(&map_text)
        .map_err(|e| Failure::refused(format!("the migration map is invalid: {e}")))?;
    mosaic_queue_core::map_rows(&map.rows).map_err(|e| {
        Failure::refused(format!("the migration map is refused: {e}")).kind(e.kind())
    })?;
    let branch = checkout::head_branch(paths).ok_or_else(|| {
        Failure::refused("HEAD is detached; check out the queue's branch before genesis")
    })?;
    let session = Session::begin(paths, Some(op), "genesis")?;
    session.genesis(&map, &branch, op, by, acknowledge(reply, op))
}
