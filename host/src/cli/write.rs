//! Verbs that take the lock: the changes (one log entry each), genesis, verify and render.
//! Each follows one path: locate the checkout, take the lock, load and verify, let the core
//! decide, write through the store's durability points, then print the receipt.

use std::path::Path;
use std::time::Duration;

use mosaic_queue_core::verbs::Command;
use mosaic_queue_core::{BodyStatus, Outcome, Queue, map, table};

use super::{Change, CliResult, Failure, actor, args};
use crate::checkout;
use crate::clock;
use crate::io::{Io, RealIo};
use crate::seam;
use crate::store::{self, Loaded, Paths, lock};

/// How long a writer waits for a live lock before it gives up.
pub(super) const LOCK_WAIT: Duration = Duration::from_secs(30);

pub(super) fn here() -> Result<Paths, Failure> {
    let cwd = std::env::current_dir()
        .map_err(|e| Failure::failed(format!("cannot read the working directory: {e}")))?;
    Ok(checkout::locate(&cwd)?)
}

/// QUEUE.md as read under the lock, refused when its markers are missing or its body is a
/// hand edit (a write would overwrite it).
pub(super) fn table_text(io: &dyn Io, paths: &Paths, queue: &Queue) -> Result<String, Failure> {
    let bytes = io
        .read(&paths.queue_md)
        .map_err(|e| Failure::failed(format!("cannot read {}: {e}", paths.queue_md.display())))?;
    let md = String::from_utf8(bytes).map_err(|_| Failure::refused("QUEUE.md is not UTF-8"))?;
    let body = table::body(&md).map_err(|e| Failure::refused(e.to_string()))?;
    if store::table_status(queue, body) == BodyStatus::Unknown {
        return Err(Failure::refused(
            "QUEUE.md's table is not a render of this queue (a hand edit?); restore it with git or re-apply the edit as queue ops, then run `mosaic-queue render`",
        ));
    }
    Ok(md)
}

/// Loads under the lock and applies the checkout rules every locked verb shares.
pub(super) fn load_checked(io: &dyn Io, paths: &Paths) -> Result<Loaded, Failure> {
    let loaded = store::load(io, paths)?;
    checkout::check_queue(paths, &loaded.queue)?;
    if loaded.witness.is_none() {
        return Err(Failure::refused(
            "there is no witness .git/mosaic-queue.head: if queue.json holds genesis alone run `mosaic-queue sync`, otherwise see Manual recovery",
        ));
    }
    Ok(loaded)
}

/// add, move, release, assign, note, set, and the review verbs that write one entry.
pub fn change(command: &Command, change: &Change) -> CliResult {
    args::check_op(&change.op)?;
    let by = actor(&change.by)?;
    change_in(&here()?, command, &change.op, &by)
}

/// A change in the checkout at `paths` by `by` (already resolved): the CLI's one path for a
/// change, which `demo` also runs in its scratch checkout. A change that opens a review request
/// attempt goes on to post it and log its outcome.
pub(super) fn change_in(paths: &Paths, command: &Command, op: &str, by: &str) -> CliResult {
    let (outcome, queue) = apply(paths, command, op, by)?;
    super::review::after_change(paths, &queue, command, op, by, &outcome)
}

/// Applies one change under the lock, makes it durable and prints its receipt; returns what
/// the core decided and the queue as it now stands.
pub(super) fn apply(
    paths: &Paths,
    command: &Command,
    op: &str,
    by: &str,
) -> Result<(Outcome, Queue), Failure> {
    let io = RealIo;
    store::check_filesystem(&io, paths)?;
    let at = clock::now();
    let verb = verb_name(command);
    let held = lock::acquire(&io, paths, op, verb, &at, seam::lock_wait(LOCK_WAIT))?;
    let loaded = load_checked(&io, paths)?;
    checkout::check_genesis_committed(paths)?;
    let mut queue = loaded.queue.clone();
    let outcome = queue.execute(command, op, by, &at)?;
    match &outcome {
        Outcome::Recorded { .. } => {
            store::sweep_temps(&io, paths);
            if loaded.ahead_of_witness() {
                // The writer that made this tail visible may have died before its fsync of
                // docs/plans, or seen it fail: the file is written again before the witness
                // vouches for it.
                store::confirm_tail(&io, paths, &loaded, loaded.checked_witness(), &at)?;
            }
            finish_table(&io, paths, &loaded.queue)?;
            super::output::receipt_of(&loaded.queue, op, true)?;
        }
        Outcome::Applied { .. } => {
            let md = table_text(&io, paths, &loaded.queue)?;
            store::commit(&io, paths, &loaded, &queue, &md, &at)?;
            super::output::receipt_of(&queue, op, false)?;
            seam::step("receipt-printed");
        }
        // `take` found nothing: nothing is written, not even a confirmation of the tail.
        Outcome::NothingToTake { held } => super::coord::nothing_to_take(by, *held)?,
    }
    super::release_after_answer(held)?;
    Ok((outcome, queue))
}

