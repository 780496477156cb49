//! Verbs that take the lock: the changes (one log entry each), genesis, verify and render.
//! Each reads one way: parse, then the store session locks, loads and lets the core decide,
//! writes durably and calls back here to print the receipt; a change that opened a review
//! request attempt is then carried out by `review`.

use std::path::Path;

use mosaic_queue_core::verbs::Command;
use mosaic_queue_core::{BodyStatus, map, table};

use super::output::acknowledge;
use super::{Change, CliResult, Failure, actor, args, review};
use crate::checkout;
use crate::store::session::{self, Kind, Session};
use crate::store::{self, Paths};

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
    let (outcome, queue) = session::change(paths, command, op, by, acknowledge(op))?;
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
    let loaded = held.load()?;
    let mut line = format!(
        "ok verify rev {} ({} entries, witness rev {})",
        loaded.queue.revision(),
        loaded.queue.file().log.len(),
        loaded.witness.as_ref().map_or(0, |w| w.revision)
    );
    if current {
        let md = held.table_text()?;
        let body = table::body(&md).map_err(|e| Failure::refused(e.to_string()))?;
        match store::table_status(&loaded.queue, body) {
            BodyStatus::Current => line.push_str(", table current"),
            BodyStatus::Stale { rev } => {
                return Err(Failure::refused(format!(
                    "QUEUE.md is stale (rendered at rev {rev}); look, then run `mosaic-queue render`"
                )));
            }
            BodyStatus::Unknown => {
                return Err(Failure::refused(
                    "QUEUE.md's table is not a render of this queue; restore it with git, then run `mosaic-queue render`",
                ));
            }
        }
    }
    crate::say!("{line}");
    held.release_after_answer();
    Ok(())
}

/// `render [--check]`: rewrites a stale table; a current one is left alone.
pub fn render(check: bool) -> CliResult {
    let paths = session::locate()?;
    let held = Session::begin(&paths, Some("render-table"), "render")?;
    let loaded = held.load()?;
    let md = held.table_text()?;
    let body = table::body(&md).map_err(|e| Failure::refused(e.to_string()))?;
    let rev = loaded.queue.revision();
    match store::table_status(&loaded.queue, body) {
        BodyStatus::Current => crate::say!("ok render rev {rev}: table current"),
        BodyStatus::Stale { rev: old } if check => {
            return Err(Failure::refused(format!(
                "QUEUE.md is stale (rendered at rev {old}); run `mosaic-queue render`"
            )));
        }
        BodyStatus::Stale { .. } => {
            held.rewrite_table(&loaded.queue, &md)?;
            crate::say!("ok render rev {rev}: table rewritten");
        }
        BodyStatus::Unknown => {
            return Err(Failure::refused(
                "QUEUE.md's table is not a render of this queue; restore it with git or re-apply the edit as queue ops first",
            ));
        }
    }
    held.release_after_answer();
    Ok(())
}
