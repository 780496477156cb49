//! Every answer at most `MAX_ANSWER` bytes, whatever the queue holds: the CLI's document
//! minified; one still over the bound has its long strings cut, then its one long array
//! (a list's rows, the rows `next` passed over, log entries) paged, with a `page` member
//! saying which part it holds and the offset to ask for next. A list can also be filtered
//! by status and owner. What cannot be brought under the bound is refused, naming the CLI
//! command that prints it whole.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::json_text::{Members, cut_strings, minify, quoted};
use crate::reply::Failure;

/// The most bytes one answer's document holds (16 KiB).
pub const MAX_ANSWER: usize = 16 * 1024;

/// The bound in force: `MAX_ANSWER`, lowered by a test of the fault-injection build.
fn max_answer() -> usize {
    crate::io::seams::mcp_max_answer(MAX_ANSWER)
}

/// Strings longer than this are cut when an answer is over the bound...
const CUT_OVER: usize = 512;
/// ...to about this many bytes.
const CUT_TO: usize = 200;
/// Room kept for the `page` and `cut` members.
const PAGE_ROOM: usize = 128;

/// How a verb's document is bounded.
#[derive(Debug, Default)]
pub struct Shape {
    /// The member holding the array to page; `""` for a document that is an array (`log`'s,
    /// answered as `{"entries": [...], "page": {...}}`); `None`: nothing to page.
    key: Option<&'static str>,
    offset: Option<usize>,
    limit: Option<usize>,
    statuses: Vec<String>,
    owner: Option<String>,
    /// The array's total is unknown (the verb was asked for fewer): leave `total` out.
    open: bool,
}

impl Shape {
    pub fn whole() -> Shape {
        Shape::default()
    }

    pub fn paged(key: &'static str, offset: Option<usize>, limit: Option<usize>) -> Shape {
        Shape {
            key: Some(key),
            offset,
            limit,
            ..Shape::default()
        }
    }

    /// Only the rows in one of `statuses` (none: any) owned by `owner` (none: anyone).
    pub fn filter(mut self, statuses: Vec<String>, owner: Option<String>) -> Shape {
        self.statuses = statuses;
        self.owner = owner;
        self
    }

    /// The verb gave at most offset + limit + 1 items, so the total is not known.
    pub fn open_ended(mut self) -> Shape {
        self.open = true;
        self
    }

    fn asked(&self) -> bool {
        self.offset.is_some() || self.limit.is_some() || self.filtered()
    }

    fn filtered(&self) -> bool {
        !self.statuses.is_empty() || self.owner.is_some()
    }
}

/// The answer for `doc`, a verb's `--json` document; `command` is the CLI command that prints
/// it whole, for the refusal of one that cannot be bounded.
pub fn fit(doc: &str, shape: &Shape, command: &str) -> Result<String, Failure> {
    let text = minify(doc);
    if text.len() <= max_answer() && !shape.asked() {
        return Ok(text);
    }
    let paged = match shape.key {
        Some(key) => page(&text, key, shape)?,
        None => None,
    };
    let text = match paged {
        Some(text) => text,
        None => with_cut(cut(text)),
    };
    if text.len() > max_answer() {
        return Err(too_large(text.len(), command));
    }
    Ok(text)
}

/// Cuts long strings when `text` is over the bound; the count of strings cut.
fn cut(text: String) -> (String, usize) {
    if text.len() <= max_answer() {
        return (text, 0);
    }
    cut_strings(&text, CUT_OVER, CUT_TO)
}

/// A document whose strings were cut says how many, as a paged one does: `"cut": N` as
/// its last member.
fn with_cut((text, cuts): (String, usize)) -> String {
    match text.strip_suffix('}') {
        Some(open) if cuts > 0 => {
            let comma = if open.ends_with('{') { "" } else { "," };
            format!("{open}{comma}\"cut\":{cuts}}}")
        }
        _ => text,
    }
}

fn too_large(len: usize, command: &str) -> Failure {
    Failure::refused(format!(
        "the answer is {len} bytes, over the {} an MCP answer holds; run `{command}` in the checkout for it whole",
        max_answer()
    ))
    .kind("answer-too-large")
}

/// What a filter reads of a row.
#[derive(Deserialize)]
struct RowProbe {
    status: Option<String>,
    owner: Option<String>,
}

