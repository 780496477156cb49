//! `commit` end to end in scratch repositories with the guard committed and installed: the
//! happy path, the genesis bootstrap, each refusal (which publishes nothing and says why), and
//! PATH shims that move the branch or stage a queue file at an exact point of the procedure.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use support::{Repo, ok};

const QUEUE_JSON: &str = "docs/plans/queue.json";
const QUEUE_MD: &str = "docs/plans/QUEUE.md";
const HOOK: &str = "scripts/git-hooks/pre-commit";

/// The guard as the project ships it, pointing at the binary under test.
fn hook_script() -> String {
    format!("#!/bin/sh\nexec '{}' guard\n", support::bin())
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
fn an_empty_message_or_a_commit_of_nothing_new_is_refused() {
    let repo = ready("empty");
    let b = before(&repo);
    for message in ["", " ", "\n\t "] {
        let out = repo.run(&["commit", "-m", message, "--by", "lead"], &[]);
        assert_eq!(
            out.fails(2),
            "mosaic-queue: refused: commit needs a message: pass -m with some text (it is the commit's message)",
            "{message:?}"
        );
        published_nothing(&repo, &b);
    }
    let first = committed(&commit(&repo, &["--by", "lead"], &[]), 3);
    // Nothing happened since: the same two files would make a commit that changes nothing.
    let b = before(&repo);
    assert_eq!(
        commit(&repo, &["--by", "lead"], &[]).fails(2),
        "mosaic-queue: nothing to commit: HEAD already holds these bytes of docs/plans/queue.json and QUEUE.md; nothing was published"
    );
    published_nothing(&repo, &b);
    assert_eq!(repo.git(&["rev-parse", "HEAD"]), first);
    assert_eq!(
        repo.git(&["rev-list", "--count", "--all"]),
        repo.git(&["rev-list", "--count", "HEAD"]),
        "no stray commit object reachable from a ref"
    );
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

// ---- refusals: each publishes nothing and says why ----

/// Runs commit as the lead and returns its one stderr line, after checking it published nothing.
#[track_caller]
fn refused(repo: &Repo, code: i32) -> String {
    let b = before(repo);
    let line = commit(repo, &["--by", "lead"], &[]).fails(code).to_owned();
    published_nothing(repo, &b);
    line
}

#[test]
fn refuses_an_actor_who_is_not_the_lead_or_privileged() {
    let repo = ready("actor");
    let b = before(&repo);
    assert_eq!(
        commit(&repo, &["--by", "darkwing"], &[]).fails(2),
        "mosaic-queue: refused: commit is for the lead, jason or sage only, not darkwing"
    );
    assert_eq!(
        commit(&repo, &[], &[]).fails(4),
        "mosaic-queue: no actor: pass --by NAME or set MOSAIC_AGENT_NAME"
    );
    published_nothing(&repo, &b);
    // $MOSAIC_AGENT_NAME names the actor too.
    committed(&commit(&repo, &[], &[("MOSAIC_AGENT_NAME", "sage")]), 3);
}

#[test]
fn refuses_when_the_guard_is_not_installed_as_head_has_it() {
    let repo = ready("hook-file");
    let hook = repo.path(".git/hooks/pre-commit");
    let shown = hook.display().to_string();
    let fix = "install it with `mosaic-queue install-hook`";

    std::fs::remove_file(&hook).unwrap();
    let line = refused(&repo, 2);
    assert!(
        line.starts_with(&format!(
            "mosaic-queue: the guard {shown} is not installed ("
        )),
        "{line}"
    );
    assert!(line.ends_with(fix), "{line}");

    repo.write(".git/hooks/pre-commit", hook_script() + "# edited\n");
    make_executable(&hook);
    assert_eq!(
        refused(&repo, 2),
        format!("mosaic-queue: the guard {shown} differs from HEAD's {HOOK}; {fix}")
    );

    install(&repo);
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert_eq!(
        refused(&repo, 2),
        format!("mosaic-queue: the guard {shown} is not executable, so git skips it; {fix}")
    );

    std::fs::remove_file(&hook).unwrap();
    std::os::unix::fs::symlink(repo.path(HOOK), &hook).unwrap();
    assert_eq!(
        refused(&repo, 2),
        format!("mosaic-queue: the guard {shown} is not a regular file; {fix}")
    );

    std::fs::remove_file(&hook).unwrap();
    install(&repo);
    committed(&commit(&repo, &["--by", "lead"], &[]), 3);
}

#[test]
fn refuses_core_hooks_path_in_any_scope() {
    let repo = ready("hooks-path");
    repo.git(&["config", "core.hooksPath", ".githooks"]);
    assert_eq!(
        refused(&repo, 2),
        "mosaic-queue: core.hooksPath is set (file:.git/config .githooks), so git would not run the guard; unset it in every scope"
    );
    repo.git(&["config", "--unset", "core.hooksPath"]);
    // From the environment, as `-c core.hooksPath=` hands it to child processes.
    let b = before(&repo);
    let env = [
        ("GIT_CONFIG_COUNT", "1"),
        ("GIT_CONFIG_KEY_0", "core.hooksPath"),
        ("GIT_CONFIG_VALUE_0", "/dev/null"),
    ];
    assert_eq!(
        commit(&repo, &["--by", "lead"], &env).fails(2),
        "mosaic-queue: core.hooksPath is set (command line: /dev/null), so git would not run the guard; unset it in every scope"
    );
    published_nothing(&repo, &b);
}

#[test]
fn refuses_a_guard_that_lets_a_changed_queue_through() {
    let repo = ready("canary");
    // Committed and installed byte for byte, so only the canary can tell it guards nothing.
    repo.write(HOOK, "#!/bin/sh\nexit 0\n");
    repo.git(&["add", HOOK]);
    repo.git(&["commit", "-q", "-m", "a guard that guards nothing"]);
    install(&repo);
    assert_eq!(
        refused(&repo, 2),
        "mosaic-queue: the guard passed a commit that changes docs/plans/queue.json; reinstall it with `mosaic-queue install-hook`"
    );
}

#[test]
fn refuses_a_staged_queue_file() {
    let repo = ready("staged");
    repo.git(&["add", QUEUE_JSON]);
    assert_eq!(
        refused(&repo, 2),
        "mosaic-queue: a queue file is staged (the index's docs/plans/queue.json or QUEUE.md differs from HEAD's); unstage it with `git reset -q -- docs/plans/queue.json docs/plans/QUEUE.md`, then retry"
    );
}

#[test]
fn refuses_a_file_ahead_of_its_witness_and_a_stale_table() {
    let repo = ready("ahead");
    let witness = repo.read_bytes(".git/mosaic-queue.head");
    let table = repo.read_bytes(QUEUE_MD);
    ok(
        &repo,
        &["note", "2", "render next"],
        "lead-2-note-0001",
        "lead",
        "ok lead-2-note-0001 rev 4 note 2",
    );
    let current = repo.read_bytes(".git/mosaic-queue.head");

    // A writer killed between its rename and its witness.
    repo.write(".git/mosaic-queue.head", &witness);
    assert_eq!(
        refused(&repo, 2),
        "mosaic-queue: rev 4 is visible, not confirmed durable; run `mosaic-queue sync` first, then commit"
    );
    repo.write(".git/mosaic-queue.head", &current);

    // A table left at rev 3.
    repo.write(QUEUE_MD, &table);
    assert_eq!(
        refused(&repo, 2),
        "mosaic-queue: QUEUE.md is stale (rendered at rev 3); look, then run `mosaic-queue render` before a commit"
    );
}

// ---- PATH shims: an action at an exact point of the procedure ----

/// A directory holding a `git` that runs `action` (sh, with `$GIT` the real git) when its
/// first argument is `verb`, then the real git; the env to put it first on PATH.
fn shim(repo: &Repo, verb: &str, action: &str) -> Vec<(String, String)> {
    let which = std::process::Command::new("sh")
        .args(["-c", "command -v git"])
        .output()
        .unwrap();
    let real = String::from_utf8(which.stdout).unwrap().trim().to_owned();
    assert!(real.starts_with('/'), "real git: {real:?}");
    let dir = repo.base.join("shim");
    std::fs::create_dir_all(&dir).unwrap();
    let script = format!(
        "#!/bin/sh\nGIT='{real}'\nif [ \"$1\" = {verb} ]; then\n{action}\nfi\nexec \"$GIT\" \"$@\"\n"
    );
    std::fs::write(dir.join("git"), script).unwrap();
    make_executable(&dir.join("git"));
    let path = format!("{}:{}", dir.display(), std::env::var("PATH").unwrap());
    vec![("PATH".to_owned(), path)]
}

fn env_refs(env: &[(String, String)]) -> Vec<(&str, &str)> {
    env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
}

#[test]
fn a_branch_moved_during_the_procedure_publishes_nothing() {
    let repo = ready("moved");
    let h = repo.git(&["rev-parse", "HEAD"]);
    let mover = repo.base.join("mover");
    let env = shim(
        &repo,
        "commit-tree",
        &format!(
            "c=$(env -u GIT_INDEX_FILE \"$GIT\" commit-tree 'HEAD^{{tree}}' -p HEAD -m mover) || exit 1\n\
             \"$GIT\" update-ref refs/heads/main \"$c\" || exit 1\n\
             echo \"$c\" > '{}'",
            mover.display()
        ),
    );
    let b = before(&repo);
    let out = commit(&repo, &["--by", "lead"], &env_refs(&env));
    let line = out.fails(1);
    assert!(
        line.starts_with(&format!(
            "mosaic-queue: refs/heads/main moved since this commit began at {h} ("
        )),
        "{line}"
    );
    assert!(line.ends_with("; nothing was published, retry"), "{line}");
    let moved = std::fs::read_to_string(&mover).unwrap().trim().to_owned();
    assert_eq!(repo.git(&["rev-parse", "refs/heads/main"]), moved);
    assert_eq!(repo.git(&["rev-parse", "HEAD^"]), h);
    assert_eq!(repo.git(&["ls-files", "-s"]), b.index);
    repo.assert_unchanged(&b.files);
    no_temp_index(&repo);
}

#[test]
fn a_queue_file_staged_before_update_ref_leaves_the_index_to_the_lead() {
    let repo = ready("reconcile");
    let h = repo.git(&["rev-parse", "HEAD"]);
    let env = shim(
        &repo,
        "update-ref",
        "b=$(printf 'staged meanwhile\\n' | \"$GIT\" hash-object -w --stdin) || exit 1\n\
         env -u GIT_INDEX_FILE \"$GIT\" update-index --add --cacheinfo 100644,$b,docs/plans/queue.json || exit 1",
    );
    let out = commit(&repo, &["--by", "lead"], &env_refs(&env));
    let line = out.fails(3);
    let new = repo.git(&["rev-parse", "HEAD"]);
    assert_eq!(
        line,
        format!(
            "mosaic-queue: committed {new} (queue rev 3) but a queue file was staged meanwhile, so the index was left alone; check, then run `git reset -q -- docs/plans/queue.json docs/plans/QUEUE.md`"
        )
    );
    assert_eq!(repo.git(&["rev-parse", "HEAD^"]), h);
    let staged = repo.git(&["ls-files", "-s", "--", QUEUE_JSON]);
    let blob = repo.git(&["rev-parse", ":docs/plans/queue.json"]);
    assert!(staged.contains(&blob));
    assert_eq!(repo.git(&["cat-file", "blob", &blob]), "staged meanwhile");
    no_temp_index(&repo);
    assert!(
        !repo.path(".git/mosaic-queue.lock").exists(),
        "lock released"
    );
}

#[test]
fn a_guard_disabled_after_the_first_check_is_caught_before_publishing() {
    let repo = ready("recheck");
    let env = shim(
        &repo,
        "commit-tree",
        "\"$GIT\" config core.hooksPath .githooks || exit 1",
    );
    let b = before(&repo);
    assert_eq!(
        commit(&repo, &["--by", "lead"], &env_refs(&env)).fails(2),
        "mosaic-queue: core.hooksPath is set (file:.git/config .githooks), so git would not run the guard; unset it in every scope (checked again before publishing; nothing was published)"
    );
    published_nothing(&repo, &b);
}
