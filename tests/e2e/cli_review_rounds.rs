//! Review rounds end to end: verdicts once per reviewer per round on the round's candidate,
//! fresh approvals for a new round, unresolved requests blocking a new request, a new round,
//! waiting-on-jason and done; rows without reviewers (nothing posted, done needs --evidence);
//! and the review's issue by lead decision 23.

use sha2::{Digest, Sha256};
use support::fake_gitea::{Answer, Endpoint};
use support::review::{OP, Review, git, printed, ready, to_review};

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `review record 1 --verdict V --comment N --candidate C`.
fn record<'a>(verdict: &'a str, comment: &'a str, candidate: &'a str) -> Vec<&'a str> {
    vec![
        "review",
        "record",
        "1",
        "--verdict",
        verdict,
        "--comment",
        comment,
        "--candidate",
        candidate,
    ]
}

/// The refusal while `attempt` on row 1 is unresolved in `state`.
fn unresolved(attempt: &str, state: &str) -> String {
    format!(
        "mosaic-queue: refused: row 1 has an unresolved request: {attempt} is {state} on issue #12; look there for a comment carrying <!-- mosaic-queue-op: {attempt} -->, then run `review resolve 1 {attempt} --comment N`, or have jason or sage run `review abandon 1 {attempt} --reason TEXT --yes`"
    )
}

fn not_approved(round: u32, missing: &str) -> String {
    format!(
        "mosaic-queue: refused: row 1 round {round} lacks approval from {missing}; each reviewer runs `review record`"
    )
}

