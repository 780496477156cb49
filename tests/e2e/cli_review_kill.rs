//! A review request interrupted: SIGKILL before the POST, after it and before the outcome
//! entry, and after that entry; a lock held by another writer when the outcome arrives; and
//! late outcomes meeting a resolve or an abandon. After each, a retry sends nothing, and a
//! resolve or an abandon settles the attempt. A late answer is one the fake holds until the test
//! has done what must come first, never one delayed by a clock.

use support::Holder;
use support::fake_gitea::{Endpoint, Hold, Release};
use support::review::{
    OP, Review, attempt_json, git, lines, look_on_issue, marked_body, markers, printed, ready,
    receipts, to_review,
};

/// What stderr says when a retry finds the attempt still unsettled in `state`.
fn unsettled(state: &str) -> String {
    format!(
        "mosaic-queue: review request {OP} on row 1 is {state}, not known to be posted; {}",
        look_on_issue(1, OP, 12)
    )
}

/// Runs `move 1 in-review` killed at `step`: the process dies by SIGKILL with nothing on
/// stderr, and leaves no lock behind (both writes released theirs).
fn killed_at(r: &Review, head: &str, step: &str) -> String {
    let out = r.run_with(
        &to_review(head),
        OP,
        "darkwing",
        &[("MOSAIC_KILL_AT", step)],
    );
    assert_eq!((out.code, out.signal), (-1, Some(9)), "{step}: {out:?}");
    assert_eq!(out.stderr, "", "{step}");
    assert!(!r.repo.path(".git/mosaic-queue.lock").exists(), "{step}");
    out.stdout
}

#[test]
fn killed_before_the_post_nothing_is_sent_and_an_abandon_lets_a_new_attempt_post() {
    let (r, head) = ready("kill-sending");
    let stdout = killed_at(&r, &head, "request-sending");
    let [first, _] = receipts("");
    assert_eq!(stdout, format!("{first}\n"));
    assert_eq!(
        r.attempt(1, 1, 1),
        attempt_json(OP, "darkwing", "requesting", None, None, None)
    );
    assert_eq!((r.fake.connections(), r.fake.posts()), (0, 0));

    // A retry prints what the log holds and sends nothing.
    let before = r.snapshot();
    let out = r.run(&to_review(&head), OP, "darkwing");
    assert_eq!(printed(&out, 3, &[&first]), unsettled("requesting"));
    r.assert_unchanged(&before);
    assert_eq!(r.fake.connections(), 0);
    // A requesting attempt is unresolved: no new attempt until it is settled.
    r.refused(
        &["review", "request", "1"],
        "darkwing-1-request-x",
        "darkwing",
        2,
        &format!(
            "mosaic-queue: refused: row 1 has an unresolved request: {OP} is requesting on issue #12; look there for a comment carrying <!-- mosaic-queue-op: {OP} -->, then run `review resolve 1 {OP} --comment N`, or have jason or sage run `review abandon 1 {OP} --reason TEXT --yes`"
        ),
    );

    // Nobody finds a comment: jason or sage abandons, and the round keeps a duplicate risk.
    let reason = "no comment on #12 after an hour";
    r.ok(
        &["review", "abandon", "1", OP, "--reason", reason, "--yes"],
        "sage-1-abandon",
        "sage",
        &format!("ok sage-1-abandon rev 5 review abandon 1 round 1 {OP} requesting -> abandoned (duplicate risk)"),
    );
    assert_eq!(r.round(1, 1)["duplicateRisk"], true);
    let out = r.run(&to_review(&head), OP, "darkwing");
    assert_eq!(
        printed(&out, 1, &[&first]),
        format!(
            "mosaic-queue: review request {OP} on row 1 was abandoned; `mosaic-queue review request 1 --op NEW-OP` makes a new attempt"
        )
    );
    assert_eq!(r.fake.connections(), 0);

    let op = "darkwing-1-request-2";
    let out = r.run(&["review", "request", "1"], op, "darkwing");
    printed(
        &out,
        0,
        &[
            &format!("ok {op} rev 6 review request 1 round 1 attempt 2 on #12"),
            &format!("ok {op}.outcome rev 7 review 1 round 1 {op} posted http 201 comment 4001"),
        ],
    );
    assert_eq!(r.fake.posts(), 1);
    let body = &r.fake.comments()[0].body;
    for marker in markers(op, 1, 1, &git(&head)) {
        assert!(body.lines().any(|l| l == marker), "{marker} in {body}");
    }
}

