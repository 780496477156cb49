//! `commit` end to end in scratch repositories with the guard committed and installed: the
//! happy path, the genesis bootstrap, each refusal (which publishes nothing and says why), and
//! PATH shims that move the branch or stage a queue file at an exact point of the procedure.

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use support::{BIN, Repo, ok};

const QUEUE_JSON: &str = "docs/plans/queue.json";
const QUEUE_MD: &str = "docs/plans/QUEUE.md";
const HOOK: &str = "scripts/git-hooks/pre-commit";

/// The guard as the project ships it, pointing at the binary under test.
fn hook_script() -> String {
    format!("#!/bin/sh\nexec '{BIN}' guard\n")
}

fn make_executable(path: &Path) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Commits the guard script and installs it as `.git/hooks/pre-commit`.
fn with_guard(repo: &Repo) {
    std::fs::create_dir_all(repo.path("scripts/git-hooks")).unwrap();
    repo.write(HOOK, hook_script());
    make_executable(&repo.path(HOOK));
    repo.git(&["add", HOOK]);
    repo.git(&["commit", "-q", "-m", "the guard"]);
    install(repo);
}

fn install(repo: &Repo) {
    std::fs::create_dir_all(repo.path(".git/hooks")).unwrap();
    std::fs::copy(repo.path(HOOK), repo.path(".git/hooks/pre-commit")).unwrap();
    make_executable(&repo.path(".git/hooks/pre-commit"));
}

/// A committed genesis, the guard active, and two ops since (rev 3), not yet committed.
fn ready(name: &str) -> Repo {
    let repo = Repo::new(name);
    with_guard(&repo);
    ok(
        &repo,
        &["note", "1", "parser first"],
        "darkwing-1-note",
        "darkwing",
        "ok darkwing-1-note rev 2 note 1",
    );
    ok(
        &repo,
        &["move", "2", "in-progress"],
        "flicker-2-start",
        "flicker",
        "ok flicker-2-start rev 3 move 2 queued -> in-progress",
    );
    repo
}

fn commit(repo: &Repo, extra: &[&str], env: &[(&str, &str)]) -> support::Out {
    let mut args = vec!["commit", "-m", "queue: commit"];
    args.extend(extra);
    repo.run(&args, env)
}

/// What a refusal must leave exactly as it was: the branch, the index, the queue's files.
struct Before {
    head: String,
    index: String,
    files: support::Snapshot,
}

fn before(repo: &Repo) -> Before {
    Before {
        head: repo.git(&["rev-parse", "HEAD"]),
        index: repo.git(&["ls-files", "-s"]),
        files: repo.snapshot(),
    }
}

#[track_caller]
fn published_nothing(repo: &Repo, b: &Before) {
    assert_eq!(
        repo.git(&["rev-parse", "HEAD"]),
        b.head,
        "the branch did not move"
    );
    assert_eq!(
        repo.git(&["ls-files", "-s"]),
        b.index,
        "the index is as it was"
    );
    repo.assert_unchanged(&b.files);
    no_temp_index(repo);
}

