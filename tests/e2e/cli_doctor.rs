//! `doctor` end to end: each state it names, with the exact line, the JSON document and the
//! exit code; that it writes nothing (files byte for byte as before, lock included); and that
//! the command it names cures the state.

use serde_json::{Value, json};
use support::recording_git::{RecordingGit, SAYS};
use support::{Holder, Repo, ok};

fn ready(name: &str) -> Repo {
    let repo = Repo::new(name);
    repo.install_guard();
    repo
}

fn note(repo: &Repo, op: &str, rev: u64) {
    ok(
        repo,
        &["note", "1", op],
        op,
        "darkwing",
        &format!("ok {op} rev {rev} note 1"),
    );
}

/// What a lock file's holder looks like in a message.
fn named(h: &Holder) -> String {
    format!(
        "pid {} (op {}, verb {}, at {})",
        h.pid,
        h.op.as_deref().unwrap_or("none"),
        h.verb,
        h.at
    )
}

/// Runs doctor twice (text, then --json) and checks both left every file as it was; returns
/// the text run's stdout, its exit code, and the document.
fn doctor(repo: &Repo) -> (String, i32, Value) {
    let before = repo.snapshot();
    let text = repo.run(&["doctor"], &[]);
    let doc = repo.run(&["doctor", "--json"], &[]);
    repo.assert_unchanged(&before);
    assert_eq!(text.code, doc.code);
    let value: Value = serde_json::from_str(&doc.stdout).expect("one JSON document");
    if text.code == 2 {
        let n = value["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["action"] == true)
            .count();
        let what = if n == 1 {
            "finding needs"
        } else {
            "findings need"
        };
        assert_eq!(
            text.stderr,
            format!("mosaic-queue: doctor: {n} {what} action; handle them in the order printed\n")
        );
    } else {
        assert_eq!(text.stderr, "");
    }
    (text.stdout, text.code, value)
}

fn finding(kind: &str, detail: &str, command: Option<&str>, action: bool) -> Value {
    json!({"kind": kind, "detail": detail, "command": command, "action": action, "choices": []})
}

/// A finding a person settles by taking one of `choices`.
fn choosing(kind: &str, detail: &str, choices: Value) -> Value {
    json!({"kind": kind, "detail": detail, "command": null, "action": true, "choices": choices})
}

const OP_MEANS: &str = "a new op id for this change: 8 to 72 characters of [a-z0-9._-], starting with a letter or digit";

/// The one choice Manual recovery ends with, once `when` holds.
fn accept_history(when: &str) -> Value {
    json!([{
        "when": when,
        "command": "mosaic-queue accept-history --op OP --reason TEXT --yes --by ACTOR",
        "placeholders": [
            {"name": "OP", "means": OP_MEANS},
            {"name": "TEXT", "means": "what was lost or changed and what the person did about it; the entry keeps it"},
            {"name": "ACTOR", "means": "who runs it: one of by"},
        ],
        "by": ["jason", "sage"],
    }])
}

const DECIDED: &str = "a person has decided that queue.json as it stands is the history to keep (the contract's Manual recovery)";
const PLACED: &str = "a valid docs/plans/queue.json is in place (the contract's Manual recovery)";
const REAPPLIED: &str =
    "the lost ops are found and re-applied under new op ids (the contract's Manual recovery)";

#[test]
fn a_healthy_checkout_needs_nothing() {
    let repo = ready("doctor-healthy");
    note(&repo, "darkwing-1-note", 2);
    let (text, code, doc) = doctor(&repo);
    assert_eq!(
        (text.as_str(), code),
        ("ok doctor rev 2: nothing needs doing\n", 0)
    );
    assert_eq!(doc, json!({"healthy": true, "revision": 2, "findings": []}));
}

#[test]
fn a_live_lock_is_reported_and_left_alone() {
    let repo = ready("doctor-live");
    let holder = Holder::this_process();
    repo.plant_lock(&holder);
    let (text, code, doc) = doctor(&repo);
    let detail = format!(
        "the queue lock .git/mosaic-queue.lock is live: {} is running; writers wait for it, and what follows may change when that command ends",
        named(&holder)
    );
    assert_eq!(code, 0);
    assert_eq!(
        text,
        format!("lock-live: {detail}\nok doctor rev 1: nothing needs doing\n")
    );
    assert_eq!(
        doc,
        json!({"healthy": true, "revision": 1, "findings": [finding("lock-live", &detail, None, false)]})
    );
}

#[test]
fn dead_mismatched_and_rebooted_locks_are_cured_by_unlock() {
    let repo = ready("doctor-dead");
    let dead = Holder::dead();
    let mut reused = Holder::this_process();
    reused.start += 1;
    let mut rebooted = Holder::this_process();
    rebooted.boot = "00000000-0000-4000-8000-000000000000".to_owned();
    for (holder, kind, class) in [
        (
            &dead,
            "lock-dead",
            format!("dead: {} is no longer running", named(&dead)),
        ),
        (
            &reused,
            "lock-mismatch",
            format!(
                "mismatch: {} is gone and its pid now belongs to another process",
                named(&reused)
            ),
        ),
        (
            &rebooted,
            "lock-dead",
            format!(
                "dead: {} was taken during an earlier boot of this host (boot {}), so it is no longer running",
                named(&rebooted),
                rebooted.boot
            ),
        ),
    ] {
        repo.plant_lock(holder);
        let (text, code, doc) = doctor(&repo);
        let detail = format!(
            "the queue lock .git/mosaic-queue.lock is {class}; every writer refuses until it is removed"
        );
        assert_eq!(code, 2);
        assert_eq!(
            text,
            format!("{kind}: {detail}: run `mosaic-queue unlock`\n")
        );
        assert_eq!(
            doc,
            json!({"healthy": false, "revision": 1, "findings": [finding(kind, &detail, Some("mosaic-queue unlock"), true)]})
        );
        repo.run(&["unlock"], &[]).ok();
        assert_eq!(doctor(&repo).1, 0, "{kind} cured");
    }
}

#[test]
fn unknown_and_invalid_locks_wait_for_a_person() {
    let repo = ready("doctor-person");
    let mut foreign = Holder::this_process();
    foreign.host = "elsewhere".to_owned();
    repo.plant_lock(&foreign);
    let (text, code, doc) = doctor(&repo);
    let detail = format!(
        "the queue lock .git/mosaic-queue.lock is unknown: {} was taken on host elsewhere, boot {}, which this host cannot check; a person must check that no queue command is running on host elsewhere, then remove it by hand (`rm .git/mosaic-queue.lock`)",
        named(&foreign),
        foreign.boot
    );
    assert_eq!((text, code), (format!("lock-unknown: {detail}\n"), 2));
    assert_eq!(
        doc["findings"],
        json!([finding("lock-unknown", &detail, None, true)])
    );

    repo.write(".git/mosaic-queue.lock", "not a lock\n");
    let (text, code, doc) = doctor(&repo);
    assert_eq!(code, 2);
    assert!(
        text.starts_with("lock-invalid: the queue lock .git/mosaic-queue.lock is invalid: ")
            && text.ends_with("; a person must check that no queue command is running, then remove it by hand (`rm .git/mosaic-queue.lock`)\n"),
        "{text}"
    );
    assert_eq!(doc["findings"][0]["command"], Value::Null);
}

#[test]
fn a_leftover_unlock_gate_is_removed_by_hand() {
    let repo = ready("doctor-gate");
    let mut gate = Holder::dead();
    gate.op = None;
    gate.verb = "unlock".to_owned();
    repo.write(".git/mosaic-queue.unlock", gate.to_canonical());
    let (text, code, doc) = doctor(&repo);
    let detail = format!(
        "the unlock gate .git/mosaic-queue.unlock is dead: {} is no longer running; `mosaic-queue unlock` refuses while it exists, and an unlock that died holds nothing",
        named(&gate)
    );
    assert_eq!(
        (text, code),
        (
            format!("gate-dead: {detail}: run `rm .git/mosaic-queue.unlock`\n"),
            2
        )
    );
    assert_eq!(
        doc["findings"],
        json!([finding(
            "gate-dead",
            &detail,
            Some("rm .git/mosaic-queue.unlock"),
            true
        )])
    );
}

#[test]
#[cfg_attr(
    not(feature = "fault-injection"),
    ignore = "killing a writer after its rename needs the fault-injection build"
)]
fn a_tail_visible_but_not_durable_is_confirmed_by_sync() {
    let repo = ready("doctor-tail");
    let out = repo.run(
        &support::change(
            &["note", "1", "visible only"],
            "darkwing-1-note",
            "darkwing",
        ),
        &[("MOSAIC_KILL_AT", "queue-renamed")],
    );
    assert_eq!(out.signal, Some(9));
    let (text, code, doc) = doctor(&repo);
    assert_eq!(code, 2);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(
        lines[0].starts_with("lock-dead: the queue lock .git/mosaic-queue.lock is dead: pid ")
            && lines[0].contains(" (op darkwing-1-note, verb note, at ")
            && lines[0].ends_with("is no longer running; every writer refuses until it is removed: run `mosaic-queue unlock`"),
        "{text}"
    );
    assert!(lines[1].starts_with("unacknowledged: op darkwing-1-note (by darkwing) is in the log at rev 2, but the writer that held the lock for it stopped, so its receipt may not have printed: tell darkwing, whose retry of the same op answers with the original receipt: run `mosaic-queue sync --op darkwing-1-note`"), "{text}");
    assert_eq!(
        lines[2],
        "tail-not-durable: revs 2 to 2 are visible, not confirmed durable (darkwing-1-note by darkwing); sync makes them durable and names each op's seat to tell: run `mosaic-queue sync`"
    );
    assert_eq!(
        lines[3],
        "table-stale: docs/plans/QUEUE.md shows rev 1, the log is at rev 2: run `mosaic-queue render`"
    );
    assert_eq!(doc["revision"], 2);
    // The named commands, in order, cure it.
    repo.run(&["unlock"], &[]).ok();
    assert_eq!(
        repo.run(&["sync"], &[]).ok(),
        "durable darkwing-1-note rev 2 (by darkwing): tell darkwing\nok sync rev 2: 1 op confirmed durable\n"
    );
    repo.run(&["render"], &[]).ok();
    let (text, code, _) = doctor(&repo);
    assert_eq!(
        (text.as_str(), code),
        ("ok doctor rev 2: nothing needs doing\n", 0)
    );
}

