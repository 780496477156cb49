//! The pages against expected markup written here: a card's exact HTML, the lanes a row
//! lands in, the commands offered, the graph's layers and its bounds at 10k rows, and hostile
//! text from every field through every page and payload.

use mosaic_queue_core::signs::{Judged, Liveness};
use mosaic_queue_core::{Attempt, AttemptState, Review, Round, Row, Status, Verdict, VerdictKind};

use super::board::{Lane, board, lane_of, lane_page};
use super::card::{card, next_command};
use super::graph::{MAX_NODES, draw, graph_page};
use super::layout::not_found;
use super::row::{ReadFrom, row_page};
use super::seats::{seat_page, seats_page};
use super::timeline::{Query, timeline_page};
use crate::engine::board::{Card, IssueLinks, LogItem, ReviewState, Seat, Snapshot, Touch};

fn row(id: u64, piece: &str, status: Status) -> Row {
    Row {
        id,
        piece: piece.into(),
        owner: None,
        status,
        gate: None,
        issues: vec![],
        closes: vec![],
        closes_narrowed: false,
        reviewers: vec![],
        brief: None,
        note: None,
        blocked_reason: None,
        review: None,
        after: vec![],
        lease: None,
        fenced: vec![],
    }
}

fn card_of(row: Row) -> Card {
    Card {
        review: ReviewState::of(&row),
        claim: None,
        reason: None,
        last: None,
        row,
    }
}

fn snap(cards: Vec<Card>) -> Snapshot {
    Snapshot {
        revision: 42,
        durable: true,
        cards,
        log: vec![],
        seats: vec![],
        archives: vec![],
        archived_rows: 0,
        issues: None,
        replicated: None,
        turns: None,
    }
}

#[test]
fn a_card_is_exactly_its_markup() {
    let mut r = row(7, "Node shim", Status::InProgress);
    r.owner = Some("huey".into());
    r.issues = vec![1520];
    r.after = vec![5];
    r.note = Some("after the core".into());
    let mut c = card_of(r);
    c.last = Some(Touch {
        rev: 5,
        at: "2026-01-02T03:04:05.678Z".into(),
    });
    let mut s = snap(vec![card_of(row(5, "Core", Status::Done)), c]);
    s.issues = Some(IssueLinks {
        base: "https://git.example.org/mosaic/stack".into(),
    });
    assert_eq!(
        card(&s, &s.cards[1]),
        "<article class=\"card st-in-progress\" id=\"row-7\" data-row=\"7\">\
         <div class=\"meta\"><a class=\"id\" href=\"/row/7\">#7</a><span>in-progress</span>\
         <span class=\"owner\"><a href=\"/seat/huey\">huey</a></span></div>\
         <h3><a href=\"/row/7\">Node shim</a></h3><ul class=\"facts\">\
         <li>issues <a href=\"https://git.example.org/mosaic/stack/issues/1520\" rel=\"noreferrer\">#1520</a></li>\
         <li>waits on <a href=\"/row/5\">#5</a> (done)</li>\
         <li>last entry rev 5 at 2026-01-02 03:04:05Z</li></ul>\
         <p class=\"note\">after the core</p>\
         <div class=\"cmd\"><code>mosaic-queue release 7 --op release-7-r42</code>\
         <span class=\"who\">jason or sage hand it back to the queue (--by, or MOSAIC_AGENT_NAME)</span></div>\
         </article>"
    );
}

fn in_review(attempt: Option<AttemptState>, verdicts: &[(&str, VerdictKind)]) -> Card {
    let mut r = row(3, "Review me", Status::InReview);
    r.owner = Some("darkwing".into());
    r.reviewers = vec!["flicker".into(), "gosling".into()];
    r.review = Some(Review {
        rounds: vec![Round {
            round: 1,
            issue: Some(12),
            candidate: Some("git:0123".into()),
            manifest: None,
            requested: true,
            opened_by: "darkwing".into(),
            opened_rev: 9,
            attempts: attempt
                .into_iter()
                .map(|state| Attempt {
                    op: "darkwing-3-review-1".into(),
                    by: "darkwing".into(),
                    state,
                    status: None,
                    detail: None,
                    comment: Some(77),
                })
                .collect(),
            verdicts: verdicts
                .iter()
                .map(|(by, v)| Verdict {
                    by: (*by).into(),
                    verdict: *v,
                    comment: 80,
                    candidate: "git:0123".into(),
                })
                .collect(),
            duplicate_risk: false,
        }],
    });
    card_of(r)
}

