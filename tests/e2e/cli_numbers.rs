//! Numbers queue.json could not hold (above 2^53-1, the reader's limit), wherever they enter:
//! every numeric field of every verb on the command line, the migration map, and a Gitea that
//! answers a POST with an id the queue cannot record. Each is refused before anything is
//! written, every queue file stays byte-identical, and the queue still verifies.

use support::fake_gitea::{Answer, Endpoint};
use support::review::{
    OP, attempt_json, look_on_issue, printed, ready, receipts, to_review, uncertain_line,
};
use support::{Repo, change};

/// 2^53: the first integer JavaScript cannot hold exactly.
const BIG: &str = "9007199254740992";
const DIGEST: &str = "git:0123456789abcdef0123456789abcdef01234567";

/// The one line for `value` in `field`; `--evidence comment=` is followed by the value itself.
fn refusal(field: &str, value: &str) -> String {
    let gap = if field.ends_with('=') { "" } else { " " };
    format!(
        "mosaic-queue: refused: {field}{gap}{value} is above 9007199254740991 (2^53-1), the largest number queue.json can hold; give the real number"
    )
}

/// Every numeric field of every verb, with `value` in it: the arguments and the field the
/// refusal names.
fn cases(value: &str) -> Vec<(Vec<String>, String)> {
    let evidence = |comment: &str, round: &str| {
        format!(
            "comment={comment},round={round},candidate=sha256:{}",
            "a".repeat(64)
        )
    };
    let changes: Vec<(Vec<&str>, &str)> = vec![
        (vec!["move", value, "in-progress"], "row id"),
        (
            vec![
                "move",
                "1",
                "in-review",
                "--candidate",
                "HEAD",
                "--issue",
                value,
            ],
            "--issue",
        ),
        (vec!["release", value], "row id"),
        (vec!["assign", value, "darkwing"], "row id"),
        (vec!["note", value, "text"], "row id"),
        (vec!["set", value, "piece", "text"], "row id"),
        (vec!["set", "1", "issues", value], "issues"),
        (vec!["set", "1", "closes", value], "closes"),
        (
            vec!["add", "--piece", "text", "--issues", value],
            "--issues",
        ),
        (vec!["review", "request", value], "row id"),
        (
            vec![
                "review",
                "resolve",
                value,
                "darkwing-1-review",
                "--comment",
                "7",
            ],
            "row id",
        ),
        (
            vec![
                "review",
                "resolve",
                "1",
                "darkwing-1-review",
                "--comment",
                value,
            ],
            "--comment",
        ),
        (
            vec![
                "review",
                "abandon",
                value,
                "darkwing-1-review",
                "--reason",
                "gone",
                "--yes",
            ],
            "row id",
        ),
        (
            vec![
                "review",
                "record",
                value,
                "--verdict",
                "approve",
                "--comment",
                "7",
                "--candidate",
                DIGEST,
            ],
            "row id",
        ),
        (
            vec![
                "review",
                "record",
                "1",
                "--verdict",
                "approve",
                "--comment",
                value,
                "--candidate",
                DIGEST,
            ],
            "--comment",
        ),
    ];
    let mut all: Vec<(Vec<String>, String)> = changes
        .into_iter()
        .map(|(args, field)| {
            let full = change(&args, "jason-numbers-1", "jason");
            (full.iter().map(|s| s.to_string()).collect(), field.into())
        })
        .collect();
    // Several numbers in one list: the large one is refused even after good ones.
    let list = format!("12,#{value}");
    for (args, field) in [
        (vec!["set", "1", "issues", &list], "issues"),
        (
            vec!["add", "--piece", "text", "--issues", &list],
            "--issues",
        ),
    ] {
        let full = change(&args, "jason-numbers-2", "jason");
        all.push((full.iter().map(|s| s.to_string()).collect(), field.into()));
    }
    for (ev, field) in [
        (evidence(value, "1"), "--evidence comment="),
        (evidence("7", value), "--evidence round="),
    ] {
        let args = ["move", "1", "done", "--evidence", &ev];
        let full = change(&args, "jason-numbers-3", "jason");
        all.push((full.iter().map(|s| s.to_string()).collect(), field.into()));
    }
    // Row ids in lists go through the same parser as every other row id.
    let after = format!("1,{value}");
    for (args, field) in [
        (vec!["add", "--piece", "text", "--after", &after], "--after"),
        (vec!["set", "2", "after", &after], "after"),
    ] {
        let full = change(&args, "jason-numbers-4", "jason");
        all.push((full.iter().map(|s| s.to_string()).collect(), field.into()));
    }
    // The read verbs take ids too, and every one reads them alike.
    for (args, field) in [
        (vec!["show", value], "row id"),
        (vec!["review", "verify-commit", value, "HEAD"], "row id"),
        (vec!["wait", value, "--status", "done"], "row id"),
        (vec!["log", value], "row id"),
        (vec!["wait", "--revision-after", value], "--revision-after"),
        (vec!["log", "--limit", value], "--limit"),
    ] {
        all.push((args.iter().map(|s| s.to_string()).collect(), field.into()));
    }
    all
}

