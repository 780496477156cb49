//! Shared set-up for the review suites (`cli_review*.rs`): a harness checkout whose seats each
//! have a token file and a login on the fake Gitea, runs of the binary pointed at both, and the
//! assertions those suites repeat.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use serde_json::Value;

use crate::fake_gitea::FakeGitea;
use crate::{Out, Repo, Snapshot, assert_same, change, command, run_in};

/// Every login the fake knows, each with its own token file beside the repository.
pub const LOGINS: &[&str] = &["darkwing", "flicker", "pixel", "jarvis", "sage", "jason"];

/// The issues that exist on the fake: row 1's two and row 2's one.
pub const ISSUES: &[u64] = &[12, 14, 20];

/// Row 1 (Parser, owner darkwing, issues #12, #14) gets these reviewers.
pub const REVIEWERS: &str = "flicker,pixel";

/// A token only `login` has; a test checks it never reaches an output or a queue file.
pub fn token(login: &str) -> String {
    format!("{login}5ecret70ken0c0ffee")
}

/// The Gitea login a seat posts as: the core's rule, the one definition.
pub fn login_of(seat: &str) -> &str {
    mosaic_queue_core::gitea_login(seat)
}

/// The request comment's two marker lines.
pub fn markers(op: &str, id: u64, round: u32, candidate: &str) -> [String; 2] {
    [
        format!("<!-- mosaic-queue-op: {op} -->"),
        format!("<!-- mosaic-queue-round: {id} {round} {candidate} -->"),
    ]
}

/// The digest a round records for commit `sha`.
pub fn git(sha: &str) -> String {
    format!("git:{sha}")
}

/// A comment body carrying both markers, as a person might post it by hand.
pub fn marked_body(op: &str, id: u64, round: u32, candidate: &str) -> String {
    let [a, b] = markers(op, id, round, candidate);
    format!("Review please.\n\n{a}\n{b}\n")
}

/// A checkout after genesis with the fake Gitea serving `mosaic/stack`.
pub struct Review {
    pub repo: Repo,
    pub fake: FakeGitea,
    /// `MOSAIC_GITEA_DEADLINE_MS` for every run unless a test passes its own.
    pub deadline_ms: String,
}

impl Review {
    pub fn new(name: &str) -> Review {
        let repo = Repo::new(name);
        let fake = FakeGitea::start("mosaic", "stack");
        for login in LOGINS {
            fake.add_user(&token(login), login);
        }
        for issue in ISSUES {
            fake.add_issue(*issue);
        }
        let review = Review {
            repo,
            fake,
            deadline_ms: "10000".into(),
        };
        for login in LOGINS {
            let path = review.token_file(login);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, format!("{}\n", token(login))).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        review
    }

    /// `<base>/agents/<login>/secrets/gitea-mosaicstack-<login>.token`.
    pub fn token_file(&self, login: &str) -> PathBuf {
        self.repo.base.join(format!(
            "agents/{login}/secrets/gitea-mosaicstack-{login}.token"
        ))
    }

    /// The Gitea variables for a run by `by`: the fake, the repository, `by`'s own token file.
    pub fn gitea_env(&self, by: &str) -> Vec<(String, String)> {
        let file = self.token_file(login_of(by));
        vec![
            ("MOSAIC_GITEA_URL".into(), self.fake.url().into()),
            ("MOSAIC_GITEA_REPO".into(), "mosaic/stack".into()),
            (
                "MOSAIC_GITEA_CREDENTIAL_FILE".into(),
                file.to_str().unwrap().into(),
            ),
            ("MOSAIC_GITEA_DEADLINE_MS".into(), self.deadline_ms.clone()),
        ]
    }

