//! Semantics 4, the hardened table: `[` and `]` escaped in the render and a manifest's text
//! stored once, each written only by the entry that first needs it; older entries replay and
//! render exactly as they were written.

mod common;

use mosaic_queue_core::{Args, BodyStatus, Command, MoveArgs, NoteArgs, Queue, Status, manifest};

const AT: &str = "2026-11-30T10:00:00.000Z";

/// The basic scenario's genesis.
fn basic() -> Queue {
    let sc = common::load_scenario("basic");
    let g = &sc.genesis;
    Queue::genesis(g.args.clone(), &g.op, &g.by, &g.at)
        .unwrap()
        .0
}

fn note(id: u64, text: &str) -> Command {
    Command::Note(NoteArgs {
        id,
        text: Some(text.to_owned()),
    })
}

fn last_semantics(q: &Queue) -> u8 {
    q.file().log.last().unwrap().semantics
}

#[test]
fn brackets_render_escaped_from_the_entry_that_brings_one() {
    let mut q = basic();
    q.execute(&note(2, "plain"), "jason-note-1", "jason", AT)
        .unwrap();
    assert_eq!(last_semantics(&q), 2);
    q.execute(
        &note(2, "a](http://evil) ![x](http://e/i.png) [y]"),
        "jason-note-2",
        "jason",
        AT,
    )
    .unwrap();
    assert_eq!(last_semantics(&q), 4);
    let body = q.render_body();
    let line = body.lines().find(|l| l.starts_with("| 2 |")).unwrap();
    assert_eq!(
        line,
        "| 2 | Review requests |  | queued |  | #1510, #1511 | a\\](http://evil) !\\[x\\](http://e/i.png) \\[y\\] |"
    );
    // Semantics never go back, even once the brackets are gone.
    q.execute(&note(2, "plain again"), "jason-note-3", "jason", AT)
        .unwrap();
    assert_eq!(last_semantics(&q), 4);
    let again = Queue::verify(&q.to_bytes()).unwrap();
    assert_eq!(again.body_status(&q.render_body()), BodyStatus::Current);
}

#[test]
fn a_semantics_2_entry_renders_as_it_was_recorded() {
    let mut old = basic();
    let args = Args::Note(NoteArgs {
        id: 2,
        text: Some("[y]".into()),
    });
    old.append_entry(args, "jason-note-2", "jason", AT, 2)
        .unwrap();
    let body = old.render_body();
    assert!(body.contains("| [y] |"), "{body}");
    let again = Queue::verify(&old.to_bytes()).unwrap();
    assert_eq!(again.body_status(&body), BodyStatus::Current);
    // Its next write moves the queue to 4, and the old text is escaped from then on.
    let mut again = again;
    again
        .execute(&note(1, "next"), "jason-note-3", "jason", AT)
        .unwrap();
    assert_eq!(last_semantics(&again), 4);
    assert!(again.render_body().contains("| \\[y\\] |"));
}

/// A manifest listing `n` files.
fn manifest_text(n: usize) -> String {
    (0..n)
        .map(|i| format!("{} src/file{i}.rs\n", "a".repeat(64)))
        .collect()
}

fn to_review(text: &str) -> MoveArgs {
    MoveArgs {
        id: 1,
        to: Status::InReview,
        reason: None,
        candidate: Some(manifest::digest(text)),
        manifest: Some(text.to_owned()),
        issue: None,
        evidence: None,
        lease: None,
    }
}

#[test]
fn a_manifest_is_stored_once_and_found_from_its_round() {
    let text = manifest_text(3);
    let line = "src/file2.rs";
    let mut q = basic();
    q.execute(
        &Command::Move(to_review(&text)),
        "darkwing-1-review",
        "darkwing",
        AT,
    )
    .unwrap();
    assert_eq!(last_semantics(&q), 4);
    let bytes = String::from_utf8(q.to_bytes()).unwrap();
    assert_eq!(bytes.matches(line).count(), 1, "{bytes}");
    let round = &q.state().row(1).unwrap().review.as_ref().unwrap().rounds[0];
    assert_eq!(round.manifest, None);
    assert_eq!(q.round_manifest(round), Some(text.as_str()));
    let again = Queue::verify(bytes.as_bytes()).unwrap();
    assert_eq!(again.rows(), q.rows());

    // Written under semantics 2 (files in the field), the text is in both places and replays.
    let mut old = basic();
    old.append_entry(
        Args::Move(Box::new(to_review(&text))),
        "darkwing-1-review",
        "darkwing",
        AT,
        2,
    )
    .unwrap();
    let bytes = String::from_utf8(old.to_bytes()).unwrap();
    assert_eq!(bytes.matches(line).count(), 2);
    let again = Queue::verify(bytes.as_bytes()).unwrap();
    let round = &again
        .state()
        .row(1)
        .unwrap()
        .review
        .as_ref()
        .unwrap()
        .rounds[0];
    assert_eq!(again.round_manifest(round), Some(text.as_str()));
}

#[test]
fn semantics_4_entries_meet_the_rules_for_new_entries_on_replay() {
    let mut q = basic();
    let args = Args::Note(NoteArgs {
        id: 1,
        text: Some("zero\u{200b}width".into()),
    });
    let err = q
        .append_entry(args.clone(), "jason-note-1", "jason", AT, 4)
        .unwrap_err();
    assert_eq!(err.kind(), "invisible-character");
    // The same entry under semantics 2 predates the rule.
    q.append_entry(args, "jason-note-1", "jason", AT, 2)
        .unwrap();
    Queue::verify(&q.to_bytes()).unwrap();
}
