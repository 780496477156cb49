//! `/row/ID`: one row whole, as `show` gives it (every field, its dependencies and the rows
//! that wait on it, its move reason), the command a person would run next, every review round
//! with its attempts and verdicts, the current candidate (a manifest shown as its text) and
//! the log entries that touched it, newest first. An archived row is read from its archive.

use mosaic_queue_core::Round;

use super::card::{claim_line, command_html, issues, next_command, waits_on};
use super::layout::{Nav, page, status_class, when};
use crate::board::escape::{self, url_part};
use crate::engine::board::{Card, LogItem, Snapshot};

/// Log entries shown on a row's page; the timeline, filtered by the row, has the rest.
pub const ROW_LOG: usize = 200;
/// Bytes of a manifest shown (a manifest may hold 4 MiB).
const MANIFEST_BYTES: usize = 64 * 1024;

/// Where the row was read from.
pub enum ReadFrom<'a> {
    Queue,
    /// The archive a cut wrote it to.
    Archive(&'a str),
}

/// The page of `card`, with `log` the entries that touched it, oldest first.
pub fn row_page(snap: &Snapshot, card: &Card, log: &[&LogItem], from: ReadFrom<'_>) -> String {
    let row = &card.row;
    let mut body = format!(
        "<h1><span class=\"badge {}\">{}</span> #{} {}</h1>",
        status_class(row.status),
        row.status.as_str(),
        row.id,
        escape::line(&row.piece)
    );
    if let ReadFrom::Archive(file) = from {
        body.push_str(&format!(
            "<p class=\"panel\">Archived by a cut: read from {}.</p>",
            escape::line(file)
        ));
    } else if let Some(cmd) = next_command(snap.revision, card) {
        body.push_str(&format!(
            "<div class=\"panel\"><h2>Next</h2>{}</div>",
            command_html(&cmd)
        ));
    }
    body.push_str(&fields(snap, card));
    body.push_str(&format!(
        "<p><a href=\"/graph?row={}\">what it waits on, in the graph</a></p>",
        row.id
    ));
    if let Some(review) = &row.review {
        body.push_str("<h2>Review rounds</h2>");
        // Only the current round's manifest is shown: each may hold 4 MiB.
        for (n, round) in review.rounds.iter().rev().enumerate() {
            body.push_str(&round_html(round, n == 0));
        }
    }
    body.push_str(&log_html(row.id, log));
    page(
        snap,
        Nav::None,
        &format!("#{} {}", row.id, row.piece),
        &body,
    )
}

fn fields(snap: &Snapshot, card: &Card) -> String {
    let row = &card.row;
    let text = |v: &Option<String>| v.as_deref().map_or_else(|| String::from("-"), escape::text);
    let dependents: Vec<u64> = snap
        .cards
        .iter()
        .filter(|c| c.row.after.contains(&row.id))
        .map(|c| c.row.id)
        .collect();
    let owner = row.owner.as_ref().map_or_else(
        || String::from("-"),
        |o| format!("<a href=\"/seat/{}\">{}</a>", url_part(o), escape::line(o)),
    );
    let narrowed = if row.closes_narrowed {
        " (narrowed)"
    } else {
        ""
    };
    let mut rows: Vec<(&str, String)> = vec![
        ("status", escape::line(row.status.as_str())),
        ("owner", owner),
        ("gate", text(&row.gate)),
        ("issues", or_dash(issues(snap.issues.as_ref(), &row.issues))),
        (
            "closes",
            format!(
                "{}{narrowed}",
                or_dash(issues(snap.issues.as_ref(), &row.closes))
            ),
        ),
        (
            "reviewers",
            or_dash(escape::line(&row.reviewers.join(", "))),
        ),
        ("brief", text(&row.brief)),
        ("note", text(&row.note)),
    ];
    if let Some(j) = &card.claim {
        rows.insert(2, ("claim", claim_line(j)));
    }
    if let Some(r) = &row.blocked_reason {
        rows.push(("blocked", escape::text(r)));
    }
    if let Some(r) = &card.reason {
        rows.push(("reason", escape::text(r)));
    }
    rows.push(("waits on", or_dash(waits_on(snap, &row.after))));
    rows.push(("waited on by", or_dash(waits_on(snap, &dependents))));
    if let Some(t) = &card.last {
        rows.push(("last entry", format!("rev {} at {}", t.rev, when(&t.at))));
    }
    let mut out = String::from("<table class=\"fields\"><tbody>");
    for (k, v) in rows {
        out.push_str(&format!("<tr><th>{k}</th><td>{v}</td></tr>"));
    }
    out.push_str("</tbody></table>");
    out
}