#[test]
fn each_row_lands_in_its_lane_with_the_command_that_moves_it() {
    use AttemptState::*;
    use VerdictKind::*;
    let line = |c: &Card| next_command(42, c).map(|c| c.line);
    let requesting = in_review(Some(Uncertain), &[]);
    assert_eq!(lane_of(&requesting), Lane::Requesting);
    assert_eq!(
        line(&requesting).unwrap(),
        "mosaic-queue review resolve 3 darkwing-3-review-1 --comment N --op resolve-3-r42"
    );
    let failed = in_review(Some(Failed), &[]);
    assert_eq!(lane_of(&failed), Lane::Requesting);
    assert_eq!(
        line(&failed).unwrap(),
        "mosaic-queue review request 3 --op request-3-r42 --by darkwing"
    );
    let waiting = in_review(Some(Posted), &[("flicker", Approve)]);
    assert_eq!(lane_of(&waiting), Lane::AwaitingVerdicts);
    assert_eq!(
        line(&waiting).unwrap(),
        "mosaic-queue review record 3 --verdict approve --comment N --candidate git:0123 --op gosling-verdict-3-r42 --by gosling"
    );
    let changes = in_review(Some(Posted), &[("gosling", Changes)]);
    assert_eq!(lane_of(&changes), Lane::ChangesAsked);
    assert_eq!(
        line(&changes).unwrap(),
        "mosaic-queue move 3 in-progress --op rework-3-r42 --by darkwing"
    );
    let approved = in_review(Some(Posted), &[("flicker", Approve), ("gosling", Approve)]);
    assert_eq!(lane_of(&approved), Lane::Approved);
    assert_eq!(
        line(&approved).unwrap(),
        "mosaic-queue move 3 done --op done-3-r42"
    );
    let mut gated = in_review(Some(Posted), &[("flicker", Approve), ("gosling", Approve)]);
    gated.row.gate = Some("jason".into());
    assert_eq!(
        line(&gated).unwrap(),
        "mosaic-queue move 3 waiting-on-jason --op handoff-3-r42 --by darkwing"
    );
    let jason = card_of(row(4, "x", Status::WaitingOnJason));
    assert_eq!(lane_of(&jason), Lane::WaitingOnJason);
    assert_eq!(
        line(&jason).unwrap(),
        "mosaic-queue move 4 done --op approve-4-r42 --by jason"
    );
    let parked = card_of(row(5, "x", Status::Parked));
    assert_eq!(
        line(&parked).unwrap(),
        "mosaic-queue move 5 queued --op unpark-5-r42"
    );
    assert_eq!(line(&card_of(row(6, "x", Status::Queued))), None);
    assert_eq!(line(&card_of(row(6, "x", Status::Done))), None);
    // A value a shell would read is quoted.
    let mut odd = card_of(row(8, "x", Status::Blocked));
    odd.row.owner = Some("it's me".into());
    assert_eq!(
        line(&odd).unwrap(),
        "mosaic-queue move 8 in-progress --op unblock-8-r42 --by 'it'\\''s me'"
    );
}