#[test]
fn stale_and_hand_edited_tables() {
    let repo = ready("doctor-table");
    let old = repo.read("docs/plans/QUEUE.md");
    note(&repo, "darkwing-1-note", 2);
    repo.write("docs/plans/QUEUE.md", &old);
    let (text, code, doc) = doctor(&repo);
    let detail = "docs/plans/QUEUE.md shows rev 1, the log is at rev 2";
    assert_eq!(
        (text, code),
        (
            format!("table-stale: {detail}: run `mosaic-queue render`\n"),
            2
        )
    );
    assert_eq!(
        doc["findings"],
        json!([finding(
            "table-stale",
            detail,
            Some("mosaic-queue render"),
            true
        )])
    );
    repo.run(&["render"], &[]).ok();
    assert_eq!(doctor(&repo).1, 0);

    let edited = repo
        .read("docs/plans/QUEUE.md")
        .replace("Parser", "Parser (hand edit)");
    repo.write("docs/plans/QUEUE.md", edited);
    let (text, code, doc) = doctor(&repo);
    let detail = "docs/plans/QUEUE.md's table is not a render of this queue (a hand edit?): restore it with git (`git show HEAD:docs/plans/QUEUE.md` holds the committed one) or re-apply the edit as queue ops, then run `mosaic-queue render`";
    assert_eq!((text, code), (format!("table-hand-edited: {detail}\n"), 2));
    assert_eq!(
        doc["findings"],
        json!([finding("table-hand-edited", detail, None, true)])
    );
}

