//! Coordination verbs for a team of seats: `take` claims the row `next` names in one locked
//! entry; `next --explain` says why every other open row was passed over; `list --stale`
//! shows the work nobody has logged anything on for a while.

use mosaic_queue_core::queue::NOTHING_TO_TAKE;
use mosaic_queue_core::verbs::{Command, TakeCmd};
use mosaic_queue_core::{Outcome, Queue, Row, Status, next, stale};
use serde::Serialize;

use super::output::{acknowledge, entry_row};
use super::{Change, CliResult, actor, args, read};
use crate::clock;
use crate::store::Paths;
use crate::store::session;
use crate::store::world::World;

/// What `take --json` prints when there is nothing to take: the keys of the receipt object it
/// prints after a take (docs/json.md), with no row taken and no entry written.
#[derive(Serialize)]
struct NothingJson<'a> {
    op: &'a str,
    /// The revision `next` looked at; nothing was written.
    revision: u64,
    verb: &'static str,
    row: Option<u64>,
    recorded: bool,
    text: &'a str,
    /// The seat's own in-progress row when `next` names it (why nothing was taken), else null.
    current: Option<&'a Row>,
}

/// `take --op ID [--by SEAT]`: under the lock, the row `next SEAT` names moves to in-progress
/// for SEAT as one entry, whose receipt (or receipt object, with `--json`) it prints. A retry
/// of the op answers with its original receipt, however the queue moved on.
pub fn take(change: &Change) -> CliResult {
    args::check_op(&change.op)?;
    let by = actor(&change.by)?;
    take_in(&session::locate()?, &change.op, &by)
}

/// `take` in the checkout at `paths` by `by` (already resolved); `demo` runs it too. With
/// `--json` the receipt object carries `current`, the row taken as it now stands.
pub(super) fn take_in(paths: &Paths, op: &str, by: &str) -> CliResult {
    let take = Command::Take(TakeCmd {});
    let (outcome, queue) = session::change(World::real(), paths, &take, op, by, acknowledge(op))?;
    match outcome {
        Outcome::NothingToTake { held } => nothing_to_take(&queue, op, by, held),
        Outcome::Applied { .. } | Outcome::Recorded { .. } => {
            let taken = queue.entry_for_op(op).and_then(|e| entry_row(&e.args));
            if let Some(row) = taken.and_then(|id| queue.state().row(id).ok()) {
                super::output::attach_current(row);
            }
            Ok(())
        }
    }
}

/// What `take` prints when it writes nothing: `nothing to take`, and why when the seat already
/// has the row `next` names in progress; with `--json`, `NothingJson`.
fn nothing_to_take(queue: &Queue, op: &str, by: &str, held: Option<u64>) -> CliResult {
    let text = match held {
        Some(id) => format!("{NOTHING_TO_TAKE}: {by} has row {id} in progress"),
        None => String::from(NOTHING_TO_TAKE),
    };
    if super::output::json() {
        let state = queue.state();
        return read::print_json(&NothingJson {
            op,
            revision: state.revision,
            verb: "take",
            row: None,
            recorded: false,
            text: &text,
            current: held.and_then(|id| state.row(id).ok()),
        });
    }
    super::out(&format!("{text}\n"))
}

#[derive(Serialize)]
struct PassedJson {
    id: u64,
    why: &'static str,
    text: String,
}

#[derive(Serialize)]
struct ExplainJson<'a> {
    revision: u64,
    durable: bool,
    row: Option<&'a Row>,
    passed: Vec<PassedJson>,
    done: usize,
}

/// `next [SEAT] --explain`: what `next` prints, then each open row it passed over, in queue
/// order, with why; done rows are counted, not listed.
pub fn next_explained(seat: Option<String>) -> CliResult {
    let seat = read::seat_or_agent(seat, "next")?;
    next_explained_in(&session::locate()?, &seat)
}

/// `next SEAT --explain` in the checkout at `paths`; `demo` runs it too.
pub(super) fn next_explained_in(paths: &Paths, seat: &str) -> CliResult {
    let json = super::output::json();
    let seen = read::load_for_read_in(paths)?;
    let st = &seen.state;
    let explained = next::explain(&st.rows, seat);
    let row = explained.pick.and_then(|id| st.row(id).ok());
    if json {
        return read::print_json(&ExplainJson {
            revision: st.revision,
            durable: seen.durable,
            row,
            passed: explained
                .passed
                .iter()
                .map(|(id, why)| PassedJson {
                    id: *id,
                    why: why.code(),
                    text: why.to_string(),
                })
                .collect(),
            done: explained.done,
        });
    }
    let mut text = match row {
        Some(r) => read::describe(st, r),
        None => format!("nothing for {seat} to take up\n"),
    };
    text.push_str(&explanation(&explained));
    super::out(&text)
}

/// The passed-over rows as lines under the pick.
pub(super) fn explanation(explained: &next::Explained) -> String {
    let mut text = String::new();
    if !explained.passed.is_empty() {
        text.push_str("passed over:\n");
    }
    for (id, why) in &explained.passed {
        text.push_str(&format!("  row {id}: {why}\n"));
    }
    match explained.done {
        0 => {}
        1 => text.push_str("1 done row skipped\n"),
        n => text.push_str(&format!("{n} done rows skipped\n")),
    }
    text
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StaleJson<'a> {
    id: u64,
    piece: &'a str,
    status: Status,
    owner: Option<&'a str>,
    last_rev: u64,
    last_at: &'a str,
}

#[derive(Serialize)]
struct StaleListJson<'a> {
    revision: u64,
    durable: bool,
    days: u32,
    cutoff: &'a str,
    rows: Vec<StaleJson<'a>>,
}

/// `list --stale DAYS`: rows in progress or in review whose last log entry is DAYS days old
/// or older, oldest first, with their owners. The log is needed, so this is a full read.
pub fn list_stale(days: u32) -> CliResult {
    let json = super::output::json();
    let paths = session::locate()?;
    let loaded = read::load_unlocked(&paths)?;
    let (queue, durable) = (&loaded.queue, !loaded.ahead_of_witness());
    let cutoff = clock::format_millis(clock::now_millis() - i64::from(days) * DAY_MS);
    let found = stale::stale(queue.rows(), &queue.file().log, &cutoff);
    if json {
        return read::print_json(&StaleListJson {
            revision: queue.revision(),
            durable,
            days,
            cutoff: &cutoff,
            rows: found
                .iter()
                .map(|s| StaleJson {
                    id: s.row.id,
                    piece: &s.row.piece,
                    status: s.row.status,
                    owner: s.row.owner.as_deref(),
                    last_rev: s.rev,
                    last_at: s.at,
                })
                .collect(),
        });
    }
    let mut text = format!(
        "rev {}: {} stale (no entry for {days} days, since {cutoff})\n",
        queue.revision(),
        match found.len() {
            0 => String::from("no row is"),
            1 => String::from("1 row is"),
            n => format!("{n} rows are"),
        }
    );
    for s in &found {
        text.push_str(&format!(
            "  row {}: {}, owner {}, last entry rev {} at {}: {}\n",
            s.row.id,
            s.row.status,
            s.row.owner.as_deref().unwrap_or("-"),
            s.rev,
            s.at,
            s.row.piece
        ));
    }
    super::out(&text)
}

const DAY_MS: i64 = 86_400_000;