#[test]
fn verdicts_are_once_per_reviewer_per_round_and_a_new_round_needs_fresh_approvals() {
    let r = Review::new("verdicts");
    // The owner is listed too: it can't record, and its approval is never needed.
    r.ok(
        &["set", "1", "reviewers", "darkwing,flicker,pixel"],
        "sage-1-reviewers",
        "sage",
        "ok sage-1-reviewers rev 2 set 1 reviewers",
    );
    r.ok(
        &["move", "1", "in-progress"],
        "darkwing-1-start",
        "darkwing",
        "ok darkwing-1-start rev 3 move 1 queued -> in-progress",
    );
    let head = r.head();
    let one = git(&head);
    let out = r.run(&to_review(&head), OP, "darkwing");
    assert_eq!(out.code, 0, "{}", out.stderr);
    let body = &r.fake.comments()[0].body;
    assert!(body.contains("@flicker, @pixel") && !body.contains("@darkwing"));

    r.refused(
        &record("approve", "4101", &one),
        "darkwing-1-verdict",
        "darkwing",
        2,
        "mosaic-queue: refused: darkwing may not record a verdict on row 1: a listed reviewer other than the owner",
    );
    r.refused(
        &record("approve", "4101", &one),
        "sage-1-verdict",
        "sage",
        2,
        "mosaic-queue: refused: sage may not record a verdict on row 1: a listed reviewer other than the owner",
    );
    let zeros = format!("git:{}", "0".repeat(40));
    r.refused(
        &record("approve", "4101", &zeros),
        "flicker-1-verdict-0",
        "flicker",
        2,
        &format!(
            "mosaic-queue: refused: --candidate {zeros} is not row 1 round 1's candidate {one}"
        ),
    );
    r.ok(
        &record("approve", "4101", &one),
        "flicker-1-verdict-1",
        "flicker",
        "ok flicker-1-verdict-1 rev 6 review record 1 round 1 approve comment 4101",
    );
    r.refused(
        &record("changes", "4102", &one),
        "flicker-1-verdict-2",
        "flicker",
        2,
        "mosaic-queue: refused: flicker already recorded a verdict on row 1 round 1; one per reviewer per round",
    );
    r.ok(
        &record("changes", "4103", &one),
        "pixel-1-verdict-1",
        "pixel",
        "ok pixel-1-verdict-1 rev 7 review record 1 round 1 changes comment 4103",
    );
    for (to, op) in [
        ("waiting-on-jason", "darkwing-1-wait"),
        ("done", "darkwing-1-done"),
    ] {
        r.refused(
            &["move", "1", to],
            op,
            "darkwing",
            2,
            &not_approved(1, "pixel"),
        );
    }
    assert_eq!(
        r.round(1, 1)["verdicts"],
        serde_json::json!([
            {"by": "flicker", "verdict": "approve", "comment": 4101, "candidate": one},
            {"by": "pixel", "verdict": "changes", "comment": 4103, "candidate": one},
        ])
    );

    // Changes requested: round 2 freezes a manifest candidate and keeps issue #12.
    r.ok(
        &["move", "1", "in-progress"],
        "darkwing-1-rework",
        "darkwing",
        "ok darkwing-1-rework rev 8 move 1 in-review -> in-progress",
    );
    r.next_commit("fix.rs");
    let manifest = format!("{} fix.rs\n", sha256_hex(b"fix.rs\n"));
    r.repo.write("review.manifest", &manifest);
    let two = format!("sha256:{}", sha256_hex(manifest.as_bytes()));
    let op = "darkwing-1-review-2";
    let out = r.run(
        &["move", "1", "in-review", "--candidate", "review.manifest"],
        op,
        "darkwing",
    );
    printed(
        &out,
        0,
        &[
            &format!("ok {op} rev 9 move 1 in-progress -> in-review round 2 request on #12"),
            &format!("ok {op}.outcome rev 10 review 1 round 2 {op} posted http 201 comment 4002"),
        ],
    );
    assert_eq!(r.fake.posts(), 2);
    let round = r.round(1, 2);
    assert_eq!(
        (&round["candidate"], &round["manifest"], &round["issue"]),
        (&two.clone().into(), &serde_json::Value::Null, &12.into())
    );
    // Semantics 4 stores the manifest's text once: in the args of the move that opened the
    // round, which is written under 4.
    let queue = r.repo.queue();
    let opened = &queue["log"][8];
    assert_eq!(
        (
            &opened["op"],
            &opened["semantics"],
            &opened["args"]["manifest"]
        ),
        (&op.into(), &4.into(), &manifest.clone().into())
    );
    let marker = format!("<!-- mosaic-queue-round: 1 2 {two} -->");
    assert!(r.fake.comments()[1].body.lines().any(|l| l == marker));

    // Round 1's verdicts do not carry over, nor does its candidate.
    r.refused(
        &record("approve", "4104", &one),
        "flicker-1-verdict-3",
        "flicker",
        2,
        &format!("mosaic-queue: refused: --candidate {one} is not row 1 round 2's candidate {two}"),
    );
    r.refused(
        &["move", "1", "waiting-on-jason"],
        "darkwing-1-wait-2",
        "darkwing",
        2,
        &not_approved(2, "flicker, pixel"),
    );
    r.ok(
        &record("approve", "4104", &two),
        "flicker-1-verdict-4",
        "flicker",
        "ok flicker-1-verdict-4 rev 11 review record 1 round 2 approve comment 4104",
    );
    r.refused(
        &["move", "1", "done"],
        "darkwing-1-done-2",
        "darkwing",
        2,
        &not_approved(2, "pixel"),
    );
    r.ok(
        &record("approve", "4105", &two),
        "pixel-1-verdict-2",
        "pixel",
        "ok pixel-1-verdict-2 rev 12 review record 1 round 2 approve comment 4105",
    );
    // A request round is closed by approvals, never by evidence.
    let evidence = format!("comment=4002,round=2,candidate={two}");
    r.refused(
        &["move", "1", "done", "--evidence", &evidence],
        "darkwing-1-done-3",
        "darkwing",
        2,
        "mosaic-queue: refused: --evidence applies only to a move from in-review to done; drop it",
    );
    r.ok(
        &["move", "1", "waiting-on-jason"],
        "darkwing-1-wait-3",
        "darkwing",
        "ok darkwing-1-wait-3 rev 13 move 1 in-review -> waiting-on-jason",
    );
    r.refused(
        &["move", "1", "done"],
        "darkwing-1-done-4",
        "darkwing",
        2,
        "mosaic-queue: refused: darkwing may not move row 1 from waiting-on-jason to done: jason only",
    );
    r.ok(
        &["move", "1", "done"],
        "jason-1-done",
        "jason",
        "ok jason-1-done rev 14 move 1 waiting-on-jason -> done",
    );
    assert_eq!(r.fake.posts(), 2);
}

