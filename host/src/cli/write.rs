//! Verbs that take the lock: the changes (one log entry each), genesis, verify and render.
//! Each reads one way: parse, then the store session locks, loads and lets the core decide,
//! writes durably and calls back here to print the receipt; a change that opened a review
//! request attempt is then carried out by `review`.

use std::path::Path;

use mosaic_queue_core::map;
use mosaic_queue_core::verbs::Command;

use super::output::acknowledge;
use super::{Change, CliResult, Failure, actor, args, review};
use crate::checkout;
use crate::store::Paths;
use crate::store::session::{self, Kind, Session};
use crate::store::upkeep::Rendered;
use crate::store::world::World;

/// add, move, release, assign, note, set, and the review verbs that write one entry.
pub fn change(command: &Command, change: &Change) -> CliResult {
    args::check_op(&change.op)?;
    let by = actor(&change.by)?;
    change_in(&session::locate()?, command, &change.op, &by)
}

/// A change in the checkout at `paths` by `by` (already resolved): the CLI's one path for a
/// change, which `demo` also runs in its scratch checkout. When the core says the change
/// opened a review request attempt, the request is carried out next.
pub(super) fn change_in(paths: &Paths, command: &Command, op: &str, by: &str) -> CliResult {
    let world = World::real();
    let (outcome, queue) = session::change(world, paths, command, op, by, acknowledge(op))?;
    match outcome.request() {
        Some(request) => review::carry_out(paths, &outcome, request, &queue, by),
        None => Ok(()),
    }
}

/// `genesis --map FILE`: the first entry, from the reviewed map; QUEUE.md keeps the text
/// between its markers as the legacy view.
pub fn genesis(map_path: &Path, change: &Change) -> CliResult {
    args::check_op(&change.op)?;
    let by = actor(&change.by)?;
    genesis_in(&session::locate()?, map_path, &change.op, &by)
}

/// Genesis in the checkout at `paths` by `by`: the CLI's path, which `demo` also runs.
pub(super) fn genesis_in(paths: &Paths, map_path: &Path, op: &str, by: &str) -> CliResult {
    session::check_filesystem(paths)?;
    let map_text = read_map(map_path)?;
    let map = map::parse(&map_text)
        .map_err(|e| Failure::refused(format!("the migration map is invalid: {e}")))?;
    mosaic_queue_core::admission::map_rows(&map.rows).map_err(|e| {
        Failure::refused(format!("the migration map is refused: {e}")).kind(e.kind())
    })?;
    let branch = checkout::head_branch(paths).ok_or_else(|| {
        Failure::refused("HEAD is detached; check out the queue's branch before genesis")
    })?;
    Session::begin(paths, Some(op), "genesis")?.genesis(&map, &branch, op, by, acknowledge(op))
}

/// The migration map's text (`genesis`, `map-check`), read under its cap (docs/limits.md).
pub(super) fn read_map(map_path: &Path) -> Result<String, Failure> {
    let bytes = super::read_file(map_path, Kind::Map)?;
    String::from_utf8(bytes).map_err(|_| {
        Failure::refused(format!(
            "the map {} is not UTF-8; {}",
            map_path.display(),
            Kind::Map.next_step()
        ))
    })
}

/// QUEUE.md's text read without the lock (`map-check`, the demo's show), refused as every
/// verb that reads it refuses it.
pub(super) fn read_queue_md(paths: &Paths) -> Result<String, Failure> {
    let bytes = super::read_file(&paths.queue_md, Kind::QueueMd)?;
    String::from_utf8(bytes).map_err(|_| session::SessionError::TableNotUtf8.into())
}

/// `verify [--current]`: the file, its history against the witness, and with --current the
/// table too.
pub fn verify(current: bool) -> CliResult {
    let paths = session::locate()?;
    let held = Session::begin(&paths, Some("verify-read"), "verify")?;
    let v = held.verify(current)?;
    let table = if current { ", table current" } else { "" };
    crate::say!(
        "ok verify rev {} ({} entries, witness rev {}){table}",
        v.rev,
        v.entries,
        v.witness_rev
    );
    held.release_after_answer();
    Ok(())
}

/// `render [--check]`: rewrites a stale table; a current one is left alone.
pub fn render(check: bool) -> CliResult {
    let paths = session::locate()?;
    let held = Session::begin(&paths, Some("render-table"), "render")?;
    match held.render(check)? {
        Rendered::Current(rev) => crate::say!("ok render rev {rev}: table current"),
        Rendered::Rewritten(rev) => crate::say!("ok render rev {rev}: table rewritten"),
    }
    held.release_after_answer();
    Ok(())
}