fn or_dash(s: String) -> String {
    if s.is_empty() { String::from("-") } else { s }
}

fn round_html(r: &Round, current: bool) -> String {
    let mut out = format!(
        "<section class=\"panel\"><h3>Round {}{}</h3><p>candidate <span class=\"mono\">{}</span>; opened by {} at rev {}{}{}</p>",
        r.round,
        r.issue.map_or_else(String::new, |i| format!(" on #{i}")),
        escape::line(r.candidate.as_deref().unwrap_or("-")),
        escape::line(&r.opened_by),
        r.opened_rev,
        if r.requested {
            ""
        } else {
            "; posts no request"
        },
        if r.duplicate_risk {
            "; duplicate risk: an abandoned request's comment may still land"
        } else {
            ""
        }
    );
    if !r.attempts.is_empty() {
        out.push_str("<table><thead><tr><th>request attempt</th><th>by</th><th>state</th><th>comment</th><th>detail</th></tr></thead><tbody>");
        for a in &r.attempts {
            out.push_str(&format!(
                "<tr><td class=\"mono\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape::line(&a.op),
                escape::line(&a.by),
                a.state.as_str(),
                a.comment
                    .map_or_else(|| String::from("-"), |c| c.to_string()),
                escape::line(a.detail.as_deref().unwrap_or("-"))
            ));
        }
        out.push_str("</tbody></table>");
    }
    if !r.verdicts.is_empty() {
        out.push_str("<table><thead><tr><th>verdict</th><th>by</th><th>comment</th><th>candidate</th></tr></thead><tbody>");
        for v in &r.verdicts {
            out.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"mono\">{}</td></tr>",
                v.verdict.as_str(),
                escape::line(&v.by),
                v.comment,
                escape::line(&v.candidate)
            ));
        }
        out.push_str("</tbody></table>");
    }
    if let Some(m) = r.manifest.as_ref().filter(|_| current) {
        out.push_str(&manifest_html(m));
    }
    out.push_str("</section>");
    out
}

fn manifest_html(m: &str) -> String {
    let mut end = m.len().min(MANIFEST_BYTES);
    while !m.is_char_boundary(end) {
        end -= 1;
    }
    let more = if end < m.len() {
        format!(
            "<p class=\"state\">the first {end} of {} bytes; `mosaic-queue show` and the log hold it whole</p>",
            m.len()
        )
    } else {
        String::new()
    };
    format!(
        "<h4>manifest</h4><pre>{}</pre>{more}",
        escape::text(&m[..end])
    )
}

fn log_html(id: u64, log: &[&LogItem]) -> String {
    let mut out = format!("<h2>Log <small>({} entries)</small></h2>", log.len());
    out.push_str("<table><thead><tr><th>rev</th><th>time (UTC)</th><th>by</th><th>receipt</th><th>op</th></tr></thead><tbody>");
    for e in log.iter().rev().take(ROW_LOG) {
        out.push_str(&format!(
            "<tr><td class=\"mono\">{}</td><td class=\"mono\">{}</td><td>{}</td><td>{}</td><td class=\"mono\">{}</td></tr>",
            e.rev,
            when(&e.at),
            escape::line(&e.by),
            escape::line(&e.receipt),
            escape::line(&e.op)
        ));
    }
    out.push_str("</tbody></table>");
    if log.len() > ROW_LOG {
        out.push_str(&format!(
            "<p><a href=\"/timeline?row={id}\">all {} entries in the timeline</a></p>",
            log.len()
        ));
    }
    out
}