#[test]
fn the_graph_layers_rows_after_what_they_wait_on_and_highlights_a_closure() {
    let mut a = row(1, "a", Status::Done);
    a.after = vec![];
    let mut b = row(2, "b", Status::InProgress);
    b.after = vec![1];
    let mut c = row(3, "c", Status::Queued);
    c.after = vec![2];
    let d = row(4, "d", Status::Queued);
    let s = snap(vec![card_of(a), card_of(b), card_of(c), card_of(d)]);
    let drawn = draw(&s, Some(3));
    assert_eq!(drawn.drawn, vec![1, 2, 3, 4]);
    assert_eq!(drawn.closure, vec![2, 1]);
    // Layer 0 at x 16, layer 1 at 16 + 210 + 70, layer 2 at 576; row 4, linked to nothing,
    // in the grid below.
    assert!(
        drawn
            .svg
            .contains("id=\"n-1\" transform=\"translate(16 16)\"")
    );
    assert!(
        drawn
            .svg
            .contains("id=\"n-2\" transform=\"translate(296 16)\"")
    );
    assert!(
        drawn
            .svg
            .contains("class=\"node st-queued chosen\" id=\"n-3\" transform=\"translate(576 16)\"")
    );
    assert!(
        drawn
            .svg
            .contains("class=\"node st-queued dim\" id=\"n-4\"")
    );
    assert!(
        drawn
            .svg
            .contains("<path class=\"edge hl\" d=\"M226 33 C261 33 261 33 296 33\"/>")
    );
}

#[test]
fn the_graph_is_bounded_at_ten_thousand_rows_and_says_what_it_left_out() {
    let cards: Vec<Card> = (1..=10_000u64)
        .map(|id| {
            let status = if id % 2 == 0 {
                Status::Done
            } else {
                Status::Queued
            };
            let mut r = row(id, "row", status);
            if id % 10 == 1 && id > 1 {
                r.after = vec![id - 10];
            }
            card_of(r)
        })
        .collect();
    let s = snap(cards);
    let d = draw(&s, None);
    assert_eq!(d.drawn.len(), MAX_NODES);
    assert_eq!(d.done_hidden, 5_000);
    assert_eq!(d.capped.values().sum::<usize>(), 5_000 - MAX_NODES);
    let page = graph_page(&s, None);
    assert!(page.contains(&format!(
        "Drawn: {MAX_NODES} of 10000 rows. 5000 done rows are not drawn: no drawn row waits on them. Left out past the {MAX_NODES}-row limit: {} queued",
        5_000 - MAX_NODES
    )));
    assert!(page.len() < 1 << 20, "{} bytes", page.len());
    // The board at 10k rows stays bounded too: each lane shows its first cards.
    let b = board(&s);
    assert!(b.contains("<a href=\"/lane/queued\">4940 more in this lane</a>"));
    assert!(b.len() < 1 << 20, "{} bytes", b.len());
    assert!(lane_page(&s, Lane::Queued, 50).contains("page 50 of 50"));
}

/// Hostile text, as an old file may hold it (`<` and `\` were refused only later) and as a
/// new one may: every place a text lands must show it as text.
const HOSTILE: &str = "a & b \"q\" 'r' > <script>x</script> ]]> \u{202E}e\u{2066} </svg>\nz";
const SHOWN: &str = "a &amp; b &quot;q&quot; &#39;r&#39; &gt; &lt;script&gt;x&lt;/script&gt; ]]&gt; [U+202E]e[U+2066] &lt;/svg&gt;";

fn hostile_snapshot() -> Snapshot {
    hostile_snapshot_of(HOSTILE)
}

/// Every field of a row in review, of a blocked row it waits on, of the log and of a seat
/// holding `text`.
fn hostile_snapshot_of(text: &str) -> Snapshot {
    let h = String::from(text);
    let mut r = in_review(
        Some(AttemptState::Posted),
        &[("flicker", VerdictKind::Approve)],
    )
    .row;
    r.piece = h.clone();
    r.owner = Some(h.clone());
    r.gate = Some(h.clone());
    r.note = Some(h.clone());
    r.brief = Some(h.clone());
    r.reviewers.push(h.clone());
    r.after = vec![9];
    if let Some(round) = r.review.as_mut().and_then(|v| v.rounds.last_mut()) {
        round.candidate = Some(h.clone());
        round.manifest = Some(h.clone());
        round.opened_by = h.clone();
        round.attempts[0].detail = Some(h.clone());
        round.attempts[0].op = h.clone();
        round.verdicts[0].candidate = h.clone();
    }
    let mut blocked = row(9, &h, Status::Blocked);
    blocked.blocked_reason = Some(h.clone());
    blocked.owner = Some(h.clone());
    let mut c = card_of(r);
    c.reason = Some(h.clone());
    let mut s = snap(vec![c, card_of(blocked)]);
    s.log = vec![LogItem {
        rev: 42,
        op: h.clone(),
        verb: h.clone(),
        by: h.clone(),
        at: h.clone(),
        receipt: h.clone(),
        row: Some(3),
        genesis_rows: vec![],
    }];
    s.seats = vec![Seat {
        name: h.clone(),
        last: Some(Touch {
            rev: 42,
            at: h.clone(),
        }),
        heartbeat: Some(h.clone()),
    }];
    s.issues = Some(IssueLinks {
        base: String::from("https://git.example.org/a\"b<c"),
    });
    s.cards[0].row.issues = vec![12];
    s
}

