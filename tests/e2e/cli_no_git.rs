//! The verbs that start no process, as docs/decisions.md names them: each runs with a PATH
//! holding only a `git` that records every call and fails, and the record stays empty. An empty
//! PATH would miss a spawn whose failure the verb swallowed; the recording git does not. The
//! list run here must be the list the docs give, and two verbs that do run git show that the
//! recording git is seen.

use std::collections::BTreeSet;

use support::fake_gitea::{Answer, Endpoint};
use support::recording_git::RecordingGit;
use support::review::Review;
use support::{Holder, Repo, run_in};

/// The verbs docs/decisions.md says start no process: every name in backticks in the sentence
/// from "So `list`" to "start no process", options left out.
fn documented() -> BTreeSet<String> {
    let doc = include_str!("../../docs/decisions.md").replace('\n', " ");
    let start = doc
        .find("So `list`")
        .expect("the sentence naming the verbs");
    let end = start + doc[start..].find("start no process").unwrap();
    doc[start..end]
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|name| !name.starts_with('-'))
        .map(|name| name.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

/// Runs verbs with the recording git alone on PATH; each must exit as expected and start no
/// git. Remembers which documented name each run covered.
struct Runs {
    git: RecordingGit,
    covered: BTreeSet<String>,
}

impl Runs {
    #[track_caller]
    fn check(&mut self, name: &str, out: support::Out, code: i32) {
        assert_eq!(
            out.code, code,
            "{name}: stdout {:?} stderr {:?}",
            out.stdout, out.stderr
        );
        if code == 0 {
            assert_eq!(out.stderr, "", "{name}");
            assert_ne!(out.stdout, "", "{name}");
        }
        assert_eq!(self.git.take(), Vec::<String>::new(), "{name} started git");
        self.covered.insert(name.to_owned());
    }
}

#[test]
fn the_verbs_the_docs_name_start_no_git() {
    let r = Review::new("no-git");
    let mut runs = Runs {
        git: RecordingGit::new(&r.repo.base),
        covered: BTreeSet::new(),
    };
    let path = runs.git.path().to_owned();
    let env = [("PATH", path.as_str())];
    let change = |args: &[&str], op: &str, by: &str| r.run_with(args, op, by, &env);
    let read = |args: &[&str]| r.repo.run(args, &env);

    let bare = Repo::bare("no-git-genesis");
    let map = bare.map_path();
    let genesis = [
        "genesis",
        "--map",
        map.to_str().unwrap(),
        "--op",
        "genesis-0001",
        "--by",
        "jason",
    ];
    runs.check("genesis", run_in(&bare.root, &genesis, &env), 0);
    for (name, args) in [
        ("list", vec!["list"]),
        ("show", vec!["show", "1"]),
        ("next", vec!["next", "darkwing"]),
        ("log", vec!["log"]),
        ("prime", vec!["prime", "darkwing"]),
    ] {
        runs.check(name, read(&args), 0);
    }
    let reviewers = ["set", "1", "reviewers", "flicker,pixel"];
    runs.check("set", change(&reviewers, "sage-1-reviewers", "sage"), 0);
    runs.check(
        "add",
        change(&["add", "--piece", "P"], "sage-add-1", "sage"),
        0,
    );
    runs.check(
        "assign",
        change(&["assign", "2", "pixel"], "sage-2-assign", "sage"),
        0,
    );
    runs.check("take", change(&["take"], "darkwing-take-1", "darkwing"), 0);
    let start = ["move", "2", "in-progress"];
    runs.check("move", change(&start, "pixel-2-start", "pixel"), 0);
    runs.check(
        "release",
        change(&["release", "2"], "pixel-2-release", "pixel"),
        0,
    );
    runs.check(
        "note",
        change(&["note", "1", "x"], "darkwing-1-note", "darkwing"),
        0,
    );
    let wait = ["wait", "1", "--status", "in-progress", "--timeout", "5"];
    runs.check("wait", read(&wait), 0);
    review_verbs(&r, &mut runs);
    for (name, args) in [
        ("verify", vec!["verify", "--current"]),
        ("render", vec!["render"]),
        ("sync", vec!["sync"]),
    ] {
        runs.check(name, read(&args), 0);
    }
    let snap = r.repo.base.join("snap");
    let snap = snap.to_str().unwrap();
    runs.check("snapshot", read(&["snapshot", "--out", snap]), 0);
    runs.check("verify", read(&["verify", "--snapshot", snap]), 0);
    r.repo.plant_lock(&Holder::dead());
    runs.check("unlock", read(&["unlock"]), 0);
    // Past genesis with no witness: Manual recovery ends with accept-history.
    std::fs::remove_file(r.repo.path(".git/mosaic-queue.head")).unwrap();
    let accept = ["accept-history", "--reason", "witness lost", "--yes"];
    runs.check(
        "accept-history",
        change(&accept, "jason-accept-1", "jason"),
        0,
    );

    assert_eq!(
        runs.covered,
        documented(),
        "the verbs run are the ones the docs name"
    );
    // The recording git is seen by the verbs that run git, so an empty record above means none
    // was started.
    let commit = read(&["commit", "-m", "queue", "--by", "jason"]);
    assert_ne!(commit.code, 0, "{}", commit.stderr);
    assert!(!runs.git.take().is_empty(), "commit ran no git");
    assert_eq!(read(&["doctor"]).code, 2);
    assert_eq!(runs.git.take(), ["git rev-parse --verify -q HEAD^{commit}"]);
}

/// `review request`, `abandon`, `resolve` and `record` on row 1 (taken by darkwing), its
/// candidate a manifest file: a failed request, an uncertain one abandoned, an uncertain one
/// resolved with the comment that was stored, and a verdict.
fn review_verbs(r: &Review, runs: &mut Runs) {
    let path = runs.git.path().to_owned();
    let env = [("PATH", path.as_str())];
    let manifest = r.repo.base.join("m.txt");
    std::fs::write(&manifest, format!("{} src/lib.rs\n", "a".repeat(64))).unwrap();
    let to_review = [
        "move",
        "1",
        "in-review",
        "--candidate",
        manifest.to_str().unwrap(),
        "--issue",
        "12",
    ];
    r.fake.script(Endpoint::PostComment, Answer::Status(422));
    runs.check(
        "move",
        r.run_with(&to_review, "darkwing-1-review", "darkwing", &env),
        1,
    );
    r.fake
        .script(Endpoint::PostComment, Answer::Drop { stored: false });
    let request = ["review", "request", "1"];
    runs.check(
        "review request",
        r.run_with(&request, "darkwing-1-review-2", "darkwing", &env),
        3,
    );
    let abandon = [
        "review",
        "abandon",
        "1",
        "darkwing-1-review-2",
        "--reason",
        "not on the issue",
        "--yes",
    ];
    runs.check(
        "review abandon",
        r.run_with(&abandon, "sage-1-abandon", "sage", &env),
        0,
    );
    r.fake
        .script(Endpoint::PostComment, Answer::Drop { stored: true });
    runs.check(
        "review request",
        r.run_with(&request, "darkwing-1-review-3", "darkwing", &env),
        3,
    );
    let id = r.fake.comments().last().unwrap().id.to_string();
    let resolve = [
        "review",
        "resolve",
        "1",
        "darkwing-1-review-3",
        "--comment",
        &id,
    ];
    runs.check(
        "review resolve",
        r.run_with(&resolve, "darkwing-1-resolve", "darkwing", &env),
        0,
    );
    let candidate = r.round(1, 1)["candidate"].as_str().unwrap().to_owned();
    let record = [
        "review",
        "record",
        "1",
        "--verdict",
        "approve",
        "--comment",
        &id,
        "--candidate",
        &candidate,
    ];
    runs.check(
        "review record",
        r.run_with(&record, "flicker-1-verdict", "flicker", &env),
        0,
    );
}

#[test]
fn the_checkout_checks_read_git_in_process_and_refuse_as_before() {
    let repo = Repo::new("no-git-refusals");
    let git = RecordingGit::new(&repo.base);
    let env = [("PATH", git.path())];
    // Detached HEAD: the branch is read from .git/HEAD itself.
    let head = repo.git(&["rev-parse", "HEAD"]);
    repo.git(&["checkout", "-q", "--detach", &head]);
    let line = repo
        .run(
            &[
                "note",
                "1",
                "x",
                "--op",
                "darkwing-1-detached",
                "--by",
                "darkwing",
            ],
            &env,
        )
        .fails(2)
        .to_owned();
    assert_eq!(
        line,
        "mosaic-queue: HEAD is not on the genesis branch main (detached HEAD); check out main first"
    );
    repo.git(&["checkout", "-q", "main"]);
    // Outside any repository.
    let outside = repo.base.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let out = run_in(&outside, &["list"], &env);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .starts_with("mosaic-queue: not inside a git checkout ("),
        "{}",
        out.stderr
    );
    assert_eq!(git.take(), Vec::<String>::new());
}
