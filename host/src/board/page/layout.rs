//! The frame every page shares: the head (the embedded stylesheet and script, nothing from
//! elsewhere), the navigation, and the line that says which revision the page shows and
//! whether it is confirmed durable. `<main>` carries the revision (and the leased claims'
//! states) so the live script can tell when the queue has moved on.

use crate::board::escape;
use crate::engine::board::Snapshot;

/// The navigation's entries: path and label.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Nav {
    Board,
    Graph,
    Seats,
    Timeline,
    None,
}

const NAV: [(Nav, &str, &str); 4] = [
    (Nav::Board, "/", "Board"),
    (Nav::Graph, "/graph", "Graph"),
    (Nav::Seats, "/seats", "Seats"),
    (Nav::Timeline, "/timeline", "Timeline"),
];

/// A whole page: `title` (plain text) and `body` (markup built by the page, its text already
/// escaped), for the snapshot `snap`.
pub fn page(snap: &Snapshot, current: Nav, title: &str, body: &str) -> String {
    let mut out = String::with_capacity(body.len() + 2048);
    out.push_str("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
    out.push_str(&format!(
        "<title>{} · mosaic-queue board</title>",
        escape::line(title)
    ));
    out.push_str("<link rel=\"stylesheet\" href=\"/assets/board.css\">");
    out.push_str("<script src=\"/assets/live.js\" defer></script></head>\n<body>");
    out.push_str("<header class=\"top\"><a class=\"brand\" href=\"/\">mosaic-queue board</a><nav>");
    for (nav, href, label) in NAV {
        let here = if nav == current {
            " aria-current=\"page\""
        } else {
            ""
        };
        out.push_str(&format!("<a href=\"{href}\"{here}>{label}</a>"));
    }
    out.push_str("</nav><span class=\"live\" id=\"live\">read-only</span></header>\n");
    out.push_str(&format!(
        "<main id=\"main\" data-revision=\"{}\" data-durable=\"{}\"",
        snap.revision, snap.durable
    ));
    // The claims' states, which change with time too: only where the queue holds leased
    // claims (the key is digits and fixed words, nothing to escape).
    let claims = super::events::claims_key(snap);
    if !claims.is_empty() {
        out.push_str(&format!(" data-claims=\"{claims}\""));
    }
    out.push('>');
    out.push_str(&state_line(snap));
    out.push_str(body);
    out.push_str("</main>\n</body></html>\n");
    out
}

/// Which revision the page shows; a file ahead of its witness is said to be visible, not
/// confirmed durable, in the CLI's words.
pub fn state_line(snap: &Snapshot) -> String {
    let pushed = snap
        .replicated
        .map_or_else(String::new, |r| format!(" · replicated rev {r}"));
    if snap.durable {
        format!(
            "<p class=\"state\">rev {}{pushed} · read-only: change the queue with the CLI (each card shows the command)</p>",
            snap.revision
        )
    } else {
        format!(
            "<p class=\"warn\" role=\"status\">rev {} visible, not confirmed durable (mosaic-queue sync confirms it)</p>",
            snap.revision
        )
    }
}

/// A page for a request that names nothing the board has: `title` and one line saying what
/// to do instead.
pub fn not_found(snap: &Snapshot, title: &str, line: &str) -> String {
    page(
        snap,
        Nav::None,
        title,
        &format!(
            "<h1>{}</h1><p>{}</p>",
            escape::line(title),
            escape::line(line)
        ),
    )
}

/// A status's CSS class: `st-in-progress`.
pub fn status_class(status: mosaic_queue_core::Status) -> String {
    format!("st-{}", status.as_str())
}

/// A time as the log writes it (`2026-01-02T03:04:05.678Z`), shortened for a page:
/// `2026-01-02 03:04:05Z`. Anything else is shown as it is.
pub fn when(at: &str) -> String {
    match (at.get(..10), at.get(11..19)) {
        (Some(day), Some(time)) if at.len() == 24 && at.ends_with('Z') => {
            escape::line(&format!("{day} {time}Z"))
        }
        _ => escape::line(at),
    }
}
