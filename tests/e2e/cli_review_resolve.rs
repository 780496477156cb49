//! `review resolve` and `review abandon` on an uncertain request: resolve fetches the comment
//! and refuses, writing nothing, unless it is on the round's issue, by the requester's login,
//! with both markers for this attempt, round and candidate; abandon is privileged, needs
//! --yes, sets the round's duplicate risk and lets `review request` post a new attempt.

use support::fake_gitea::{Answer, Endpoint};
use support::review::{
    OP, Review, attempt_json, git, marked_body, markers, printed, ready, receipts, to_review,
};

/// Row 1's first request left uncertain by a 500; returns the round's candidate digest.
fn uncertain(name: &str) -> (Review, String) {
    let (r, head) = ready(name);
    r.fake.script(Endpoint::PostComment, Answer::Status(500));
    let out = r.run(&to_review(&head), OP, "darkwing");
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert_eq!(r.attempt(1, 1, 1)["state"], "uncertain");
    (r, git(&head))
}

fn resolve_args(comment: &str) -> [&str; 6] {
    ["review", "resolve", "1", OP, "--comment", comment]
}

/// The refusal for a comment that is not this attempt's.
fn wrong(comment: u64, why: &str) -> String {
    format!("mosaic-queue: refused: comment {comment} does not answer attempt {OP}: {why}")
}

#[test]
fn resolve_refuses_every_comment_that_is_not_the_attempts() {
    let (r, candidate) = uncertain("resolve-checks");
    r.fake.add_pull(15);
    let good = marked_body(OP, 1, 1, &candidate);
    let [op_marker, round_marker] = markers(OP, 1, 1, &candidate);
    let other_candidate = format!("git:{}", "0".repeat(40));
    let mut cases: Vec<(u64, String)> = Vec::new();
    let mut add = |issue: u64, login: &str, body: &str, why: &str| {
        let id = r.fake.plant_comment(issue, login, body);
        cases.push((id, wrong(id, why)));
    };
    add(
        14,
        "darkwing",
        &good,
        "it is on issue #14, not the round's issue #12",
    );
    add(
        15,
        "darkwing",
        &good,
        "it is on no issue, not the round's issue #12",
    );
    add(
        12,
        "pixel",
        &good,
        "it was written by pixel, not the requester's login darkwing",
    );
    let lacks_op = format!("it lacks the marker {op_marker}");
    let lacks_round = format!("it lacks the marker {round_marker}");
    add(12, "darkwing", &format!("{round_marker}\n"), &lacks_op);
    add(12, "darkwing", &format!("{op_marker}\n"), &lacks_round);
    // Both markers, each naming something else: another op, row, round or candidate.
    let other_op = marked_body("darkwing-1-other", 1, 1, &candidate);
    add(12, "darkwing", &other_op, &lacks_op);
    add(
        12,
        "darkwing",
        &marked_body(OP, 2, 1, &candidate),
        &lacks_round,
    );
    add(
        12,
        "darkwing",
        &marked_body(OP, 1, 2, &candidate),
        &lacks_round,
    );
    add(
        12,
        "darkwing",
        &marked_body(OP, 1, 1, &other_candidate),
        &lacks_round,
    );
    // The marker inside other text on its line is not the marker line.
    add(
        12,
        "darkwing",
        &format!("see {op_marker}\n{round_marker}\n"),
        &lacks_op,
    );
    for (n, (id, line)) in cases.iter().enumerate() {
        let op = format!("darkwing-1-resolve-{n}");
        r.refused(&resolve_args(&id.to_string()), &op, "darkwing", 2, line);
        assert_eq!(r.attempt(1, 1, 1)["state"], "uncertain");
    }
    assert_eq!(r.fake.requests(Endpoint::GetComment), cases.len());

    // A transport failure while fetching is a failed operation (exit 1), also writing nothing.
    let right = r.fake.plant_comment(12, "darkwing", &good);
    r.fake.script(Endpoint::GetComment, Answer::Status(500));
    r.refused(
        &resolve_args(&right.to_string()),
        "darkwing-1-resolve-500",
        "darkwing",
        1,
        &format!(
            "mosaic-queue: cannot fetch comment {right}: Gitea answered 500 to GET comment {right}; try again later or check the instance"
        ),
    );
    // Someone who may not resolve is refused even for the right comment.
    r.refused(
        &resolve_args(&right.to_string()),
        "flicker-1-resolve",
        "flicker",
        2,
        "mosaic-queue: refused: flicker may not resolve a request on row 1: the owner, jason or sage",
    );
    assert_eq!(r.fake.posts(), 1);

    // The right comment resolves, by a privileged actor too; a retry fetches nothing again.
    let receipt = format!(
        "ok sage-1-resolve rev 6 review resolve 1 round 1 {OP} uncertain -> posted comment {right}"
    );
    r.ok(
        &resolve_args(&right.to_string()),
        "sage-1-resolve",
        "sage",
        &receipt,
    );
    let fetched = r.fake.requests(Endpoint::GetComment);
    let before = r.snapshot();
    r.ok(
        &resolve_args(&right.to_string()),
        "sage-1-resolve",
        "sage",
        &receipt,
    );
    r.assert_unchanged(&before);
    assert_eq!(r.fake.requests(Endpoint::GetComment), fetched);
    assert_eq!(
        r.attempt(1, 1, 1),
        attempt_json(
            OP,
            "darkwing",
            "posted",
            Some(500),
            Some("post-status"),
            Some(right)
        )
    );
}

