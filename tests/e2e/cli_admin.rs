//! The admin verbs through the real binary: sync, snapshot, verify --snapshot, unlock,
//! accept-history and demo. Exact stdout, exit codes, one-line refusals, and the files they
//! leave (or, refusing, do not touch).

use std::path::{Path, PathBuf};

use support::{Holder, Repo, change, ok, run_in};

const WITNESS: &str = ".git/mosaic-queue.head";
const QUEUE_JSON: &str = "docs/plans/queue.json";
const QUEUE_MD_PATH: &str = "docs/plans/QUEUE.md";

/// Two changes after genesis (rev 2 by darkwing, rev 3 by flicker).
fn two_changes(repo: &Repo) {
    ok(
        repo,
        &["note", "1", "parser first"],
        "darkwing-1-note",
        "darkwing",
        "ok darkwing-1-note rev 2 note 1",
    );
    ok(
        repo,
        &["move", "2", "in-progress"],
        "flicker-2-start",
        "flicker",
        "ok flicker-2-start rev 3 move 2 queued -> in-progress",
    );
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

// ---- sync ----

#[test]
fn sync_with_nothing_to_confirm_changes_nothing() {
    let repo = Repo::new("sync-nothing");
    let before = repo.snapshot();
    assert_eq!(
        repo.run(&["sync"], &[]).ok(),
        "ok sync rev 1: nothing to confirm\n"
    );
    assert_eq!(
        repo.run(&["sync", "--op", "genesis-0001"], &[]).ok(),
        "ok sync rev 1: genesis-0001 is durable at rev 1 (by jason)\n"
    );
    repo.assert_unchanged(&before);
}

#[test]
fn sync_confirms_a_visible_tail_and_names_each_op() {
    let repo = Repo::new("sync-tail");
    let old_witness = repo.read_bytes(WITNESS);
    two_changes(&repo);
    let confirmed = repo.witness().unwrap();
    // A writer killed after its rename and before its witness: the file is ahead of the
    // witness, which is still the one from rev 1.
    repo.write(WITNESS, &old_witness);
    let out = repo.run(&["list"], &[]);
    assert_eq!(out.stderr, "rev 3 visible, not confirmed durable\n");

    // Asked about an op that never became visible: refused, nothing written.
    let before = repo.snapshot();
    assert_eq!(
        repo.run(&["sync", "--op", "darkwing-9-never"], &[])
            .fails(2),
        "mosaic-queue: op darkwing-9-never is not in the log (rev 3): it never became visible; retry it with the same op id and arguments"
    );
    repo.assert_unchanged(&before);

    assert_eq!(
        repo.run(&["sync"], &[]).ok(),
        "durable darkwing-1-note rev 2 (by darkwing): tell darkwing\n\
         durable flicker-2-start rev 3 (by flicker): tell flicker\n\
         ok sync rev 3: 2 ops confirmed durable\n"
    );
    let w = repo.witness().unwrap();
    assert_eq!(w["revision"], 3);
    assert_eq!(w["logDigest"], confirmed["logDigest"]);
    assert_eq!(w["fileSha"], confirmed["fileSha"]);
    assert_eq!(repo.run(&["list"], &[]).stderr, "");
    assert_eq!(
        repo.run(&["sync"], &[]).ok(),
        "ok sync rev 3: nothing to confirm\n"
    );

    // With --op, the tail is confirmed and the op asked about is answered last.
    repo.write(WITNESS, &old_witness);
    assert_eq!(
        repo.run(&["sync", "--op", "darkwing-1-note"], &[]).ok(),
        "durable darkwing-1-note rev 2 (by darkwing): tell darkwing\n\
         durable flicker-2-start rev 3 (by flicker): tell flicker\n\
         ok sync rev 3: darkwing-1-note is durable at rev 2 (by darkwing)\n"
    );
    assert_eq!(repo.witness().unwrap()["revision"], 3);
    assert_eq!(
        repo.run(&["verify", "--current"], &[]).ok(),
        "ok verify rev 3 (3 entries, witness rev 3), table current\n"
    );
}

#[test]
fn sync_confirms_genesis_alone_without_a_witness() {
    let repo = Repo::bare("sync-genesis");
    repo.genesis().ok();
    std::fs::remove_file(repo.path(WITNESS)).unwrap();
    assert_eq!(
        repo.run(&["verify"], &[]).fails(2),
        "mosaic-queue: there is no witness .git/mosaic-queue.head: if queue.json holds genesis alone run `mosaic-queue sync`, otherwise see Manual recovery"
    );
    // Before the genesis commit, too: sync writes no log entry.
    assert_eq!(
        repo.run(&["sync"], &[]).ok(),
        "durable genesis-0001 rev 1 (by jason): tell jason\n\
         ok sync rev 1: 1 op confirmed durable\n"
    );
    assert_eq!(repo.witness().unwrap()["revision"], 1);
    assert_eq!(
        repo.run(&["verify"], &[]).ok(),
        "ok verify rev 1 (1 entries, witness rev 1)\n"
    );
}

#[test]
fn sync_refuses_lost_history_and_a_missing_witness() {
    let repo = Repo::new("sync-lost");
    let rev1 = repo.read_bytes(QUEUE_JSON);
    two_changes(&repo);
    // A rollback: rev 1's file under rev 3's witness.
    repo.write(QUEUE_JSON, &rev1);
    let before = repo.snapshot();
    assert_eq!(
        repo.run(&["sync"], &[]).fails(2),
        "mosaic-queue: sync confirms only a file that extends the witness: queue.json is at rev 1 but the witness saw rev 3: history was lost (see Manual recovery)"
    );
    repo.assert_unchanged(&before);

    let repo = Repo::new("sync-nowitness");
    two_changes(&repo);
    std::fs::remove_file(repo.path(WITNESS)).unwrap();
    let before = repo.snapshot();
    assert_eq!(
        repo.run(&["sync"], &[]).fails(2),
        "mosaic-queue: there is no witness .git/mosaic-queue.head and queue.json is at rev 3, past genesis: sync cannot tell what was lost; see Manual recovery (accept-history)"
    );
    repo.assert_unchanged(&before);
}

// ---- accept-history ----

const ACCEPT: &[&str] = &[
    "accept-history",
    "--reason",
    "rolled back by git checkout",
    "--yes",
];

#[test]
fn accept_history_after_a_rollback() {
    let repo = Repo::new("accept-rollback");
    let (rev1_json, rev1_md) = (repo.read_bytes(QUEUE_JSON), repo.read_bytes(QUEUE_MD_PATH));
    two_changes(&repo);
    let lost_witness = repo.witness().unwrap();
    // `git checkout docs/plans` after uncommitted ops: both files back at rev 1.
    repo.write(QUEUE_JSON, &rev1_json);
    repo.write(QUEUE_MD_PATH, &rev1_md);
    let before = repo.snapshot();
    assert_eq!(
        repo.run(
            &change(&["note", "1", "x"], "darkwing-1-again", "darkwing"),
            &[]
        )
        .fails(2),
        "mosaic-queue: queue.json is at rev 1 but the witness saw rev 3: history was lost (see Manual recovery)"
    );
    // No --yes; then not privileged.
    let no_yes = [
        "accept-history",
        "--reason",
        "rolled back",
        "--op",
        "jason-accept-0001",
        "--by",
        "jason",
    ];
    assert_eq!(
        repo.run(&no_yes, &[]).fails(2),
        "mosaic-queue: refused: accept-history needs --yes to confirm"
    );
    assert_eq!(
        repo.run(&change(ACCEPT, "darkwing-accept-1", "darkwing"), &[])
            .fails(2),
        "mosaic-queue: refused: darkwing may not accept history: jason or sage only"
    );
    repo.assert_unchanged(&before);

    let receipt = "ok jason-accept-0001 rev 2 accept-history replaces witness rev 3; at-most-once not guaranteed before rev 2\n";
    let args = change(ACCEPT, "jason-accept-0001", "jason");
    assert_eq!(repo.run(&args, &[]).ok(), receipt);
    let q = repo.queue();
    assert_eq!(q["revision"], 2);
    let entry = &q["log"][1];
    assert_eq!(entry["verb"], "accept-history");
    assert_eq!(entry["args"]["reason"], "rolled back by git checkout");
    assert_eq!(entry["args"]["oldWitness"], lost_witness);
    assert_eq!(entry["args"]["newRevision"], 2);
    assert_eq!(repo.witness().unwrap()["revision"], 2);
    assert_eq!(
        repo.run(&["verify", "--current"], &[]).ok(),
        "ok verify rev 2 (2 entries, witness rev 2), table current\n"
    );

    // A retry answers with the original receipt, although the witness it replaced is gone.
    let before = repo.snapshot();
    assert_eq!(repo.run(&args, &[]).ok(), receipt);
    repo.assert_unchanged(&before);
    // A new op on a queue that lost nothing: refused.
    assert_eq!(
        repo.run(&change(ACCEPT, "jason-accept-0002", "jason"), &[])
            .fails(2),
        "mosaic-queue: nothing to accept: queue.json extends the witness (rev 2); accept-history is only for Manual recovery"
    );
    repo.assert_unchanged(&before);
    // The queue works again.
    ok(
        &repo,
        &["note", "1", "x"],
        "darkwing-1-again",
        "darkwing",
        "ok darkwing-1-again rev 3 note 1",
    );
}

#[test]
fn accept_history_over_a_hand_edited_table_names_its_own_retry_not_render() {
    let repo = Repo::new("accept-edited");
    let (rev1_json, rev1_md) = (repo.read(QUEUE_JSON), repo.read(QUEUE_MD_PATH));
    two_changes(&repo);
    repo.write(QUEUE_JSON, &rev1_json);
    repo.write(
        QUEUE_MD_PATH,
        rev1_md.replacen("| 2 | Render |", "| 2 | Rendering |", 1),
    );
    let before = repo.snapshot();
    // render refuses in this state, so accept-history must not send a person there.
    let lost = "mosaic-queue: queue.json is at rev 1 but the witness saw rev 3: history was lost (see Manual recovery)";
    assert_eq!(repo.run(&["render"], &[]).fails(2), lost);
    let args = change(ACCEPT, "jason-accept-0001", "jason");
    assert_eq!(
        repo.run(&args, &[]).fails(2),
        "mosaic-queue: QUEUE.md's table is not a render of this queue (a hand edit?); restore it with git or re-apply the edit as queue ops, then run accept-history again"
    );
    repo.assert_unchanged(&before);
    // Restored, the step it named goes through.
    repo.write(QUEUE_MD_PATH, &rev1_md);
    assert!(
        repo.run(&args, &[])
            .ok()
            .starts_with("ok jason-accept-0001 rev 2 accept-history")
    );
    assert_eq!(
        repo.run(&["verify", "--current"], &[]).ok(),
        "ok verify rev 2 (2 entries, witness rev 2), table current\n"
    );
}

#[test]
fn accept_history_without_a_witness() {
    let repo = Repo::new("accept-nowitness");
    two_changes(&repo);
    std::fs::remove_file(repo.path(WITNESS)).unwrap();
    assert_eq!(
        repo.run(&change(ACCEPT, "sage-accept-0001", "sage"), &[])
            .ok(),
        "ok sage-accept-0001 rev 4 accept-history replaces no witness; at-most-once not guaranteed before rev 4\n"
    );
    assert_eq!(
        repo.queue()["log"][3]["args"]["oldWitness"],
        serde_json::Value::Null
    );
    assert_eq!(
        repo.run(&["verify", "--current"], &[]).ok(),
        "ok verify rev 4 (4 entries, witness rev 4), table current\n"
    );
}

#[test]
fn accept_history_refuses_an_invalid_file() {
    let repo = Repo::new("accept-invalid");
    let mut bytes = repo.read_bytes(QUEUE_JSON);
    bytes.push(b'\n');
    repo.write(QUEUE_JSON, &bytes);
    let before = repo.snapshot();
    let out = repo.run(&change(ACCEPT, "jason-accept-0001", "jason"), &[]);
    assert!(
        out.fails(2).starts_with("mosaic-queue: queue.json "),
        "{out:?}"
    );
    repo.assert_unchanged(&before);
}

/// Killed after its rename and before its witness: the retry finishes the witness.
#[cfg(feature = "fault-injection")]
#[test]
fn accept_history_killed_before_its_witness_is_finished_by_a_retry() {
    let repo = Repo::new("accept-killed");
    let rev1 = repo.read_bytes(QUEUE_JSON);
    let md1 = repo.read_bytes(QUEUE_MD_PATH);
    two_changes(&repo);
    repo.write(QUEUE_JSON, &rev1);
    repo.write(QUEUE_MD_PATH, &md1);
    let args = change(ACCEPT, "jason-accept-0001", "jason");
    let out = repo.run(&args, &[("MOSAIC_KILL_AT", "queue-dir-synced")]);
    assert_eq!((out.code, out.stdout.as_str()), (-1, ""), "killed");
    assert_eq!(repo.queue()["revision"], 2);
    assert_eq!(repo.witness().unwrap()["revision"], 3, "the old witness");
    // The killed run's lock is dead; unlock removes it.
    assert!(
        repo.run(&["unlock"], &[])
            .ok()
            .starts_with("ok unlock: removed the dead queue lock of pid ")
    );
    assert_eq!(
        repo.run(&args, &[]).ok(),
        "ok jason-accept-0001 rev 2 accept-history replaces witness rev 3; at-most-once not guaranteed before rev 2\n"
    );
    assert_eq!(repo.witness().unwrap()["revision"], 2);
    assert_eq!(
        repo.run(&["verify"], &[]).ok(),
        "ok verify rev 2 (2 entries, witness rev 2)\n"
    );
}

// ---- snapshot and verify --snapshot ----

#[test]
fn snapshot_copies_both_files_and_verifies_anywhere() {
    let repo = Repo::new("snapshot");
    let base = repo.base.join("base.json");
    std::fs::write(
        &base,
        repo.git(&["show", "HEAD:docs/plans/queue.json"]) + "\n",
    )
    .unwrap();
    two_changes(&repo);
    let out = repo.base.join("snap");
    let before = repo.snapshot();
    assert_eq!(
        repo.run(&["snapshot", "--out", s(&out)], &[]).ok(),
        format!("ok snapshot rev 3 -> {}\n", out.display())
    );
    repo.assert_unchanged(&before);
    assert_eq!(
        std::fs::read(out.join("queue.json")).unwrap(),
        repo.read_bytes(QUEUE_JSON)
    );
    assert_eq!(
        std::fs::read(out.join("QUEUE.md")).unwrap(),
        repo.read_bytes(QUEUE_MD_PATH)
    );
    let mut names: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["QUEUE.md", "queue.json"]);

    // Outside any repository, from the root directory.
    assert_eq!(
        run_in(Path::new("/"), &["verify", "--snapshot", s(&out)], &[]).ok(),
        "ok verify --snapshot rev 3\n"
    );
    assert_eq!(
        run_in(
            &repo.base,
            &["verify", "--snapshot", "snap", "--base", "base.json"],
            &[]
        )
        .ok(),
        "ok verify --snapshot rev 3 (extends base rev 1)\n"
    );
    // The snapshot as its own base.
    let same = out.join("queue.json");
    assert_eq!(
        run_in(
            Path::new("/"),
            &["verify", "--snapshot", s(&out), "--base", s(&same)],
            &[]
        )
        .ok(),
        "ok verify --snapshot rev 3 (extends base rev 3)\n"
    );

    // An existing empty directory, named relative to the working directory.
    std::fs::create_dir(repo.base.join("empty")).unwrap();
    assert_eq!(
        repo.run(&["snapshot", "--out", "../empty"], &[]).ok(),
        format!(
            "ok snapshot rev 3 -> {}\n",
            repo.base.join("empty").display()
        )
    );
}