#[test]
fn an_unresolved_request_blocks_a_request_a_round_waiting_on_jason_and_done() {
    let (r, head) = ready("blocks");
    let one = git(&head);
    r.fake.script(Endpoint::PostComment, Answer::Status(500));
    let out = r.run(&to_review(&head), OP, "darkwing");
    assert_eq!(out.code, 3, "{}", out.stderr);
    // Approvals recorded while the request is unresolved still leave the row blocked.
    r.ok(
        &record("approve", "4101", &one),
        "flicker-1-verdict",
        "flicker",
        "ok flicker-1-verdict rev 6 review record 1 round 1 approve comment 4101",
    );
    r.ok(
        &record("approve", "4102", &one),
        "pixel-1-verdict",
        "pixel",
        "ok pixel-1-verdict rev 7 review record 1 round 1 approve comment 4102",
    );
    let blocked = unresolved(OP, "uncertain");
    let cases: [(&[&str], &str, &str); 4] = [
        (
            &["review", "request", "1"],
            "darkwing-1-request-2",
            "darkwing",
        ),
        (
            &["move", "1", "waiting-on-jason"],
            "darkwing-1-wait",
            "darkwing",
        ),
        (&["move", "1", "done"], "darkwing-1-done", "darkwing"),
        (&["move", "1", "done"], "sage-1-done", "sage"),
    ];
    for (args, op, by) in cases {
        r.refused(args, op, by, 2, &blocked);
    }
    r.ok(
        &["move", "1", "in-progress"],
        "darkwing-1-rework",
        "darkwing",
        "ok darkwing-1-rework rev 8 move 1 in-review -> in-progress",
    );
    let next = r.next_commit("fix.rs");
    r.refused(
        &["move", "1", "in-review", "--candidate", &next],
        "darkwing-1-review-2",
        "darkwing",
        2,
        &blocked,
    );
    assert_eq!(r.fake.posts(), 1);

    // Abandoned, the attempt no longer blocks: round 2 posts, and needs its own approvals.
    r.ok(
        &["review", "abandon", "1", OP, "--reason", "not on #12", "--yes"],
        "sage-1-abandon",
        "sage",
        &format!(
            "ok sage-1-abandon rev 9 review abandon 1 round 1 {OP} uncertain -> abandoned (duplicate risk)"
        ),
    );
    let op = "darkwing-1-review-2";
    let out = r.run(
        &["move", "1", "in-review", "--candidate", &next],
        op,
        "darkwing",
    );
    printed(
        &out,
        0,
        &[
            &format!("ok {op} rev 10 move 1 in-progress -> in-review round 2 request on #12"),
            &format!("ok {op}.outcome rev 11 review 1 round 2 {op} posted http 201 comment 4001"),
        ],
    );
    assert_eq!(r.fake.posts(), 2);
    r.refused(
        &["move", "1", "done"],
        "darkwing-1-done-2",
        "darkwing",
        2,
        &not_approved(2, "flicker, pixel"),
    );
    let two = git(&next);
    for (by, comment, rev) in [("flicker", "4103", 12), ("pixel", "4104", 13)] {
        let op = format!("{by}-1-verdict-2");
        r.ok(
            &record("approve", comment, &two),
            &op,
            by,
            &format!("ok {op} rev {rev} review record 1 round 2 approve comment {comment}"),
        );
    }
    r.ok(
        &["move", "1", "done"],
        "darkwing-1-done-3",
        "darkwing",
        "ok darkwing-1-done-3 rev 14 move 1 in-review -> done",
    );
}

