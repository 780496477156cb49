//! The unlocked reads: list, show, next (and `log`'s loading). The store session reads the witness, then the read
//! view or queue.json, without the lock (`session::read_unlocked`); a file ahead of the witness
//! is reported here as visible, not confirmed durable.

use mosaic_queue_core::canon::to_canonical;
use mosaic_queue_core::render::render_body;
use mosaic_queue_core::splice;
use mosaic_queue_core::state::State;
use mosaic_queue_core::{Row, Status, next};
use serde::Serialize;

use super::{CliResult, Failure};
use crate::store::session::{self, Seen};
use crate::store::world::World;
use crate::store::{Loaded, Paths};

/// Loads for a read in the checkout around the working directory.
pub(super) fn load_for_read() -> Result<Seen, Failure> {
    load_for_read_in(&session::locate()?)
}

/// `load_for_read` in the checkout at `paths` (the demo reads its scratch checkout).
pub(super) fn load_for_read_in(paths: &Paths) -> Result<Seen, Failure> {
    let seen = session::read_unlocked(World::real(), paths)?;
    if !seen.durable {
        super::warn(&format!(
            "rev {} visible, not confirmed durable",
            seen.state.revision
        ));
    }
    Ok(seen)
}

/// The whole verified queue for a read that needs its log (`log`), which the read view does
/// not hold: read unlocked as the other reads' fallback does.
pub(super) fn load_queue_for_read() -> Result<mosaic_queue_core::Queue, Failure> {
    Ok(load_unlocked(&session::locate()?)?.queue)
}

/// queue.json read and replayed without the lock (and once more under it if that failed),
/// checked against the checkout. A file ahead of the witness is said to be visible, not
/// confirmed durable.
pub(super) fn load_unlocked(paths: &Paths) -> Result<Loaded, Failure> {
    let loaded = session::load_unlocked(World::real(), paths)?;
    if loaded.ahead_of_witness() {
        super::warn(&format!(
            "rev {} visible, not confirmed durable",
            loaded.queue.revision()
        ));
    }
    Ok(loaded)
}

#[derive(Serialize)]
struct ListJson<'a> {
    revision: u64,
    durable: bool,
    rows: &'a [Row],
}

#[derive(Serialize)]
pub(super) struct RowJson<'a> {
    pub(super) revision: u64,
    pub(super) durable: bool,
    pub(super) row: Option<&'a Row>,
}

pub(super) fn print_json<T: Serialize>(value: &T) -> CliResult {
    super::output::document(value)
}

pub fn list() -> CliResult {
    let json = super::output::json();
    let paths = session::locate()?;
    // The rows' text as the read view holds it is the text of the document's last member.
    if json && let Some(listing) = session::read_listing(World::real(), &paths)? {
        let head = to_canonical(&ListJson {
            revision: listing.state.revision,
            durable: true,
            rows: &[],
        });
        if let Some(doc) = splice::complete_last(head, listing.rows_text()) {
            return super::output::document_bytes(doc);
        }
    }
    let seen = load_for_read_in(&paths)?;
    let st = &seen.state;
    if json {
        print_json(&ListJson {
            revision: st.revision,
            durable: seen.durable,
            rows: &st.rows,
        })?;
    } else {
        crate::say!("rev {}", st.revision);
        super::out(&render_body(st))?;
    }
    Ok(())
}

pub fn show(id: u64) -> CliResult {
    let json = super::output::json();
    let seen = load_for_read()?;
    let st = &seen.state;
    let row = st.row(id).map_err(Failure::from)?;
    if json {
        print_json(&RowJson {
            revision: st.revision,
            durable: seen.durable,
            row: Some(row),
        })?;
    } else {
        super::out(&describe(st, row))?;
    }
    Ok(())
}