#[test]
fn snapshot_refuses_and_creates_nothing() {
    let repo = Repo::new("snapshot-refuse");
    let before = repo.snapshot();
    let out = repo.base.join("snap");
    repo.run(&["snapshot", "--out", s(&out)], &[]).ok();
    // Not empty.
    assert_eq!(
        repo.run(&["snapshot", "--out", s(&out)], &[]).fails(2),
        format!(
            "mosaic-queue: --out {} is not empty; snapshot writes only into an empty directory",
            out.display()
        )
    );
    // Inside the repository, by name or through a symlink from outside.
    let inside = repo.path("snap");
    assert_eq!(
        repo.run(&["snapshot", "--out", "snap"], &[]).fails(2),
        format!(
            "mosaic-queue: --out snap lies inside the repository {}; snapshot into a directory outside it",
            repo.root.display()
        )
    );
    assert!(!inside.exists());
    std::fs::create_dir(repo.path("docs/empty")).unwrap();
    let link = repo.base.join("link");
    std::os::unix::fs::symlink(repo.path("docs/empty"), &link).unwrap();
    assert_eq!(
        repo.run(&["snapshot", "--out", s(&link)], &[]).fails(2),
        format!(
            "mosaic-queue: --out {} lies inside the repository {}; snapshot into a directory outside it",
            link.display(),
            repo.root.display()
        )
    );
    assert_eq!(
        std::fs::read_dir(repo.path("docs/empty")).unwrap().count(),
        0
    );
    std::fs::remove_dir(repo.path("docs/empty")).unwrap();
    // A file.
    let file = repo.base.join("map.md");
    assert_eq!(
        repo.run(&["snapshot", "--out", s(&file)], &[]).fails(2),
        format!(
            "mosaic-queue: --out {} is not a directory; name an empty directory",
            file.display()
        )
    );
    repo.assert_unchanged(&before);

    // A visible tail is not snapshotted until sync confirms it.
    let old_witness = repo.read_bytes(WITNESS);
    two_changes(&repo);
    repo.write(WITNESS, &old_witness);
    let before = repo.snapshot();
    let fresh = repo.base.join("fresh");
    assert_eq!(
        repo.run(&["snapshot", "--out", s(&fresh)], &[]).fails(2),
        "mosaic-queue: rev 3 is visible, not confirmed durable; run `mosaic-queue sync` first, then snapshot"
    );
    assert!(!fresh.exists());
    repo.assert_unchanged(&before);
}