/// Every page of `s`, whose texts hold `text`, with `text` in the filters and names asked for.
fn every_page(s: &Snapshot, text: &str) -> [(&'static str, String); 10] {
    let log: Vec<&LogItem> = s.log.iter().collect();
    let query = Query {
        seat: Some(text.into()),
        verb: Some(text.into()),
        page: 1,
        ..Query::default()
    };
    let all = Query {
        page: 1,
        ..Query::default()
    };
    [
        ("board", board(s)),
        ("lane", lane_page(s, Lane::AwaitingVerdicts, 1)),
        ("graph", graph_page(s, Some(3))),
        ("seats", seats_page(s)),
        ("seat", seat_page(s, text).unwrap()),
        ("timeline", timeline_page(s, &all, &s.log)),
        ("filtered", timeline_page(s, &query, &s.log)),
        ("row", row_page(s, &s.cards[0], &log, ReadFrom::Queue)),
        (
            "archived",
            row_page(s, &s.cards[1], &log, ReadFrom::Archive(text)),
        ),
        ("missing", not_found(s, text, text)),
    ]
}

#[test]
fn hostile_text_shows_as_text_on_every_page() {
    let s = hostile_snapshot();
    let pages = every_page(&s, HOSTILE);
    for (name, page) in &pages {
        for raw in [
            "<script>x",
            "\"q\"",
            "'r'",
            "]]>",
            "\u{202E}",
            "\u{2066}",
            "</svg>\n",
            "a\"b<c",
        ] {
            assert!(!page.contains(raw), "{name} holds {raw:?} unescaped");
        }
        assert!(
            page.contains(SHOWN),
            "{name} does not show the text escaped"
        );
    }
    let board_page = &pages[0].1;
    assert!(board_page.contains("href=\"https://git.example.org/a&quot;b&lt;c/issues/12\""));
    // In URLs the text is percent-encoded before it is escaped for the attribute.
    assert!(pages[3].1.contains(
        "href=\"/seat/a%20%26%20b%20%22q%22%20%27r%27%20%3E%20%3Cscript%3Ex%3C%2Fscript%3E%20%5D%5D%3E%20%E2%80%AE"
    ));
    assert!(
        pages[6]
            .1
            .contains("<input name=\"seat\" value=\"a &amp; b &quot;q&quot;")
    );
    assert!(pages[7].1.contains(&format!("<pre>{SHOWN}\nz</pre>")));
}

/// Zero-width and other invisible format characters (Unicode's category Cf) would make two
/// texts that differ look the same: every page, the graph's SVG among them, shows each by
/// its code point, as it shows bidi controls.
#[test]
fn invisible_format_characters_show_their_code_point_on_every_page() {
    let text =
        "a\u{200B}b\u{200C}c\u{200D}d\u{2060}e\u{FEFF}f\u{00AD}g\u{E0041}h\u{180E}i\u{13439}j";
    let shown =
        "a[U+200B]b[U+200C]c[U+200D]d[U+2060]e[U+FEFF]f[U+00AD]g[U+E0041]h[U+180E]i[U+13439]j";
    let s = hostile_snapshot_of(text);
    let pages = every_page(&s, text);
    for (name, page) in &pages {
        for raw in [
            '\u{200B}',
            '\u{200C}',
            '\u{200D}',
            '\u{2060}',
            '\u{FEFF}',
            '\u{00AD}',
            '\u{E0041}',
            '\u{180E}',
            '\u{13439}',
        ] {
            assert!(!page.contains(raw), "{name} holds {raw:?} as it is");
        }
        assert!(page.contains(shown), "{name} does not show the code points");
    }
    let graph = &pages[2].1;
    let svg = &graph[graph.find("<svg").unwrap()..graph.find("</svg>").unwrap()];
    assert!(svg.contains("[U+200B]"), "{svg}");
}

/// A leased claim as each page shows it: its state beside the owner, when its lease ends and
/// its last sign of life; an expired claim offers the reclaim instead of a release; an
/// unknown one says why take leaves it alone.
#[test]
fn a_leased_claim_shows_its_state_and_an_expired_one_offers_the_reclaim() {
    let judged = |state: Liveness, end: &str| Judged {
        state,
        lease_end: Some(end.into()),
        last_sign: Some("2026-12-01T10:00:00.000Z".into()),
        silent: Some(7_200),
        left: Some(0),
    };
    let one = |claim: Judged| {
        let mut r = row(4, "Lexer", Status::InProgress);
        r.owner = Some("huey".into());
        let mut c = card_of(r);
        c.claim = Some(claim);
        snap(vec![c])
    };
    let s = one(judged(Liveness::Expired, "2026-12-01T11:00:00.000Z"));
    assert_eq!(
        card(&s, &s.cards[0]),
        "<article class=\"card st-in-progress\" id=\"row-4\" data-row=\"4\">\
         <div class=\"meta\"><a class=\"id\" href=\"/row/4\">#4</a><span>in-progress</span>\
         <span class=\"owner\"><a href=\"/seat/huey\">huey</a> <span class=\"claim claim-expired\">expired</span></span></div>\
         <h3><a href=\"/row/4\">Lexer</a></h3><ul class=\"facts\">\
         <li>claim expired: lease ended 2026-12-01 11:00:00Z, last sign of life 2026-12-01 10:00:00Z</li></ul>\
         <div class=\"cmd\"><code>mosaic-queue reclaim 4 --reason &#39;lease expired&#39; --op reclaim-4-r42</code>\
         <span class=\"who\">the lead, jason or sage end the expired claim (--by, or MOSAIC_AGENT_NAME); another seat&#39;s take also picks it up</span></div>\
         </article>"
    );
    let s = one(judged(Liveness::Live, "2026-12-01T13:00:00.000Z"));
    let html = card(&s, &s.cards[0]);
    assert!(
        html.contains("<span class=\"claim claim-live\">live</span>"),
        "{html}"
    );
    assert!(html.contains("<li>claim live: lease ends 2026-12-01 13:00:00Z, last sign of life 2026-12-01 10:00:00Z</li>"), "{html}");
    assert!(
        html.contains("<code>mosaic-queue release 4 --op release-4-r42</code>"),
        "{html}"
    );
    let s = one(judged(Liveness::Unknown, "2026-12-01T11:00:00.000Z"));
    let html = card(&s, &s.cards[0]);
    assert!(html.contains("<li>claim unknown: lease ends 2026-12-01 11:00:00Z, last sign of life 2026-12-01 10:00:00Z (heartbeat unreadable or ahead: never reclaimed by take)</li>"), "{html}");
    let page = row_page(&s, &s.cards[0], &[], ReadFrom::Queue);
    assert!(page.contains("claim unknown: lease ends"), "{page}");
    // A claim without a lease (the snapshot keeps no judgement of it) shows as the plain
    // owner it always was.
    let mut plain = row(4, "Lexer", Status::InProgress);
    plain.owner = Some("huey".into());
    let s = snap(vec![card_of(plain)]);
    let html = card(&s, &s.cards[0]);
    assert!(
        html.contains("<span class=\"owner\"><a href=\"/seat/huey\">huey</a></span>"),
        "{html}"
    );
    assert!(!html.contains("claim"), "{html}");
}
