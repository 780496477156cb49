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
