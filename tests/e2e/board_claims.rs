//! Claims on the board through the real binary, with the clock the fault-injection build reads
//! from `MOSAIC_NOW_MS`: a leased claim is live beside its owner while its lease runs, expired
//! (offering the reclaim) after it, and unknown when its holder's heartbeat cannot be read; the
//! seat's panel shows the heartbeat's time.

use support::Repo;
use support::board::Board;

use crate::cli_leases::{LATER, huey_holds_row_2};

/// Twenty seconds after huey took row 2 with a lease of a minute (`cli_leases::T0`): live.
const SOON: &str = "1798761620000";

fn card(page: &str, id: u64) -> &str {
    let start = page
        .find(&format!(
            "<article class=\"card st-in-progress\" id=\"row-{id}\""
        ))
        .unwrap_or_else(|| panic!("no card {id} in progress: {page}"));
    let len = page[start..].find("</article>").unwrap();
    &page[start..start + len]
}

fn board_at(repo: &Repo, now: &str) -> String {
    let board = Board::start(&repo.root, &[("MOSAIC_NOW_MS", now)]);
    let home = board.get("/");
    assert_eq!(home.status, 200);
    home.text()
}

#[test]
fn a_leased_claim_is_live_then_expired_then_unknown_without_its_heartbeat() {
    let repo = Repo::new("board-claims");
    huey_holds_row_2(&repo);

    let page = board_at(&repo, SOON);
    let live = card(&page, 2);
    assert!(
        live.contains(
            "<a href=\"/seat/huey\">huey</a> <span class=\"claim claim-live\">live</span>"
        ),
        "{live}"
    );
    assert!(
        live.contains("<li>claim live: lease ends 2027-01-01 00:01:00Z, last sign of life 2027-01-01 00:00:00Z</li>"),
        "{live}"
    );
    assert!(
        live.contains("<code>mosaic-queue release 2 --op release-2-r2</code>"),
        "{live}"
    );

    let board = Board::start(&repo.root, &[("MOSAIC_NOW_MS", LATER)]);
    let page = board.get("/").text();
    let expired = card(&page, 2);
    assert!(
        expired.contains("<span class=\"claim claim-expired\">expired</span>"),
        "{expired}"
    );
    assert!(
        expired.contains("<li>claim expired: lease ended 2027-01-01 00:01:00Z, last sign of life 2027-01-01 00:00:00Z</li>"),
        "{expired}"
    );
    assert!(
        expired.contains(
            "<code>mosaic-queue reclaim 2 --reason &#39;lease expired&#39; --op reclaim-2-r2</code>"
        ),
        "{expired}"
    );
    let seat = board.get("/seat/huey").text();
    assert!(
        seat.contains("<p class=\"state\">heartbeat at 2027-01-01 00:00:00Z</p>"),
        "{seat}"
    );
    let row = board.get("/row/2").text();
    assert!(row.contains("claim expired: lease ended"), "{row}");
    drop(board);

    // The heartbeat replaced by a directory: past the lease by the log, but never expired.
    let beat = repo.root.join(".git/mosaic-queue.heartbeats/huey");
    std::fs::remove_file(&beat).unwrap();
    std::fs::create_dir(&beat).unwrap();
    let page = board_at(&repo, LATER);
    let unknown = card(&page, 2);
    assert!(
        unknown.contains("<span class=\"claim claim-unknown\">unknown</span>"),
        "{unknown}"
    );
    assert!(
        unknown.contains("(heartbeat unreadable or ahead: never reclaimed by take)"),
        "{unknown}"
    );
    assert!(
        unknown.contains("<code>mosaic-queue release 2 --op release-2-r2</code>"),
        "{unknown}"
    );
    // The board wrote nothing: the directory stands and the queue is at revision 2.
    assert!(beat.is_dir());
    assert!(page.contains("data-revision=\"2\""), "{page}");
}

/// Milliseconds since the epoch now, as the board's own clock reads them.
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// `move ID in-progress --lease 1m` by `seat`, stamped `ago` milliseconds before now (the
/// claim's last sign of life and the heartbeat the change writes).
pub(crate) fn claimed_ago(repo: &Repo, id: &str, seat: &str, ago: i64) -> i64 {
    let at = now_ms() - ago;
    let op = format!("{seat}-{id}-start");
    let out = repo.run(
        &[
            "move",
            id,
            "in-progress",
            "--lease",
            "1m",
            "--op",
            &op,
            "--by",
            seat,
        ],
        &[("MOSAIC_NOW_MS", &at.to_string())],
    );
    out.ok();
    at
}

/// A claim's state changes with time, not only with writes: the event stream sends a
/// `claims` event (each leased claim's state) at the moment one turns quiet or expired, with
/// no write between, and the pages then show the new state.
#[test]
fn the_event_stream_follows_claims_turning_quiet_and_expired() {
    use std::io::{BufRead, BufReader, Read, Write};

    let repo = Repo::new("board-claim-events");
    // A minute's lease: row 2 quiet already and expired in 6 s, row 1 live and quiet in 3 s.
    let two = claimed_ago(&repo, "2", "huey", 54_000);
    let one = claimed_ago(&repo, "1", "darkwing", 27_000);
    let board = Board::start(&repo.root, &[]);
    let mut s = board.connect();
    s.write_all(format!("GET /events HTTP/1.1\r\nHost: {}\r\n\r\n", board.addr).as_bytes())
        .unwrap();
    let mut reader = BufReader::new(s);
    let mut line = String::new();
    while line != "\r\n" {
        line.clear();
        reader.read_line(&mut line).unwrap();
    }
    let mut chunk = || {
        let mut size = String::new();
        reader.read_line(&mut size).unwrap();
        let n = usize::from_str_radix(size.trim_end(), 16).unwrap();
        let mut data = vec![0; n + 2];
        reader.read_exact(&mut data).unwrap();
        data.truncate(n);
        (String::from_utf8(data).unwrap(), now_ms())
    };
    let (first, _) = chunk();
    assert_eq!(
        first,
        "retry: 1000\n\nevent: revision\ndata: {\"revision\":3,\"durable\":true}\n\nevent: claims\ndata: {\"claims\":\"1:live,2:quiet\"}\n\n"
    );
    let page = board.get("/").text();
    assert!(
        page.contains("data-revision=\"3\" data-durable=\"true\" data-claims=\"1:live,2:quiet\""),
        "{page}"
    );
    // Quiet once silent for more than half the lease; expired at its end.
    for (event, moment, id, state) in [
        ("1:quiet,2:quiet", one + 30_001, 1, "quiet"),
        ("1:quiet,2:expired", two + 60_000, 2, "expired"),
    ] {
        let (got, at) = chunk();
        assert_eq!(
            got,
            format!("event: claims\ndata: {{\"claims\":\"{event}\"}}\n\n")
        );
        assert!(at >= moment, "{event} came {} ms early", moment - at);
        println!("{event}: {} ms after the moment", at - moment);
        let page = board.get("/").text();
        let card = card(&page, id);
        assert!(
            card.contains(&format!(
                "<span class=\"claim claim-{state}\">{state}</span>"
            )),
            "{card}"
        );
        assert!(page.contains(&format!("data-claims=\"{event}\"")), "{page}");
    }
    // Nothing was written: the queue is at revision 3.
    assert_eq!(repo.queue()["revision"], 3);
}