#[test]
fn killed_after_the_post_the_comment_exists_and_resolve_records_it() {
    let (r, head) = ready("kill-posted");
    let stdout = killed_at(&r, &head, "request-posted");
    let [first, _] = receipts("");
    assert_eq!(stdout, format!("{first}\n"));
    assert_eq!(
        r.attempt(1, 1, 1),
        attempt_json(OP, "darkwing", "requesting", None, None, None)
    );
    assert_eq!(r.fake.posts(), 1);
    let stored = r.fake.comments();
    assert_eq!((stored.len(), stored[0].id, stored[0].issue), (1, 4001, 12));

    let before = r.snapshot();
    let out = r.run(&to_review(&head), OP, "darkwing");
    assert_eq!(printed(&out, 3, &[&first]), unsettled("requesting"));
    r.assert_unchanged(&before);
    assert_eq!(r.fake.posts(), 1);

    r.ok(
        &["review", "resolve", "1", OP, "--comment", "4001"],
        "darkwing-1-resolve",
        "darkwing",
        &format!(
            "ok darkwing-1-resolve rev 5 review resolve 1 round 1 {OP} requesting -> posted comment 4001"
        ),
    );
    assert_eq!(
        r.attempt(1, 1, 1),
        attempt_json(OP, "darkwing", "posted", None, None, Some(4001))
    );
    assert_eq!(r.fake.requests(Endpoint::GetComment), 1);
    // Settled: the retry now exits 0, still without posting.
    let out = r.run(&to_review(&head), OP, "darkwing");
    printed(&out, 0, &[&first]);
    assert_eq!(r.fake.posts(), 1);
}

#[test]
fn killed_after_the_outcome_entry_the_request_is_posted() {
    let (r, head) = ready("kill-logged");
    let stdout = killed_at(&r, &head, "outcome-logged");
    let posted = receipts("posted http 201 comment 4001");
    assert_eq!(stdout, format!("{}\n{}\n", posted[0], posted[1]));
    assert_eq!(
        r.attempt(1, 1, 1),
        attempt_json(
            OP,
            "darkwing",
            "posted",
            Some(201),
            Some("created"),
            Some(4001)
        )
    );
    let before = r.snapshot();
    let out = r.run(&to_review(&head), OP, "darkwing");
    printed(&out, 0, &lines(&posted));
    r.assert_unchanged(&before);
    assert_eq!(r.fake.posts(), 1);
    // A posted attempt is settled: resolve and abandon both refuse and write nothing.
    r.refused(
        &["review", "resolve", "1", OP, "--comment", "4001"],
        "darkwing-1-resolve",
        "darkwing",
        2,
        &format!(
            "mosaic-queue: refused: attempt {OP} is posted; resolve records a comment for a requesting, uncertain, conflicting or abandoned attempt"
        ),
    );
    r.refused(
        &["review", "abandon", "1", OP, "--reason", "gone", "--yes"],
        "sage-1-abandon",
        "sage",
        2,
        &format!(
            "mosaic-queue: refused: attempt {OP} is posted; abandon applies to a requesting or uncertain attempt (a conflict has a comment: resolve it)"
        ),
    );
}