#[test]
fn a_missing_witness_is_synced_at_genesis_and_accepted_after() {
    let repo = ready("doctor-witness");
    std::fs::remove_file(repo.path(".git/mosaic-queue.head")).unwrap();
    let (text, code, _) = doctor(&repo);
    assert_eq!(
        (text, code),
        (
            "witness-missing: there is no witness .git/mosaic-queue.head and queue.json holds genesis alone, so genesis is not confirmed durable: run `mosaic-queue sync`\n".to_owned(),
            2
        )
    );
    repo.run(&["sync"], &[]).ok();
    assert_eq!(doctor(&repo).1, 0);

    note(&repo, "darkwing-1-note", 2);
    std::fs::remove_file(repo.path(".git/mosaic-queue.head")).unwrap();
    let (text, code, doc) = doctor(&repo);
    let detail = "there is no witness .git/mosaic-queue.head and queue.json is at rev 2, past genesis: nothing tells what was lost; see the contract's Manual recovery, which ends with `mosaic-queue accept-history --op OP --reason TEXT --yes --by jason`";
    assert_eq!((text, code), (format!("witness-missing: {detail}\n"), 2));
    assert_eq!(
        doc,
        json!({"healthy": false, "revision": 2, "findings": [
            choosing("witness-missing", detail, accept_history(DECIDED))
        ]})
    );
    // The choice, filled in, cures it.
    repo.run(
        &[
            "accept-history",
            "--op",
            "jason-accept-0001",
            "--reason",
            "witness lost; rev 2 is what we had",
            "--yes",
            "--by",
            "sage",
        ],
        &[],
    )
    .ok();
    assert_eq!(doctor(&repo).1, 0);
}