    /// The command for a change by `by`, with the Gitea variables and then `extra` (which win;
    /// an empty value removes the variable).
    pub fn command(&self, args: &[&str], op: &str, by: &str, extra: &[(&str, &str)]) -> Command {
        let mut env = self.gitea_env(by);
        for (k, v) in extra {
            env.retain(|(name, _)| name != k);
            if !v.is_empty() {
                env.push(((*k).into(), (*v).into()));
            }
        }
        let pairs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (&**k, &**v)).collect();
        command(&self.repo.root, &change(args, op, by), &pairs)
    }

    /// Runs a change by `by` against the fake.
    pub fn run(&self, args: &[&str], op: &str, by: &str) -> Out {
        self.run_with(args, op, by, &[])
    }

    /// As `run`, with `extra` variables on top.
    pub fn run_with(&self, args: &[&str], op: &str, by: &str, extra: &[(&str, &str)]) -> Out {
        self.finish(self.spawn(args, op, by, extra))
    }

    /// Starts a change and returns while it runs, its output piped.
    pub fn spawn(&self, args: &[&str], op: &str, by: &str, extra: &[(&str, &str)]) -> Child {
        self.command(args, op, by, extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// What a spawned change printed, once it ends.
    pub fn finish(&self, child: Child) -> Out {
        let out = child.wait_with_output().unwrap();
        let out = Out {
            code: out.status.code().unwrap_or(-1),
            signal: std::os::unix::process::ExitStatusExt::signal(&out.status),
            stdout: String::from_utf8(out.stdout).unwrap(),
            stderr: String::from_utf8(out.stderr).unwrap(),
        };
        self.assert_no_token(&out);
        out
    }

    /// A run with no actor and no Gitea variables (list, show).
    pub fn read(&self, args: &[&str]) -> Out {
        run_in(&self.repo.root, args, &[])
    }

    /// A change that prints exactly `receipt` and exits 0.
    #[track_caller]
    pub fn ok(&self, args: &[&str], op: &str, by: &str, receipt: &str) {
        let out = self.run(args, op, by);
        assert_eq!(
            (out.code, out.stdout.as_str(), out.stderr.as_str()),
            (0, &*format!("{receipt}\n"), ""),
            "{args:?} --op {op} --by {by}"
        );
    }

    /// A change refused with exit `code` and exactly `line` on stderr, leaving every queue
    /// file as it was.
    #[track_caller]
    pub fn refused(&self, args: &[&str], op: &str, by: &str, code: i32, line: &str) {
        let before = self.repo.snapshot();
        let out = self.run(args, op, by);
        assert_eq!(out.fails(code), line, "{args:?} --op {op} --by {by}");
        self.repo.assert_unchanged(&before);
    }

    /// Asserts no token appears in what a run printed or in any queue file.
    #[track_caller]
    pub fn assert_no_token(&self, out: &Out) {
        let files = self.repo.snapshot();
        for login in LOGINS {
            let t = token(login);
            assert!(!out.stdout.contains(&t), "token on stdout: {}", out.stdout);
            assert!(!out.stderr.contains(&t), "token on stderr: {}", out.stderr);
            for (name, bytes) in &files {
                assert!(
                    !String::from_utf8_lossy(bytes).contains(&t),
                    "token in {name}"
                );
            }
        }
    }

    /// `set 1 reviewers flicker,pixel` by sage (rev 2), then darkwing starts row 1 (rev 3).
    pub fn row1_in_progress(&self) {
        self.ok(
            &["set", "1", "reviewers", REVIEWERS],
            "sage-1-reviewers",
            "sage",
            "ok sage-1-reviewers rev 2 set 1 reviewers",
        );
        self.ok(
            &["move", "1", "in-progress"],
            "darkwing-1-start",
            "darkwing",
            "ok darkwing-1-start rev 3 move 1 queued -> in-progress",
        );
    }

    /// HEAD's commit, the `--candidate` a move names.
    pub fn head(&self) -> String {
        self.repo.git(&["rev-parse", "HEAD"])
    }

    /// Commits a new file on main and returns the new HEAD.
    pub fn next_commit(&self, name: &str) -> String {
        self.repo.write(name, format!("{name}\n"));
        self.repo.git(&["add", name]);
        self.repo.git(&["commit", "-q", "-m", name]);
        self.head()
    }

    /// The queue files now.
    pub fn snapshot(&self) -> Snapshot {
        self.repo.snapshot()
    }

    #[track_caller]
    pub fn assert_unchanged(&self, before: &Snapshot) {
        assert_same(before, &self.repo.snapshot());
    }

    /// Attempt `n` (from 1) of round `round` (from 1) of row `id`, from queue.json.
    pub fn attempt(&self, id: u64, round: usize, n: usize) -> Value {
        self.round(id, round)["attempts"][n - 1].clone()
    }

    /// Round `round` (from 1) of row `id`, from queue.json.
    pub fn round(&self, id: u64, round: usize) -> Value {
        self.repo.row(id)["review"]["rounds"][round - 1].clone()
    }

    /// The log's last revision.
    pub fn revision(&self) -> u64 {
        self.repo.queue()["revision"].as_u64().unwrap()
    }
}

/// `{op, by, state, status, detail, comment}` as queue.json holds an attempt.
pub fn attempt_json(
    op: &str,
    by: &str,
    state: &str,
    status: Option<u16>,
    detail: Option<&str>,
    comment: Option<u64>,
) -> Value {
    serde_json::json!({
        "op": op,
        "by": by,
        "state": state,
        "status": status,
        "detail": detail,
        "comment": comment,
    })
}

/// Exit `code`, exactly `lines` on stdout, and one line on stderr that is returned.
#[track_caller]
pub fn printed<'a>(out: &'a Out, code: i32, lines: &[&str]) -> &'a str {
    let mut expected = lines.join("\n");
    if !lines.is_empty() {
        expected.push('\n');
    }
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (code, expected.as_str()),
        "stderr: {}",
        out.stderr
    );
    if code == 0 {
        assert_eq!(out.stderr, "");
        return "";
    }
    let line = out.stderr.strip_suffix('\n').unwrap_or_else(|| {
        panic!("stderr ends in a newline: {:?}", out.stderr);
    });
    assert!(!line.contains('\n'), "stderr is one line: {:?}", out.stderr);
    line
}