#[test]
fn a_lock_held_when_the_outcome_arrives_says_the_comment_was_posted() {
    let (mut r, head) = ready("held");
    r.deadline_ms = GENEROUS.into();
    let answer = r.fake.hold(Endpoint::PostComment);
    let child = r.spawn(
        &to_review(&head),
        OP,
        "darkwing",
        &[("MOSAIC_LOCK_WAIT_MS", "300")],
    );
    answer.wait_held();
    // The lock's holder is this test, alive throughout: the wait for it can only run out.
    let holder = Holder::this_process();
    r.repo.plant_lock(&holder);
    answer.release(Release::Send);
    let out = r.finish(child);
    let [first, _] = receipts("");
    let lock = r.repo.path(".git/mosaic-queue.lock");
    assert_eq!(
        printed(&out, 3, &[&first]),
        format!(
            "mosaic-queue: comment 4001 was posted but its outcome is not logged (the queue lock {} is held by pid {} (op holder-op-0001, verb move, at 2026-01-02T03:04:05.678Z) and was not released within 0.3s; retry the same op once that command finishes); run `mosaic-queue review resolve 1 {OP} --comment 4001`",
            lock.display(),
            holder.pid
        )
    );
    assert_eq!(
        r.attempt(1, 1, 1),
        attempt_json(OP, "darkwing", "requesting", None, None, None)
    );
    assert_eq!(r.fake.posts(), 1);

    std::fs::remove_file(&lock).unwrap();
    r.ok(
        &["review", "resolve", "1", OP, "--comment", "4001"],
        "darkwing-1-resolve",
        "darkwing",
        &format!(
            "ok darkwing-1-resolve rev 5 review resolve 1 round 1 {OP} requesting -> posted comment 4001"
        ),
    );
    let out = r.run(&to_review(&head), OP, "darkwing");
    printed(&out, 0, &[&first]);
    assert_eq!(r.fake.posts(), 1);
}

#[test]
fn a_lock_held_when_a_failed_outcome_arrives_says_to_abandon() {
    let (mut r, head) = ready("held-failed");
    r.deadline_ms = GENEROUS.into();
    // GET /user answers once the lock is planted, naming another login: the request fails
    // before any POST.
    r.fake.user_names(Some("pixel"));
    let answer = r.fake.hold(Endpoint::User);
    let child = r.spawn(
        &to_review(&head),
        OP,
        "darkwing",
        &[("MOSAIC_LOCK_WAIT_MS", "300")],
    );
    answer.wait_held();
    let holder = Holder::this_process();
    r.repo.plant_lock(&holder);
    answer.release(Release::Send);
    let out = r.finish(child);
    let [first, _] = receipts("");
    let lock = r.repo.path(".git/mosaic-queue.lock");
    assert_eq!(
        printed(&out, 3, &[&first]),
        format!(
            "mosaic-queue: the request failed (the token in {} belongs to Gitea user \"pixel\", not darkwing; use darkwing's own token file) and that outcome is not logged (the queue lock {} is held by pid {} (op holder-op-0001, verb move, at 2026-01-02T03:04:05.678Z) and was not released within 0.3s; retry the same op once that command finishes); have jason or sage run `mosaic-queue review abandon 1 {OP} --reason TEXT --yes`",
            r.token_file("darkwing").display(),
            lock.display(),
            holder.pid
        )
    );
    assert_eq!(r.attempt(1, 1, 1)["state"], "requesting");
    assert_eq!(r.fake.posts(), 0);
    std::fs::remove_file(&lock).unwrap();
    r.ok(
        &["review", "abandon", "1", OP, "--reason", "GET user named pixel", "--yes"],
        "sage-1-abandon",
        "sage",
        &format!(
            "ok sage-1-abandon rev 5 review abandon 1 round 1 {OP} requesting -> abandoned (duplicate risk)"
        ),
    );
}

// ---- Late outcomes: the POST's answer arrives after a resolve or an abandon. ----

/// The Gitea deadline of a run whose answer the fake holds: far longer than any test takes, so
/// it only ever fails a test that hangs; the test, not the clock, decides when the answer comes.
const GENEROUS: &str = "600000";

/// Starts `move 1 in-review` with the POST's answer held, and returns once Gitea has stored
/// the comment; the hold lets the answer go.
fn in_flight(r: &mut Review, head: &str) -> (std::process::Child, Hold) {
    r.deadline_ms = GENEROUS.into();
    let answer = r.fake.hold(Endpoint::PostComment);
    let child = r.spawn(&to_review(head), OP, "darkwing", &[]);
    answer.wait_held();
    (child, answer)
}