#[test]
fn an_unreadable_witness_and_a_missing_queue_end_in_accept_history() {
    let repo = ready("doctor-witness-invalid");
    let witness = repo.read_bytes(".git/mosaic-queue.head");
    repo.write(".git/mosaic-queue.head", "{ not json\n");
    let (text, code, doc) = doctor(&repo);
    let detail = format!(
        "the witness {} is unreadable: not valid JSON at line 1, column 3 (byte 2): key must be a string; see the contract's Manual recovery, which ends with `mosaic-queue accept-history --op OP --reason TEXT --yes --by jason`",
        repo.path(".git/mosaic-queue.head").display()
    );
    assert_eq!((text, code), (format!("witness-invalid: {detail}\n"), 2));
    assert_eq!(
        doc,
        json!({"healthy": false, "revision": 1, "findings": [
            choosing("witness-invalid", &detail, accept_history(DECIDED))
        ]})
    );

    repo.write(".git/mosaic-queue.head", &witness);
    std::fs::remove_file(repo.path("docs/plans/queue.json")).unwrap();
    let (text, code, doc) = doctor(&repo);
    let detail = "docs/plans/queue.json is missing but the witness .git/mosaic-queue.head vouches for a queue; see the contract's Manual recovery: put a valid file in place, then `mosaic-queue accept-history --op OP --reason TEXT --yes --by jason`";
    assert_eq!((text, code), (format!("no-queue: {detail}\n"), 2));
    assert_eq!(
        doc,
        json!({"healthy": false, "revision": null, "findings": [
            choosing("no-queue", detail, accept_history(PLACED))
        ]})
    );
}

#[test]
fn rolled_back_and_rewritten_history_is_manual_recovery() {
    let repo = ready("doctor-history");
    let rev1 = repo.read_bytes("docs/plans/queue.json");
    let witness1 = repo.read_bytes(".git/mosaic-queue.head");
    let md1 = repo.read_bytes("docs/plans/QUEUE.md");
    note(&repo, "darkwing-1-note", 2);
    let witness2 = repo.read_bytes(".git/mosaic-queue.head");
    // Rolled back: queue.json at rev 1 under a witness of rev 2.
    let md2 = repo.read_bytes("docs/plans/QUEUE.md");
    repo.write("docs/plans/queue.json", &rev1);
    repo.write("docs/plans/QUEUE.md", &md1);
    let (text, code, doc) = doctor(&repo);
    assert_eq!(code, 2);
    let detail = "history was rolled back: queue.json is at rev 1 but the witness saw rev 2; see the contract's Manual recovery (find the lost ops, re-apply them under new op ids), which ends with `mosaic-queue accept-history --op OP --reason TEXT --yes --by jason`";
    assert_eq!(text, format!("history-lost: {detail}\n"));
    assert_eq!(
        doc,
        json!({"healthy": false, "revision": 1, "findings": [
            choosing("history-lost", detail, accept_history(REAPPLIED))
        ]})
    );
    // Rewritten: another rev 2 under the first rev 2's witness.
    repo.write(".git/mosaic-queue.head", &witness1);
    note(&repo, "darkwing-1-other", 2);
    repo.write(".git/mosaic-queue.head", &witness2);
    let (text, code, _) = doctor(&repo);
    assert_eq!(
        (text.as_str(), code),
        (
            "history-lost: history was rewritten: queue.json's log up to rev 2 differs from what the witness saw; see the contract's Manual recovery (find the lost ops, re-apply them under new op ids), which ends with `mosaic-queue accept-history --op OP --reason TEXT --yes --by jason`\n",
            2
        )
    );
    let _ = md2;
}