#[test]
fn every_numeric_field_refuses_2_pow_53_and_leaves_every_file_as_it_was() {
    let repo = Repo::new("numbers");
    let before = repo.snapshot();
    let mut seen = 0;
    for (args, field) in cases(BIG) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = repo.run(&args, &[]);
        assert_eq!(out.fails(2), refusal(&field, BIG), "{args:?}");
        repo.assert_unchanged(&before);
        seen += 1;
    }
    assert_eq!(seen, 27);
    // With --json, the same line and the error object.
    let out = repo.run(&["show", BIG, "--json"], &[]);
    let line = refusal("row id", BIG);
    let message = line.strip_prefix("mosaic-queue: ").unwrap();
    assert_eq!(
        (out.code, out.stderr.as_str(), out.stdout.as_str()),
        (
            2,
            format!("{line}\n").as_str(),
            format!(
                "{{\n  \"error\": {{\n    \"exit\": 2,\n    \"kind\": \"invalid-value\",\n    \"message\": \"{message}\",\n    \"next\": \"give the real number\",\n    \"retryable\": false\n  }}\n}}\n"
            )
            .as_str()
        )
    );
    let out = repo.run(&["verify", "--current"], &[]);
    assert_eq!(
        out.ok(),
        "ok verify rev 1 (1 entries, witness rev 1), table current\n"
    );
}

#[test]
fn numbers_past_u64_and_long_digit_strings_are_refused_the_same_way() {
    let repo = Repo::new("numbers-huge");
    let before = repo.snapshot();
    let huge = "18446744073709551616";
    for (args, field) in cases(huge) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = repo.run(&args, &[]);
        let line = out.fails(2);
        assert!(
            line.starts_with("mosaic-queue: refused: "),
            "{args:?}: {line}"
        );
        assert!(line.contains(&field), "{args:?}: {line}");
        assert!(line.contains(huge), "{args:?}: {line}");
        repo.assert_unchanged(&before);
    }
    // A long one is quoted in part, in every verb that takes a row id.
    let long = "9".repeat(5000);
    for args in [
        vec!["show", &long],
        vec!["wait", &long, "--status", "done"],
        vec!["log", &long],
    ] {
        let out = repo.run(&args, &[]);
        assert_eq!(
            out.fails(2),
            refusal("row id", &format!("{}… (5000 digits)", "9".repeat(40)))
        );
    }
    // The largest number the queue holds is a number like any other: no such row.
    let out = repo.run(&["show", "9007199254740991"], &[]);
    assert_eq!(
        out.fails(2),
        "mosaic-queue: refused: no row 9007199254740991 in the queue; `mosaic-queue list` shows the rows"
    );
    repo.assert_unchanged(&before);
    repo.run(&["verify"], &[]).ok();
}

#[test]
fn a_map_with_a_number_the_queue_cannot_hold_refuses_genesis() {
    for (cell, why) in [
        (
            format!("| {BIG} | Parser | darkwing | queued | | #12 | first |"),
            format!(
                "row number {BIG} is above 9007199254740991 (2^53-1), the largest number queue.json can hold"
            ),
        ),
        (
            format!("| 1 | Parser | darkwing | queued | | #12, #{BIG} | first |"),
            format!(
                "issue #{BIG} is above 9007199254740991 (2^53-1), the largest number queue.json can hold"
            ),
        ),
    ] {
        let repo = Repo::bare("numbers-map");
        let map = repo.map_path();
        let text = std::fs::read_to_string(&map).unwrap();
        let good = "| 1 | Parser | darkwing | queued | | #12, #14 | first |";
        assert!(text.contains(good));
        std::fs::write(&map, text.replace(good, &cell)).unwrap();
        let before = repo.snapshot();
        let out = repo.genesis();
        let line = out.fails(2);
        assert!(
            line.starts_with("mosaic-queue: the migration map is invalid: line ")
                && line.ends_with(&why),
            "{line}"
        );
        repo.assert_unchanged(&before);
        assert!(!repo.path("docs/plans/queue.json").exists());
    }
}

#[test]
fn a_201_whose_id_the_queue_cannot_hold_is_uncertain_never_posted() {
    for (body, seen) in [
        (
            format!(r#"{{"id":{BIG},"body":"x"}}"#),
            format!("the id {BIG}"),
        ),
        (
            r#"{"id":9007199254740993,"body":"x"}"#.to_owned(),
            "the id 9007199254740993".to_owned(),
        ),
        (r#"{"id":-1,"body":"x"}"#.to_owned(), "the id -1".to_owned()),
        (r#"{"id":0,"body":"x"}"#.to_owned(), "the id 0".to_owned()),
    ] {
        let (r, candidate) = ready("numbers-gitea");
        r.fake
            .script(Endpoint::PostComment, Answer::Raw(201, body.clone()));
        let out = r.run(&to_review(&candidate), OP, "darkwing");
        let [moved, outcome] = receipts("uncertain http 201");
        let line = printed(&out, 3, &[&moved, &outcome]);
        assert_eq!(
            line,
            uncertain_line(&format!(
                "201 with {seen}, not a positive integer comment id"
            )),
            "{body}"
        );
        assert!(line.ends_with(&look_on_issue(1, OP, 12)));
        assert_eq!(
            r.attempt(1, 1, 1),
            attempt_json(
                OP,
                "darkwing",
                "uncertain",
                Some(201),
                Some("post-created-without-id"),
                None
            ),
            "{body}"
        );
        assert_eq!(r.fake.posts(), 1);
        // The file holds nothing the reader refuses: it verifies, and a retry answers from it.
        r.repo.run(&["verify", "--current"], &[]).ok();
        let queue = r.repo.read("docs/plans/queue.json");
        assert!(!queue.contains("9007199254740992") && !queue.contains("9007199254740993"));
        let again = r.run(&to_review(&candidate), OP, "darkwing");
        printed(&again, 3, &[&moved, &outcome]);
        assert_eq!(r.fake.posts(), 1, "a retry posts nothing");
    }
}
