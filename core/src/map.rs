//! The migration map: a markdown file naming the QUEUE.md blob it was built from and a table
//! of rows (`# | Piece | Owner | Status | Gate | Issues | Note`). `parse` feeds genesis;
//! `drift` compares the map with the current QUEUE.md for `map-check`.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

use crate::entry::{GenesisArgs, MapRow};
use crate::error::{MapError, TableError};
use crate::hex::is_hex;
use crate::limits::MAX_SAFE_INTEGER;
use crate::model::Status;
use crate::table;

const COLUMNS: [&str; 7] = ["#", "Piece", "Owner", "Status", "Gate", "Issues", "Note"];
const SOURCE_PREFIX: &str = "source: docs/plans/QUEUE.md blob ";

/// A parsed migration map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Map {
    /// The 40-hex blob id of the QUEUE.md the map was built from.
    pub source: String,
    pub rows: Vec<MapRow>,
}

impl Map {
    /// Genesis arguments for this map on `branch` at `root`, keeping the text between QUEUE.md's markers
    /// as the legacy view.
    pub fn genesis_args(
        &self,
        branch: &str,
        root: &str,
        queue_md: &str,
    ) -> Result<GenesisArgs, TableError> {
        Ok(GenesisArgs {
            branch: String::from(branch),
            root: String::from(root),
            source: self.source.clone(),
            rows: self.rows.clone(),
            legacy_view: String::from(table::body(queue_md)?),
        })
    }
}

/// Parses a migration map.
pub fn parse(md: &str) -> Result<Map, MapError> {
    let source = md
        .lines()
        .find_map(|l| l.trim().strip_prefix(SOURCE_PREFIX))
        .map(str::trim)
        .filter(|h| is_hex(h, 40))
        .ok_or(MapError::NoSource)?;
    let rows = parse_table(md)?;
    if rows.is_empty() {
        return Err(MapError::Empty);
    }
    let mut seen = BTreeMap::new();
    for (line, row) in &rows {
        if seen.insert(row.id, *line).is_some() {
            return Err(MapError::DuplicateId {
                id: row.id,
                line: *line,
            });
        }
    }
    Ok(Map {
        source: String::from(source),
        rows: rows.into_iter().map(|(_, r)| r).collect(),
    })
}

/// The rows of the first table with the queue's columns, with their 1-based line numbers.
pub(crate) fn parse_table(md: &str) -> Result<Vec<(usize, MapRow)>, MapError> {
    let lines: Vec<&str> = md.lines().collect();
    let header = lines
        .iter()
        .position(|l| l.trim_start().starts_with('|') && split_cells(l) == COLUMNS)
        .ok_or(MapError::NoTable)?;
    let mut rows = Vec::new();
    for (i, line) in lines.iter().enumerate().skip(header + 2) {
        if !line.trim_start().starts_with('|') {
            break;
        }
        let number = i + 1;
        rows.push((
            number,
            parse_row(line).map_err(|why| MapError::BadRow { line: number, why })?,
        ));
    }
    Ok(rows)
}

/// Splits a table line on unescaped `|` and unescapes `\|` in each trimmed cell.
fn split_cells(line: &str) -> Vec<String> {
    let inner = line.trim();
    let inner = inner.strip_prefix('|').unwrap_or(inner);
    let inner = inner
        .strip_suffix('|')
        .filter(|s| !s.ends_with('\\'))
        .unwrap_or(inner);
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cell.push('|');
                chars.next();
            }
            '|' => cells.push(core::mem::take(&mut cell)),
            _ => cell.push(c),
        }
    }
    cells.push(cell);
    cells.into_iter().map(|c| String::from(c.trim())).collect()
}

fn is_blank(cell: &str) -> bool {
    matches!(cell, "" | "-" | "—")
}

fn optional(cell: &str) -> Option<String> {
    (!is_blank(cell)).then(|| String::from(cell))
}

fn parse_row(line: &str) -> Result<MapRow, String> {
    let cells = split_cells(line);
    if cells.len() != COLUMNS.len() {
        return Err(format!("expected 7 cells, found {}", cells.len()));
    }
    let id: u64 = cells[0]
        .trim_start_matches('#')
        .parse()
        .map_err(|_| format!("row number `{}` is not a number", cells[0]))?;
    if id > MAX_SAFE_INTEGER {
        return Err(format!(
            "row number {id} is above {MAX_SAFE_INTEGER} (2^53-1), the largest number queue.json can hold"
        ));
    }
    if cells[1].is_empty() {
        return Err(String::from("the piece is empty"));
    }
    let status = Status::parse(&cells[3])
        .ok_or_else(|| format!("status `{}` is not one of the seven statuses", cells[3]))?;
    let mut issues = Vec::new();
    if !is_blank(&cells[5]) {
        for part in cells[5].split(',') {
            let n: u64 = part
                .trim()
                .strip_prefix('#')
                .and_then(|n| n.parse().ok())
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("issue `{}` is not written #N", part.trim()))?;
            if n > MAX_SAFE_INTEGER {
                return Err(format!(
                    "issue #{n} is above {MAX_SAFE_INTEGER} (2^53-1), the largest number queue.json can hold"
                ));
            }
            issues.push(n);
        }
    }
    issues.sort_unstable();
    issues.dedup();
    Ok(MapRow {
        id,
        piece: cells[1].clone(),
        owner: optional(&cells[2]),
        status,
        gate: optional(&cells[4]),
        issues,
        note: optional(&cells[6]),
    })
}

