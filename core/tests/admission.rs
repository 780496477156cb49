//! The rules a new entry meets through the core's write path: invisible characters, the wider
//! credential rule (op ids and manifest paths included), list and manifest caps, refusals
//! that never repeat a secret; and entries written before these rules still replay.

mod common;

use mosaic_queue_core::{
    Args, Command, MoveArgs, NewRow, NoteArgs, Queue, SetArgs, SetField, SetValue, Status, manifest,
};

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

/// Applies `command` as `op` by `by` and expects a refusal of `kind` whose one-line message
/// does not hold `secret`, with the bytes unchanged. Returns the message.
#[track_caller]
fn refused(
    q: &mut Queue,
    command: &Command,
    op: &str,
    by: &str,
    kind: &str,
    secret: &str,
) -> String {
    let before = q.to_bytes();
    let err = q.execute(command, op, by, AT).unwrap_err();
    assert_eq!(err.kind(), kind, "{command:?}: {err}");
    let message = err.to_string();
    assert!(secret.is_empty() || !message.contains(secret), "{message}");
    assert!(!message.contains('\n'), "{message}");
    assert_eq!(q.to_bytes(), before);
    message
}

#[test]
fn invisible_characters_are_refused_in_every_table_text() {
    let mut q = basic();
    for c in [
        '\u{2028}',
        '\u{2029}',
        '\u{202a}',
        '\u{202b}',
        '\u{202c}',
        '\u{202d}',
        '\u{202e}',
        '\u{2066}',
        '\u{2067}',
        '\u{2068}',
        '\u{2069}',
        '\u{200b}',
        '\u{200c}',
        '\u{200d}',
        '\u{2060}',
        '\u{feff}',
        '\u{ad}',
        '\u{180e}',
        '\u{e0041}',
    ] {
        let text = format!("before{c}after");
        let m = refused(
            &mut q,
            &note(1, &text),
            "jason-note-1",
            "jason",
            "invisible-character",
            "",
        );
        let code = u32::from(c);
        assert!(
            m.starts_with(&format!("note contains U+{code:04X} (")),
            "{m}"
        );
        let add = Command::Add(NewRow {
            piece: text.clone(),
            owner: None,
            status: Status::Queued,
            gate: None,
            issues: vec![],
            reviewers: vec![],
            brief: None,
            note: None,
            after: vec![],
        });
        refused(
            &mut q,
            &add,
            "jason-add-1",
            "jason",
            "invisible-character",
            "",
        );
    }
    // Visible non-ASCII text is fine.
    q.execute(&note(1, "naïve — 日本 🦆"), "jason-note-ok", "jason", AT)
        .unwrap();
}

#[test]
fn the_wider_credential_rule_refuses_without_echoing_the_secret() {
    let mut q = basic();
    for secret in [
        "https://bob:hunter2hunter2@git.example.org/r",
        "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
        "npm_abcdefghijklmnopqrstuvwxyz0123456789",
        "pwd=hunter2",
        "password=hunter2",
        "ghp_abcdefghijklmnopqrstuvwxyz0123",
    ] {
        let text = format!("see {secret}");
        let m = refused(
            &mut q,
            &note(1, &text),
            "jason-note-1",
            "jason",
            "credential-like",
            secret,
        );
        assert!(
            m.starts_with("note looks like it holds a credential ("),
            "{m}"
        );
    }
    // An op id that looks like a token: refused, and not repeated.
    for op in [
        "glpat-abcdefghijklmnopqrst",
        "npm_abcdefghijklmnopqrstuvwxyz0123456789",
        "x-3f2a9c0d1e2b3a4f5e6d7c8b9a0f",
    ] {
        refused(&mut q, &note(1, "fine"), op, "jason", "op-token-like", op);
    }
    // Upper case makes it no op id at all; the refusal still does not repeat it.
    let m = refused(
        &mut q,
        &note(1, "fine"),
        "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123",
        "jason",
        "invalid-op",
        "ABCDEFGHIJ",
    );
    assert!(
        m.starts_with("op id (not shown: it looks like a credential) is invalid"),
        "{m}"
    );
    // So is an actor name that is no seat name.
    let m = refused(
        &mut q,
        &note(1, "fine"),
        "jason-note-1",
        "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
        "invalid-actor",
        "4eC39HqLyjWDarjtT1zdp7dc",
    );
    assert!(m.starts_with("actor (not shown"), "{m}");
    // A plain invalid op id is still quoted, as before.
    let m = refused(
        &mut q,
        &note(1, "fine"),
        "Bad Op",
        "jason",
        "invalid-op",
        "",
    );
    assert!(m.starts_with("op id \"Bad Op\" is invalid"), "{m}");
}