#[test]
fn a_row_without_reviewers_posts_nothing_and_done_needs_evidence() {
    let r = Review::new("silent");
    r.ok(
        &["move", "2", "in-progress"],
        "darkwing-2-start",
        "darkwing",
        "ok darkwing-2-start rev 2 move 2 queued -> in-progress",
    );
    let head = r.head();
    let candidate = git(&head);
    // No Gitea variables at all: a round that posts nothing never needs them.
    let none = [
        ("MOSAIC_GITEA_URL", ""),
        ("MOSAIC_GITEA_REPO", ""),
        ("MOSAIC_GITEA_CREDENTIAL_FILE", ""),
    ];
    let out = r.run_with(
        &["move", "2", "in-review", "--candidate", &head],
        "darkwing-2-review",
        "darkwing",
        &none,
    );
    printed(
        &out,
        0,
        &["ok darkwing-2-review rev 3 move 2 in-progress -> in-review round 1"],
    );
    assert_eq!((r.fake.connections(), r.fake.posts()), (0, 0));
    let round = r.round(2, 1);
    assert_eq!(
        (&round["requested"], &round["attempts"], &round["candidate"]),
        (
            &false.into(),
            &serde_json::json!([]),
            &candidate.clone().into()
        )
    );
    r.refused(
        &["review", "request", "2"],
        "darkwing-2-request",
        "darkwing",
        2,
        "mosaic-queue: refused: row 2 round 1 posts no request (the row had no reviewers when it opened); nothing to request",
    );
    r.refused(
        &["move", "2", "done"],
        "darkwing-2-done-0",
        "darkwing",
        2,
        "mosaic-queue: refused: moving row 2 to done from a round that posted nothing needs --evidence comment=<id>,round=<n>,candidate=<digest>",
    );
    // Round 2 freezes the same candidate: round 1's evidence still can't close it.
    r.ok(
        &["move", "2", "in-progress"],
        "darkwing-2-rework",
        "darkwing",
        "ok darkwing-2-rework rev 4 move 2 in-review -> in-progress",
    );
    let out = r.run_with(
        &["move", "2", "in-review", "--candidate", &head],
        "darkwing-2-review-2",
        "darkwing",
        &none,
    );
    printed(
        &out,
        0,
        &["ok darkwing-2-review-2 rev 5 move 2 in-progress -> in-review round 2"],
    );
    let zeros = format!("git:{}", "0".repeat(40));
    let wrong = [
        (
            format!("comment=9,round=1,candidate={candidate}"),
            "round= is not the current round",
        ),
        (
            format!("comment=9,round=2,candidate={zeros}"),
            "candidate= is not the current round's candidate",
        ),
    ];
    for (n, (evidence, why)) in wrong.iter().enumerate() {
        r.refused(
            &["move", "2", "done", "--evidence", evidence],
            &format!("darkwing-2-done-{}", n + 1),
            "darkwing",
            2,
            &format!(
                "mosaic-queue: refused: --evidence does not match row 2's current round: {why}"
            ),
        );
    }
    let evidence = format!("comment=9,round=2,candidate={candidate}");
    r.ok(
        &["move", "2", "done", "--evidence", &evidence],
        "darkwing-2-done",
        "darkwing",
        "ok darkwing-2-done rev 6 move 2 in-review -> done",
    );
    assert_eq!(r.fake.connections(), 0);
}