/// What stderr says after an uncertain request: the transport's message, then where to look.
pub fn look_on_issue(id: u64, op: &str, issue: u64) -> String {
    format!(
        "look on issue #{issue} for a comment carrying <!-- mosaic-queue-op: {op} -->: if it is there run `mosaic-queue review resolve {id} {op} --comment N`, if not have jason or sage run `mosaic-queue review abandon {id} {op} --reason TEXT --yes`"
    )
}

// ---- Row 1's first request round, `OP` on issue #12. ----

/// The op of row 1's first request round in the suites that need only one.
pub const OP: &str = "darkwing-1-review";

/// Row 1 with its reviewers, in progress, ready for `move 1 in-review`.
pub fn ready(name: &str) -> (Review, String) {
    let r = Review::new(name);
    r.row1_in_progress();
    let head = r.head();
    (r, head)
}

/// `move 1 in-review --candidate SHA --issue 12`.
pub fn to_review(candidate: &str) -> [&str; 7] {
    [
        "move",
        "1",
        "in-review",
        "--candidate",
        candidate,
        "--issue",
        "12",
    ]
}

/// The move's receipt (rev 4) and the outcome's (rev 5) ending in `result`.
pub fn receipts(result: &str) -> [String; 2] {
    [
        format!("ok {OP} rev 4 move 1 in-progress -> in-review round 1 request on #12"),
        format!("ok {OP}.outcome rev 5 review 1 round 1 {OP} {result}"),
    ]
}

/// Two receipts as `printed` takes them.
pub fn lines(r: &[String; 2]) -> [&str; 2] {
    [&r[0], &r[1]]
}

/// What stderr says when row 1's request failed.
pub fn failed_line(message: &str) -> String {
    format!(
        "mosaic-queue: review request for row 1 failed: {message}; once fixed, run `mosaic-queue review request 1 --op NEW-OP`"
    )
}

/// What stderr says when `OP`'s POST answer leaves the comment uncertain.
pub fn uncertain_line(why: &str) -> String {
    format!(
        "mosaic-queue: the review request comment on issue #12 may or may not exist ({why}); {}",
        look_on_issue(1, OP, 12)
    )
}