#[test]
fn a_late_posted_outcome_with_the_resolved_comment_stays_posted() {
    let (mut r, head) = ready("late-same");
    let (child, answer) = in_flight(&mut r, &head);
    let id = r.fake.comments()[0].id;
    r.ok(
        &["review", "resolve", "1", OP, "--comment", &id.to_string()],
        "darkwing-1-resolve",
        "darkwing",
        &format!(
            "ok darkwing-1-resolve rev 5 review resolve 1 round 1 {OP} requesting -> posted comment {id}"
        ),
    );
    answer.release(Release::Send);
    let out = r.finish(child);
    let [first, _] = receipts("");
    printed(
        &out,
        0,
        &[
            &first,
            &format!(
                "ok {OP}.outcome rev 6 review 1 round 1 {OP} posted http 201 comment {id} after posted, now posted"
            ),
        ],
    );
    assert_eq!(
        r.attempt(1, 1, 1),
        attempt_json(
            OP,
            "darkwing",
            "posted",
            Some(201),
            Some("created"),
            Some(id)
        )
    );
    assert_eq!(r.fake.posts(), 1);
}

#[test]
fn a_late_uncertain_outcome_after_a_resolve_stays_posted() {
    let (mut r, head) = ready("late-uncertain");
    // The comment is stored, then the connection closes without an answer, after the resolve.
    let (mut child, answer) = in_flight(&mut r, &head);
    let id = r.fake.comments()[0].id;
    r.ok(
        &["review", "resolve", "1", OP, "--comment", &id.to_string()],
        "darkwing-1-resolve",
        "darkwing",
        &format!(
            "ok darkwing-1-resolve rev 5 review resolve 1 round 1 {OP} requesting -> posted comment {id}"
        ),
    );
    assert!(
        child.try_wait().unwrap().is_none(),
        "the request ended while its answer was held"
    );
    answer.release(Release::Drop);
    let out = r.finish(child);
    let [first, _] = receipts("");
    printed(
        &out,
        0,
        &[
            &first,
            &format!(
                "ok {OP}.outcome rev 6 review 1 round 1 {OP} uncertain after posted, now posted"
            ),
        ],
    );
    assert_eq!(
        r.attempt(1, 1, 1),
        attempt_json(
            OP,
            "darkwing",
            "posted",
            None,
            Some("post-transport"),
            Some(id)
        )
    );
    assert_eq!(r.fake.posts(), 1);
}

#[test]
fn a_late_outcome_with_another_comment_is_a_conflict_that_resolve_settles() {
    let (mut r, head) = ready("late-other");
    // A comment someone posted by hand for the same attempt, found before the answer came.
    let by_hand = r
        .fake
        .plant_comment(12, "darkwing", &marked_body(OP, 1, 1, &git(&head)));
    let (child, answer) = in_flight(&mut r, &head);
    let posted = r.fake.comments()[1].id;
    r.ok(
        &[
            "review",
            "resolve",
            "1",
            OP,
            "--comment",
            &by_hand.to_string(),
        ],
        "darkwing-1-resolve",
        "darkwing",
        &format!(
            "ok darkwing-1-resolve rev 5 review resolve 1 round 1 {OP} requesting -> posted comment {by_hand}"
        ),
    );
    answer.release(Release::Send);
    let out = r.finish(child);
    let [first, _] = receipts("");
    assert_eq!(
        printed(
            &out,
            3,
            &[
                &first,
                &format!(
                    "ok {OP}.outcome rev 6 review 1 round 1 {OP} posted http 201 comment {posted} after posted, now conflict"
                ),
            ],
        ),
        unsettled("conflict")
    );
    assert_eq!(
        r.attempt(1, 1, 1),
        attempt_json(
            OP,
            "darkwing",
            "conflict",
            Some(201),
            Some("created"),
            Some(by_hand)
        )
    );
    // A conflict is unresolved: it blocks a new request until a resolve settles it.
    r.refused(
        &["review", "request", "1"],
        "darkwing-1-request-2",
        "darkwing",
        2,
        &format!(
            "mosaic-queue: refused: row 1 has an unresolved request: {OP} is conflict on issue #12; look there for a comment carrying <!-- mosaic-queue-op: {OP} -->, then run `review resolve 1 {OP} --comment N`, or have jason or sage run `review abandon 1 {OP} --reason TEXT --yes`"
        ),
    );
    r.ok(
        &[
            "review",
            "resolve",
            "1",
            OP,
            "--comment",
            &posted.to_string(),
        ],
        "darkwing-1-resolve-2",
        "darkwing",
        &format!(
            "ok darkwing-1-resolve-2 rev 7 review resolve 1 round 1 {OP} conflict -> posted comment {posted}"
        ),
    );
    assert_eq!(r.attempt(1, 1, 1)["state"], "posted");
    assert_eq!(r.attempt(1, 1, 1)["comment"], posted);
    assert_eq!(r.fake.posts(), 1);
}