/// A snapshot directory beside the repository holding `json` and `md`.
fn pair(repo: &Repo, name: &str, json: &[u8], md: &[u8]) -> PathBuf {
    let dir = repo.base.join(name);
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("queue.json"), json).unwrap();
    std::fs::write(dir.join("QUEUE.md"), md).unwrap();
    dir
}

#[test]
fn verify_snapshot_refuses_a_stale_table_and_a_bad_base() {
    let repo = Repo::new("verify-snapshot");
    let (json1, md1) = (repo.read_bytes(QUEUE_JSON), repo.read_bytes(QUEUE_MD_PATH));
    two_changes(&repo);
    let (json3, md3) = (repo.read_bytes(QUEUE_JSON), repo.read_bytes(QUEUE_MD_PATH));
    let root = Path::new("/");
    let verify = |dir: &Path, base: Option<&Path>| {
        let mut args = vec!["verify", "--snapshot", s(dir)];
        if let Some(b) = base {
            args.extend(["--base", s(b)]);
        }
        run_in(root, &args, &[])
    };

    let stale = pair(&repo, "stale", &json3, &md1);
    assert_eq!(
        verify(&stale, None).fails(2),
        "mosaic-queue: snapshot QUEUE.md is stale: rendered at rev 1, queue.json is at rev 3"
    );
    let mut edited = String::from_utf8(md3.clone()).unwrap();
    edited = edited.replace("parser first", "parser second");
    let unknown = pair(&repo, "unknown", &json3, edited.as_bytes());
    assert_eq!(
        verify(&unknown, None).fails(2),
        "mosaic-queue: snapshot QUEUE.md's table is not a render of its queue.json"
    );
    let mut bad = json3.clone();
    bad.extend(b"\n");
    let invalid = pair(&repo, "invalid", &bad, &md3);
    assert!(
        verify(&invalid, None)
            .fails(2)
            .starts_with("mosaic-queue: snapshot queue.json ")
    );
    let missing = repo.base.join("missing");
    assert_eq!(
        verify(&missing, None).fails(2),
        format!(
            "mosaic-queue: {} does not exist; take the snapshot again with `mosaic-queue snapshot --out DIR`",
            missing.join("queue.json").display()
        )
    );

    // Bases: ahead of the snapshot, from another history, invalid.
    let good = pair(&repo, "good", &json3, &md3);
    let old = pair(&repo, "old", &json1, &md1);
    let base3 = good.join("queue.json");
    assert_eq!(
        verify(&old, Some(&base3)).fails(2),
        format!(
            "mosaic-queue: the snapshot (rev 1) is behind the base {} (rev 3): history was lost",
            base3.display()
        )
    );
    let other = Repo::new("verify-snapshot-other");
    let other_base = repo.base.join("other.json");
    std::fs::write(&other_base, other.read_bytes(QUEUE_JSON)).unwrap();
    assert_eq!(
        verify(&good, Some(&other_base)).fails(2),
        format!(
            "mosaic-queue: the snapshot's log differs from the base {} at rev 1: history was rewritten",
            other_base.display()
        )
    );
    let garbage = repo.base.join("garbage.json");
    std::fs::write(&garbage, b"{}\n").unwrap();
    assert!(verify(&good, Some(&garbage)).fails(2).starts_with(&format!(
        "mosaic-queue: the base {} is invalid: ",
        garbage.display()
    )));
    assert_eq!(
        verify(&good, Some(&repo.base.join("old/queue.json"))).ok(),
        "ok verify --snapshot rev 3 (extends base rev 1)\n"
    );
}