/// What changed between the map and the current QUEUE.md.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct Drift {
    /// Table lines added or removed since the map's source blob.
    pub lines: Vec<LineChange>,
    /// Rows whose piece, owner or issues no longer match the map, or that one side lacks.
    pub rows: Vec<RowDrift>,
}

impl Drift {
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty() && self.rows.is_empty()
    }
}

#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct LineChange {
    pub added: bool,
    /// 1-based line number in the current file (added) or the source blob (removed).
    pub line: usize,
    pub text: String,
}

#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct RowDrift {
    pub id: u64,
    pub field: &'static str,
    pub map: String,
    pub table: String,
}

/// Compares the map with the current QUEUE.md text; `source_md` is the text of the blob the
/// map names. Table lines are compared as a multiset, so a moved line is not reported.
pub fn drift(map: &Map, source_md: &str, current_md: &str) -> Drift {
    Drift {
        lines: line_changes(source_md, current_md),
        rows: row_drift(map, current_md),
    }
}

/// The table lines only one of the two texts holds (as a multiset), in line order.
fn line_changes(source_md: &str, current_md: &str) -> Vec<LineChange> {
    let table_lines = |md: &str| -> Vec<(usize, String)> {
        md.lines()
            .enumerate()
            .filter(|(_, l)| l.trim_start().starts_with('|'))
            .map(|(i, l)| (i + 1, String::from(l)))
            .collect()
    };
    let old = table_lines(source_md);
    let new = table_lines(current_md);
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, l) in &old {
        *counts.entry(l.as_str()).or_default() += 1;
    }
    let mut added = Vec::new();
    for (n, l) in &new {
        match counts.get_mut(l.as_str()) {
            Some(c) if *c > 0 => *c -= 1,
            _ => added.push(LineChange {
                added: true,
                line: *n,
                text: l.clone(),
            }),
        }
    }
    let mut removed = Vec::new();
    for (n, l) in old.iter().rev() {
        if let Some(c) = counts.get_mut(l.as_str()).filter(|c| **c > 0) {
            *c -= 1;
            removed.push(LineChange {
                added: false,
                line: *n,
                text: l.clone(),
            });
        }
    }
    removed.reverse();
    by_line(added, removed)
}

/// Added and removed lines, each in line order, merged into one list in line order, a removed
/// line before an added one at the same number: what a sort by `(line, added)` gives, without
/// compiling a sort for this type.
fn by_line(added: Vec<LineChange>, removed: Vec<LineChange>) -> Vec<LineChange> {
    let mut lines = Vec::with_capacity(added.len() + removed.len());
    let mut added = added.into_iter().peekable();
    let mut removed = removed.into_iter().peekable();
    loop {
        let take_removed = match (removed.peek(), added.peek()) {
            (Some(r), Some(a)) => r.line <= a.line,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => return lines,
        };
        let next = if take_removed {
            removed.next()
        } else {
            added.next()
        };
        lines.extend(next);
    }
}

/// The rows whose piece, owner or issues differ between the map and the current table, and
/// the rows only one of them holds.
fn row_drift(map: &Map, current_md: &str) -> Vec<RowDrift> {
    // Each id to the place of its last row in the table, a later row replacing an earlier
    // one: a map of the type the queue's row index has, so no B-tree is compiled for rows.
    let table = parse_table(current_md).unwrap_or_default();
    let mut current: BTreeMap<u64, usize> = BTreeMap::new();
    for (i, (_, r)) in table.iter().enumerate() {
        current.insert(r.id, i);
    }
    let row = |i: &usize| &table[*i].1;
    let mut rows = Vec::new();
    for m in &map.rows {
        match current.get(&m.id).map(row) {
            Some(t) => fields_drift(m, t, &mut rows),
            None => rows.push(RowDrift {
                id: m.id,
                field: "row",
                map: m.piece.clone(),
                table: String::from("(missing)"),
            }),
        }
    }
    for (id, i) in &current {
        if !map.rows.iter().any(|m| m.id == *id) {
            rows.push(RowDrift {
                id: *id,
                field: "row",
                map: String::from("(missing)"),
                table: row(i).piece.clone(),
            });
        }
    }
    rows
}

