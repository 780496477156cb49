//! `list --stale DAYS`: the rows in progress or in review that no log entry has touched for
//! DAYS days, oldest first, with their owners: the work nobody has logged anything on for a
//! while. The log is needed, so this is a full read.

use mosaic_queue_core::{Status, stale};
use serde::Serialize;

use super::load::load_unlocked;
use crate::clock;
use crate::reply::{Replied, Reply};
use crate::store::session;
use crate::values::number::Span;

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
    /// The span given in days; a span in hours or minutes is `span` instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    days: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    span: Option<String>,
    cutoff: &'a str,
    rows: Vec<StaleJson<'a>>,
}

/// `list --stale DAYS`: rows in progress or in review whose last log entry is DAYS days old
/// or older, oldest first, with their owners. The log is needed, so this is a full read.
pub fn list_stale(span: &Span, reply: &mut dyn Reply) -> Replied {
    let json = reply.documents();
    let paths = session::locate()?;
    let loaded = load_unlocked(crate::store::world::World::real(), &paths, reply)?;
    let (queue, durable) = (&loaded.queue, !loaded.ahead_of_witness());
    let cutoff = clock::format_millis(clock::now_millis() - span.millis());
    let found = stale(queue.rows(), &queue.file().log, &cutoff);
    if json {
        return reply.serialized(&StaleListJson {
            revision: queue.revision(),
            durable,
            days: match span {
                Span::Days(n) => Some(*n),
                _ => None,
            },
            span: match span {
                Span::Days(_) => None,
                other => Some(other.text()),
            },
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
        "rev {}: {} stale (no entry for {}, since {cutoff})\n",
        queue.revision(),
        match found.len() {
            0 => String::from("no row is"),
            1 => String::from("1 row is"),
            n => format!("{n} rows are"),
        },
        span.text()
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
    reply.text(&text)
}
