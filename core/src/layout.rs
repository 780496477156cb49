//! Canonical bytes built from canonical bytes already written. A change appends one entry to
//! a log whose text the file on disk already holds, so the new file reuses that text and the
//! text of every row the change left alone, and serializes only the head, the new entry and
//! the changed rows; the host's read view reuses the rows' text.
//! Every step of every scenario (core/tests) checks the splice against the whole serialization.

use alloc::vec::Vec;
use core::ops::Range;

use serde::Serialize;

use crate::canon::to_canonical;
use crate::entry::Entry;
use crate::file::QueueFile;
use crate::model::Row;

/// Where the value of top-level member `key` lies in `to_canonical` bytes of a struct. Each
/// member starts a line indented by two spaces (nested lines by more), and no string holds a
/// raw newline, so the value runs to the next such line or to the closing brace.
pub fn member_span(bytes: &[u8], key: &str) -> Option<Range<usize>> {
    let mut needle = Vec::with_capacity(key.len() + 7);
    needle.extend_from_slice(b"\n  \"");
    needle.extend_from_slice(key.as_bytes());
    needle.extend_from_slice(b"\": ");
    let start = memchr::memmem::find(bytes, &needle)? + needle.len();
    let end = match memchr::memmem::find(&bytes[start..], b",\n  \"") {
        Some(i) => start + i,
        None => bytes
            .len()
            .checked_sub(3)
            .filter(|&e| e >= start && bytes[e..] == *b"\n}\n")?,
    };
    Some(start..end)
}

/// `to_canonical` bytes of a struct whose last member is an empty array (`head`), with that
/// member's value replaced by `value`, the canonical text of another value at the same depth.
pub fn complete_last(mut head: Vec<u8>, value: &[u8]) -> Option<Vec<u8>> {
    let keep = head.len().checked_sub(b"[]\n}\n".len())?;
    if head[keep..] != *b"[]\n}\n" {
        return None;
    }
    head.truncate(keep);
    head.reserve(value.len() + 3);
    head.extend_from_slice(value);
    head.extend_from_slice(b"\n}\n");
    Some(head)
}

/// `QueueFile` with an empty log, borrowed: the same members in the same order under the same
/// names (a test holds it to `QueueFile`), so its canonical bytes are the file's head.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Head<'a> {
    version: u32,
    canonical_root: &'a str,
    revision: u64,
    rows: &'a [Row],
    log: &'a [Entry],
}

/// A new file made of three pieces: `head` (the top-level members through the rows, and the
/// log's key), the text `reused` from the loaded bytes (the log's entries as they were), and
/// `tail` (the new entry and the closing lines). The pieces are written one after another, so
/// a write at a long log never holds a second copy of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spliced {
    pub head: Vec<u8>,
    pub reused: Range<usize>,
    pub tail: Vec<u8>,
}

impl Spliced {
    /// A file serialized whole: all of it in `head`, nothing reused.
    pub fn whole(bytes: Vec<u8>) -> Spliced {
        Spliced {
            head: bytes,
            reused: 0..0,
            tail: Vec::new(),
        }
    }

    /// The file's bytes in order, `prev` being the bytes `appended` was given.
    pub fn pieces<'a>(&'a self, prev: &'a [u8]) -> [&'a [u8]; 3] {
        [&self.head, &prev[self.reused.clone()], &self.tail]
    }

    /// The file's bytes in one buffer (for tests and callers that need them whole).
    pub fn to_vec(&self, prev: &[u8]) -> Vec<u8> {
        self.pieces(prev).concat()
    }
}

/// `to_canonical(file)`, in pieces, when `prev` is the canonical bytes of `file` before its
/// last entry was appended (the file a change loaded and verified) and `prev_rows` the rows
/// `prev` holds (or none, when the caller kept no copy): the log's text is taken from `prev`,
/// and so is the text of every row equal to the row at the same place in `prev_rows`; only the
/// head, the new entry and the changed or added rows are serialized. `None` when `prev` has no
/// entry or not that shape; the caller then serializes the whole file.
pub fn appended(file: &QueueFile, prev: &[u8], prev_rows: &[Row]) -> Option<Spliced> {
    let entry = file.log.last()?;
    let rows_span = member_span(prev, "rows")?;
    let log_span = member_span(prev, "log")?;
    // "[\n    {...},\n    {...}\n  ]": the entries' text without the closing line.
    if !prev[log_span.clone()].ends_with(b"\n  ]") {
        return None;
    }
    let entries_at = log_span.start..log_span.end - b"\n  ]".len();
    let entries = &prev[entries_at.clone()];
    // Each entry opens a line indented by four spaces (its own members by six): `prev` must
    // hold exactly the entries before the last one, or the splice would drop or repeat some.
    let held = memchr::memmem::find_iter(entries, b"\n    {").count();
    if held == 0 || held + 1 != file.log.len() || !starts_with_entry(entries, &file.log[0]) {
        return None;
    }
    let prev_items = if prev_rows.is_empty() {
        Vec::new()
    } else {
        let items = items(&prev[rows_span.clone()])?;
        if items.len() != prev_rows.len() {
            return None;
        }
        items
    };
    let head = to_canonical(&Head {
        version: file.version,
        canonical_root: &file.canonical_root,
        revision: file.revision,
        rows: &[],
        log: &[],
    });
    let (rows_at, log_at) = (member_span(&head, "rows")?, member_span(&head, "log")?);
    let mut out = Vec::with_capacity(rows_span.len() + 4096);
    out.extend_from_slice(&head[..rows_at.start]);
    if file.rows.is_empty() {
        out.extend_from_slice(b"[]");
    } else {
        let rows_text = &prev[rows_span];
        out.extend_from_slice(b"[\n");
        for (i, row) in file.rows.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(b",\n");
            }
            match prev_items.get(i) {
                Some(item) if prev_rows[i] == *row => {
                    out.extend_from_slice(&rows_text[item.clone()])
                }
                _ => indented(&mut out, &to_canonical(row)),
            }
        }
        out.extend_from_slice(b"\n  ]");
    }
    out.extend_from_slice(&head[rows_at.end..log_at.start]);
    let mut tail = Vec::with_capacity(entry.receipt.len() * 4 + 1024);
    tail.extend_from_slice(b",\n");
    indented(&mut tail, &to_canonical(entry));
    tail.extend_from_slice(b"\n  ]");
    tail.extend_from_slice(&head[log_at.end..]);
    Some(Spliced {
        head: out,
        reused: entries_at,
        tail,
    })
}