#[track_caller]
fn no_temp_index(repo: &Repo) {
    let left: Vec<String> = std::fs::read_dir(repo.path(".git"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("mosaic-queue-commit."))
        .collect();
    assert!(left.is_empty(), "temporary indexes left behind: {left:?}");
}

/// The receipt's commit id.
#[track_caller]
fn committed(out: &support::Out, rev: u64) -> String {
    let line = out.ok();
    let sha = line
        .strip_prefix("ok commit ")
        .and_then(|rest| rest.strip_suffix(&format!(" (queue rev {rev})\n")))
        .unwrap_or_else(|| panic!("receipt: {line:?}"));
    assert_eq!(sha.len(), 40, "{line}");
    sha.to_owned()
}

#[test]
fn commits_exactly_the_snapshot_bytes_and_nothing_else_staged() {
    let repo = ready("happy");
    let h = repo.git(&["rev-parse", "HEAD"]);
    repo.write("notes.txt", "staged, not the queue's\n");
    repo.git(&["add", "notes.txt"]);
    let json = repo.read_bytes(QUEUE_JSON);
    let md = repo.read_bytes(QUEUE_MD);

    let new = committed(&commit(&repo, &["--by", "lead"], &[]), 3);

    assert_eq!(repo.git(&["rev-parse", "HEAD"]), new);
    assert_eq!(repo.git(&["rev-parse", "HEAD^"]), h);
    assert_eq!(repo.git(&["log", "-1", "--format=%B"]), "queue: commit");
    assert_eq!(
        repo.git(&["diff-tree", "--no-commit-id", "--name-only", "-r", &h, &new]),
        "docs/plans/QUEUE.md\ndocs/plans/queue.json"
    );
    let blob = |path: &str| {
        let out = std::process::Command::new("git")
            .args(["cat-file", "blob", &format!("{new}:{path}")])
            .current_dir(&repo.root)
            .env_remove("GIT_INDEX_FILE")
            .output()
            .unwrap();
        out.stdout
    };
    assert_eq!(blob(QUEUE_JSON), json);
    assert_eq!(blob(QUEUE_MD), md);
    // The unrelated file is still staged, the queue's entries are the new HEAD's.
    assert_eq!(repo.git(&["diff", "--cached", "--name-only"]), "notes.txt");
    assert_eq!(repo.git(&["status", "--porcelain", "--", "docs/plans"]), "");
    no_temp_index(&repo);
    assert!(
        !repo.path(".git/mosaic-queue.lock").exists(),
        "lock released"
    );
    // The guard lets the staged file through with a plain commit.
    repo.git(&["commit", "-q", "-m", "notes"]);
    assert_eq!(repo.git(&["rev-parse", "HEAD^"]), new);

    // The next commit extends the first: its base is HEAD's queue.json.
    ok(
        &repo,
        &["note", "2", "render next"],
        "lead-2-note-0001",
        "lead",
        "ok lead-2-note-0001 rev 4 note 2",
    );
    committed(&commit(&repo, &["--by", "jason"], &[]), 4);
}

#[test]
fn bootstrap_from_an_empty_queue_to_the_first_committed_op() {
    let repo = Repo::bare("bootstrap");
    with_guard(&repo);
    assert!(
        repo.genesis()
            .ok()
            .starts_with("ok genesis-0001 rev 1 genesis")
    );
    let refused = repo.run(
        &[
            "note",
            "1",
            "too early",
            "--op",
            "darkwing-1-early",
            "--by",
            "darkwing",
        ],
        &[],
    );
    assert_eq!(
        refused.fails(2),
        "mosaic-queue: genesis not committed: commit docs/plans/queue.json with `mosaic-queue commit --genesis -m MSG` first"
    );

    let b = before(&repo);
    assert_eq!(
        commit(&repo, &["--by", "lead"], &[]).fails(2),
        "mosaic-queue: HEAD has no docs/plans/queue.json: the first queue commit is `mosaic-queue commit --genesis -m MSG`"
    );
    published_nothing(&repo, &b);

    let json = repo.read_bytes(QUEUE_JSON);
    let new = committed(&commit(&repo, &["--genesis", "--by", "jason"], &[]), 1);
    assert_eq!(repo.git(&["rev-parse", "HEAD"]), new);
    assert_eq!(
        repo.git(&["show", &format!("{new}:{QUEUE_JSON}")])
            .as_bytes(),
        json.strip_suffix(b"\n").unwrap()
    );
    assert_eq!(repo.git(&["status", "--porcelain", "--", "docs/plans"]), "");

    let b = before(&repo);
    assert_eq!(
        commit(&repo, &["--genesis", "--by", "jason"], &[]).fails(2),
        "mosaic-queue: HEAD already holds docs/plans/queue.json: genesis is committed; run commit without --genesis"
    );
    published_nothing(&repo, &b);

    ok(
        &repo,
        &["note", "1", "now allowed"],
        "darkwing-1-first",
        "darkwing",
        "ok darkwing-1-first rev 2 note 1",
    );
    committed(&commit(&repo, &["--by", "lead"], &[]), 2);
}