/// A document's member: its key and its value's text.
type Member = (String, Box<RawValue>);
/// A document split around its array: the members, and the array's items.
type Split = (Vec<Member>, Vec<Box<RawValue>>);

/// The document's members and the items of the array at `key` (`""`: the document is the
/// array); `None` when there is no such array.
fn split(text: &str, key: &str) -> Result<Option<Split>, Failure> {
    let not_json =
        |e: serde_json::Error| Failure::failed(format!("the verb's answer is not JSON: {e}"));
    if key.is_empty() {
        return Ok(Some((
            Vec::new(),
            serde_json::from_str(text).map_err(not_json)?,
        )));
    }
    let Members(members) = serde_json::from_str(text).map_err(not_json)?;
    let Some((_, array)) = members.iter().find(|(k, _)| k == key) else {
        return Ok(None);
    };
    let items = serde_json::from_str(array.get()).map_err(not_json)?;
    Ok(Some((members, items)))
}

/// `text` with the array at `key` paged (and filtered); `None` when there is no such array.
fn page(text: &str, key: &str, shape: &Shape) -> Result<Option<String>, Failure> {
    let Some((members, items)) = split(text, key)? else {
        return Ok(None);
    };
    let items: Vec<Box<RawValue>> = items.into_iter().filter(|i| keeps(shape, i)).collect();
    let key = if key.is_empty() { "entries" } else { key };
    let offset = shape.offset.unwrap_or(0).min(items.len());
    let limit = shape.limit.unwrap_or(usize::MAX).max(1);
    // Everything but the array, to know the room left for its items.
    let frame: usize = members
        .iter()
        .filter(|(k, _)| k != key)
        .map(|(k, v)| quoted(k).len() + 2 + v.get().len())
        .sum::<usize>()
        + quoted(key).len()
        + 4;
    let (taken, cuts) = take_items(
        &items[offset..],
        limit,
        max_answer().saturating_sub(frame + PAGE_ROOM),
    );
    let count = taken.len();
    let mut out = String::from("{");
    for (k, v) in members.iter().filter(|(k, _)| k != key) {
        out.push_str(&format!("{}:{},", quoted(k), v.get()));
    }
    out.push_str(&format!("{}:[{}],", quoted(key), taken.join(",")));
    let total = if shape.open {
        String::new()
    } else {
        format!(",\"total\":{}", items.len())
    };
    let next = (offset + count < items.len()).then_some(offset + count);
    let next = next.map_or_else(|| String::from("null"), |n| n.to_string());
    out.push_str(&format!(
        "\"page\":{{\"offset\":{offset},\"count\":{count}{total},\"next\":{next}}}"
    ));
    if cuts > 0 {
        out.push_str(&format!(",\"cut\":{cuts}"));
    }
    out.push('}');
    Ok(Some(out))
}

/// As many of `items` (at most `limit`) as fit in `room` bytes, each with its long strings
/// cut; the first is stubbed if it cannot fit even so. Also how many strings were cut.
fn take_items(items: &[Box<RawValue>], limit: usize, mut room: usize) -> (Vec<String>, usize) {
    let (mut taken, mut cuts) = (Vec::new(), 0);
    for item in items.iter().take(limit) {
        let (text, n) = cut(item.get().to_owned());
        let text = if text.len() >= room && taken.is_empty() {
            stub(&text)
        } else {
            text
        };
        if text.len() + 1 > room {
            break;
        }
        room -= text.len() + 1;
        cuts += n;
        taken.push(text);
    }
    (taken, cuts)
}

/// Whether a row passes the shape's filter.
fn keeps(shape: &Shape, item: &RawValue) -> bool {
    if !shape.filtered() {
        return true;
    }
    let Ok(row) = serde_json::from_str::<RowProbe>(item.get()) else {
        return false;
    };
    let status =
        shape.statuses.is_empty() || row.status.is_some_and(|s| shape.statuses.contains(&s));
    let owner = shape.owner.is_none() || row.owner == shape.owner;
    status && owner
}