#[test]
fn row_lists_are_capped() {
    let mut q = basic();
    let issues = |n: u64| {
        Command::Set(SetArgs {
            id: 1,
            field: SetField::Issues,
            value: SetValue::Numbers((1..=n).collect()),
            reason: None,
        })
    };
    let m = refused(
        &mut q,
        &issues(65),
        "jason-issues-65",
        "jason",
        "list-too-long",
        "",
    );
    assert_eq!(
        m,
        "issues lists 65 entries; a row holds at most 64 (split the work over more rows)"
    );
    q.execute(&issues(64), "jason-issues-64", "jason", AT)
        .unwrap();
    let seats: Vec<String> = (0..17).map(|i| format!("seat{i}")).collect();
    let reviewers = |n: usize| {
        Command::Set(SetArgs {
            id: 1,
            field: SetField::Reviewers,
            value: SetValue::Seats(seats[..n].to_vec()),
            reason: None,
        })
    };
    refused(
        &mut q,
        &reviewers(17),
        "jason-rev-17",
        "jason",
        "list-too-long",
        "",
    );
    q.execute(&reviewers(16), "jason-rev-16", "jason", AT)
        .unwrap();
    Queue::verify(&q.to_bytes()).unwrap();
}

#[test]
fn entries_written_before_the_rules_still_replay_and_retry() {
    let mut q = basic();
    for (op, text) in [
        ("jason-note-a", "zero\u{200b}width"),
        ("jason-note-b", "pwd=hunter2"),
        ("jason-note-c", "https://u:p@h/x"),
    ] {
        let args = Args::Note(NoteArgs {
            id: 1,
            text: Some(text.into()),
        });
        q.append_entry(args, op, "jason", AT, 2).unwrap();
    }
    let issues = Args::Set(Box::new(SetArgs {
        id: 1,
        field: SetField::Issues,
        value: SetValue::Numbers((1..=100).collect()),
        reason: None,
    }));
    q.append_entry(issues, "jason-issues-100", "jason", AT, 2)
        .unwrap();
    let bytes = q.to_bytes();
    let mut again = Queue::verify(&bytes).unwrap();
    assert_eq!(again.rows(), q.rows());
    // A retry of a recorded op answers with its receipt; only new entries meet the rules.
    let retried = again
        .execute(&note(1, "pwd=hunter2"), "jason-note-b", "jason", AT)
        .unwrap();
    assert!(matches!(
        retried,
        mosaic_queue_core::Outcome::Recorded { .. }
    ));
    assert_eq!(again.to_bytes(), bytes);
}

/// A manifest listing `n` files.
fn manifest_text(n: usize) -> String {
    (0..n)
        .map(|i| format!("{} src/file{i}.rs\n", "a".repeat(64)))
        .collect()
}

fn to_review(text: &str) -> Command {
    Command::Move(MoveArgs {
        id: 1,
        to: Status::InReview,
        reason: None,
        candidate: Some(manifest::digest(text)),
        manifest: Some(text.to_owned()),
        issue: None,
        evidence: None,
        lease: None,
    })
}

#[test]
fn manifests_over_the_cap_or_holding_a_credential_are_refused() {
    let mut q = basic();
    // 4 MiB and a little more.
    let big = manifest_text(manifest::MAX_BYTES / 80 + 2_000);
    assert!(big.len() > manifest::MAX_BYTES);
    let m = refused(
        &mut q,
        &to_review(&big),
        "darkwing-1-review",
        "darkwing",
        "manifest-too-large",
        "",
    );
    assert_eq!(
        m,
        format!(
            "the manifest is {} bytes; a manifest holds at most 4 MiB (4194304 bytes): list fewer files, or name a commit as the candidate",
            big.len()
        )
    );
    let secret = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";
    let text = format!("{} src/{secret}.rs\n", "b".repeat(64));
    let m = refused(
        &mut q,
        &to_review(&text),
        "darkwing-1-review",
        "darkwing",
        "manifest-credential",
        secret,
    );
    assert!(
        m.starts_with("the manifest's path at line 1 looks like"),
        "{m}"
    );
    let text = format!("{} src/a\u{202e}b.rs\n", "b".repeat(64));
    let m = refused(
        &mut q,
        &to_review(&text),
        "darkwing-1-review",
        "darkwing",
        "manifest-invisible-character",
        "",
    );
    assert!(
        m.starts_with("the manifest's path at line 1 contains U+202E"),
        "{m}"
    );
    q.execute(
        &to_review(&manifest_text(2)),
        "darkwing-1-review",
        "darkwing",
        AT,
    )
    .unwrap();
}

#[test]
fn genesis_meets_the_rules_too() {
    let sc = common::load_scenario("basic");
    let g = &sc.genesis;
    let mut args = g.args.clone();
    args.rows[1].note = Some("pwd=hunter2hunter2".into());
    let err = Queue::genesis(args, &g.op, &g.by, &g.at).unwrap_err();
    assert_eq!(err.kind(), "credential-like");
    assert!(!err.to_string().contains("hunter2"), "{err}");
    let mut args = g.args.clone();
    args.legacy_view
        .push_str("| 9 | x | | queued | | | token=abc |\n");
    let err = Queue::genesis(args, &g.op, &g.by, &g.at).unwrap_err();
    assert_eq!(err.kind(), "credential-like");
}
