//! Review requests end to end: `move ID in-review` on a row with reviewers posts one comment
//! to the fake Gitea and logs its outcome. Every transport answer and the deadline, retries
//! that never post, and a real Gitea when one is configured (credentials: cli_review_creds).

use std::os::unix::fs::PermissionsExt;

use support::fake_gitea::{Answer, Endpoint, Release};
use support::review::{
    OP, Review, attempt_json, failed_line, git, lines, look_on_issue, markers, printed, ready,
    receipts, to_review, token, uncertain_line,
};

#[test]
fn a_201_with_an_id_is_posted_with_both_markers() {
    let (r, candidate) = ready("posted");
    let out = r.run(&to_review(&candidate), OP, "darkwing");
    printed(&out, 0, &lines(&receipts("posted http 201 comment 4001")));
    assert_eq!(r.fake.posts(), 1);
    assert_eq!(r.fake.requests(Endpoint::User), 1);
    assert_eq!(r.fake.requests(Endpoint::GetIssue), 1);
    // GET user, GET issue, the POST.
    assert_eq!(r.fake.connections(), 3);

    let seen = r.fake.seen();
    let shape: Vec<(&str, &str)> = seen.iter().map(|s| (&*s.method, &*s.path)).collect();
    assert_eq!(
        shape,
        [
            ("GET", "/api/v1/user"),
            ("GET", "/api/v1/repos/mosaic/stack/issues/12"),
            ("POST", "/api/v1/repos/mosaic/stack/issues/12/comments")
        ]
    );
    for s in &seen {
        let auth = format!("token {}", token("darkwing"));
        assert_eq!(s.authorization.as_deref(), Some(auth.as_str()));
    }
    let stored = r.fake.comments();
    assert_eq!(stored.len(), 1);
    assert_eq!(
        (stored[0].id, stored[0].issue, &*stored[0].login),
        (4001, 12, "darkwing")
    );
    let body_lines: Vec<&str> = stored[0].body.lines().collect();
    for marker in markers(OP, 1, 1, &git(&candidate)) {
        assert!(body_lines.contains(&&*marker), "{marker} in {body_lines:?}");
    }
    let sent: serde_json::Value = serde_json::from_str(&seen[2].body).unwrap();
    assert_eq!(sent, serde_json::json!({ "body": stored[0].body }));

    let row = r.repo.row(1);
    assert_eq!(row["status"], "in-review");
    assert_eq!(
        row["review"]["rounds"],
        serde_json::json!([{
            "round": 1,
            "issue": 12,
            "candidate": git(&candidate),
            "manifest": null,
            "requested": true,
            "openedBy": "darkwing",
            "openedRev": 4,
            "attempts": [attempt_json(OP, "darkwing", "posted", Some(201), Some("created"), Some(4001))],
            "verdicts": [],
            "duplicateRisk": false,
        }])
    );
    let ops = r.repo.ops();
    assert_eq!(ops[3..], [OP.to_owned(), format!("{OP}.outcome")]);
    assert_eq!(r.repo.witness().unwrap()["revision"], 5);
}

/// Each scripted POST answer: the outcome receipt's tail, attempt state, logged status and
/// detail, exit code, stderr, and how many comments the fake holds afterwards.
struct Case {
    answer: Answer,
    tail: &'static str,
    state: &'static str,
    status: Option<u16>,
    detail: &'static str,
    code: i32,
    stderr: Option<String>,
    stored: usize,
}

fn case(
    answer: Answer,
    tail: &'static str,
    (state, status, detail): (&'static str, Option<u16>, &'static str),
    stderr: Option<String>,
    stored: usize,
) -> Case {
    let code = if state == "failed" { 1 } else { 3 };
    Case {
        answer,
        tail,
        state,
        status,
        detail,
        code,
        stderr,
        stored,
    }
}

