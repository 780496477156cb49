//! The migration map. The input is the map, then a NUL, then a QUEUE.md. Invariants: a map
//! that parses has rows with distinct ids, a piece each and issues sorted, distinct and
//! positive; written back as a table it parses to the same map; against an unchanged QUEUE.md
//! it shows no drift; and the genesis it feeds either refuses or writes a queue that verifies
//! to the same rows (never a file that every later verb refuses).

use std::collections::BTreeSet;

use mosaic_queue_core::{
    MapRow, Queue, Status,
    migration::{self, Map},
};

fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

fn optional(text: &Option<String>) -> String {
    text.as_deref().map_or_else(|| String::from("-"), cell)
}

fn status(s: Status) -> &'static str {
    s.as_str()
}

fn write_back(m: &Map) -> String {
    let mut out = format!("# Map\n\nsource: docs/plans/QUEUE.md blob {}\n\n", m.source);
    out.push_str("| # | Piece | Owner | Status | Gate | Issues | Note |\n");
    out.push_str("| --- | --- | --- | --- | --- | --- | --- |\n");
    for r in &m.rows {
        let issues: Vec<String> = r.issues.iter().map(|n| format!("#{n}")).collect();
        let issues = if issues.is_empty() {
            String::from("-")
        } else {
            issues.join(", ")
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            r.id,
            cell(&r.piece),
            optional(&r.owner),
            status(r.status),
            optional(&r.gate),
            issues,
            optional(&r.note)
        ));
    }
    out
}

fn check_row(r: &MapRow) {
    assert!(!r.piece.is_empty());
    assert!(
        r.issues.windows(2).all(|w| w[0] < w[1]),
        "issues not sorted and distinct"
    );
    assert!(r.issues.iter().all(|&n| n > 0));
}

/// Checks the invariant on one input; panics when it does not hold.
pub fn check(bytes: &[u8]) {
    let Ok(input) = core::str::from_utf8(bytes) else {
        return;
    };
    let (text, md) = input.split_once('\0').unwrap_or((input, ""));
    let Ok(m) = migration::parse(text) else {
        return;
    };
    assert!(!m.rows.is_empty());
    assert_eq!(m.source.len(), 40);
    let ids: BTreeSet<u64> = m.rows.iter().map(|r| r.id).collect();
    assert_eq!(ids.len(), m.rows.len(), "a map with an id twice");
    m.rows.iter().for_each(check_row);
    let back = migration::parse(&write_back(&m)).expect("the map written back does not parse");
    assert_eq!(back, m, "the map written back parses otherwise");
    assert!(
        migration::drift(&m, md, md).lines.is_empty(),
        "drift against the same text"
    );
    let Ok(args) = m.genesis_args("main", "/srv/q", md) else {
        return;
    };
    if let Ok((queue, _)) =
        Queue::genesis(args, "jason-genesis-1", "jason", "2026-11-29T10:00:00.000Z")
    {
        let read = match Queue::verify(&queue.to_bytes()) {
            Ok(q) => q,
            Err(e) => panic!("genesis wrote a queue that does not verify: {e}"),
        };
        assert_eq!(read.rows(), queue.rows());
    }
}
