//! `/seats` and `/seat/NAME`: each seat (and person) the queue knows, what it holds, what it
//! is asked to review, its last sign of life and its recent entries.

use std::collections::HashMap;

use mosaic_queue_core::{Status, is_privileged};

use super::card::claim_line;
use super::layout::{Nav, page, status_class, when};
use crate::board::escape::{self, url_part};
use crate::engine::board::{LogItem, Seat, Snapshot};

/// Entries listed per seat on `/seats`, and on a seat's own page.
const RECENT: usize = 5;
const RECENT_ONE: usize = 50;

/// `/seats`.
pub fn seats_page(snap: &Snapshot) -> String {
    let recent = recent_by_seat(snap, RECENT);
    let mut body = String::from("<h1>Seats</h1><div class=\"seats\">");
    for seat in &snap.seats {
        body.push_str(&panel(snap, seat, recent.get(seat.name.as_str())));
    }
    if snap.seats.is_empty() {
        body.push_str("<p>No seat has a row or an entry yet.</p>");
    }
    body.push_str("</div>");
    page(snap, Nav::Seats, "Seats", &body)
}

/// `/seat/NAME`; `None` when the queue knows no such seat.
pub fn seat_page(snap: &Snapshot, name: &str) -> Option<String> {
    let seat = snap.seats.iter().find(|s| s.name == name)?;
    let recent = recent_by_seat(snap, RECENT_ONE);
    let mut body = panel(snap, seat, recent.get(name));
    body.push_str(&format!(
        "<p><a href=\"/timeline?seat={}\">every entry by {} in the timeline</a></p>",
        url_part(name),
        escape::line(name)
    ));
    Some(page(snap, Nav::Seats, name, &body))
}

/// Each seat's newest `n` entries, newest first.
fn recent_by_seat(snap: &Snapshot, n: usize) -> HashMap<&str, Vec<&LogItem>> {
    let mut out: HashMap<&str, Vec<&LogItem>> = HashMap::new();
    for item in snap.log.iter().rev() {
        let list = out.entry(item.by.as_str()).or_default();
        if list.len() < n {
            list.push(item);
        }
    }
    out
}

fn role(name: &str) -> &'static str {
    if is_privileged(name) {
        "privileged"
    } else if name == mosaic_queue_core::LEAD {
        "lead"
    } else {
        "seat"
    }
}

fn panel(snap: &Snapshot, seat: &Seat, recent: Option<&Vec<&LogItem>>) -> String {
    let name = &seat.name;
    let mut out = format!(
        "<section class=\"panel\" id=\"seat-{}\"><h2><a href=\"/seat/{}\">{}</a> <small>{}</small></h2>",
        escape::text(&url_part(name)),
        url_part(name),
        escape::line(name),
        role(name)
    );
    out.push_str(&match &seat.last {
        Some(t) => format!(
            "<p class=\"state\">last sign of life: rev {} at {}</p>",
            t.rev,
            when(&t.at)
        ),
        None => String::from("<p class=\"state\">no entry in this epoch's log</p>"),
    });
    if let Some(at) = &seat.heartbeat {
        out.push_str(&format!("<p class=\"state\">heartbeat at {}</p>", when(at)));
    }
    let held: Vec<String> = snap
        .cards
        .iter()
        .filter(|c| c.row.status != Status::Done && c.row.owner.as_deref() == Some(name))
        .map(|c| {
            let claim = c
                .claim
                .as_ref()
                .map_or_else(String::new, |j| format!(" ({})", claim_line(j)));
            format!(
                "<li><span class=\"badge {}\">{}</span> <a href=\"/row/{}\">#{} {}</a>{claim}</li>",
                status_class(c.row.status),
                c.row.status.as_str(),
                c.row.id,
                c.row.id,
                escape::line(&c.row.piece)
            )
        })
        .collect();
    out.push_str(&list("holds", &held));
    let reviewing: Vec<String> = snap
        .cards
        .iter()
        .filter(|c| c.review.as_ref().is_some_and(|r| r.pending.contains(name)))
        .filter(|c| c.row.status == Status::InReview)
        .map(|c| {
            format!(
                "<li><a href=\"/row/{}\">#{} {}</a></li>",
                c.row.id,
                c.row.id,
                escape::line(&c.row.piece)
            )
        })
        .collect();
    if !reviewing.is_empty() {
        out.push_str(&list("asked for a verdict on", &reviewing));
    }
    let ops: Vec<String> = recent
        .map(|r| r.as_slice())
        .unwrap_or_default()
        .iter()
        .map(|e| {
            format!(
                "<li><span class=\"mono\">rev {}</span> {} {}</li>",
                e.rev,
                when(&e.at),
                escape::line(&e.receipt)
            )
        })
        .collect();
    out.push_str(&list("recent entries", &ops));
    out.push_str("</section>");
    out
}

fn list(title: &str, items: &[String]) -> String {
    if items.is_empty() {
        return format!("<p class=\"state\">{title}: none</p>");
    }
    format!(
        "<h3 class=\"state\">{title}</h3><ul>{}</ul>",
        items.concat()
    )
}