#[test]
fn an_invalid_queue_json_names_the_byte() {
    let repo = ready("doctor-invalid");
    let text = repo
        .read("docs/plans/queue.json")
        .replacen("  \"version\"", "   \"version\"", 1);
    repo.write("docs/plans/queue.json", text);
    let (text, code, doc) = doctor(&repo);
    let detail = r#"docs/plans/queue.json is invalid: queue.json not in canonical form at line 2, column 3 (byte 4): expected "\"version\": 1,\n  \"canonic", found " \"version\": 1,\n  \"canoni"; see the contract's Manual recovery: copy the file aside first (restoring HEAD's `git show HEAD:docs/plans/queue.json` drops every op since the last queue commit), put a valid file in place, then `mosaic-queue accept-history --op OP --reason TEXT --yes --by jason`"#;
    assert_eq!((text, code), (format!("queue-invalid: {detail}\n"), 2));
    assert_eq!(
        doc,
        json!({"healthy": false, "revision": null, "findings": [
            choosing("queue-invalid", detail, accept_history(PLACED))
        ]})
    );
}

/// A repository with no docs/plans at all: the queue is missing (and, in this bare repository,
/// the guard's script), and nothing is said about the filesystem of a folder that is not there.
#[test]
fn a_checkout_without_docs_plans_is_a_missing_queue_only() {
    let repo = Repo::bare("doctor-no-plans");
    repo.git(&["rm", "-q", "-r", "docs"]);
    repo.git(&["commit", "-q", "-m", "no queue here"]);
    assert!(!repo.path("docs/plans").exists());
    let (text, code, doc) = doctor(&repo);
    assert_eq!(
        (text, code),
        (
            "no-queue: docs/plans/queue.json does not exist: genesis has not run, or did not survive a crash (a retry of its op starts the queue): run `mosaic-queue genesis --map MAP --op OP --by jason`\nguard: HEAD has no scripts/git-hooks/pre-commit, so there is no guard to install; commit it, then run `mosaic-queue install-hook --by jason`\n".to_owned(),
            2
        )
    );
    assert_eq!(doc["findings"].as_array().map(Vec::len), Some(2), "{doc}");
}

#[test]
fn genesis_not_committed_and_no_queue_yet() {
    let repo = Repo::bare("doctor-genesis");
    repo.install_guard();
    let (text, code, doc) = doctor(&repo);
    assert_eq!(
        (text, code),
        (
            "no-queue: docs/plans/queue.json does not exist: genesis has not run, or did not survive a crash (a retry of its op starts the queue): run `mosaic-queue genesis --map MAP --op OP --by jason`\n".to_owned(),
            2
        )
    );
    assert_eq!(doc["revision"], Value::Null);
    repo.genesis().ok();
    let (text, code, _) = doctor(&repo);
    assert_eq!(
        (text, code),
        (
            "genesis-not-committed: HEAD holds no docs/plans/queue.json, so every change refuses until genesis is committed: run `mosaic-queue commit --genesis -m 'queue genesis' --by jason`\n".to_owned(),
            2
        )
    );
    repo.run(
        &[
            "commit",
            "--genesis",
            "-m",
            "queue genesis",
            "--by",
            "jason",
        ],
        &[],
    )
    .ok();
    assert_eq!(doctor(&repo).1, 0);
}