#[test]
fn verify_flags_that_do_not_go_together_are_usage_errors() {
    let repo = Repo::new("verify-usage");
    for args in [
        &["verify", "--current", "--snapshot", "x"][..],
        &["verify", "--base", "x"][..],
        &["snapshot"][..],
    ] {
        let out = repo.run(args, &[]);
        assert_eq!(out.code, 4, "{args:?}: {out:?}");
    }
}

// ---- unlock ----

#[test]
fn unlock_removes_a_dead_lock_and_refuses_a_live_one() {
    let repo = Repo::new("unlock");
    assert_eq!(
        repo.run(&["unlock"], &[]).ok(),
        "ok unlock: no queue lock: .git/mosaic-queue.lock does not exist\n"
    );
    let dead = Holder::dead();
    repo.plant_lock(&dead);
    let before = repo.snapshot();
    let out = repo.run(
        &change(&["note", "1", "x"], "darkwing-1-note", "darkwing"),
        &[],
    );
    assert!(
        out.fails(1).contains("run `mosaic-queue unlock`"),
        "{out:?}"
    );
    repo.assert_unchanged(&before);
    assert_eq!(
        repo.run(&["unlock"], &[]).ok(),
        format!(
            "ok unlock: removed the dead queue lock of pid {} (op holder-op-0001, verb move, at 2026-01-02T03:04:05.678Z)\n",
            dead.pid
        )
    );
    assert!(!repo.path(".git/mosaic-queue.lock").exists());
    assert!(!repo.path(".git/mosaic-queue.unlock").exists());
    ok(
        &repo,
        &["note", "1", "x"],
        "darkwing-1-note",
        "darkwing",
        "ok darkwing-1-note rev 2 note 1",
    );

    let live = Holder::this_process();
    repo.plant_lock(&live);
    let before = repo.snapshot();
    assert_eq!(
        repo.run(&["unlock"], &[]).fails(1),
        format!(
            "mosaic-queue: not removing the queue lock {} (live: pid {} (op holder-op-0001, verb move, at 2026-01-02T03:04:05.678Z) is running): it is in use; wait for that command to finish",
            repo.path(".git/mosaic-queue.lock").display(),
            live.pid
        )
    );
    repo.assert_unchanged(&before);
}