#[test]
fn a_posted_outcome_after_an_abandon_is_a_conflict_that_resolve_settles() {
    let (mut r, head) = ready("late-abandon");
    let (child, answer) = in_flight(&mut r, &head);
    r.ok(
        &[
            "review",
            "abandon",
            "1",
            OP,
            "--reason",
            "nothing on the issue",
            "--yes",
        ],
        "sage-1-abandon",
        "sage",
        &format!(
            "ok sage-1-abandon rev 5 review abandon 1 round 1 {OP} requesting -> abandoned (duplicate risk)"
        ),
    );
    answer.release(Release::Send);
    let out = r.finish(child);
    let [first, _] = receipts("");
    assert_eq!(
        printed(
            &out,
            3,
            &[
                &first,
                &format!(
                    "ok {OP}.outcome rev 6 review 1 round 1 {OP} posted http 201 comment 4001 after abandoned, now conflict"
                ),
            ],
        ),
        unsettled("conflict")
    );
    assert_eq!(
        r.attempt(1, 1, 1),
        attempt_json(
            OP,
            "darkwing",
            "conflict",
            Some(201),
            Some("created"),
            Some(4001)
        )
    );
    assert_eq!(r.round(1, 1)["duplicateRisk"], true);
    r.ok(
        &["review", "resolve", "1", OP, "--comment", "4001"],
        "darkwing-1-resolve",
        "darkwing",
        &format!(
            "ok darkwing-1-resolve rev 7 review resolve 1 round 1 {OP} conflict -> posted comment 4001"
        ),
    );
    assert_eq!(r.fake.posts(), 1);
}

#[test]
fn a_late_outcome_is_recorded_after_the_row_is_done() {
    let (mut r, head) = ready("late-done");
    let (mut child, answer) = in_flight(&mut r, &head);
    let id = r.fake.comments()[0].id;
    let candidate = git(&head);
    r.ok(
        &["review", "resolve", "1", OP, "--comment", &id.to_string()],
        "darkwing-1-resolve",
        "darkwing",
        &format!(
            "ok darkwing-1-resolve rev 5 review resolve 1 round 1 {OP} requesting -> posted comment {id}"
        ),
    );
    for (by, rev) in [("flicker", 6), ("pixel", 7)] {
        let op = format!("{by}-1-verdict");
        r.ok(
            &[
                "review",
                "record",
                "1",
                "--verdict",
                "approve",
                "--comment",
                "4100",
                "--candidate",
                &candidate,
            ],
            &op,
            by,
            &format!("ok {op} rev {rev} review record 1 round 1 approve comment 4100"),
        );
    }
    r.ok(
        &["move", "1", "done"],
        "darkwing-1-done",
        "darkwing",
        "ok darkwing-1-done rev 8 move 1 in-review -> done",
    );
    assert!(
        child.try_wait().unwrap().is_none(),
        "the request ended while its answer was held"
    );
    answer.release(Release::Send);
    let out = r.finish(child);
    let [first, _] = receipts("");
    printed(
        &out,
        0,
        &[
            &first,
            &format!(
                "ok {OP}.outcome rev 9 review 1 round 1 {OP} posted http 201 comment {id} after posted, now posted"
            ),
        ],
    );
    assert_eq!(r.repo.row(1)["status"], "done");
    assert_eq!(
        r.attempt(1, 1, 1),
        attempt_json(
            OP,
            "darkwing",
            "posted",
            Some(201),
            Some("created"),
            Some(id)
        )
    );
    assert_eq!(r.fake.posts(), 1);
}
