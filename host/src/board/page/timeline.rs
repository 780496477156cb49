//! `/timeline`: the log newest first, `PAGE` entries a page, filtered by seat, row or verb;
//! each entry's time, actor, verb, receipt and op. This epoch's log first; the history a cut
//! archived is one link further (`?archived=1`), read from the archives.

use super::layout::{Nav, page, when};
use crate::board::escape::{self, url_part};
use crate::engine::board::{LogItem, Snapshot};

/// Entries per page.
pub const PAGE: usize = 50;

/// What a timeline request asked for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Query {
    pub seat: Option<String>,
    pub row: Option<u64>,
    pub verb: Option<String>,
    /// From 1.
    pub page: usize,
    /// The archives' history rather than this epoch's log.
    pub archived: bool,
}

impl Query {
    fn keeps(&self, e: &LogItem) -> bool {
        self.seat.as_ref().is_none_or(|s| &e.by == s)
            && self.row.is_none_or(|id| e.touches(id))
            && self.verb.as_ref().is_none_or(|v| &e.verb == v)
    }

    /// The query string of this query at page `page`.
    fn href(&self, page: usize, archived: bool) -> String {
        let mut parts = Vec::new();
        if let Some(s) = &self.seat {
            parts.push(format!("seat={}", url_part(s)));
        }
        if let Some(r) = self.row {
            parts.push(format!("row={r}"));
        }
        if let Some(v) = &self.verb {
            parts.push(format!("verb={}", url_part(v)));
        }
        if archived {
            parts.push(String::from("archived=1"));
        }
        if page > 1 {
            parts.push(format!("page={page}"));
        }
        if parts.is_empty() {
            String::from("/timeline")
        } else {
            format!("/timeline?{}", parts.join("&"))
        }
    }
}

/// The timeline over `entries` (oldest first: this epoch's log, or the archives' history).
pub fn timeline_page(snap: &Snapshot, q: &Query, entries: &[LogItem]) -> String {
    let kept: Vec<&LogItem> = entries.iter().rev().filter(|e| q.keeps(e)).collect();
    let pages = kept.len().div_ceil(PAGE).max(1);
    let page_no = q.page.clamp(1, pages);
    let title = if q.archived {
        "Timeline: archived history"
    } else {
        "Timeline"
    };
    let mut body = format!("<h1>{title}</h1>");
    body.push_str(&filter_form(q));
    body.push_str(&format!(
        "<p class=\"state\">{} entries, newest first; page {page_no} of {pages}</p>",
        kept.len()
    ));
    body.push_str("<table><thead><tr><th>rev</th><th>time (UTC)</th><th>by</th><th>verb</th><th>receipt</th><th>row</th><th>op</th></tr></thead><tbody>");
    for e in kept.iter().skip((page_no - 1) * PAGE).take(PAGE) {
        body.push_str(&entry_row(e));
    }
    body.push_str("</tbody></table>");
    body.push_str(&pager(snap, q, page_no, pages));
    page(snap, Nav::Timeline, title, &body)
}

fn filter_form(q: &Query) -> String {
    let value = |v: Option<String>| escape::text(&v.unwrap_or_default());
    let mut out = String::from("<form class=\"filter\" action=\"/timeline\" method=\"get\">");
    out.push_str(&format!(
        "<label>seat<input name=\"seat\" value=\"{}\"></label>",
        value(q.seat.clone())
    ));
    out.push_str(&format!(
        "<label>row<input name=\"row\" inputmode=\"numeric\" value=\"{}\"></label>",
        value(q.row.map(|r| r.to_string()))
    ));
    out.push_str(&format!(
        "<label>verb<input name=\"verb\" value=\"{}\"></label>",
        value(q.verb.clone())
    ));
    if q.archived {
        out.push_str("<input type=\"hidden\" name=\"archived\" value=\"1\">");
    }
    out.push_str("<button type=\"submit\">filter</button> <a href=\"/timeline\">clear</a></form>");
    out
}

fn entry_row(e: &LogItem) -> String {
    let row = e
        .row
        .map_or_else(String::new, |id| format!("<a href=\"/row/{id}\">#{id}</a>"));
    format!(
        "<tr><td class=\"mono\">{}</td><td class=\"mono\">{}</td><td><a href=\"/seat/{}\">{}</a></td><td>{}</td><td>{}</td><td>{row}</td><td class=\"mono\">{}</td></tr>",
        e.rev,
        when(&e.at),
        url_part(&e.by),
        escape::line(&e.by),
        escape::line(&e.verb),
        escape::line(&e.receipt),
        escape::line(&e.op)
    )
}

fn pager(snap: &Snapshot, q: &Query, page_no: usize, pages: usize) -> String {
    let mut out = String::from("<p class=\"pager\">");
    if page_no > 1 {
        out.push_str(&format!(
            "<a href=\"{}\">newer</a>",
            escape::text(&q.href(page_no - 1, q.archived))
        ));
    }
    if page_no < pages {
        out.push_str(&format!(
            "<a href=\"{}\">older</a>",
            escape::text(&q.href(page_no + 1, q.archived))
        ));
    }
    if !q.archived && !snap.archives.is_empty() {
        out.push_str(&format!(
            "<a href=\"{}\">older history, in the {} archives of the cuts</a>",
            escape::text(&q.href(1, true)),
            snap.archives.len()
        ));
    }
    if q.archived {
        out.push_str(&format!(
            "<a href=\"{}\">this epoch's log</a>",
            escape::text(&q.href(1, false))
        ));
    }
    out.push_str("</p>");
    out
}