#[test]
fn unlock_check_gate_classifies_and_removes_nothing() {
    let repo = Repo::new("check-gate");
    assert_eq!(
        repo.run(&["unlock", "--check-gate"], &[]).ok(),
        "ok unlock --check-gate: no unlock gate (.git/mosaic-queue.unlock does not exist)\n"
    );
    let gate = Holder {
        op: None,
        verb: "unlock".to_owned(),
        ..Holder::dead()
    };
    repo.write(".git/mosaic-queue.unlock", gate.to_canonical());
    repo.plant_lock(&Holder::dead());
    let before = repo.snapshot();
    assert_eq!(
        repo.run(&["unlock", "--check-gate"], &[]).ok(),
        format!(
            "ok unlock --check-gate: gate dead: pid {} (op none, verb unlock, at 2026-01-02T03:04:05.678Z) is no longer running; it may be removed by hand (rm .git/mosaic-queue.unlock) once no queue command is running\n",
            gate.pid
        )
    );
    // While the gate stands, unlock refuses and points at --check-gate.
    assert!(repo.run(&["unlock"], &[]).fails(1).ends_with(
        "another unlock is running or was killed: run `mosaic-queue unlock --check-gate`"
    ));
    repo.assert_unchanged(&before);

    let live = Holder {
        op: None,
        verb: "unlock".to_owned(),
        ..Holder::this_process()
    };
    repo.write(".git/mosaic-queue.unlock", live.to_canonical());
    assert_eq!(
        repo.run(&["unlock", "--check-gate"], &[]).ok(),
        format!(
            "ok unlock --check-gate: gate live: pid {} (op none, verb unlock, at 2026-01-02T03:04:05.678Z) is running; an unlock is running; leave the gate, it goes when that command ends\n",
            live.pid
        )
    );
    repo.write(".git/mosaic-queue.unlock", "not a holder");
    assert!(
        repo.run(&["unlock", "--check-gate"], &[])
            .ok()
            .ends_with("; this host cannot check its holder, so this is no clearance to remove it: a person must make sure no queue command is running anywhere\n")
    );
    assert_eq!(
        repo.read(".git/mosaic-queue.unlock"),
        "not a holder",
        "the gate is left as it was"
    );
}