/// The verified queue as it stands, read under the lock and released at once: for a verb that
/// must look before it acts outside the lock (resolve fetches a comment first).
pub(super) fn read_locked(paths: &Paths) -> Result<Queue, Failure> {
    let io = RealIo;
    let held = lock::acquire(
        &io,
        paths,
        "review-read",
        "read",
        &clock::now(),
        seam::lock_wait(LOCK_WAIT),
    )?;
    let loaded = load_checked(&io, paths)?;
    held.release()?;
    Ok(loaded.queue)
}

/// A retry completes the write it repeats: a table left stale by a writer that died after
/// its rename is rendered again. A hand-edited table is left for a person, as everywhere.
fn finish_table(io: &dyn Io, paths: &Paths, queue: &Queue) -> CliResult {
    let Ok(bytes) = io.read(&paths.queue_md) else {
        return Ok(());
    };
    let md = String::from_utf8_lossy(&bytes);
    if let Ok(body) = table::body(&md)
        && matches!(store::table_status(queue, body), BodyStatus::Stale { .. })
    {
        store::write_table(io, paths, queue, &md).map_err(|e| {
            Failure::uncertain(format!("the op is recorded but QUEUE.md could not be rendered ({e}); run `mosaic-queue render`"),
            )
        })?;
    }
    Ok(())
}

fn verb_name(command: &Command) -> &'static str {
    match command {
        Command::Add(_) => "add",
        Command::Move(_) => "move",
        Command::Release(_) => "release",
        Command::Assign(_) => "assign",
        Command::Note(_) => "note",
        Command::Set(_) => "set",
        Command::AcceptHistory(_) => "accept-history",
        Command::ReviewRequest(_) => "review request",
        Command::ReviewOutcome(_) => "review outcome",
        Command::ReviewResolve(_) => "review resolve",
        Command::ReviewAbandon(_) => "review abandon",
        Command::ReviewRecord(_) => "review record",
        Command::Take(_) => "take",
    }
}

/// `genesis --map FILE`: the first entry, from the reviewed map; QUEUE.md keeps the text
/// between its markers as the legacy view.
pub fn genesis(map_path: &Path, change: &Change) -> CliResult {
    args::check_op(&change.op)?;
    let by = actor(&change.by)?;
    genesis_in(&here()?, map_path, &change.op, &by)
}

/// Genesis in the checkout at `paths` by `by`: the CLI's path, which `demo` also runs.
pub(super) fn genesis_in(paths: &Paths, map_path: &Path, op: &str, by: &str) -> CliResult {
    let io = RealIo;
    store::check_filesystem(&io, paths)?;
    let map_text = std::fs::read_to_string(map_path)
        .map_err(|e| Failure::failed(format!("cannot read the map {}: {e}", map_path.display())))?;
    let map = map::parse(&map_text)
        .map_err(|e| Failure::refused(format!("the migration map is invalid: {e}")))?;
    let branch =
        crate::git::run(&paths.root, &["symbolic-ref", "-q", "--short", "HEAD"]).map_err(|_| {
            Failure::refused("HEAD is detached; check out the queue's branch before genesis")
        })?;
    let at = clock::now();
    let held = lock::acquire(&io, paths, op, "genesis", &at, seam::lock_wait(LOCK_WAIT))?;
    if paths.queue_json.exists() {
        retry_genesis(&io, paths, op, by, &at)?;
        super::release_after_answer(held)?;
        return Ok(());
    }
    let md_bytes = io
        .read(&paths.queue_md)
        .map_err(|e| Failure::failed(format!("cannot read {}: {e}", paths.queue_md.display())))?;
    let md = String::from_utf8(md_bytes).map_err(|_| Failure::refused("QUEUE.md is not UTF-8"))?;
    let root = paths.root.to_string_lossy().into_owned();
    let args = map
        .genesis_args(&branch, &root, &md)
        .map_err(|e| Failure::refused(format!("{e}; add both markers before genesis")))?;
    let (queue, _) = Queue::genesis(args, op, by, &at)?;
    store::create(&io, paths, &queue, &md, &at)?;
    super::output::receipt_of(&queue, op, false)?;
    super::release_after_answer(held)?;
    Ok(())
}