#[test]
fn every_transport_answer_is_logged_as_the_contract_classifies_it() {
    let rejected = |n: u16| {
        failed_line(&if n == 403 {
            String::from(
                "Gitea refused the comment on issue #12 with 403: the token lacks the write:issue scope or may not comment on this repository; nothing was posted, give the token the scopes read:user, read:issue and write:issue, then run review request",
            )
        } else {
            format!(
                "Gitea refused the comment on issue #12 with {n}; nothing was posted, fix the cause (token scope, issue, repository) and run review request"
            )
        })
    };
    let mut cases = Vec::new();
    for (n, tail) in [
        (400, "failed http 400"),
        (401, "failed http 401"),
        (403, "failed http 403"),
        (404, "failed http 404"),
        (422, "failed http 422"),
    ] {
        cases.push(case(
            Answer::Status(n),
            tail,
            ("failed", Some(n), "post-rejected"),
            Some(rejected(n)),
            0,
        ));
    }
    cases.extend([
        case(
            Answer::Status(500),
            "uncertain http 500",
            ("uncertain", Some(500), "post-status"),
            Some(uncertain_line("Gitea answered 500, not 201")),
            0,
        ),
        case(
            Answer::Raw(200, r#"{"id":77,"body":"x"}"#.into()),
            "uncertain http 200",
            ("uncertain", Some(200), "post-status"),
            Some(uncertain_line("Gitea answered 200, not 201")),
            0,
        ),
        case(
            Answer::WithoutId,
            "uncertain http 201",
            ("uncertain", Some(201), "post-created-without-id"),
            Some(uncertain_line(
                "201 with no id, not a positive integer comment id",
            )),
            1,
        ),
        // ureq words a dropped connection; only the frame around it is checked.
        case(
            Answer::Drop { stored: true },
            "uncertain",
            ("uncertain", None, "post-transport"),
            None,
            1,
        ),
        case(
            Answer::Drop { stored: false },
            "uncertain",
            ("uncertain", None, "post-transport"),
            None,
            0,
        ),
    ]);
    for c in cases {
        let (r, candidate) = ready("answer");
        r.fake.script(Endpoint::PostComment, c.answer.clone());
        let out = r.run(&to_review(&candidate), OP, "darkwing");
        let line = printed(&out, c.code, &lines(&receipts(c.tail)));
        match &c.stderr {
            Some(expected) => assert_eq!(line, expected, "{:?}", c.answer),
            None => {
                let head =
                    "mosaic-queue: the review request comment on issue #12 may or may not exist (";
                let tail = format!("); {}", look_on_issue(1, OP, 12));
                assert!(line.starts_with(head) && line.ends_with(&tail), "{line}");
            }
        }
        assert_eq!(
            r.attempt(1, 1, 1),
            attempt_json(OP, "darkwing", c.state, c.status, Some(c.detail), None),
            "{:?}",
            c.answer
        );
        assert_eq!(r.fake.posts(), 1, "{:?}", c.answer);
        assert_eq!(r.fake.comments().len(), c.stored, "{:?}", c.answer);
    }
}

#[test]
fn no_answer_before_a_short_deadline_is_uncertain() {
    let (mut r, candidate) = ready("deadline");
    r.deadline_ms = "800".into();
    // The answer is held until the run has ended, so only the run's own deadline can end it.
    let answer = r.fake.hold(Endpoint::PostComment);
    let out = r.run(&to_review(&candidate), OP, "darkwing");
    answer.release(Release::Drop);
    let line = printed(&out, 3, &lines(&receipts("uncertain")));
    assert_eq!(line, uncertain_line("no answer within 800 ms"));
    assert_eq!(
        r.attempt(1, 1, 1),
        attempt_json(
            OP,
            "darkwing",
            "uncertain",
            None,
            Some("post-deadline"),
            None
        )
    );
    assert_eq!(r.fake.posts(), 1);
    // The fake stored the comment before its late answer: it may well exist.
    assert_eq!(r.fake.comments().len(), 1);
}

#[test]
fn get_user_naming_another_login_fails_before_any_post() {
    let (r, candidate) = ready("other-login");
    r.fake.user_names(Some("pixel"));
    let out = r.run(&to_review(&candidate), OP, "darkwing");
    let line = printed(&out, 1, &lines(&receipts("failed http 200")));
    let file = r.token_file("darkwing");
    assert_eq!(
        line,
        failed_line(&format!(
            "the token in {} belongs to Gitea user \"pixel\", not darkwing; use darkwing's own token file",
            file.display()
        ))
    );
    assert_eq!(
        r.attempt(1, 1, 1),
        attempt_json(
            OP,
            "darkwing",
            "failed",
            Some(200),
            Some("user-other-login"),
            None
        )
    );
    assert_eq!(r.fake.posts(), 0);
    assert_eq!(r.fake.requests(Endpoint::User), 1);
}

#[test]
fn connection_refused_fails_before_any_post() {
    let (r, candidate) = ready("refused");
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{port}");
    let out = r.run_with(
        &to_review(&candidate),
        OP,
        "darkwing",
        &[("MOSAIC_GITEA_URL", &url)],
    );
    let line = printed(&out, 1, &lines(&receipts("failed")));
    let head = failed_line(&format!(
        "no usable answer from Gitea at {url} to GET /api/v1/user ("
    ));
    let head = head.split_once("; once fixed").unwrap().0;
    assert!(line.starts_with(head), "{line}");
    assert!(
        line.ends_with("); nothing was posted, check MOSAIC_GITEA_URL and retry with a new op; once fixed, run `mosaic-queue review request 1 --op NEW-OP`"),
        "{line}"
    );
    assert_eq!(
        r.attempt(1, 1, 1),
        attempt_json(OP, "darkwing", "failed", None, Some("user-transport"), None)
    );
    assert_eq!(r.fake.connections(), 0);
}

#[test]
fn the_lead_posts_and_is_resolved_as_jarvis() {
    let r = Review::new("lead");
    r.ok(
        &["set", "2", "reviewers", "flicker"],
        "lead-2-reviewers",
        "lead",
        "ok lead-2-reviewers rev 2 set 2 reviewers",
    );
    r.ok(
        &["move", "2", "in-progress"],
        "lead-2-start",
        "lead",
        "ok lead-2-start rev 3 move 2 queued -> in-progress",
    );
    let head = r.head();
    // A file named for the seat "lead" is not the lead's: its login is jarvis.
    let seat_file = r
        .repo
        .base
        .join("agents/lead/secrets/gitea-mosaicstack-lead.token");
    std::fs::create_dir_all(seat_file.parent().unwrap()).unwrap();
    std::fs::write(&seat_file, format!("{}\n", token("jarvis"))).unwrap();
    std::fs::set_permissions(&seat_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let op = "lead-2-review";
    let out = r.run_with(
        &["move", "2", "in-review", "--candidate", &head],
        op,
        "lead",
        &[("MOSAIC_GITEA_CREDENTIAL_FILE", seat_file.to_str().unwrap())],
    );
    let line = printed(
        &out,
        1,
        &[
            &format!("ok {op} rev 4 move 2 in-progress -> in-review round 1 request on #20"),
            &format!("ok {op}.outcome rev 5 review 2 round 1 {op} failed"),
        ],
    );
    assert_eq!(
        line,
        format!(
            "mosaic-queue: review request for row 2 failed: {} is not jarvis's token file; MOSAIC_GITEA_CREDENTIAL_FILE must end in /agents/jarvis/secrets/gitea-mosaicstack-jarvis.token; once fixed, run `mosaic-queue review request 2 --op NEW-OP`",
            seat_file.display()
        )
    );
    assert_eq!(r.fake.connections(), 0);

    // With jarvis's file: a 201 without an id leaves it uncertain, the comment stored.
    r.fake.script(Endpoint::PostComment, Answer::WithoutId);
    let op = "lead-2-request-2";
    let out = r.run(&["review", "request", "2"], op, "lead");
    assert_eq!(out.code, 3, "{}", out.stderr);
    let stored = r.fake.comments();
    assert_eq!(
        (stored[0].id, &*stored[0].login, stored[0].issue),
        (4001, "jarvis", 20)
    );
    let auth = format!("token {}", token("jarvis"));
    assert!(
        r.fake
            .seen()
            .iter()
            .all(|s| s.authorization.as_deref() == Some(&*auth))
    );

    let candidate = git(&head);
    let by_seat = r.fake.plant_comment(
        20,
        "lead",
        &support::review::marked_body(op, 2, 1, &candidate),
    );
    r.refused(
        &["review", "resolve", "2", op, "--comment", &by_seat.to_string()],
        "lead-2-resolve-0",
        "lead",
        2,
        &format!(
            "mosaic-queue: refused: comment {by_seat} does not answer attempt {op}: it was written by lead, not the requester's login jarvis"
        ),
    );
    r.ok(
        &["review", "resolve", "2", op, "--comment", "4001"],
        "lead-2-resolve",
        "lead",
        &format!(
            "ok lead-2-resolve rev 8 review resolve 2 round 1 {op} uncertain -> posted comment 4001"
        ),
    );
}

// ---- Retries never post. ----

#[test]
fn a_retry_of_the_same_op_prints_the_log_and_never_posts() {
    let posted = receipts("posted http 201 comment 4001");
    let failed = receipts("failed http 403");
    let uncertain = receipts("uncertain http 500");
    let cases: [(Option<Answer>, &[String; 2], i32, String); 3] = [
        (None, &posted, 0, String::new()),
        (
            Some(Answer::Status(403)),
            &failed,
            1,
            format!(
                "mosaic-queue: review request {OP} on row 1 failed; run `mosaic-queue review request 1 --op NEW-OP` once the cause is fixed"
            ),
        ),
        (
            Some(Answer::Status(500)),
            &uncertain,
            3,
            format!(
                "mosaic-queue: review request {OP} on row 1 is uncertain, not known to be posted; {}",
                look_on_issue(1, OP, 12)
            ),
        ),
    ];
    for (answer, expected, code, retry_line) in cases {
        let (r, candidate) = ready("retry");
        if let Some(a) = &answer {
            r.fake.script(Endpoint::PostComment, a.clone());
        }
        let first = r.run(&to_review(&candidate), OP, "darkwing");
        printed(&first, code, &lines(expected));
        let (posts, connections) = (r.fake.posts(), r.fake.connections());
        assert_eq!(posts, 1);
        let before = r.snapshot();
        for _ in 0..2 {
            let again = r.run(&to_review(&candidate), OP, "darkwing");
            let line = printed(&again, code, &lines(expected));
            assert_eq!(line, retry_line, "{answer:?}");
            r.assert_unchanged(&before);
            assert_eq!(
                (r.fake.posts(), r.fake.connections()),
                (posts, connections),
                "{answer:?}"
            );
        }
    }
}

// ---- A real Gitea: only in the `real-gitea` build (docs/gitea.md), never in the test command. ----

/// `MOSAIC_GITEA_TEST_*`: the posted path and a resolve against a real instance. The token
/// file's name gives the login; the seat is that login (the lead for jarvis).
#[cfg(feature = "real-gitea")]
#[test]
fn real_gitea() {
    let real = support::fake_gitea::RealGitea::from_env("the review requests");
    let (url, repo_name, file) = (&real.url, &real.repo, &real.token_file);
    let issue = real.issue.to_string();
    let login = real.login.clone();
    let seat = if login == "jarvis" { "lead" } else { &login };
    let reviewer = if login == "pixel" { "flicker" } else { "pixel" };
    let r = Review::new("real");
    let env = [
        ("MOSAIC_GITEA_URL", url.as_str()),
        ("MOSAIC_GITEA_REPO", repo_name.as_str()),
        ("MOSAIC_GITEA_CREDENTIAL_FILE", file.as_str()),
        ("MOSAIC_GITEA_DEADLINE_MS", "30000"),
    ];
    let sage = |args: &[&str], op: &str| {
        assert_eq!(r.run(args, op, "sage").code, 0, "{args:?}");
    };
    for id in ["1", "2"] {
        sage(&["assign", id, seat], &format!("sage-{id}-assign"));
        sage(&["set", id, "issues", &issue], &format!("sage-{id}-issues"));
        sage(
            &["set", id, "reviewers", reviewer],
            &format!("sage-{id}-reviewers"),
        );
        let start = format!("real-{id}-start");
        let out = r.run_with(&["move", id, "in-progress"], &start, seat, &env);
        assert_eq!(out.code, 0, "{}", out.stderr);
    }
    let candidate = r.head();
    let review = ["move", "1", "in-review", "--candidate", &candidate];

    // Posted: two receipts, the second naming the comment, which carries both markers.
    let op = format!("real-1-review-{}", std::process::id());
    let out = r.run_with(&review, &op, seat, &env);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let second = out.stdout.lines().nth(1).expect("an outcome receipt");
    let comment: u64 = second
        .rsplit(' ')
        .next()
        .and_then(|c| c.parse().ok())
        .expect("the receipt ends in the comment id");
    assert!(second.ends_with(&format!("{op} posted http 201 comment {comment}")));
    let retry = r.run_with(&review, &op, seat, &env);
    assert_eq!((retry.code, &retry.stdout), (0, &out.stdout));
    println!("posted comment {comment} on issue #{issue}");

    // Killed after the POST: the comment is there but unlogged; resolve records it.
    let op2 = format!("real-2-review-{}", std::process::id());
    let review2 = ["move", "2", "in-review", "--candidate", &candidate];
    let mut killed_env = env.to_vec();
    killed_env.push(("MOSAIC_KILL_AT", "request-posted"));
    let out = r.run_with(&review2, &op2, seat, &killed_env);
    assert_eq!(out.signal, Some(9), "{}", out.stderr);
    let found = find_marked(url, repo_name, file, &issue, &op2)
        .expect("the killed request's comment is on the issue");
    let resolve = [
        "review",
        "resolve",
        "2",
        &op2,
        "--comment",
        &found.to_string(),
    ];
    let out = r.run_with(&resolve, &format!("{op2}-resolve"), seat, &env);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .ends_with(&format!("{op2} requesting -> posted comment {found}\n")),
        "{}",
        out.stdout
    );
    println!("resolved comment {found} on issue #{issue}");
}

/// The id of the comment on `issue` that carries `op`'s marker, listed with the token.
#[cfg(feature = "real-gitea")]
fn find_marked(url: &str, repo: &str, file: &str, issue: &str, op: &str) -> Option<u64> {
    let token = std::fs::read_to_string(file).unwrap();
    let list = format!("{url}/api/v1/repos/{repo}/issues/{issue}/comments");
    let mut answer = ureq::get(&list)
        .header("Authorization", &format!("token {}", token.trim()))
        .call()
        .unwrap();
    let text = answer.body_mut().read_to_string().unwrap();
    let comments: serde_json::Value = serde_json::from_str(&text).unwrap();
    let marker = format!("<!-- mosaic-queue-op: {op} -->");
    comments.as_array()?.iter().find_map(|c| {
        let body = c["body"].as_str()?;
        body.lines()
            .any(|l| l.trim() == marker)
            .then(|| c["id"].as_u64())
            .flatten()
    })
}