#[test]
fn the_guard_missing_or_not_ours() {
    let repo = Repo::new("doctor-guard");
    // No hook in HEAD: a person commits it first.
    let (text, code, doc) = doctor(&repo);
    assert_eq!(code, 2);
    assert_eq!(
        text,
        "guard: HEAD has no scripts/git-hooks/pre-commit, so there is no guard to install; commit it, then run `mosaic-queue install-hook --by jason`\n"
    );
    assert_eq!(doc["findings"][0]["command"], Value::Null);
    repo.install_guard();
    repo.write(".git/hooks/pre-commit", "#!/bin/sh\nexit 0\n");
    let (text, code, _) = doctor(&repo);
    assert_eq!(
        (text, code),
        (
            "guard: the guard .git/hooks/pre-commit differs from HEAD's scripts/git-hooks/pre-commit: run `mosaic-queue install-hook --by jason`\n".replace(".git/hooks/pre-commit", &repo.path(".git/hooks/pre-commit").display().to_string()),
            2
        )
    );
    repo.run(&["install-hook", "--by", "jason"], &[]).ok();
    assert_eq!(doctor(&repo).1, 0);
    std::fs::remove_file(repo.path(".git/hooks/pre-commit")).unwrap();
    let (text, code, _) = doctor(&repo);
    assert_eq!(code, 2);
    assert!(
        text.starts_with("guard: the guard ") && text.contains(" is not installed ("),
        "{text}"
    );
}

/// The guard is the one check doctor makes through git: a git that cannot be started, or that
/// fails, is named as a finding a person acts on, never skipped as if the guard were fine.
#[test]
fn a_guard_git_cannot_check_is_a_finding_not_a_skip() {
    let repo = ready("doctor-no-git");
    assert_eq!(doctor(&repo).1, 0);
    let before = repo.snapshot();
    let empty = repo.base.join("empty-path");
    std::fs::create_dir_all(&empty).unwrap();
    let out = repo.run(&["doctor"], &[("PATH", empty.to_str().unwrap())]);
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (
            2,
            "guard-unchecked: the guard was not checked: cannot run git: No such file or directory (os error 2); install git or put it on PATH, then run `mosaic-queue doctor` again\n",
            "mosaic-queue: doctor: 1 finding needs action; handle them in the order printed\n"
        )
    );
    let git = RecordingGit::new(&repo.base);
    let out = repo.run(&["doctor", "--json"], &[("PATH", git.path())]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        doc["findings"],
        json!([{
            "kind": "guard-unchecked",
            "detail": format!("the guard was not checked: {SAYS}; fix what git says, then run `mosaic-queue doctor` again"),
            "command": null,
            "action": true,
            "choices": [],
        }])
    );
    assert_eq!(git.take(), ["git rev-parse --verify -q HEAD^{commit}"]);
    repo.assert_unchanged(&before);
}

#[test]
fn leftover_temp_files_are_informational() {
    let repo = ready("doctor-temps");
    repo.write("docs/plans/.queue.json.4242.tmp", "half");
    repo.write(
        ".git/mosaic-queue.lock.4242.0123456789abcdef.tmp",
        "lock temp",
    );
    repo.write(".git/mosaic-queue-commit.4242.0.index", "index");
    let (text, code, doc) = doctor(&repo);
    assert_eq!(code, 0);
    assert_eq!(
        text,
        "temp-files: a writer's temp files are left (docs/plans/.queue.json.4242.tmp); nothing reads them and the next write removes them\n\
lock-temp-files: temp files of a command killed while taking the lock or the unlock gate are left (.git/mosaic-queue.lock.4242.0123456789abcdef.tmp); nothing reads or removes them: delete each by hand once the pid in its name is gone (`rm .git/mosaic-queue.lock.4242.0123456789abcdef.tmp`)\n\
commit-indexes: temporary indexes of a commit that stopped are left (.git/mosaic-queue-commit.4242.0.index); nothing reads them: delete each by hand once the pid in its name is gone (`rm .git/mosaic-queue-commit.4242.0.index`)\n\
ok doctor rev 1: nothing needs doing\n"
    );
    assert_eq!(doc["healthy"], true);
    assert_eq!(doc["findings"].as_array().unwrap().len(), 3);
}

