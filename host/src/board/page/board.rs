//! `/`: the board. Lanes by status, the rows in review apart by where their round stands
//! (requesting, awaiting verdicts, changes asked, approved), then waiting on jason, blocked,
//! parked and the most recently done; each lane shows its first cards and links the rest
//! (`/lane/NAME`, paged).

use mosaic_queue_core::Status;

use super::card::card;
use super::layout::{Nav, page};
use crate::board::escape;
use crate::engine::board::{Card, Snapshot, Stage};

/// Cards a lane shows on the board; the lane's own page shows the rest.
pub const LANE_CARDS: usize = 60;
/// Cards per page of a lane's own page.
pub const LANE_PAGE: usize = 100;
/// Done rows on the board: the most recent ones.
const RECENT_DONE: usize = 12;

/// The board's lanes, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    Queued,
    InProgress,
    Requesting,
    AwaitingVerdicts,
    ChangesAsked,
    Approved,
    WaitingOnJason,
    Blocked,
    Parked,
    Done,
}

impl Lane {
    pub const ALL: [Lane; 10] = [
        Lane::Queued,
        Lane::InProgress,
        Lane::Requesting,
        Lane::AwaitingVerdicts,
        Lane::ChangesAsked,
        Lane::Approved,
        Lane::WaitingOnJason,
        Lane::Blocked,
        Lane::Parked,
        Lane::Done,
    ];

    /// The lane's name in its URL.
    pub fn key(self) -> &'static str {
        match self {
            Lane::Queued => "queued",
            Lane::InProgress => "in-progress",
            Lane::Requesting => "review-requesting",
            Lane::AwaitingVerdicts => "review-awaiting-verdicts",
            Lane::ChangesAsked => "review-changes-asked",
            Lane::Approved => "review-approved",
            Lane::WaitingOnJason => "waiting-on-jason",
            Lane::Blocked => "blocked",
            Lane::Parked => "parked",
            Lane::Done => "done",
        }
    }

    pub fn parse(key: &str) -> Option<Lane> {
        Lane::ALL.into_iter().find(|l| l.key() == key)
    }

    fn title(self) -> &'static str {
        match self {
            Lane::Queued => "Queued",
            Lane::InProgress => "In progress",
            Lane::Requesting => "Review: requesting",
            Lane::AwaitingVerdicts => "Review: awaiting verdicts",
            Lane::ChangesAsked => "Review: changes asked",
            Lane::Approved => "Review: approved",
            Lane::WaitingOnJason => "Waiting on jason",
            Lane::Blocked => "Blocked",
            Lane::Parked => "Parked",
            Lane::Done => "Done, most recent first",
        }
    }

    fn status(self) -> Status {
        match self {
            Lane::Queued => Status::Queued,
            Lane::InProgress => Status::InProgress,
            Lane::Requesting | Lane::AwaitingVerdicts | Lane::ChangesAsked | Lane::Approved => {
                Status::InReview
            }
            Lane::WaitingOnJason => Status::WaitingOnJason,
            Lane::Blocked => Status::Blocked,
            Lane::Parked => Status::Parked,
            Lane::Done => Status::Done,
        }
    }
}

/// The lane a card belongs in.
pub fn lane_of(card: &Card) -> Lane {
    match card.row.status {
        Status::Queued => Lane::Queued,
        Status::InProgress => Lane::InProgress,
        Status::InReview => match card.review.as_ref().map(|r| r.stage) {
            Some(Stage::Requesting) => Lane::Requesting,
            Some(Stage::ChangesAsked) => Lane::ChangesAsked,
            Some(Stage::Approved) => Lane::Approved,
            Some(Stage::AwaitingVerdicts) | None => Lane::AwaitingVerdicts,
        },
        Status::WaitingOnJason => Lane::WaitingOnJason,
        Status::Blocked => Lane::Blocked,
        Status::Parked => Lane::Parked,
        Status::Done => Lane::Done,
    }
}