#[test]
fn resolve_refuses_a_missing_comment_and_a_timeline_event_with_exit_2() {
    let (r, _) = uncertain("resolve-missing");
    let event = r.fake.plant_event(12);
    let foreign = r
        .fake
        .plant_foreign_comment("mosaic/other", 12, "darkwing", "x");
    let missing = |id: u64| {
        format!(
            "comment {id} does not exist in mosaic/stack; check the comment id (the number after #issuecomment-)"
        )
    };
    let cases = [
        (999_999, missing(999_999)),
        (foreign, missing(foreign)),
        (
            event,
            format!(
                "id {event} is a timeline event, not a comment; use the id after #issuecomment- in the comment's link"
            ),
        ),
    ];
    for (n, (id, why)) in cases.iter().enumerate() {
        let before = r.snapshot();
        let op = format!("darkwing-1-resolve-{n}");
        let out = r.run(&resolve_args(&id.to_string()), &op, "darkwing");
        let line = out.fails(2);
        assert!(line.ends_with(why.as_str()), "{line}");
        r.assert_unchanged(&before);
    }
}

#[test]
fn abandon_is_privileged_confirmed_and_lets_a_new_attempt_post() {
    let (r, candidate) = uncertain("abandon");
    let abandon = |yes: bool| {
        let mut v = vec!["review", "abandon", "1", OP, "--reason", "not on #12"];
        if yes {
            v.push("--yes");
        }
        v
    };
    r.refused(
        &abandon(true),
        "darkwing-1-abandon",
        "darkwing",
        2,
        "mosaic-queue: refused: darkwing may not abandon a request on row 1: jason or sage",
    );
    r.refused(
        &abandon(false),
        "sage-1-abandon",
        "sage",
        2,
        "mosaic-queue: refused: review abandon needs --yes to confirm",
    );
    r.ok(
        &abandon(true),
        "jason-1-abandon",
        "jason",
        &format!(
            "ok jason-1-abandon rev 6 review abandon 1 round 1 {OP} uncertain -> abandoned (duplicate risk)"
        ),
    );
    assert_eq!(r.round(1, 1)["duplicateRisk"], true);
    assert_eq!(
        r.attempt(1, 1, 1),
        attempt_json(
            OP,
            "darkwing",
            "abandoned",
            Some(500),
            Some("post-status"),
            None
        )
    );
    r.refused(
        &abandon(true),
        "sage-1-abandon-2",
        "sage",
        2,
        &format!(
            "mosaic-queue: refused: attempt {OP} is abandoned; abandon applies to a requesting or uncertain attempt (a conflict has a comment: resolve it)"
        ),
    );
    // The original op's retry reports the abandon and still sends nothing.
    let [first, _] = receipts("");
    let head = candidate.trim_start_matches("git:");
    let out = r.run(&to_review(head), OP, "darkwing");
    let second = format!("ok {OP}.outcome rev 5 review 1 round 1 {OP} uncertain http 500");
    assert_eq!(
        printed(&out, 1, &[&first, &second]),
        format!(
            "mosaic-queue: review request {OP} on row 1 was abandoned; `mosaic-queue review request 1 --op NEW-OP` makes a new attempt"
        )
    );
    assert_eq!(r.fake.posts(), 1);

    let op = "darkwing-1-request-2";
    let receipts = [
        format!("ok {op} rev 7 review request 1 round 1 attempt 2 on #12"),
        format!("ok {op}.outcome rev 8 review 1 round 1 {op} posted http 201 comment 4001"),
    ];
    let out = r.run(&["review", "request", "1"], op, "darkwing");
    printed(&out, 0, &[&receipts[0], &receipts[1]]);
    assert_eq!(r.fake.posts(), 2);
    // Its retry, too, prints the log and sends nothing.
    let before = r.snapshot();
    let out = r.run(&["review", "request", "1"], op, "darkwing");
    printed(&out, 0, &[&receipts[0], &receipts[1]]);
    r.assert_unchanged(&before);
    assert_eq!(r.fake.posts(), 2);
    let round = r.round(1, 1);
    assert_eq!(round["duplicateRisk"], true);
    assert_eq!(round["attempts"].as_array().unwrap().len(), 2);
    let body = &r.fake.comments()[0].body;
    for marker in markers(op, 1, 1, &candidate) {
        assert!(body.lines().any(|l| l == marker), "{marker} in {body}");
    }
    // After a posted attempt, the round takes no further request.
    r.refused(
        &["review", "request", "1"],
        "darkwing-1-request-3",
        "darkwing",
        2,
        "mosaic-queue: refused: row 1 round 1 already has request darkwing-1-request-2 (posted); `review request` makes a new attempt only after a failed or abandoned one",
    );
    assert_eq!(r.fake.posts(), 2);
}