// ---- demo ----

/// Removes the demo's checkout when the test ends.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn demo_builds_a_checkout_that_verifies() {
    let out = run_in(Path::new("/"), &["demo"], &[("MOSAIC_AGENT_NAME", "sage")]);
    let stdout = out.ok();
    let dir = PathBuf::from(
        stdout
            .lines()
            .next()
            .unwrap()
            .strip_prefix("demo checkout: ")
            .unwrap(),
    );
    let _cleanup = Scratch(dir.clone());
    assert!(dir.starts_with(std::env::temp_dir().canonicalize().unwrap()));
    let receipts: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("ok ") || l.starts_with("mosaic-queue: "))
        .collect();
    assert_eq!(receipts.len(), 11, "{stdout}");
    assert!(
        receipts[0].starts_with("ok jason-genesis-demo rev 1 genesis 4 rows on main from blob ")
    );
    assert!(
        receipts[1].starts_with("ok install-hook .git/hooks/pre-commit ("),
        "{}",
        receipts[1]
    );
    assert_eq!(
        receipts[2..],
        [
            "ok darkwing-2-start-1 rev 2 move 2 queued -> in-progress",
            "ok lead-add-node-shim rev 3 add 5 queued",
            "ok lead-add-node-docs rev 4 add 6 queued",
            "ok huey-take-1 rev 5 take 5 queued -> in-progress",
            "ok darkwing-1-block-1 rev 6 move 1 in-progress -> blocked",
            "ok flicker-3-note-1 rev 7 note 3",
            "mosaic-queue: refused: flicker may not release row 2: the owner, jason or sage (exit 2)",
            "ok darkwing-2-start-1 rev 2 move 2 queued -> in-progress",
            "ok doctor rev 7: nothing needs doing",
        ]
    );
    assert!(stdout.contains("$ mosaic-queue doctor\nok doctor rev 7: nothing needs doing\n"));
    // `next huey --explain` before the take, and the take that finds nothing after it.
    assert!(
        stdout.contains("$ mosaic-queue next huey --explain\nrow 5: Node shim\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "passed over:\n  row 1: owned by darkwing\n  row 2: owned by darkwing\n  row 3: blocked\n  row 4: parked\n  row 6: waiting on #5\n"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("$ mosaic-queue take --op louie-take-1 --by louie\nnothing to take\n"),
        "{stdout}"
    );
    // The commands it suggests run as printed, in a shell that has no mosaic-queue on PATH.
    let tail = stdout
        .split_once("Try next (each line as printed, in a POSIX shell):\n")
        .unwrap()
        .1;
    let lines: Vec<&str> = tail
        .lines()
        .map(|l| l.strip_prefix("  ").unwrap())
        .collect();
    assert_eq!(lines[0], format!("cd {}", dir.display()));
    assert_eq!(lines[1], format!("{} list", support::bin()));
    let script = format!("set -e\n{}\n", lines.join("\n"));
    let ran = std::process::Command::new("sh")
        .args(["-c", &script])
        .current_dir("/")
        .env("PATH", "/usr/bin:/bin")
        .env_remove("MOSAIC_AGENT_NAME")
        .output()
        .unwrap();
    let ran_out = String::from_utf8(ran.stdout).unwrap();
    assert!(
        ran.status.success(),
        "{ran_out}{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    assert!(ran_out.starts_with("rev 7\n"), "{ran_out}");
    assert!(
        ran_out.contains("mosaic-queue prime: you are huey, a seat. Queue at rev 7.\n"),
        "{ran_out}"
    );
    assert!(ran_out.contains("\nrow 2: Review requests\n"), "{ran_out}");
    assert!(
        ran_out.contains(
            "ok darkwing-2-review-1 rev 8 move 2 in-progress -> in-review round 1\n\
             ok verify rev 8 (8 entries, witness rev 8), table current\n8\t"
        ),
        "{ran_out}"
    );
    let log: Vec<&str> = ran_out
        .lines()
        .rev()
        .take(3)
        .map(|l| l.rsplit('\t').next().unwrap())
        .collect();
    assert_eq!(
        log,
        [
            "jason-genesis-demo",
            "darkwing-2-start-1",
            "darkwing-2-review-1"
        ]
    );
    let log = support::git(&dir, &["log", "--format=%s"]);
    assert_eq!(
        log,
        "queue genesis\nQUEUE.md with its markers, the migration map and the queue's scripts"
    );
    assert!(stdout.contains(
        "<!-- mosaic-queue:begin -->\n| # | Piece | Owner | Status | Gate | Issues | Note |\n"
    ));
}

/// On tmpfs the demo says so and leaves nothing behind.
#[test]
fn demo_refuses_an_unsupported_temp_dir() {
    let shm = Path::new("/dev/shm");
    let is_tmpfs = rustix::fs::statfs(shm).is_ok_and(|st| st.f_type as u64 == 0x0102_1994);
    // Linux mounts tmpfs there; a machine without it cannot hold this test, and says so.
    assert!(
        is_tmpfs,
        "/dev/shm is not tmpfs here: mount one there (mount -t tmpfs tmpfs /dev/shm) to run this test"
    );
    let list = || -> Vec<_> {
        std::fs::read_dir(shm)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|n| n.to_string_lossy().starts_with("mosaic-queue-demo-"))
            .collect()
    };
    let before = list();
    let out = run_in(Path::new("/"), &["demo"], &[("TMPDIR", "/dev/shm")]);
    let line = out.fails(2);
    assert!(
        line.starts_with("mosaic-queue: cannot build the demo in /dev/shm: ")
            && line.contains("unsupported filesystem (Tmpfs)")
            && line.ends_with("; set TMPDIR to a directory on one of them"),
        "{line}"
    );
    assert_eq!(list(), before);
}