/// An item too large for a page of its own even with its strings cut: its short top-level
/// members, and how many bytes it held.
fn stub(text: &str) -> String {
    let mut out = String::from("{");
    if let Ok(Members(members)) = serde_json::from_str::<Members>(text) {
        for (k, v) in members {
            let v = v.get();
            let scalar = !v.starts_with('{') && !v.starts_with('[') && v.len() <= 80;
            if scalar {
                out.push_str(&format!("{}:{v},", quoted(&k)));
            }
        }
    }
    out.push_str(&format!("\"omittedBytes\":{}}}", text.len()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(n: usize, piece: &str) -> String {
        let rows: Vec<String> = (1..=n)
            .map(|i| {
                let (status, owner) = if i % 2 == 0 { ("queued", "null") } else { ("done", "\"ann\"") };
                format!("{{\"id\": {i}, \"piece\": \"{piece}\", \"status\": \"{status}\", \"owner\": {owner}}}")
            })
            .collect();
        format!(
            "{{\"revision\": 9, \"durable\": true, \"rows\": [{}]}}",
            rows.join(", ")
        )
    }

    #[test]
    fn small_answers_are_the_document_minified() {
        let doc = rows(2, "p");
        let got = fit(&doc, &Shape::paged("rows", None, None), "x").unwrap();
        assert_eq!(got, minify(&doc));
    }

    #[test]
    fn long_lists_are_paged_under_the_bound() {
        let doc = rows(5000, "a piece of work");
        let got = fit(&doc, &Shape::paged("rows", None, None), "x").unwrap();
        assert!(got.len() <= MAX_ANSWER, "{}", got.len());
        let v: serde_json::Value = serde_json::from_str(&got).unwrap();
        let count = v["page"]["count"].as_u64().unwrap();
        assert_eq!(v["rows"].as_array().unwrap().len() as u64, count);
        assert_eq!(v["page"]["next"].as_u64(), Some(count));
        assert_eq!(v["page"]["total"].as_u64(), Some(5000));
        let last = fit(&doc, &Shape::paged("rows", Some(4999), Some(10)), "x").unwrap();
        assert!(
            last.ends_with(",\"page\":{\"offset\":4999,\"count\":1,\"total\":5000,\"next\":null}}"),
            "{last}"
        );
    }

    #[test]
    fn filters_pick_rows_by_status_and_owner() {
        let doc = rows(6, "p");
        let shape =
            Shape::paged("rows", None, None).filter(vec!["done".into()], Some("ann".into()));
        let got = fit(&doc, &shape, "x").unwrap();
        let v: serde_json::Value = serde_json::from_str(&got).unwrap();
        let ids: Vec<u64> = v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_u64().unwrap())
            .collect();
        assert_eq!(ids, [1, 3, 5]);
        assert_eq!(v["page"]["total"].as_u64(), Some(3));
    }

    #[test]
    fn long_strings_are_cut_and_huge_items_stubbed() {
        let long = "x".repeat(100_000);
        let doc = format!("{{\"revision\": 1, \"row\": {{\"id\": 3, \"manifest\": \"{long}\"}}}}");
        let got = fit(&doc, &Shape::whole(), "x").unwrap();
        assert_eq!(
            got,
            format!(
                "{{\"revision\":1,\"row\":{{\"id\":3,\"manifest\":\"{}...[100000 bytes cut]\"}},\"cut\":1}}",
                "x".repeat(200)
            )
        );
        let many: Vec<String> = (0..5000).map(|i| format!("\"s{i}\"")).collect();
        let doc = format!("[{{\"rev\": 7, \"args\": [{}]}}]", many.join(","));
        let got = fit(&doc, &Shape::paged("", None, Some(5)).open_ended(), "x").unwrap();
        assert!(
            got.starts_with("{\"entries\":[{\"rev\":7,\"omittedBytes\":"),
            "{got}"
        );
        assert!(
            got.ends_with("\"page\":{\"offset\":0,\"count\":1,\"next\":null}}"),
            "{got}"
        );
    }

    #[test]
    fn what_cannot_be_bounded_is_refused() {
        let many: Vec<String> = (0..5000).map(|i| format!("\"s{i}\"")).collect();
        let doc = format!("{{\"row\": [{}]}}", many.join(","));
        let f = fit(&doc, &Shape::whole(), "mosaic-queue show 3 --json").unwrap_err();
        assert_eq!(f.kind_name(), "answer-too-large");
        assert!(
            f.message
                .ends_with("run `mosaic-queue show 3 --json` in the checkout for it whole")
        );
    }
}