/// Whether the log text `entries` ("[\n    {...") opens with `first`'s rev and op: a cut
/// replaces the log's first entries, and the same count of entries must not pass for the
/// same log.
fn starts_with_entry(entries: &[u8], first: &Entry) -> bool {
    let mut needle = Vec::with_capacity(first.op.len() + 64);
    needle.extend_from_slice(b"[\n    {\n      \"rev\": ");
    needle.extend_from_slice(alloc::format!("{}", first.rev).as_bytes());
    needle.extend_from_slice(b",\n      \"op\": ");
    let op = to_canonical(&first.op);
    needle.extend_from_slice(op.strip_suffix(b"\n").unwrap_or(&op));
    needle.extend_from_slice(b",\n");
    entries.starts_with(&needle)
}

/// Appends canonical bytes of an array item (one trailing newline) as they stand two levels
/// deep: every line indented by four more spaces, without the newline.
fn indented(out: &mut Vec<u8>, canonical: &[u8]) {
    let text = canonical.strip_suffix(b"\n").unwrap_or(canonical);
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            out.push(b'\n');
        }
        out.extend_from_slice(b"    ");
        out.extend_from_slice(line);
    }
}

/// Where each item of a top-level array of objects lies in its value text
/// ("[\n    {...},\n    {...}\n  ]"): an item closes on a line of four spaces and a brace,
/// which no deeper line is.
fn items(array: &[u8]) -> Option<Vec<Range<usize>>> {
    if array == b"[]" {
        return Some(Vec::new());
    }
    let mut out = Vec::new();
    let mut start = 2;
    for close in memchr::memmem::find_iter(array, b"\n    }") {
        let end = close + b"\n    }".len();
        if array.get(start..start + 5)? != b"    {" {
            return None;
        }
        out.push(start..end);
        start = end + b",\n".len();
    }
    let last = out.last()?.end;
    (array.get(last..)? == b"\n  ]").then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::String;

    const GOLDEN: &[&str] = &[
        include_str!("../../fixtures/golden/basic/queue.json"),
        include_str!("../../fixtures/golden/coordination/queue.json"),
        include_str!("../../fixtures/golden/genesis-only/queue.json"),
        include_str!("../../fixtures/golden/hardened/queue.json"),
        include_str!("../../fixtures/golden/review/queue.json"),
        include_str!("../../fixtures/golden/semantics1/queue.json"),
    ];

    #[test]
    fn the_head_serializes_as_the_file_does() {
        for text in GOLDEN {
            let mut file: QueueFile = crate::file::parse_queue(text.as_bytes()).unwrap();
            file.log.clear();
            let head = to_canonical(&Head {
                version: file.version,
                canonical_root: &file.canonical_root,
                revision: file.revision,
                rows: &file.rows,
                log: &[],
            });
            assert_eq!(
                String::from_utf8(head).unwrap(),
                String::from_utf8(to_canonical(&file)).unwrap()
            );
        }
    }

    #[test]
    fn member_spans_are_the_values_of_top_level_members_only() {
        let bytes = b"{\n  \"a\": {\n    \"b\": 1\n  },\n  \"rows\": [\n    \"x\\n  \\\"y\"\n  ],\n  \"log\": []\n}\n";
        let text = |key| member_span(bytes, key).map(|r| &bytes[r]);
        assert_eq!(text("a"), Some(&b"{\n    \"b\": 1\n  }"[..]));
        assert_eq!(text("rows"), Some(&b"[\n    \"x\\n  \\\"y\"\n  ]"[..]));
        assert_eq!(text("log"), Some(&b"[]"[..]));
        assert_eq!(text("b"), None);
        let completed = complete_last(bytes.to_vec(), b"[\n    1\n  ]").unwrap();
        assert!(completed.ends_with(b"\"log\": [\n    1\n  ]\n}\n"));
        assert_eq!(complete_last(b"{\n  \"a\": 1\n}\n".to_vec(), b"2"), None);
    }

    #[test]
    fn a_file_without_the_shape_is_declined() {
        let file: QueueFile = crate::file::parse_queue(GOLDEN[0].as_bytes()).unwrap();
        assert_eq!(appended(&file, b"{}\n", &[]), None);
        assert_eq!(appended(&file, b"", &[]), None);
        let mut empty = file.clone();
        empty.log.clear();
        assert_eq!(appended(&empty, GOLDEN[0].as_bytes(), &[]), None);
        // The file itself is not the file before its last entry: one entry too many.
        assert_eq!(appended(&file, GOLDEN[0].as_bytes(), &[]), None);
        let mut longer = file.clone();
        longer.log.push(file.log[0].clone());
        let spliced = appended(&longer, GOLDEN[0].as_bytes(), &file.rows).unwrap();
        assert_eq!(spliced.to_vec(GOLDEN[0].as_bytes()), to_canonical(&longer));
    }
}