/// A lane's cards in the order it shows them: queue order, done rows newest first.
pub fn lane_cards(snap: &Snapshot, lane: Lane) -> Vec<&Card> {
    let mut cards: Vec<&Card> = snap.cards.iter().filter(|c| lane_of(c) == lane).collect();
    if lane == Lane::Done {
        cards.sort_by_key(|c| std::cmp::Reverse(c.last.as_ref().map_or(0, |t| t.rev)));
    }
    cards
}

/// `/`: every lane with its first cards.
pub fn board(snap: &Snapshot) -> String {
    let mut body = String::from("<h1>Board</h1>");
    body.push_str(&counts(snap));
    body.push_str("<div class=\"lanes\">");
    for lane in Lane::ALL {
        let cards = lane_cards(snap, lane);
        let shown = if lane == Lane::Done {
            RECENT_DONE
        } else {
            LANE_CARDS
        };
        body.push_str(&lane_html(snap, lane, &cards, shown));
    }
    body.push_str("</div>");
    page(snap, Nav::Board, "Board", &body)
}

/// How many rows each status holds, and how many the cuts archived.
fn counts(snap: &Snapshot) -> String {
    let mut out = String::from("<ul class=\"counts\">");
    for status in Status::ALL {
        let n = snap.cards.iter().filter(|c| c.row.status == status).count();
        out.push_str(&format!(
            "<li class=\"st-{}\"><span class=\"badge\">{}</span><b>{n}</b></li>",
            status.as_str(),
            status.as_str()
        ));
    }
    if snap.archived_rows > 0 {
        out.push_str(&format!("<li>archived <b>{}</b></li>", snap.archived_rows));
    }
    out.push_str("</ul>");
    out
}

fn lane_html(snap: &Snapshot, lane: Lane, cards: &[&Card], shown: usize) -> String {
    let mut out = format!(
        "<section class=\"lane st-{}\" id=\"lane-{}\"><h2><span>{}</span><span class=\"n\">{}</span></h2>",
        lane.status().as_str(),
        lane.key(),
        escape::line(lane.title()),
        cards.len()
    );
    if cards.is_empty() {
        out.push_str("<p class=\"empty\">none</p>");
    }
    for c in cards.iter().take(shown) {
        out.push_str(&card(snap, c));
    }
    if cards.len() > shown {
        out.push_str(&format!(
            "<p class=\"more\"><a href=\"/lane/{}\">{} more in this lane</a></p>",
            lane.key(),
            cards.len() - shown
        ));
    }
    out.push_str("</section>");
    out
}

/// `/lane/NAME?page=P`: one lane's cards, `LANE_PAGE` a page.
pub fn lane_page(snap: &Snapshot, lane: Lane, page_no: usize) -> String {
    let cards = lane_cards(snap, lane);
    let pages = cards.len().div_ceil(LANE_PAGE).max(1);
    let page_no = page_no.clamp(1, pages);
    let mut body = format!(
        "<h1>{} <small>({} rows, page {page_no} of {pages})</small></h1><div class=\"lanes\">",
        escape::line(lane.title()),
        cards.len()
    );
    let start = (page_no - 1) * LANE_PAGE;
    let slice: Vec<&Card> = cards.iter().skip(start).take(LANE_PAGE).copied().collect();
    body.push_str(&lane_html(snap, lane, &slice, LANE_PAGE));
    body.push_str("</div><p class=\"pager\">");
    if page_no > 1 {
        body.push_str(&format!(
            "<a href=\"/lane/{}?page={}\">previous</a>",
            lane.key(),
            page_no - 1
        ));
    }
    if page_no < pages {
        body.push_str(&format!(
            "<a href=\"/lane/{}?page={}\">next</a>",
            lane.key(),
            page_no + 1
        ));
    }
    body.push_str("</p>");
    page(snap, Nav::Board, lane.title(), &body)
}