/// The fields of one row that differ between the map (`m`) and the table (`t`).
fn fields_drift(m: &MapRow, t: &MapRow, rows: &mut Vec<RowDrift>) {
    let show_owner = |o: &Option<String>| o.clone().unwrap_or_else(|| String::from("(none)"));
    let show_issues = |v: &[u64]| {
        let parts: Vec<String> = v.iter().map(|i| format!("#{i}")).collect();
        parts.join(", ")
    };
    if m.piece != t.piece {
        rows.push(RowDrift {
            id: m.id,
            field: "piece",
            map: m.piece.clone(),
            table: t.piece.clone(),
        });
    }
    if m.owner != t.owner {
        rows.push(RowDrift {
            id: m.id,
            field: "owner",
            map: show_owner(&m.owner),
            table: show_owner(&t.owner),
        });
    }
    if m.issues != t.issues {
        rows.push(RowDrift {
            id: m.id,
            field: "issues",
            map: show_issues(&m.issues),
            table: show_issues(&t.issues),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    const MAP: &str = "# Migration map\n\nsource: docs/plans/QUEUE.md blob 0123456789abcdef0123456789abcdef01234567\n\n| # | Piece | Owner | Status | Gate | Issues | Note |\n|---|---|---|---|---|---|---|\n| 1 | Queue as data | darkwing | in-progress | jason | #1508 | |\n| 2 | Pipes \\| and more | — | queued | - | #14, #12 | piece D |\n\nTrailing prose.\n";

    #[test]
    fn by_line_orders_as_a_sort_by_line_then_added() {
        let change = |added, line| LineChange {
            added,
            line,
            text: alloc::format!("{line} {added}"),
        };
        let added = vec![
            change(true, 1),
            change(true, 3),
            change(true, 4),
            change(true, 9),
        ];
        let removed = vec![change(false, 2), change(false, 3), change(false, 9)];
        let mut sorted: Vec<LineChange> = added.iter().chain(&removed).cloned().collect();
        sorted.sort_by_key(|c| (c.line, c.added));
        assert_eq!(by_line(added.clone(), removed.clone()), sorted);
        assert_eq!(by_line(added.clone(), Vec::new()), added);
        assert_eq!(by_line(Vec::new(), removed.clone()), removed);
    }

    #[test]
    fn parses_rows_and_source() {
        let map = parse(MAP).unwrap();
        assert_eq!(map.source, "0123456789abcdef0123456789abcdef01234567");
        assert_eq!(map.rows.len(), 2);
        assert_eq!(map.rows[1].piece, "Pipes | and more");
        assert_eq!(map.rows[1].owner, None);
        assert_eq!(map.rows[1].gate, None);
        assert_eq!(map.rows[1].issues, vec![12, 14]);
        assert_eq!(map.rows[1].note.as_deref(), Some("piece D"));
        assert_eq!(map.rows[0].note, None);
    }

    #[test]
    fn refuses_bad_maps() {
        let no_source = MAP.replace("source:", "from:");
        assert_eq!(parse(&no_source), Err(MapError::NoSource));
        let no_table = MAP.replace("| Gate |", "| Gates |");
        assert_eq!(parse(&no_table), Err(MapError::NoTable));
        let bad_status = MAP.replace("| queued |", "| waiting |");
        assert!(matches!(
            parse(&bad_status),
            Err(MapError::BadRow { line: 8, .. })
        ));
        let bad_issue = MAP.replace("#14, #12", "14");
        assert!(matches!(
            parse(&bad_issue),
            Err(MapError::BadRow { line: 8, .. })
        ));
        let dup = MAP.replace("| 2 | Pipes", "| 1 | Pipes");
        assert_eq!(parse(&dup), Err(MapError::DuplicateId { id: 1, line: 8 }));
        let short = MAP.replace("| piece D |", "|");
        assert!(matches!(parse(&short), Err(MapError::BadRow { .. })));
    }

    #[test]
    fn drift_reports_changed_lines_and_rows() {
        let map = parse(MAP).unwrap();
        let source = "| # | Piece | Owner | Status | Gate | Issues | Note |\n|---|---|---|---|---|---|---|\n| 1 | Queue as data | darkwing | in-progress | jason | #1508 | |\n| 2 | Pipes \\| and more | — | queued | - | #14, #12 | piece D |\n";
        assert!(drift(&map, source, source).is_empty());
        let current = "| # | Piece | Owner | Status | Gate | Issues | Note |\n|---|---|---|---|---|---|---|\n| 1 | Queue as data | flicker | in-progress | jason | #1508, #1509 | |\n| 3 | New row | — | queued | | | |\n";
        let d = drift(&map, source, current);
        assert_eq!(d.lines.iter().filter(|l| l.added).count(), 2);
        assert_eq!(d.lines.iter().filter(|l| !l.added).count(), 2);
        let fields: Vec<(u64, &str)> = d.rows.iter().map(|r| (r.id, r.field)).collect();
        assert_eq!(
            fields,
            vec![(1, "owner"), (1, "issues"), (2, "row"), (3, "row")]
        );
        assert_eq!(d.rows[2].table, "(missing)");
        assert_eq!(d.rows[3].map, "(missing)");
    }
}