#[test]
fn the_reviews_issue_follows_lead_decision_23() {
    let r = Review::new("issues");
    r.row1_in_progress();
    let head = r.head();
    let review = |extra: &[&'static str]| {
        let mut v = vec!["move", "1", "in-review", "--candidate", head.as_str()];
        v.extend_from_slice(extra);
        v
    };
    r.refused(
        &review(&[]),
        "darkwing-1-review-0",
        "darkwing",
        2,
        "mosaic-queue: refused: row 1 has several issues (#12, #14); name one with --issue N",
    );
    r.refused(
        &review(&["--issue", "20"]),
        "darkwing-1-review-0",
        "darkwing",
        2,
        "mosaic-queue: refused: issue #20 is not among row 1's issues (#12, #14); name one of them with --issue N",
    );
    assert_eq!(r.fake.connections(), 0);

    // Each round: its receipts name the issue, and the POST goes there.
    let round = |args: Vec<&str>, op: &str, rev: u64, n: u32, issue: u64| {
        let out = r.run(&args, op, "darkwing");
        let id = 4000 + u64::from(n);
        printed(
            &out,
            0,
            &[
                &format!(
                    "ok {op} rev {rev} move 1 in-progress -> in-review round {n} request on #{issue}"
                ),
                &format!(
                    "ok {op}.outcome rev {} review 1 round {n} {op} posted http 201 comment {id}",
                    rev + 1
                ),
            ],
        );
        let last = r.fake.seen().pop().unwrap();
        assert_eq!(
            last.path,
            format!("/api/v1/repos/mosaic/stack/issues/{issue}/comments")
        );
        assert_eq!(r.round(1, n as usize)["issue"], issue);
    };
    let rework = |op: &str, rev: u64| {
        r.ok(
            &["move", "1", "in-progress"],
            op,
            "darkwing",
            &format!("ok {op} rev {rev} move 1 in-review -> in-progress"),
        );
    };
    round(review(&["--issue", "14"]), "darkwing-1-review-1", 4, 1, 14);
    rework("darkwing-1-rework-1", 6);
    // A later round keeps the previous round's issue.
    round(review(&[]), "darkwing-1-review-2", 7, 2, 14);
    rework("darkwing-1-rework-2", 9);
    r.ok(
        &["set", "1", "issues", "12"],
        "darkwing-1-issues",
        "darkwing",
        "ok darkwing-1-issues rev 10 set 1 issues",
    );
    // The kept issue is no longer listed: refused until --issue names one.
    r.refused(
        &review(&[]),
        "darkwing-1-review-3",
        "darkwing",
        2,
        "mosaic-queue: refused: issue #14 is not among row 1's issues (#12); name one of them with --issue N",
    );
    round(review(&["--issue", "12"]), "darkwing-1-review-3", 11, 3, 12);
    assert_eq!(r.fake.posts(), 3);

    // A row with one issue uses it; a row with none can't request review.
    r.ok(
        &["set", "2", "reviewers", "flicker"],
        "sage-2-reviewers",
        "sage",
        "ok sage-2-reviewers rev 13 set 2 reviewers",
    );
    r.ok(
        &["move", "2", "in-progress"],
        "darkwing-2-start",
        "darkwing",
        "ok darkwing-2-start rev 14 move 2 queued -> in-progress",
    );
    let out = r.run(
        &["move", "2", "in-review", "--candidate", &head],
        "darkwing-2-review",
        "darkwing",
    );
    printed(
        &out,
        0,
        &[
            "ok darkwing-2-review rev 15 move 2 in-progress -> in-review round 1 request on #20",
            "ok darkwing-2-review.outcome rev 16 review 2 round 1 darkwing-2-review posted http 201 comment 4004",
        ],
    );
    r.ok(
        &["set", "2", "issues", ""],
        "sage-2-issues",
        "sage",
        "ok sage-2-issues rev 17 set 2 issues",
    );
    r.ok(
        &["move", "2", "in-progress"],
        "darkwing-2-rework",
        "darkwing",
        "ok darkwing-2-rework rev 18 move 2 in-review -> in-progress",
    );
    r.refused(
        &["move", "2", "in-review", "--candidate", &head],
        "darkwing-2-review-2",
        "darkwing",
        2,
        "mosaic-queue: refused: row 2 has no issues, so it cannot open a review round; `set 2 issues N` first",
    );
    assert_eq!(r.fake.posts(), 4);
}
