//! The Gitea client and the credential checks against the fake Gitea in fixtures/: every
//! transport answer and its classification, the deadline, every credential refusal (with no
//! connection made), and fetch. The shared cases also run against a real Gitea when configured.

use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mosaic_queue::creds::{login_of, read_token, token_suffix};
use mosaic_queue::exit::Exit;
use mosaic_queue::gitea::{
    FetchedComment, GiteaConfig, GiteaError, PostOutcome, fetch_comment, post_comment,
};
use support::fake_gitea::{Answer, Endpoint, FakeGitea, Hold, Release};

const TOKEN: &str = "5d0c0ffee5d0c0ffee5d0c0ffee5d0c0ffee5d0c";
const LOGIN: &str = "jarvis";
const ISSUE: u64 = 7;
const BODY: &str = "Review please.\n<!-- mosaic-queue-op: op-req-1 -->\n<!-- mosaic-queue-round: 3 1 sha256:00 -->";

/// A scratch directory under the system temp dir, removed on drop.
struct Scratch(PathBuf);

static SCRATCH: AtomicUsize = AtomicUsize::new(0);

impl Scratch {
    fn new() -> Scratch {
        let n = SCRATCH.fetch_add(1, Ordering::SeqCst);
        let dir =
            std::env::temp_dir().join(format!("mosaic-queue-gitea-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // The real-path rule compares resolved paths; resolve the temp dir once here.
        Scratch(dir.canonicalize().unwrap())
    }

    /// `<scratch>/agents/<login>/secrets/gitea-mosaicstack-<login>.token` holding `contents`.
    fn token_file(&self, login: &str, contents: &str, mode: u32) -> PathBuf {
        let path = PathBuf::from(format!("{}{}", self.0.display(), token_suffix(login)));
        write_mode(&path, contents, mode);
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn write_mode(path: &Path, contents: &str, mode: u32) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A fake serving mosaic/stack with issue 7, the lead's token, and a config pointing at both.
struct Setup {
    fake: FakeGitea,
    scratch: Scratch,
    cfg: GiteaConfig,
}

fn setup() -> Setup {
    let fake = FakeGitea::start("mosaic", "stack");
    fake.add_user(TOKEN, LOGIN);
    fake.add_user("d4rkw1ng", "darkwing");
    fake.add_issue(ISSUE);
    let scratch = Scratch::new();
    let file = scratch.token_file(LOGIN, &format!("{TOKEN}\n"), 0o600);
    let cfg = GiteaConfig {
        url: fake.url().to_owned(),
        owner: "mosaic".into(),
        repo: "stack".into(),
        credential_file: file,
        deadline: Duration::from_secs(10),
    };
    Setup { fake, scratch, cfg }
}

/// Status, detail and exit code of an outcome that is not Posted; its message never holds
/// the token.
fn not_posted(outcome: &PostOutcome) -> (&'static str, Option<u16>, &'static str, String) {
    assert!(!format!("{outcome:?}").contains(TOKEN), "{outcome:?}");
    match outcome {
        PostOutcome::Failed {
            status,
            detail,
            message,
        } => ("failed", *status, detail, message.clone()),
        PostOutcome::Uncertain {
            status,
            detail,
            message,
        } => ("uncertain", *status, detail, message.clone()),
        PostOutcome::Posted { .. } => panic!("posted: {outcome:?}"),
    }
}

// ---- The shared cases: the fake runs them below, a real Gitea in `real_gitea`. ----

/// Posts one comment, checks the answer, fetches the comment back; returns its id.
fn check_post_and_fetch(cfg: &GiteaConfig, login: &str, issue: u64, body: &str) -> u64 {
    let outcome = post_comment(cfg, login, issue, body);
    let PostOutcome::Posted {
        status: 201,
        comment_id,
    } = outcome
    else {
        panic!("not posted: {outcome:?}");
    };
    let fetched = fetch_comment(cfg, login, comment_id).unwrap();
    assert_eq!(
        fetched,
        FetchedComment {
            id: comment_id,
            body: body.to_owned(),
            login: login.to_owned(),
            issue: Some(issue)
        }
    );
    comment_id
}

/// A token the server does not know: refused at GET /user, with nothing posted.
fn check_bad_token(cfg: &GiteaConfig, login: &str, issue: u64) {
    let scratch = Scratch::new();
    let bad = GiteaConfig {
        credential_file: scratch.token_file(
            login,
            "0000000000000000000000000000000000000000\n",
            0o600,
        ),
        ..cfg.clone()
    };
    let outcome = post_comment(&bad, login, issue, BODY);
    let (kind, status, detail, message) = not_posted(&outcome);
    assert_eq!(
        (kind, status, detail),
        ("failed", Some(401), "user-unauthorized")
    );
    assert_eq!(
        message,
        format!(
            "Gitea answered 401 to GET /api/v1/user: it does not accept the token in {}; put there a token of {login}'s with the scopes read:user, read:issue and write:issue",
            bad.credential_file.display()
        )
    );
    match fetch_comment(&bad, login, 1) {
        Err(GiteaError::Unauthorized(what)) => assert_eq!(what, "GET comment 1"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_201_with_an_id_is_posted_once_after_get_user() {
    let s = setup();
    let id = check_post_and_fetch(&s.cfg, LOGIN, ISSUE, BODY);
    let stored = s.fake.comments();
    assert_eq!(stored.len(), 1);
    assert_eq!(
        (
            stored[0].id,
            stored[0].issue,
            &*stored[0].login,
            &*stored[0].body
        ),
        (id, ISSUE, LOGIN, BODY)
    );
    assert_eq!(s.fake.posts(), 1);
    assert_eq!(s.fake.requests(Endpoint::User), 1);
    // A new connection per request: GET user, GET issue, the POST, the fetch.
    assert_eq!(s.fake.connections(), 4);
    let seen = s.fake.seen();
    let shape: Vec<(&str, &str)> = seen.iter().map(|r| (&*r.method, &*r.path)).collect();
    assert_eq!(
        shape,
        [
            ("GET", "/api/v1/user"),
            ("GET", "/api/v1/repos/mosaic/stack/issues/7"),
            ("POST", "/api/v1/repos/mosaic/stack/issues/7/comments"),
            ("GET", "/api/v1/repos/mosaic/stack/issues/comments/4001"),
        ]
    );
    for r in &seen {
        assert_eq!(r.authorization.as_deref(), Some(&*format!("token {TOKEN}")));
        assert_eq!(r.accept.as_deref(), Some("application/json"));
    }
    assert_eq!(seen[2].content_type.as_deref(), Some("application/json"));
    let sent: serde_json::Value = serde_json::from_str(&seen[2].body).unwrap();
    assert_eq!(sent, serde_json::json!({ "body": BODY }));
}

#[test]
fn every_post_answer_is_classified_as_the_contract_says() {
    let comment_200 = r#"{"id":99,"body":"x","user":{"login":"jarvis"}}"#.to_owned();
    let cases: Vec<(Answer, &str, Option<u16>, &str, usize)> = vec![
        (
            Answer::WithoutId,
            "uncertain",
            Some(201),
            "post-created-without-id",
            1,
        ),
        (
            Answer::Raw(201, "{not json".into()),
            "uncertain",
            Some(201),
            "post-created-without-id",
            0,
        ),
        (
            Answer::Raw(201, r#"{"id":"4001"}"#.into()),
            "uncertain",
            Some(201),
            "post-created-without-id",
            0,
        ),
        // Ids queue.json could not hold, or that name no comment: never `posted`.
        (
            Answer::Raw(201, r#"{"id":9007199254740992,"body":"x"}"#.into()),
            "uncertain",
            Some(201),
            "post-created-without-id",
            0,
        ),
        (
            Answer::Raw(201, r#"{"id":-1,"body":"x"}"#.into()),
            "uncertain",
            Some(201),
            "post-created-without-id",
            0,
        ),
        (
            Answer::Raw(201, r#"{"id":0,"body":"x"}"#.into()),
            "uncertain",
            Some(201),
            "post-created-without-id",
            0,
        ),
        (
            Answer::Raw(200, comment_200),
            "uncertain",
            Some(200),
            "post-status",
            0,
        ),
        (Answer::Status(400), "failed", Some(400), "post-rejected", 0),
        (Answer::Status(401), "failed", Some(401), "post-rejected", 0),
        (Answer::Status(403), "failed", Some(403), "post-rejected", 0),
        (Answer::Status(404), "failed", Some(404), "post-rejected", 0),
        (Answer::Status(422), "failed", Some(422), "post-rejected", 0),
        (
            Answer::Status(423),
            "uncertain",
            Some(423),
            "post-status",
            0,
        ),
        (
            Answer::Status(500),
            "uncertain",
            Some(500),
            "post-status",
            0,
        ),
        (
            Answer::Status(302),
            "uncertain",
            Some(302),
            "post-status",
            0,
        ),
        (
            Answer::Drop { stored: true },
            "uncertain",
            None,
            "post-transport",
            1,
        ),
        (
            Answer::Drop { stored: false },
            "uncertain",
            None,
            "post-transport",
            0,
        ),
    ];
    for (answer, kind, status, detail, stored) in cases {
        let s = setup();
        s.fake.script(Endpoint::PostComment, answer.clone());
        let outcome = post_comment(&s.cfg, LOGIN, ISSUE, BODY);
        let got = not_posted(&outcome);
        assert_eq!((got.0, got.1, got.2), (kind, status, detail), "{answer:?}");
        assert_eq!(
            outcome.exit().map(Exit::code),
            Some(if kind == "failed" { 1 } else { 3 })
        );
        if kind == "failed" && status == Some(403) {
            assert_eq!(
                got.3,
                "Gitea refused the comment on issue #7 with 403: the token lacks the write:issue scope or may not comment on this repository; nothing was posted, give the token the scopes read:user, read:issue and write:issue, then run review request"
            );
        } else if kind == "failed" {
            let n = status.unwrap();
            assert_eq!(
                got.3,
                format!(
                    "Gitea refused the comment on issue #7 with {n}; nothing was posted, fix the cause (token scope, issue, repository) and run review request"
                )
            );
        } else {
            assert!(
                got.3
                    .starts_with("the review request comment on issue #7 may or may not exist ("),
                "{}",
                got.3
            );
            assert!(got.3.ends_with(')'), "{}", got.3);
        }
        assert_eq!(s.fake.posts(), 1, "{answer:?}");
        assert_eq!(s.fake.comments().len(), stored, "{answer:?}");
    }
}

/// The first three fields of `not_posted`.
fn kind(outcome: &PostOutcome) -> (&'static str, Option<u16>, &'static str) {
    let (k, status, detail, _) = not_posted(outcome);
    (k, status, detail)
}

#[test]
fn the_servers_own_refusals_are_failed() {
    let s = setup();
    // Issue 8 does not exist: the GET of the issue answers 404 and nothing is posted (a
    // POST there would get 500, which reads as uncertain).
    assert_eq!(
        kind(&post_comment(&s.cfg, LOGIN, 8, BODY)),
        ("failed", Some(404), "issue-not-found")
    );
    // An empty body fails binding: Gitea's 422.
    assert_eq!(
        kind(&post_comment(&s.cfg, LOGIN, ISSUE, "")),
        ("failed", Some(422), "post-rejected")
    );
    // Another repository: 404 at the GET of the issue.
    let other = GiteaConfig {
        repo: "other".into(),
        ..s.cfg.clone()
    };
    assert_eq!(
        kind(&post_comment(&other, LOGIN, ISSUE, BODY)),
        ("failed", Some(404), "issue-not-found")
    );
    assert_eq!(s.fake.posts(), 1);
    assert!(s.fake.comments().is_empty());
}

#[test]
fn an_answer_after_the_deadline_is_uncertain_and_the_comment_may_exist() {
    let mut s = setup();
    s.cfg.deadline = Duration::from_millis(400);
    // Held until the client has given up: only its own deadline can end the wait.
    let answer = s.fake.hold(Endpoint::PostComment);
    let outcome = post_comment(&s.cfg, LOGIN, ISSUE, BODY);
    answer.release(Release::Drop);
    let (k, status, detail, message) = not_posted(&outcome);
    assert_eq!((k, status, detail), ("uncertain", None, "post-deadline"));
    assert_eq!(
        message,
        format!(
            "the review request comment on issue #7 may or may not exist (no answer within 400 ms)"
        )
    );
    assert_eq!(s.fake.posts(), 1);
    assert_eq!(s.fake.comments().len(), 1);
}

/// What GET /user takes is spent from the POST's budget. A budget is time, so this is the one
/// test here that needs time to pass: GET /user is held for at least half the deadline (a sleep
/// never ends early), then the POST is held until the client gives up. A fresh budget for the
/// POST would keep the client at least one and a half deadlines; the shared one ends it at one.
/// The margins (half a deadline each way, 2 s) only fail a machine stalled for seconds.
#[test]
fn one_deadline_covers_get_user_and_the_post_together() {
    let mut s = setup();
    let deadline = Duration::from_secs(4);
    s.cfg.deadline = deadline;
    let user = s.fake.hold(Endpoint::User);
    let post = s.fake.hold(Endpoint::PostComment);
    let (outcome, took) = std::thread::scope(|t| {
        let client = t.spawn(|| {
            let started = std::time::Instant::now();
            let outcome = post_comment(&s.cfg, LOGIN, ISSUE, BODY);
            (outcome, started.elapsed())
        });
        user.wait_held();
        std::thread::sleep(deadline / 2);
        user.release(Release::Send);
        post.wait_held();
        client.join().unwrap()
    });
    post.release(Release::Drop);
    assert_eq!(kind(&outcome), ("uncertain", None, "post-deadline"));
    assert!(
        took < deadline + deadline / 2,
        "the POST had a budget of its own: the client gave up after {took:?}"
    );
    assert_eq!(s.fake.posts(), 1);
}

#[test]
fn connection_refused_is_failed_before_anything_is_posted() {
    let s = setup();
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let cfg = GiteaConfig {
        url: format!("http://127.0.0.1:{port}"),
        ..s.cfg.clone()
    };
    let outcome = post_comment(&cfg, LOGIN, ISSUE, BODY);
    let (k, status, detail, message) = not_posted(&outcome);
    assert_eq!((k, status, detail), ("failed", None, "user-transport"));
    let head =
        format!("no usable answer from Gitea at http://127.0.0.1:{port} to GET /api/v1/user (");
    assert!(message.starts_with(&head), "{message}");
    assert!(
        message.ends_with("); nothing was posted, check MOSAIC_GITEA_URL and retry with a new op"),
        "{message}"
    );
}

#[test]
fn get_user_must_name_the_seats_login_before_any_post() {
    type Case = (
        Option<&'static str>,
        Option<Answer>,
        (&'static str, Option<u16>, &'static str),
    );
    let cases: Vec<Case> = vec![
        (
            Some("darkwing"),
            None,
            ("failed", Some(200), "user-other-login"),
        ),
        (
            None,
            Some(Answer::Status(401)),
            ("failed", Some(401), "user-unauthorized"),
        ),
        (
            None,
            Some(Answer::Status(403)),
            ("failed", Some(403), "user-unauthorized"),
        ),
        (
            None,
            Some(Answer::Status(500)),
            ("failed", Some(500), "user-status"),
        ),
        (
            None,
            Some(Answer::Status(404)),
            ("failed", Some(404), "user-status"),
        ),
        (
            None,
            Some(Answer::Raw(200, r#"{"id":1}"#.into())),
            ("failed", Some(200), "user-unparsable"),
        ),
        (
            None,
            Some(Answer::Raw(200, "<html>".into())),
            ("failed", Some(200), "user-unparsable"),
        ),
        (
            None,
            Some(Answer::Drop { stored: false }),
            ("failed", None, "user-transport"),
        ),
        (
            None,
            // Held until the fake is dropped: only the client's deadline ends the wait.
            Some(Answer::Hold(Hold::new())),
            ("failed", None, "user-deadline"),
        ),
    ];
    for (names, answer, expected) in cases {
        let mut s = setup();
        // Only the held answer waits for it; long enough that the fake has read the request
        // (which it counts) however busy the machine is.
        s.cfg.deadline = Duration::from_secs(5);
        s.fake.user_names(names);
        if let Some(a) = answer.clone() {
            s.fake.script(Endpoint::User, a);
        }
        let outcome = post_comment(&s.cfg, LOGIN, ISSUE, BODY);
        assert_eq!(kind(&outcome), expected, "{names:?} {answer:?}");
        assert_eq!(outcome.exit().map(Exit::code), Some(1));
        assert_eq!(s.fake.posts(), 0, "{names:?} {answer:?}");
        assert_eq!(s.fake.requests(Endpoint::User), 1);
    }
    let s = setup();
    s.fake.user_names(Some("darkwing"));
    let (_, _, _, message) = not_posted(&post_comment(&s.cfg, LOGIN, ISSUE, BODY));
    assert_eq!(
        message,
        format!(
            "the token in {} belongs to Gitea user \"darkwing\", not jarvis; use jarvis's own token file",
            s.cfg.credential_file.display()
        )
    );
}

#[test]
fn an_unknown_token_is_refused_at_get_user() {
    let s = setup();
    check_bad_token(&s.cfg, LOGIN, ISSUE);
    assert_eq!(s.fake.posts(), 0);
}

#[test]
fn the_lead_posts_as_jarvis_and_a_seat_as_itself() {
    assert_eq!(login_of("lead"), "jarvis");
    assert_eq!(login_of("darkwing"), "darkwing");
    let s = setup();
    let file = s.scratch.token_file("darkwing", "d4rkw1ng\n", 0o600);
    let cfg = GiteaConfig {
        credential_file: file,
        ..s.cfg.clone()
    };
    assert!(matches!(
        post_comment(&cfg, login_of("darkwing"), ISSUE, BODY),
        PostOutcome::Posted { .. }
    ));
    assert_eq!(s.fake.comments()[0].login, "darkwing");
}

// ---- Credentials: every refusal happens before a single connection. ----

/// Runs both calls with `file` and expects the same refusal, with zero connections made.
fn refused(s: &Setup, file: &Path, login: &str, expected: &str) {
    let cfg = GiteaConfig {
        credential_file: file.to_path_buf(),
        ..s.cfg.clone()
    };
    let outcome = post_comment(&cfg, login, ISSUE, BODY);
    let (k, status, detail, message) = not_posted(&outcome);
    assert_eq!(
        (k, status, detail),
        ("failed", None, "credentials-refused"),
        "{expected}"
    );
    assert_eq!(message, expected);
    match fetch_comment(&cfg, login, 4001) {
        Err(e @ GiteaError::Credentials(_)) => assert_eq!(e.to_string(), expected),
        other => panic!("{other:?}"),
    }
    match read_token(file, login) {
        Err(e) => assert_eq!(e.to_string(), expected),
        Ok(_) => panic!("token read from {}", file.display()),
    }
    assert_eq!(s.fake.connections(), 0, "{expected}");
}

#[test]
fn every_credential_refusal_happens_before_any_connection() {
    let s = setup();
    let base = s.scratch.0.clone();
    let suffix = token_suffix(LOGIN);
    let good = s.cfg.credential_file.clone();
    let show = |p: &Path| p.display().to_string();

    let loose = base.join("token.txt");
    write_mode(&loose, TOKEN, 0o600);
    refused(
        &s,
        &loose,
        LOGIN,
        &format!(
            "{} is not jarvis's token file; MOSAIC_GITEA_CREDENTIAL_FILE must end in {suffix}",
            show(&loose)
        ),
    );

    let theirs = s.scratch.token_file("darkwing", "d4rkw1ng\n", 0o600);
    refused(
        &s,
        &theirs,
        LOGIN,
        &format!(
            "{} is not jarvis's token file; MOSAIC_GITEA_CREDENTIAL_FILE must end in {suffix}",
            show(&theirs)
        ),
    );

    let shared = base.join("home/secrets/mosaic.gitea.json");
    write_mode(&shared, r#"{"token":"x"}"#, 0o600);
    refused(
        &s,
        &shared,
        LOGIN,
        &format!(
            "{} is the shared Gitea credential; set MOSAIC_GITEA_CREDENTIAL_FILE to your own agents/<login>/secrets/gitea-mosaicstack-<login>.token",
            show(&shared)
        ),
    );

    // A symlink at the right path to a file that is itself shaped right.
    let target = base.join(format!("elsewhere{suffix}"));
    write_mode(&target, TOKEN, 0o600);
    let linked = base.join(format!("linked{suffix}"));
    std::fs::create_dir_all(linked.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&target, &linked).unwrap();
    refused(
        &s,
        &linked,
        LOGIN,
        &format!(
            "{} is a symlink; point MOSAIC_GITEA_CREDENTIAL_FILE at the token file itself",
            show(&linked)
        ),
    );

    // A regular file whose directory is a symlink into a vault not shaped like the path.
    let vault = base.join("vault");
    write_mode(&vault.join("gitea-mosaicstack-jarvis.token"), TOKEN, 0o600);
    let via = base.join("via/agents/jarvis");
    std::fs::create_dir_all(&via).unwrap();
    std::os::unix::fs::symlink(&vault, via.join("secrets")).unwrap();
    let through = base.join(format!("via{suffix}"));
    refused(
        &s,
        &through,
        LOGIN,
        &format!(
            "{} resolves to {}, which does not end in {suffix}; use the real token file",
            show(&through),
            show(&vault.join("gitea-mosaicstack-jarvis.token"))
        ),
    );

    for mode in [0o644, 0o640, 0o400, 0o700, 0o4600] {
        std::fs::set_permissions(&good, std::fs::Permissions::from_mode(mode)).unwrap();
        refused(
            &s,
            &good,
            LOGIN,
            &format!(
                "{} has mode {mode:04o}; it must be 0600 (chmod 600 {})",
                show(&good),
                show(&good)
            ),
        );
    }

    let cases: [(&str, &str); 6] = [
        ("", "is empty; write the seat's Gitea token into it"),
        ("\n", "is empty; write the seat's Gitea token into it"),
        (
            "abc\ndef\n",
            "holds more than one line; it must hold only the token",
        ),
        (
            "abc\n\n",
            "holds more than one line; it must hold only the token",
        ),
        (
            "abc def\n",
            "holds characters a token cannot have (spaces, control or non-ASCII bytes)",
        ),
        (
            "abc\u{7}\n",
            "holds characters a token cannot have (spaces, control or non-ASCII bytes)",
        ),
    ];
    for (contents, tail) in cases {
        write_mode(&good, contents, 0o600);
        refused(&s, &good, LOGIN, &format!("{} {tail}", show(&good)));
    }
    write_mode(&good, &"a".repeat(5000), 0o600);
    refused(
        &s,
        &good,
        LOGIN,
        &format!(
            "{} is larger than 4096 bytes; it does not hold a single token",
            show(&good)
        ),
    );

    let dir = base.join(format!("dir{suffix}"));
    std::fs::create_dir_all(&dir).unwrap();
    refused(
        &s,
        &dir,
        LOGIN,
        &format!(
            "{} is not a regular file; the token file must be a plain file",
            show(&dir)
        ),
    );

    let missing = base.join(format!("missing{suffix}"));
    refused(
        &s,
        &missing,
        LOGIN,
        &format!(
            "{} does not exist; create the token file or fix MOSAIC_GITEA_CREDENTIAL_FILE",
            show(&missing)
        ),
    );

    let fifo = base.join(format!("fifo{suffix}"));
    std::fs::create_dir_all(fifo.parent().unwrap()).unwrap();
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    refused(
        &s,
        &fifo,
        LOGIN,
        &format!(
            "{} is not a regular file; the token file must be a plain file",
            show(&fifo)
        ),
    );

    // Another owner: only root can make such a file, and the test command runs as root (CI
    // does); run as another user, this fails rather than pass without the case.
    assert!(
        rustix::process::geteuid().is_root(),
        "the other-owner case chowns a file, which needs root: run the tests as root"
    );
    write_mode(&good, TOKEN, 0o600);
    std::os::unix::fs::chown(&good, Some(1), None).unwrap();
    refused(
        &s,
        &good,
        LOGIN,
        &format!(
            "{} belongs to uid 1, not to this user; the token file must be your own",
            show(&good)
        ),
    );
}

// ---- Fetching a comment for review resolve. ----

#[test]
fn fetch_reports_what_gitea_holds() {
    let s = setup();
    s.fake.add_pull(9);
    let on_issue = s.fake.plant_comment(ISSUE, "darkwing", "verdict: approve");
    let on_pull = s.fake.plant_comment(9, LOGIN, "pr note");
    let event = s.fake.plant_event(ISSUE);
    let foreign = s
        .fake
        .plant_foreign_comment("mosaic/other", ISSUE, LOGIN, "elsewhere");
    assert_eq!(
        fetch_comment(&s.cfg, LOGIN, on_issue).unwrap(),
        FetchedComment {
            id: on_issue,
            body: "verdict: approve".into(),
            login: "darkwing".into(),
            issue: Some(ISSUE)
        }
    );
    assert_eq!(fetch_comment(&s.cfg, LOGIN, on_pull).unwrap().issue, None);
    let err = |id| fetch_comment(&s.cfg, LOGIN, id).unwrap_err().to_string();
    assert_eq!(
        err(event),
        format!(
            "id {event} is a timeline event, not a comment; use the id after #issuecomment- in the comment's link"
        )
    );
    let not_found = |id| {
        format!(
            "comment {id} does not exist in mosaic/stack; check the comment id (the number after #issuecomment-)"
        )
    };
    assert_eq!(err(foreign), not_found(foreign));
    assert_eq!(err(999_999), not_found(999_999));
    assert_eq!(s.fake.posts(), 0);
}

#[test]
fn fetch_failures_name_what_happened() {
    let mut s = setup();
    s.cfg.deadline = Duration::from_millis(400);
    let id = s.fake.plant_comment(ISSUE, LOGIN, "x");
    let url = s.fake.url().to_owned();
    let cases: Vec<(Answer, String)> = vec![
        (
            Answer::Status(403),
            format!(
                "Gitea answered 403 to GET comment {id}: the token lacks the read:issue scope or its user may not read this repository; give the token the scopes read:user, read:issue and write:issue"
            ),
        ),
        (
            Answer::Status(401),
            format!(
                "Gitea answered 401 to GET comment {id}: the token is not valid there; replace the token file's token with one that has the scopes read:user, read:issue and write:issue"
            ),
        ),
        (
            Answer::Status(500),
            format!(
                "Gitea answered 500 to GET comment {id}; try again later or check the instance"
            ),
        ),
        (
            Answer::WithoutId,
            format!(
                "Gitea's answer for comment {id} is not usable (no id, not a positive integer comment id); try again or check the instance"
            ),
        ),
        (
            Answer::Raw(200, "[]".into()),
            format!(
                "Gitea's answer for comment {id} is not usable (no id, not a positive integer comment id); try again or check the instance"
            ),
        ),
        (
            // Held until the fake is dropped: only the client's deadline ends the wait.
            Answer::Hold(Hold::new()),
            format!(
                "Gitea at {url} did not answer within 400 ms; retry when the instance responds"
            ),
        ),
    ];
    for (answer, expected) in cases {
        s.fake.script(Endpoint::GetComment, answer.clone());
        let e = fetch_comment(&s.cfg, LOGIN, id).unwrap_err();
        assert_eq!(e.to_string(), expected, "{answer:?}");
    }
    s.fake
        .script(Endpoint::GetComment, Answer::Drop { stored: false });
    match fetch_comment(&s.cfg, LOGIN, id) {
        Err(GiteaError::Transport(u, _)) => assert_eq!(u, url),
        other => panic!("{other:?}"),
    }
}

// ---- The fake itself follows the API excerpt. ----

/// One raw HTTP/1.1 request to the fake: status and body.
fn raw(
    fake: &FakeGitea,
    method: &str,
    path: &str,
    auth: Option<&str>,
    body: &str,
) -> (u16, String) {
    let addr = fake.url().trim_start_matches("http://");
    let mut c = std::net::TcpStream::connect(addr).unwrap();
    let auth = auth
        .map(|a| format!("Authorization: {a}\r\n"))
        .unwrap_or_default();
    write!(c, "{method} {path} HTTP/1.1\r\nHost: x\r\n{auth}Content-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()).unwrap();
    let mut out = String::new();
    c.read_to_string(&mut out).unwrap();
    let status = out[9..12].parse().unwrap();
    let body = out.split_once("\r\n\r\n").unwrap().1.to_owned();
    (status, body)
}

#[test]
fn the_fake_authenticates_and_answers_like_gitea() {
    let s = setup();
    let url = s.fake.url().to_owned();
    let error = |m: &str| serde_json::json!({ "message": m, "url": format!("{url}/api/swagger") });
    let json = |b: &str| serde_json::from_str::<serde_json::Value>(b).unwrap();
    let (st, b) = raw(&s.fake, "GET", "/api/v1/user", None, "");
    assert_eq!((st, json(&b)), (401, error("token is required")));
    for header in [
        "Token abc",
        &format!("token  {TOKEN} x"),
        &format!("Basic {TOKEN}"),
    ] {
        assert_eq!(
            raw(&s.fake, "GET", "/api/v1/user", Some(header), "").0,
            401,
            "{header}"
        );
    }
    let (st, b) = raw(&s.fake, "GET", "/api/v1/user", Some("token nope"), "");
    assert_eq!(st, 401);
    assert_eq!(
        json(&b)["message"],
        "user does not exist or the token is invalid"
    );
    for header in [
        format!("token {TOKEN}"),
        format!("Bearer {TOKEN}"),
        format!("bearer {TOKEN}"),
    ] {
        let (st, b) = raw(&s.fake, "GET", "/api/v1/user", Some(&header), "");
        assert_eq!(
            (st, json(&b)["login"].clone()),
            (200, "jarvis".into()),
            "{header}"
        );
    }
    let auth = format!("token {TOKEN}");
    let post = "/api/v1/repos/mosaic/stack/issues/7/comments";
    let (st, b) = raw(&s.fake, "POST", post, Some(&auth), r#"{"body":"hello"}"#);
    assert_eq!(st, 201);
    let c = json(&b);
    let id = c["id"].as_u64().unwrap();
    assert_eq!(c["body"], "hello");
    assert_eq!(c["user"]["login"], "jarvis");
    assert_eq!(c["issue_url"], format!("{url}/mosaic/stack/issues/7"));
    assert_eq!(
        c["html_url"],
        format!("{url}/mosaic/stack/issues/7#issuecomment-{id}")
    );
    let created = c["created_at"].as_str().unwrap();
    assert!(
        created.len() == 20 && created.ends_with('Z') && &created[10..11] == "T",
        "{created}"
    );
    assert_eq!(c["updated_at"], c["created_at"]);
    assert_eq!(
        raw(&s.fake, "POST", post, Some(&auth), r#"{"body":""}"#).0,
        422
    );
    assert_eq!(raw(&s.fake, "POST", post, Some(&auth), "{").0, 422);
    assert_eq!(
        raw(
            &s.fake,
            "POST",
            "/api/v1/repos/mosaic/stack/issues/8/comments",
            Some(&auth),
            r#"{"body":"x"}"#
        )
        .0,
        500
    );
    assert_eq!(
        raw(
            &s.fake,
            "POST",
            "/api/v1/repos/mosaic/nope/issues/7/comments",
            Some(&auth),
            r#"{"body":"x"}"#
        )
        .0,
        404
    );
    let (st, b) = raw(&s.fake, "GET", post, Some(&auth), "");
    assert_eq!((st, json(&b).as_array().unwrap().len()), (200, 1));
    // Ids are global to the instance: a comment on another issue takes the next one.
    s.fake.add_issue(12);
    let (_, b) = raw(
        &s.fake,
        "POST",
        "/api/v1/repos/mosaic/stack/issues/12/comments",
        Some(&auth),
        r#"{"body":"y"}"#,
    );
    assert_eq!(json(&b)["id"].as_u64(), Some(id + 1));
    assert_eq!(raw(&s.fake, "DELETE", post, Some(&auth), "").0, 405);
    // One issue: its number and state, 404 when it does not exist, and only GET.
    let (st, b) = raw(
        &s.fake,
        "GET",
        "/api/v1/repos/mosaic/stack/issues/7",
        Some(&auth),
        "",
    );
    assert_eq!(
        (
            st,
            &json(&b)["number"],
            &json(&b)["state"],
            &json(&b)["pull_request"]
        ),
        (
            200,
            &serde_json::json!(7),
            &serde_json::json!("open"),
            &serde_json::Value::Null
        )
    );
    let missing = raw(
        &s.fake,
        "GET",
        "/api/v1/repos/mosaic/stack/issues/8",
        Some(&auth),
        "",
    );
    assert_eq!(missing.0, 404);
    assert_eq!(
        raw(
            &s.fake,
            "GET",
            "/api/v1/repos/mosaic/stack/issues/7",
            None,
            ""
        )
        .0,
        401
    );
    assert_eq!(
        raw(
            &s.fake,
            "PUT",
            "/api/v1/repos/mosaic/stack/issues/7",
            Some(&auth),
            ""
        )
        .0,
        405
    );
    assert_eq!(s.fake.connections(), 20);
    assert_eq!(s.fake.posts(), 6);
}

// ---- A real Gitea: only in the `real-gitea` build (docs/gitea.md), never in the test command. ----

#[cfg(feature = "real-gitea")]
#[test]
fn real_gitea() {
    let real = support::fake_gitea::RealGitea::from_env("the shared cases");
    let (issue, login) = (real.issue, real.login.as_str());
    let cfg = GiteaConfig::from_vars(|name| match name {
        "MOSAIC_GITEA_URL" => Some(real.url.clone().into()),
        "MOSAIC_GITEA_REPO" => Some(real.repo.clone().into()),
        "MOSAIC_GITEA_CREDENTIAL_FILE" => Some(real.token_file.clone().into()),
        _ => None,
    })
    .unwrap();
    let body = format!(
        "mosaic-queue client test {}\n<!-- mosaic-queue-op: test-{} -->",
        std::process::id(),
        std::process::id()
    );
    let id = check_post_and_fetch(&cfg, login, issue, &body);
    println!("posted and fetched comment {id} on issue #{issue}");
    check_bad_token(&cfg, login, issue);
}

/// A real Gitea answers a comment POST to a missing issue with 500 (uncertain), so the issue is
/// fetched first: a 404 there is a plain failure and nothing is posted; a 403 names the scope.
#[test]
fn the_issue_is_fetched_before_the_post() {
    let s = setup();
    let outcome = post_comment(&s.cfg, LOGIN, 99, BODY);
    let (kind, status, detail, message) = not_posted(&outcome);
    assert_eq!(
        (kind, status, detail),
        ("failed", Some(404), "issue-not-found")
    );
    assert_eq!(
        message,
        "issue #99 does not exist in mosaic/stack (GET /api/v1/repos/mosaic/stack/issues/99 answered 404); nothing was posted, name one of the row's issues that exists with --issue N and a new op"
    );
    assert_eq!(s.fake.posts(), 0);
    let shape: Vec<(String, String)> = s
        .fake
        .seen()
        .into_iter()
        .map(|r| (r.method, r.path))
        .collect();
    assert_eq!(
        shape,
        [
            ("GET".to_owned(), "/api/v1/user".to_owned()),
            (
                "GET".to_owned(),
                "/api/v1/repos/mosaic/stack/issues/99".to_owned()
            ),
        ]
    );

    let cases: Vec<(Answer, Option<u16>, &str)> = vec![
        (Answer::Status(403), Some(403), "issue-unauthorized"),
        (Answer::Status(401), Some(401), "issue-unauthorized"),
        (Answer::Status(500), Some(500), "issue-status"),
        (Answer::Drop { stored: false }, None, "issue-transport"),
    ];
    for (answer, want_status, want_detail) in cases {
        let s = setup();
        s.fake.script(Endpoint::GetIssue, answer.clone());
        let outcome = post_comment(&s.cfg, LOGIN, ISSUE, BODY);
        let (kind, status, detail, message) = not_posted(&outcome);
        assert_eq!(
            (kind, status, detail),
            ("failed", want_status, want_detail),
            "{answer:?}"
        );
        assert!(
            message.contains("nothing was posted") || message.contains("read:issue"),
            "{message}"
        );
        if want_status == Some(403) {
            assert_eq!(
                message,
                "Gitea answered 403 to GET /api/v1/repos/mosaic/stack/issues/7: the token lacks the read:issue scope or may not read this repository; give the token the scopes read:user, read:issue and write:issue, then retry with a new op"
            );
        }
        assert_eq!(s.fake.posts(), 0, "{answer:?}");
    }

    // A 403 on the POST itself names write:issue, not an invalid token.
    let s = setup();
    s.fake.script(Endpoint::PostComment, Answer::Status(403));
    let (_, _, _, message) = not_posted(&post_comment(&s.cfg, LOGIN, ISSUE, BODY));
    assert_eq!(
        message,
        "Gitea refused the comment on issue #7 with 403: the token lacks the write:issue scope or may not comment on this repository; nothing was posted, give the token the scopes read:user, read:issue and write:issue, then run review request"
    );
}