/// Genesis when queue.json exists: the retry of the op that wrote it (same op id and actor)
/// finishes what a crash may have cut short (the witness of a genesis that has none, a stale
/// table) and answers with the original receipt; anything else refuses. The map is not
/// compared: the legacy view it was built with has since been replaced by the table.
fn retry_genesis(io: &dyn Io, paths: &Paths, op: &str, by: &str, at: &str) -> CliResult {
    let exists = || {
        Failure::refused(
            "docs/plans/queue.json exists already; genesis runs once (see Manual recovery for a broken file)",
        )
    };
    let Ok(loaded) = store::load_unchecked(io, paths) else {
        return Err(exists());
    };
    let Some(first) = loaded.queue.file().log.first() else {
        return Err(exists());
    };
    if first.op != op || first.by != by || first.verb != mosaic_queue_core::entry::Verb::Genesis {
        return Err(exists());
    }
    checkout::check_queue(paths, &loaded.queue)?;
    if loaded.witness.is_none() && loaded.queue.revision() == 1 {
        store::confirm_tail(io, paths, &loaded, None, at)?;
    }
    finish_table(io, paths, &loaded.queue)?;
    super::output::receipt_of(&loaded.queue, op, true)
}

/// `verify [--current]`: the file, its history against the witness, and with --current the
/// table too.
pub fn verify(current: bool) -> CliResult {
    let io = RealIo;
    let paths = here()?;
    let held = lock::acquire(
        &io,
        &paths,
        "verify-read",
        "verify",
        &clock::now(),
        seam::lock_wait(LOCK_WAIT),
    )?;
    let loaded = load_checked(&io, &paths)?;
    let mut line = format!(
        "ok verify rev {} ({} entries, witness rev {})",
        loaded.queue.revision(),
        loaded.queue.file().log.len(),
        loaded.witness.as_ref().map_or(0, |w| w.revision)
    );
    if current {
        let md = std::fs::read_to_string(&paths.queue_md)
            .map_err(|e| Failure::failed(format!("cannot read QUEUE.md: {e}")))?;
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
    super::release_after_answer(held)?;
    Ok(())
}

/// `render [--check]`: rewrites a stale table; a current one is left alone.
pub fn render(check: bool) -> CliResult {
    let io = RealIo;
    let paths = here()?;
    let held = lock::acquire(
        &io,
        &paths,
        "render-table",
        "render",
        &clock::now(),
        seam::lock_wait(LOCK_WAIT),
    )?;
    let loaded = load_checked(&io, &paths)?;
    let md = std::fs::read_to_string(&paths.queue_md)
        .map_err(|e| Failure::failed(format!("cannot read QUEUE.md: {e}")))?;
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
            store::sweep_temps(&io, &paths);
            store::write_table(&io, &paths, &loaded.queue, &md)
                .map_err(|e| Failure::failed(format!("cannot write QUEUE.md: {e}")))?;
            crate::say!("ok render rev {rev}: table rewritten");
        }
        BodyStatus::Unknown => {
            return Err(Failure::refused(
                "QUEUE.md's table is not a render of this queue; restore it with git or re-apply the edit as queue ops first",
            ));
        }
    }
    super::release_after_answer(held)?;
    Ok(())
}
