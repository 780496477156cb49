//! `list --stale DAYS`: work in progress or in review that no log entry has touched for a
//! while, the lead's view for deciding what to release. The host turns DAYS into a cutoff
//! timestamp from its clock; timestamps share one fixed-width form, so they compare as text.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use crate::entry::{Args, Entry};
use crate::model::{Row, Status};

/// A row with the last entry that touched it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stale<'a> {
    pub row: &'a Row,
    pub rev: u64,
    pub at: &'a str,
}

/// The row an entry's arguments name; genesis names every row of its map.
fn row_of(args: &Args) -> Option<u64> {
    args.row()
}

/// Rows in progress or in review whose last entry (in log order) is at or before `cutoff`,
/// oldest first, ties by row id.
pub fn stale<'a>(rows: &'a [Row], log: &'a [Entry], cutoff: &str) -> Vec<Stale<'a>> {
    // Each row to the place in the log of its last entry: the map type of the queue's row
    // index, so no B-tree is compiled for entry references alone.
    let mut last: BTreeMap<u64, usize> = BTreeMap::new();
    for (at, entry) in log.iter().enumerate() {
        match &entry.args {
            Args::Genesis(g) => {
                for r in &g.rows {
                    last.insert(r.id, at);
                }
            }
            // The entries before a cut are archived: a kept row counts as touched at the cut,
            // so `--stale` can only understate how long such a row has waited.
            Args::Epoch(e) => {
                for r in &e.state.rows {
                    last.insert(r.id, at);
                }
            }
            args => {
                if let Some(id) = row_of(args) {
                    last.insert(id, at);
                }
            }
        }
    }
    let mut out: Vec<Stale> = rows
        .iter()
        .filter(|r| matches!(r.status, Status::InProgress | Status::InReview))
        .filter_map(|row| {
            let e = &log[*last.get(&row.id)?];
            (e.at.as_str() <= cutoff).then_some(Stale {
                row,
                rev: e.rev,
                at: &e.at,
            })
        })
        .collect();
    out.sort_by(|a, b| (a.at, a.row.id).cmp(&(b.at, b.row.id)));
    out
}
