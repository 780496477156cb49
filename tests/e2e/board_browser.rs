//! The board in a real browser: headless Chromium through chromedriver loads the board of
//! the demo's checkout, finds every row's card, sees a note made by the CLI appear without a
//! reload, follows a card to its row page and on to the graph, and shows a piece holding `&`,
//! quotes and `>` as text, and follows a leased claim turning quiet with no write. It saves a
//! screenshot of the board for a person to look at and prints its path. Without Chromium or chromedriver the test fails (tests/all.sh installs
//! them).

use std::path::{Path, PathBuf};

use support::board::Board;
use support::webdriver::Browser;
use support::{change, run_in};

/// Removes the demo's checkout when the test ends.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The demo's checkout (the demo prints its path first).
fn demo() -> Scratch {
    let out = run_in(Path::new("/"), &["demo"], &[]);
    let first = out.ok().lines().next().unwrap().to_owned();
    Scratch(PathBuf::from(
        first.strip_prefix("demo checkout: ").unwrap(),
    ))
}

/// Runs a change in `dir` and checks its receipt.
#[track_caller]
fn ok(dir: &Path, args: &[&str], op: &str, by: &str, receipt: &str) {
    let out = run_in(dir, &change(args, op, by), &[]);
    assert_eq!(out.ok(), format!("{receipt}\n"));
}

#[test]
fn a_browser_sees_every_card_a_live_note_the_row_page_and_the_graph() {
    let scratch = demo();
    let repo = scratch.0.as_path();
    ok(
        repo,
        &[
            "add",
            "--piece",
            "Fish & \"chips\" > 'salt'",
            "--after",
            "6",
        ],
        "lead-add-hostile",
        "lead",
        "ok lead-add-hostile rev 8 add 7 queued",
    );
    let board = Board::start(&scratch.0, &[]);
    let browser = Browser::start();
    browser.goto(&board.url("/"));
    let ids: Vec<String> = browser
        .find_all("article.card")
        .iter()
        .filter_map(|e| browser.attr(e, "data-row"))
        .collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(sorted, ["1", "2", "3", "4", "5", "6", "7"]);
    // The hostile piece is text: its characters as typed, no element made of them.
    let hostile = browser.find_all("#row-7 h3 a");
    assert_eq!(browser.text(&hostile[0]), "Fish & \"chips\" > 'salt'");
    assert!(browser.find_all("#row-7 h3 b").is_empty());
    let shot = screenshot_path();
    // A mark on the window: a reload would lose it, a swap of <main> keeps it.
    browser.script("window.boardMark = 'kept'; return null;");
    browser.until("the stream open", |b| b.find_all("#live.on").len() == 1);
    ok(
        repo,
        &["note", "5", "seen in the browser"],
        "huey-5-note-1",
        "huey",
        "ok huey-5-note-1 rev 9 note 5",
    );
    // Read in one script: the card may be swapped in between a find and a read.
    browser.until("the note on card 5", |b| {
        b.script("var n = document.querySelector('#row-5 .note'); return n ? n.textContent : null;")
            == "seen in the browser"
    });
    assert_eq!(browser.script("return window.boardMark;"), "kept");
    browser.screenshot(&shot);
    println!("board screenshot: {}", shot.display());
    // A card to its row page, and on to the graph with the row chosen.
    let link = browser.find_all("#row-6 h3 a");
    browser.click(&link[0]);
    browser.until("row 6's page", |b| b.current_url().ends_with("/row/6"));
    let title = browser.find_all("main h1");
    assert_eq!(browser.text(&title[0]), "queued #6 Node docs");
    let graph = browser.find_all("a[href='/graph?row=6']");
    browser.click(&graph[0]);
    browser.until("the graph", |b| b.current_url().ends_with("/graph?row=6"));
    assert_eq!(browser.find_all("svg g.node.chosen#n-6").len(), 1);
    assert_eq!(browser.find_all("svg g.node.dep#n-5").len(), 1);
    let node7 = browser.find_all("svg g#n-7 title");
    assert_eq!(
        browser.script("return document.querySelector('svg g#n-7 title').textContent;"),
        "#7 Fish & \"chips\" > 'salt' (queued)"
    );
    assert_eq!(node7.len(), 1);
}

/// A claim turns quiet with time alone: the open page shows it without a reload, within a
/// second of the moment (the stream's `claims` event), as it shows a write.
#[test]
fn an_open_page_follows_a_claim_turning_quiet() {
    let repo = support::Repo::new("board-browser-claim");
    // A minute's lease whose last sign is 20 s old: live now, quiet 10 s from now.
    crate::board_claims::claimed_ago(&repo, "1", "darkwing", 20_000);
    let board = Board::start(&repo.root, &[]);
    let browser = Browser::start();
    browser.goto(&board.url("/"));
    let state = "var s = document.querySelector('#row-1 .claim'); return s ? s.textContent : null;";
    assert_eq!(browser.script(state), "live");
    browser.script("window.boardMark = 'kept'; return null;");
    browser.until("the stream open", |b| b.find_all("#live.on").len() == 1);
    browser.until("the claim quiet on card 1", |b| b.script(state) == "quiet");
    assert_eq!(browser.script("return window.boardMark;"), "kept");
    assert_eq!(repo.queue()["revision"], 2, "nothing was written");
}

/// Where the screenshot goes: target/board-screenshot.png beside the build.
fn screenshot_path() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    std::fs::create_dir_all(&target).unwrap();
    target.join("board-screenshot.png")
}