/// The seat a read is for: SEAT, else `$MOSAIC_AGENT_NAME` (an empty one counts as unset).
/// The contract: `next` without a seat refuses (exit 2), as does a name that is no seat, before
/// anything is read; `prime` and `next --explain` answer the same way.
pub(super) fn seat_or_agent(seat: Option<String>, verb: &str) -> Result<String, Failure> {
    let seat = match seat {
        Some(s) => s,
        None => match std::env::var_os("MOSAIC_AGENT_NAME") {
            Some(v) if !v.is_empty() => v.into_string().map_err(|v| {
                Failure::refused(format!(
                    "refused: MOSAIC_AGENT_NAME {:?} is not a seat name; set it to your seat",
                    v.to_string_lossy()
                ))
            })?,
            _ => {
                return Err(Failure::refused(format!(
                    "refused: {verb} needs a seat: pass `mosaic-queue {verb} SEAT` or set MOSAIC_AGENT_NAME"
                )));
            }
        },
    };
    mosaic_queue_core::rules::check_seat(&seat)?;
    Ok(seat)
}

pub fn next(seat: Option<String>) -> CliResult {
    let json = super::output::json();
    let seat = seat_or_agent(seat, "next")?;
    let seen = load_for_read()?;
    let st = &seen.state;
    let row = next::next(&st.rows, &seat);
    if json {
        print_json(&RowJson {
            revision: st.revision,
            durable: seen.durable,
            row,
        })?;
    } else {
        match row {
            Some(r) => super::out(&describe(st, r))?,
            None => crate::say!("nothing for {seat} to take up"),
        }
    }
    Ok(())
}

/// A row as `field: value` lines.
pub(super) fn describe(st: &State, row: &Row) -> String {
    let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| String::from("-"));
    let list = |v: &[u64]| {
        let parts: Vec<String> = v.iter().map(|i| format!("#{i}")).collect();
        if parts.is_empty() {
            String::from("-")
        } else {
            parts.join(", ")
        }
    };
    let mut out = format!("row {}: {}\n", row.id, row.piece);
    out.push_str(&format!("  status: {}\n", row.status));
    out.push_str(&format!("  owner: {}\n", opt(&row.owner)));
    out.push_str(&format!("  gate: {}\n", opt(&row.gate)));
    out.push_str(&format!("  issues: {}\n", list(&row.issues)));
    let narrowed = if row.closes_narrowed {
        " (narrowed)"
    } else {
        ""
    };
    out.push_str(&format!("  closes: {}{narrowed}\n", list(&row.closes)));
    let reviewers = if row.reviewers.is_empty() {
        String::from("-")
    } else {
        row.reviewers.join(", ")
    };
    out.push_str(&format!("  reviewers: {reviewers}\n"));
    out.push_str(&format!("  brief: {}\n", opt(&row.brief)));
    out.push_str(&format!("  note: {}\n", opt(&row.note)));
    if let Some(r) = &row.blocked_reason {
        out.push_str(&format!("  blocked: {r}\n"));
    }
    if !row.after.is_empty() {
        out.push_str(&format!("  after: {}\n", after_text(st, row)));
    }
    if let Some(r) = st.move_reason(row.id) {
        out.push_str(&format!("  reason: {r}\n"));
    }
    if let Some(round) = row.review.as_ref().and_then(|r| r.rounds.last()) {
        out.push_str(&format!(
            "  review: round {} on {} candidate {}\n",
            round.round,
            round
                .issue
                .map_or_else(|| String::from("-"), |i| format!("#{i}")),
            round.candidate.as_deref().unwrap_or("-")
        ));
        for a in &round.attempts {
            let comment = a
                .comment
                .map_or_else(String::new, |c| format!(" comment {c}"));
            out.push_str(&format!(
                "  request: {} by {} {}{comment}\n",
                a.op,
                a.by,
                a.state.as_str()
            ));
        }
        for v in &round.verdicts {
            out.push_str(&format!(
                "  verdict: {} {} comment {}\n",
                v.by,
                v.verdict.as_str(),
                v.comment
            ));
        }
        if round.duplicate_risk {
            out.push_str("  duplicate risk: an abandoned request's comment may still land\n");
        }
    }
    out.push_str(&format!("  rev: {}\n", st.revision));
    out
}

/// A row's dependencies for `show`: `#3 (done), #5`.
pub(super) fn after_text(st: &State, row: &Row) -> String {
    let parts: Vec<String> = row
        .after
        .iter()
        .map(|&id| match st.row(id) {
            Ok(r) if r.status == Status::Done => format!("#{id} (done)"),
            _ => format!("#{id}"),
        })
        .collect();
    parts.join(", ")
}
