//! `log [ID] [--limit N]`: the operation log newest first, one line per entry, or with `--json`
//! the log's own entry objects. Unlocked like the other reads; the read view holds no log, so
//! it reads queue.json as their fallback does (docs/json.md, docs/decisions.md).

use mosaic_queue_core::{Args, Entry, VerbError};

use crate::reply::{Failure, Replied, Reply, entry_row};

/// Whether `entry` touched row `id`: its arguments name it, or genesis brought it in.
fn touches(entry: &Entry, id: u64) -> bool {
    match &entry.args {
        Args::Genesis(g) => g.rows.iter().any(|r| r.id == id),
        args => entry_row(args) == Some(id),
    }
}

/// One entry as a line: revision, time, actor, verb, receipt and op id, tab-separated.
fn line(e: &Entry) -> String {
    let verb = serde_json::to_value(e.verb)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    format!(
        "{}\t{}\t{}\t{verb}\t{}\t{}\n",
        e.rev, e.at, e.by, e.receipt, e.op
    )
}

/// `log [ID] [--limit N]`: the entries that touched row `id` (all without it), newest first,
/// at most `limit` of them.
pub fn log(id: Option<u64>, limit: Option<usize>, reply: &mut dyn Reply) -> Replied {
    let paths = crate::store::session::locate()?;
    let queue =
        super::load::load_unlocked(crate::store::world::World::real(), &paths, reply)?.queue;
    let state = queue.state();
    // A row a cut archived: its entries are in the archives up to that cut.
    let archived = match id.map(|id| state.row(id)) {
        Some(Err(VerbError::RowArchived { epoch, .. })) => {
            super::cut::entries(&paths, &queue, epoch)?
        }
        Some(Err(e)) => return Err(Failure::from(e)),
        _ => Vec::new(),
    };
    let entries: Vec<&Entry> = queue
        .file()
        .log
        .iter()
        .rev()
        .chain(archived.iter().rev())
        .filter(|e| id.is_none_or(|id| touches(e, id)))
        .take(limit.unwrap_or(usize::MAX))
        .collect();
    if reply.documents() {
        return reply.serialized(&entries);
    }
    let mut text = String::new();
    for e in entries {
        text.push_str(&line(e));
    }
    reply.text(&text)
}