#[test]
fn checkout_checks_that_fail_are_reported_not_refused() {
    let repo = ready("doctor-checkout");
    let out = repo.run(&["doctor"], &[("GIT_DIR", ".git")]);
    assert_eq!(out.code, 2);
    assert_eq!(
        out.stdout,
        "git-env: GIT_DIR is set; the queue runs only from its canonical checkout's own .git: run `unset GIT_DIR`\n"
    );
    repo.git(&["checkout", "-q", "-b", "elsewhere"]);
    let (text, code, _) = doctor(&repo);
    assert_eq!(
        (text, code),
        (
            "wrong-branch: HEAD is not on the genesis branch main (elsewhere); check out main first, but only once no uncommitted queue op would be touched (see the contract's git side of the protocol)\n".to_owned(),
            2
        )
    );
}

/// Outside a checkout, or where `.git` is no repository, doctor refuses as every verb does
/// there: the same exit, the same one line naming the cause once, the same JSON error.
#[test]
fn outside_a_checkout_it_refuses_like_every_verb() {
    let dir = std::env::temp_dir().join(format!("mosaic-doctor-nogit-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let dir = dir.canonicalize().unwrap();
    let message = format!(
        "not inside a git checkout (Could not find a git repository in '{}' or in any of its parents); run the queue from the canonical checkout",
        dir.display()
    );
    let error = json!({"error": {
        "exit": 2,
        "kind": "not-git",
        "message": message,
        "next": "run the queue from the canonical checkout",
        "retryable": false,
    }});
    /// Puts one thing at `.git` (or nothing).
    type Make = fn(&std::path::Path);
    let dot_git: [(&str, Make); 4] = [
        ("no .git", |_| {}),
        ("a file", |g| {
            std::fs::write(g, "not a repository\n").unwrap()
        }),
        ("an empty directory", |g| std::fs::create_dir(g).unwrap()),
        ("a dangling symlink", |g| {
            std::os::unix::fs::symlink("nowhere", g).unwrap()
        }),
    ];
    for (what, make) in dot_git {
        let git = dir.join(".git");
        let _ = std::fs::remove_file(&git);
        let _ = std::fs::remove_dir_all(&git);
        make(&git);
        for verb in [&["doctor"][..], &["list"], &["verify"]] {
            let out = support::run_in(&dir, verb, &[]);
            assert_eq!(
                (out.code, out.stdout.as_str(), out.stderr.as_str()),
                (2, "", format!("mosaic-queue: {message}\n").as_str()),
                "{what}: {verb:?}"
            );
            let mut with_json = verb.to_vec();
            with_json.push("--json");
            let out = support::run_in(&dir, &with_json, &[]);
            assert_eq!(out.code, 2, "{what}: {verb:?}");
            let doc: Value = serde_json::from_str(&out.stdout).unwrap();
            assert_eq!(doc, error, "{what}: {verb:?}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The finding for row 1's first request attempt left in `state`, as doctor words it.
fn unresolved(state: &str) -> String {
    use support::review::OP;
    format!(
        "row 1 round 1: request attempt {OP} by darkwing is {state}, which blocks the row; once no request for it is still running, look on issue #12 for a comment carrying <!-- mosaic-queue-op: {OP} -->: if it is there, the owner or jason/sage runs `mosaic-queue review resolve 1 {OP} --comment N`, else jason or sage runs `mosaic-queue review abandon 1 {OP} --reason TEXT --yes`"
    )
}

/// The two ways out of row 1's first request attempt: resolve it with the comment (its owner
/// darkwing, jason or sage) or abandon it (jason or sage).
fn resolve_or_abandon() -> Value {
    use support::review::OP;
    let marker = format!("<!-- mosaic-queue-op: {OP} -->");
    json!([
        {
            "when": format!("a comment carrying {marker} is on issue #12, and no request for it is still running"),
            "command": format!("mosaic-queue review resolve 1 {OP} --comment N --op OP --by ACTOR"),
            "placeholders": [
                {"name": "N", "means": format!("the id of the comment on issue #12 carrying {marker}")},
                {"name": "OP", "means": OP_MEANS},
                {"name": "ACTOR", "means": "who runs it: one of by"},
            ],
            "by": ["darkwing", "jason", "sage"],
        },
        {
            "when": format!("no comment carrying {marker} is on issue #12, and no request for it is still running"),
            "command": format!("mosaic-queue review abandon 1 {OP} --reason TEXT --yes --op OP --by ACTOR"),
            "placeholders": [
                {"name": "TEXT", "means": "why: what the person found on issue #12"},
                {"name": "OP", "means": OP_MEANS},
                {"name": "ACTOR", "means": "who runs it: one of by"},
            ],
            "by": ["jason", "sage"],
        },
    ])
}

/// Doctor on a review harness names exactly one finding, `review-unresolved` in `state`, with
/// no single command but the two a person chooses between, exit 2, and writes nothing.
fn names_unresolved(r: &support::review::Review, state: &str) {
    let (text, code, doc) = doctor(&r.repo);
    let detail = unresolved(state);
    assert_eq!(
        (text.as_str(), code),
        (format!("review-unresolved: {detail}\n").as_str(), 2)
    );
    assert_eq!(
        doc,
        json!({"healthy": false, "revision": 4, "findings": [
            choosing("review-unresolved", &detail, resolve_or_abandon())
        ]})
    );
}

#[test]
fn a_request_left_requesting_names_resolve_and_abandon_and_abandon_cures_it() {
    use support::review::{OP, ready, to_review};
    let (r, head) = ready("doctor-requesting");
    r.repo.install_guard();
    // Killed before the POST: the attempt's entry is durable, nothing was sent.
    let out = r.run_with(
        &to_review(&head),
        OP,
        "darkwing",
        &[("MOSAIC_KILL_AT", "request-sending")],
    );
    assert_eq!(out.signal, Some(9));
    names_unresolved(&r, "requesting");
    // The person looks on #12, finds no comment, and jason abandons: doctor is satisfied.
    assert_eq!(r.fake.comments(), []);
    r.ok(
        &["review", "abandon", "1", OP, "--reason", "nothing on #12", "--yes"],
        "jason-1-abandon",
        "jason",
        &format!("ok jason-1-abandon rev 5 review abandon 1 round 1 {OP} requesting -> abandoned (duplicate risk)"),
    );
    let (text, code, _) = doctor(&r.repo);
    assert_eq!(
        (text.as_str(), code),
        ("ok doctor rev 5: nothing needs doing\n", 0)
    );
}

#[test]
fn a_request_left_uncertain_names_resolve_and_abandon_and_resolve_cures_it() {
    use support::fake_gitea::{Answer, Endpoint};
    use support::review::{OP, ready, to_review};
    let (r, head) = ready("doctor-uncertain");
    r.repo.install_guard();
    // The comment is stored but the answer is lost: the outcome entry says uncertain.
    r.fake
        .script(Endpoint::PostComment, Answer::Drop { stored: true });
    let out = r.run(&to_review(&head), OP, "darkwing");
    assert_eq!(out.code, 3, "{}", out.stderr);
    let (text, code, doc) = doctor(&r.repo);
    let detail = unresolved("uncertain");
    assert_eq!(
        (text.as_str(), code),
        (format!("review-unresolved: {detail}\n").as_str(), 2)
    );
    assert_eq!(
        doc,
        json!({"healthy": false, "revision": 5, "findings": [
            choosing("review-unresolved", &detail, resolve_or_abandon())
        ]})
    );
    // The person finds the comment on #12, and the owner resolves with it.
    let comments = r.fake.comments();
    assert_eq!(comments.len(), 1);
    let n = comments[0].id.to_string();
    let out = r.run(
        &["review", "resolve", "1", OP, "--comment", &n],
        "darkwing-1-resolve",
        "darkwing",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let (text, code, _) = doctor(&r.repo);
    assert_eq!(
        (text.as_str(), code),
        ("ok doctor rev 6: nothing needs doing\n", 0)
    );
}
