//! Epochs through the real binary: the cut end to end (the files it leaves, byte for byte),
//! its retry, the retry of an archived op, the reads of an archived row, `verify --full`,
//! archives swapped, edited or lost and a witness older than the epoch, doctor's advice, and
//! the guard keeping every archive HEAD holds as it is.

use support::{Repo, change};

const ARCHIVE: &str = "docs/plans/archive/epoch-0001.json";

fn archive_refused(paths: &str, more: &str) -> String {
    let first = paths.split(' ').next().unwrap();
    format!(
        "mosaic-queue: refused: the archive {first}{more} is changed or removed in the index: an archive is written once and never changed; restore it with `git reset -q -- {paths}`"
    )
}

#[test]
fn the_guard_refuses_a_commit_that_changes_or_removes_an_archive() {
    let repo = Repo::new("archive-guard");
    std::fs::create_dir_all(repo.path("docs/plans/archive")).unwrap();
    repo.write(ARCHIVE, "{\"archived\":1}\n");
    // A new archive is no change to one HEAD holds.
    repo.git(&["add", ARCHIVE]);
    assert_eq!(repo.run(&["guard"], &[]).ok(), "");
    repo.git(&["commit", "-q", "--no-verify", "-m", "an archive"]);
    assert_eq!(repo.run(&["guard"], &[]).ok(), "");

    // Edited and staged.
    repo.write(ARCHIVE, "{\"archived\":2}\n");
    assert_eq!(repo.run(&["guard"], &[]).ok(), "", "not staged: clean");
    repo.git(&["add", ARCHIVE]);
    let before = repo.snapshot();
    assert_eq!(
        repo.run(&["guard"], &[]).fails(2),
        archive_refused(ARCHIVE, "")
    );
    repo.assert_unchanged(&before);
    repo.git(&["reset", "-q", "--", ARCHIVE]);
    assert_eq!(repo.run(&["guard"], &[]).ok(), "");

    // Removed from the index, and a second archive changed with it.
    let second = "docs/plans/archive/epoch-0002.json";
    repo.write(second, "{\"archived\":3}\n");
    repo.git(&["add", second]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "another"]);
    repo.git(&["rm", "-q", "--cached", ARCHIVE]);
    repo.write(second, "{\"archived\":4}\n");
    repo.git(&["add", second]);
    assert_eq!(
        repo.run(&["guard"], &[]).fails(2),
        archive_refused(&format!("{ARCHIVE} {second}"), " (and 1 more)")
    );
    repo.git(&["reset", "-q"]);
    assert_eq!(repo.run(&["guard"], &[]).ok(), "");
}

/// Adds row `id` (the lead, owned by darkwing, issue 30) and takes it to done through a round
/// that posts nothing: four entries.
fn add_done(repo: &Repo, id: u64) {
    let head = repo.git(&["rev-parse", "HEAD"]);
    let piece = format!("Piece {id}");
    let op = |what: &str| format!("darkwing-{id}-{what}");
    let add = [
        "add", "--piece", &piece, "--owner", "darkwing", "--issues", "30",
    ];
    assert!(
        repo.run(&change(&add, &format!("lead-add-{id}-x"), "lead"), &[])
            .ok()
            .starts_with("ok ")
    );
    let steps: [Vec<String>; 3] = [
        vec!["move".into(), id.to_string(), "in-progress".into()],
        vec![
            "move".into(),
            id.to_string(),
            "in-review".into(),
            "--candidate".into(),
            "HEAD".into(),
        ],
        vec![
            "move".into(),
            id.to_string(),
            "done".into(),
            "--evidence".into(),
            format!("comment=55,round=1,candidate=git:{head}"),
        ],
    ];
    for (args, what) in steps.iter().zip(["start", "review", "done"]) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = repo.run(&change(&args, &op(what), "darkwing"), &[]);
        assert!(out.ok().starts_with("ok "), "{}", out.stdout);
    }
}

const CUT: &[&str] = &[
    "archive",
    "--before",
    "10",
    "--yes",
    "--op",
    "lead-archive-1",
    "--by",
    "lead",
];
const CUT_RECEIPT: &str = "ok lead-archive-1 rev 13 archived 9 entries and 2 done rows to docs/plans/archive/epoch-0001.json\n";

/// Rows 4 and 5 added and done (revs 2 to 9), then three notes on row 1 (10 to 12). Returns
/// queue.json's bytes at rev 9 and the commit the rounds named.
fn history(repo: &Repo) -> (Vec<u8>, String) {
    let head = repo.git(&["rev-parse", "HEAD"]);
    add_done(repo, 4);
    add_done(repo, 5);
    let at_cut = repo.read_bytes("docs/plans/queue.json");
    for n in 1..=3 {
        let op = format!("darkwing-1-note-{n}");
        let out = repo.run(
            &change(&["note", "1", &format!("n{n}")], &op, "darkwing"),
            &[],
        );
        assert_eq!(out.ok(), format!("ok {op} rev {} note 1\n", 9 + n));
    }
    (at_cut, head)
}

#[test]
fn a_cut_archives_the_history_before_rev_and_the_done_rows_once() {
    let repo = Repo::new("archive-cut");
    repo.install_guard();
    let (at_cut, head) = history(&repo);
    let out = repo.run(CUT, &[]);
    assert_eq!((out.ok(), out.stderr.as_str()), (CUT_RECEIPT, ""));

    // The archive is queue.json as it stood at rev 9, byte for byte.
    assert_eq!(
        repo.read_bytes("docs/plans/archive/epoch-0001.json"),
        at_cut
    );
    let q = repo.queue();
    assert_eq!(q["revision"], 13);
    assert_eq!(
        repo.ops(),
        [
            "lead-archive-1.epoch",
            "darkwing-1-note-1",
            "darkwing-1-note-2",
            "darkwing-1-note-3",
            "lead-archive-1"
        ]
    );
    assert_eq!(q["log"][0]["verb"], "epoch");
    assert_eq!(q["log"][0]["rev"], 9);
    let ids: Vec<u64> = q["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, [1, 2, 3]);
    assert_eq!(
        repo.body(),
        "| # | Piece | Owner | Status | Gate | Issues | Note |\n| --- | --- | --- | --- | --- | --- | --- |\n| 1 | Parser | darkwing | queued |  | #12, #14 | n3 |\n| 2 | Render |  | queued | jason | #20 |  |\n\n**Parked**\n\n- 3 Old thing (owner sage): later\n"
    );
    assert_eq!(repo.witness().unwrap()["revision"], 13);
    // The read view carries the archived ids, so a read that answers from it knows them.
    let view: serde_json::Value =
        serde_json::from_slice(&repo.read_bytes(".git/mosaic-queue.view")).unwrap();
    assert_eq!(
        (&view["archived"], &view["nextId"]),
        (&serde_json::json!([[4, 5, 1]]), &serde_json::json!(6))
    );
    let mut names: Vec<String> = std::fs::read_dir(repo.path("docs/plans/archive"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["epoch-0001.json"]);

    // Its retry answers with the original receipt and writes nothing; as a document too.
    let before = repo.snapshot();
    assert_eq!(repo.run(CUT, &[]).ok(), CUT_RECEIPT);
    let mut json = CUT.to_vec();
    json.push("--json");
    let doc: serde_json::Value = serde_json::from_str(repo.run(&json, &[]).ok()).unwrap();
    assert_eq!(
        doc,
        serde_json::json!({
            "op": "lead-archive-1",
            "revision": 13,
            "verb": "archive",
            "row": null,
            "recorded": true,
            "text": CUT_RECEIPT.trim_end(),
        })
    );
    repo.assert_unchanged(&before);
    assert_eq!(
        repo.run(&["verify", "--full"], &[]).ok(),
        "ok verify rev 13 (5 entries, witness rev 13), full history from genesis through 1 archive\n"
    );
    // The next cut starts at the archive entry at the earliest; a later REV past the head is
    // refused as the core says, nothing written.
    let again = [
        "archive",
        "--before",
        "12",
        "--yes",
        "--op",
        "lead-archive-2",
        "--by",
        "lead",
    ];
    let line = repo.run(&again, &[]).fails(2).to_owned();
    assert!(line.starts_with("mosaic-queue: refused: "), "{line}");
    repo.assert_unchanged(&before);
    assert_eq!(
        repo.run(
            &[
                "archive",
                "--before",
                "10",
                "--op",
                "lead-archive-3",
                "--by",
                "lead"
            ],
            &[]
        )
        .fails(2),
        "mosaic-queue: refused: archive needs --yes to confirm"
    );
    assert_eq!(
        repo.run(
            &[
                "archive",
                "--before",
                "10",
                "--yes",
                "--op",
                "darkwing-archive-1",
                "--by",
                "darkwing"
            ],
            &[]
        )
        .fails(2),
        "mosaic-queue: refused: darkwing may not cut the history: the lead, jason or sage only"
    );
    repo.assert_unchanged(&before);
    let _ = head;

    // The commit publishes the archive beside the pair (its base, HEAD's queue.json at
    // genesis, is older than the cut: the sandbox checks it through the archive), and leaves
    // the index clean, so the guard lets the next commit through.
    let out = repo.run(&["commit", "-m", "queue: the cut", "--by", "lead"], &[]);
    assert!(out.ok().ends_with(" (queue rev 13)\n"), "{}", out.stdout);
    assert_eq!(
        repo.git(&["ls-tree", "--name-only", "HEAD", "docs/plans/archive/"]),
        "docs/plans/archive/epoch-0001.json"
    );
    assert_eq!(
        repo.git(&["rev-parse", "HEAD:docs/plans/archive/epoch-0001.json"]),
        repo.git(&["hash-object", "docs/plans/archive/epoch-0001.json"])
    );
    assert_eq!(repo.git(&["status", "--porcelain", "--", "docs/plans"]), "");
    assert_eq!(repo.run(&["guard"], &[]).ok(), "");
    // A snapshot of it verifies against that old base through its archive, and not without.
    let snap = repo.base.join("snap");
    repo.run(&["snapshot", "--out", snap.to_str().unwrap()], &[])
        .ok();
    let base = repo.base.join("base.json");
    std::fs::write(
        &base,
        repo.git(&["show", "HEAD~1:docs/plans/queue.json"]) + "\n",
    )
    .unwrap();
    let (snap_s, base_s) = (snap.to_str().unwrap(), base.to_str().unwrap());
    assert_eq!(
        repo.run(&["verify", "--snapshot", snap_s, "--base", base_s], &[])
            .ok(),
        "ok verify --snapshot rev 13 (extends base rev 1)\n"
    );
    std::fs::remove_file(snap.join("archive/epoch-0001.json")).unwrap();
    let line = repo
        .run(&["verify", "--snapshot", snap_s, "--base", base_s], &[])
        .fails(2)
        .to_owned();
    assert!(line.starts_with("mosaic-queue: "), "{line}");
}

#[test]
fn an_archived_row_and_op_are_read_from_the_archive_and_never_applied_twice() {
    let repo = Repo::new("archive-reads");
    let (_, head) = history(&repo);
    repo.run(CUT, &[]).ok();
    let before = repo.snapshot();

    let show = repo.run(&["show", "4"], &[]).ok().to_owned();
    assert_eq!(
        show,
        format!(
            "row 4: Piece 4\n  status: done\n  owner: darkwing\n  gate: -\n  issues: #30\n  closes: #30\n  reviewers: -\n  brief: -\n  note: -\n  review: round 1 on #30 candidate git:{head}\n  rev: 9\n  archived: docs/plans/archive/epoch-0001.json (history before rev 10)\n"
        )
    );
    let json: serde_json::Value =
        serde_json::from_str(repo.run(&["show", "4", "--json"], &[]).ok()).unwrap();
    assert_eq!(json["archive"], "docs/plans/archive/epoch-0001.json");
    assert_eq!(json["row"]["status"], "done");
    let log: Vec<String> = repo
        .run(&["log", "4"], &[])
        .ok()
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            format!("{} {}", f[0], f[5])
        })
        .collect();
    assert_eq!(
        log,
        [
            "5 darkwing-4-done",
            "4 darkwing-4-review",
            "3 darkwing-4-start",
            "2 lead-add-4-x"
        ]
    );
    // wait: an archived row is done for good.
    assert_eq!(
        repo.run(&["wait", "4", "--status", "done", "--timeout", "1"], &[])
            .ok(),
        show
    );
    assert_eq!(
        repo.run(
            &["wait", "4", "--status", "in-review", "--timeout", "1"],
            &[]
        )
        .fails(2),
        "mosaic-queue: row 4 is done and never moves again, so it will not be in-review"
    );
    // verify-commit checks against the archived row's last round.
    let out = repo.run(&["review", "verify-commit", "4", &head], &[]);
    assert_eq!(
        out.ok(),
        format!("ok verify-commit row 4 round 1 git:{head} matches {head} (2 paths)\n")
    );
    assert_eq!(
        repo.run(&["show", "9"], &[]).fails(2),
        "mosaic-queue: refused: no row 9 in the queue; `mosaic-queue list` shows the rows"
    );
    assert_eq!(
        repo.run(
            &change(&["note", "4", "x"], "darkwing-4-note-9", "darkwing"),
            &[]
        )
        .fails(2),
        "mosaic-queue: refused: row 4 is done and archived in docs/plans/archive/epoch-0001.json: `show 4` reads it; a dependency on it is already met"
    );

    // The retry of an op the cut archived: its original receipt, nothing applied again.
    let evidence = format!("comment=55,round=1,candidate=git:{head}");
    let done = ["move", "4", "done", "--evidence", &evidence];
    assert_eq!(
        repo.run(&change(&done, "darkwing-4-done", "darkwing"), &[])
            .ok(),
        "ok darkwing-4-done rev 5 move 4 in-review -> done\n"
    );
    assert_eq!(
        repo.run(&change(&done, "darkwing-4-done", "flicker"), &[])
            .fails(2),
        "mosaic-queue: refused: op `darkwing-4-done` was recorded at rev 5 by darkwing, not flicker; choose a new op id"
    );
    assert_eq!(
        repo.run(
            &change(&["note", "1", "x"], "darkwing-4-done", "darkwing"),
            &[]
        )
        .fails(2),
        "mosaic-queue: refused: op `darkwing-4-done` was already used at rev 5 for another command (move); choose a new op id"
    );
    assert_eq!(
        repo.run(&["sync", "--op", "darkwing-4-done"], &[]).ok(),
        "ok sync rev 13: darkwing-4-done is durable at rev 5 (by darkwing), archived in docs/plans/archive/epoch-0001.json\n"
    );
    repo.assert_unchanged(&before);

    // snapshot --out copies the archive beside the pair.
    let snap = repo.base.join("snap");
    repo.run(&["snapshot", "--out", snap.to_str().unwrap()], &[])
        .ok();
    assert_eq!(
        std::fs::read(snap.join("archive/epoch-0001.json")).unwrap(),
        repo.read_bytes("docs/plans/archive/epoch-0001.json")
    );
    assert_eq!(
        std::fs::read(snap.join("queue.json")).unwrap(),
        repo.read_bytes("docs/plans/queue.json")
    );
}

#[test]
fn a_changed_missing_or_stray_archive_and_an_old_witness_are_told_apart() {
    let repo = Repo::new("archive-damage");
    let head = repo.git(&["rev-parse", "HEAD"]);
    add_done(&repo, 4);
    // The witness at rev 5, which the cut at rev 9 will leave behind the epoch.
    let early_witness = repo.read_bytes(".git/mosaic-queue.head");
    add_done(&repo, 5);
    for n in 1..=3 {
        let op = format!("darkwing-1-note-{n}");
        repo.run(&change(&["note", "1", "n"], &op, "darkwing"), &[])
            .ok();
    }
    // queue.json at rev 12, before the cut.
    let before_cut = repo.read_bytes("docs/plans/queue.json");
    repo.run(CUT, &[]).ok();
    let archive = "docs/plans/archive/epoch-0001.json";
    let good = repo.read_bytes(archive);
    let evidence = format!("comment=55,round=1,candidate=git:{head}");
    let retry = change(
        &["move", "4", "done", "--evidence", &evidence],
        "darkwing-4-done",
        "darkwing",
    );
    let changed = "mosaic-queue: docs/plans/archive/epoch-0001.json does not hold the bytes the queue's epoch names (edited or swapped?); restore it from git (`git checkout -- docs/plans/archive/epoch-0001.json`): an archive is never changed";

    // Edited: a byte more. verify --full, a retry that needs it and doctor each say so.
    let mut edited = good.clone();
    edited.push(b'\n');
    repo.write(archive, &edited);
    let before = repo.snapshot();
    assert_eq!(repo.run(&["verify", "--full"], &[]).fails(2), changed);
    let out = repo.run(&["verify", "--full", "--json"], &[]);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        (out.code, &doc["error"]["kind"], &doc["error"]["exit"]),
        (
            2,
            &serde_json::json!("archive-changed"),
            &serde_json::json!(2)
        )
    );
    assert_eq!(repo.run(&retry, &[]).fails(2), changed);
    let doctor = repo.run(&["doctor"], &[]).stdout.clone();
    assert!(doctor.contains("archive-changed: docs/plans/archive/epoch-0001.json does not hold the bytes queue.json's epoch names (edited or swapped?): restore it from git (`git checkout -- docs/plans/archive/epoch-0001.json`); an archive is never changed\n"), "{doctor}");
    repo.assert_unchanged(&before);
    // Plain verify and a change that needs no archive start from the epoch alone.
    assert!(
        repo.run(&["verify"], &[])
            .ok()
            .starts_with("ok verify rev 13 ")
    );

    // Swapped for another queue file (the one at rev 12): the same line.
    repo.write(archive, &before_cut);
    assert_eq!(repo.run(&["verify", "--full"], &[]).fails(2), changed);

    // Missing.
    std::fs::remove_file(repo.path(archive)).unwrap();
    let missing = "mosaic-queue: docs/plans/archive/epoch-0001.json is missing, and the queue's epoch names it; restore it from git (`git checkout -- docs/plans/archive/epoch-0001.json`)";
    assert_eq!(repo.run(&["verify", "--full"], &[]).fails(2), missing);
    assert_eq!(repo.run(&retry, &[]).fails(2), missing);
    assert!(repo.run(&["doctor"], &[]).stdout.contains("archive-missing: docs/plans/archive/epoch-0001.json is missing, and queue.json's epoch names it"));
    repo.write(archive, &good);

    // Not a regular file: a named pipe (never opened to block) and a symlink are refused.
    std::fs::remove_file(repo.path(archive)).unwrap();
    let fifo = std::process::Command::new("mkfifo")
        .arg(repo.path(archive))
        .status()
        .unwrap();
    assert!(fifo.success());
    let shown = repo.path(archive).display().to_string();
    assert_eq!(
        repo.run(&["verify", "--full"], &[]).fails(2),
        format!(
            "mosaic-queue: {shown} is a named pipe (FIFO), not a regular file; restore it from git (`git checkout -- docs/plans/archive/`); archives are never edited"
        )
    );
    std::fs::remove_file(repo.path(archive)).unwrap();
    std::os::unix::fs::symlink(repo.path("docs/plans/queue.json"), repo.path(archive)).unwrap();
    assert_eq!(
        repo.run(&["verify", "--full"], &[]).fails(2),
        format!(
            "mosaic-queue: {shown} is a symlink; an archive must be a regular file, not a link: replace the link with a copy of the file it points to"
        )
    );
    std::fs::remove_file(repo.path(archive)).unwrap();
    repo.write(archive, &good);

    // A stray archive no epoch names.
    repo.write("docs/plans/archive/epoch-0002.json", "{}");
    assert!(repo.run(&["doctor"], &[]).stdout.contains(
        "archive-unnamed: docs/plans/archive/epoch-0002.json is named by no epoch of queue.json"
    ));
    std::fs::remove_file(repo.path("docs/plans/archive/epoch-0002.json")).unwrap();

    // Rolled back to before the cut: the witness says so, as for any rollback.
    let cut = repo.read_bytes("docs/plans/queue.json");
    repo.write("docs/plans/queue.json", &before_cut);
    assert_eq!(
        repo.run(&["verify"], &[]).fails(2),
        "mosaic-queue: queue.json is at rev 12 but the witness saw rev 13: history was lost (see Manual recovery)"
    );
    repo.write("docs/plans/queue.json", &cut);

    // A hand edit of the epoch entry (its chain digest) is refused by every verb alike.
    let text = String::from_utf8(cut.clone()).unwrap();
    let digest = repo.queue()["log"][0]["args"]["digest"]
        .as_str()
        .unwrap()
        .to_owned();
    let forged = digest.replacen(&digest[..1], if &digest[..1] == "0" { "1" } else { "0" }, 1);
    repo.write("docs/plans/queue.json", text.replacen(&digest, &forged, 1));
    let before = repo.snapshot();
    let line = repo.run(&["verify"], &[]).fails(2).to_owned();
    assert_eq!(
        line,
        "mosaic-queue: queue.json is invalid: log entry rev 13 is refused by the rules it was written under: the cut's entry is not as a cut writes it: the archive entry does not name the epoch entry, archive and counts the log starts with; restore docs/plans/queue.json from git (`git checkout -- docs/plans/queue.json`) or see Manual recovery"
    );
    assert_eq!(repo.run(&["verify", "--full"], &[]).fails(2), line);
    assert_eq!(
        repo.run(
            &change(&["note", "1", "x"], "darkwing-1-note-5", "darkwing"),
            &[]
        )
        .fails(2),
        line
    );
    repo.assert_unchanged(&before);
    repo.write("docs/plans/queue.json", &cut);

    // A witness older than the epoch (rev 5, before the cut at rev 9): checked through the
    // archive, and the next write goes on from it; with the archive swapped it refuses.
    repo.write(".git/mosaic-queue.head", &early_witness);
    repo.write(archive, &before_cut);
    assert_eq!(
        repo.run(
            &change(&["note", "1", "after"], "darkwing-1-note-4", "darkwing"),
            &[]
        )
        .fails(2),
        changed
    );
    repo.write(archive, &good);
    assert_eq!(
        repo.run(
            &change(&["note", "1", "after"], "darkwing-1-note-4", "darkwing"),
            &[]
        )
        .ok(),
        "ok darkwing-1-note-4 rev 14 note 1\n"
    );
    assert_eq!(repo.witness().unwrap()["revision"], 14);
    assert!(
        repo.run(&["verify", "--full"], &[])
            .ok()
            .starts_with("ok verify rev 14 ")
    );
}

#[test]
fn doctor_names_the_cut_past_ten_thousand_entries_and_the_cut_it_names_works() {
    let dir = support::bench::Scratch::new("archive-doctor");
    let root = support::long::long_checkout(&dir.0, 3, 10_000);
    let doctor = support::run_in(&root, &["doctor"], &[]);
    assert!(
        doctor.stdout.contains(
            "archive-due: queue.json's log holds 10001 entries (more than 10,000), and every write costs all of them; a cut archives the history before rev 9002 and the done rows nothing later names, keeping 1,000 entries (the lead, jason or sage): run `mosaic-queue archive --before 9002 --op OP --by lead --yes`\n"
        ),
        "{}",
        doctor.stdout
    );
    let cut = [
        "archive",
        "--before",
        "9002",
        "--op",
        "lead-archive-1",
        "--by",
        "lead",
        "--yes",
    ];
    assert_eq!(
        support::run_in(&root, &cut, &[]).ok(),
        "ok lead-archive-1 rev 10002 archived 9001 entries and 0 done rows to docs/plans/archive/epoch-0001.json\n"
    );
    let doctor = support::run_in(&root, &["doctor"], &[]);
    assert!(!doctor.stdout.contains("archive-due"), "{}", doctor.stdout);
    assert_eq!(
        support::run_in(&root, &["verify", "--full"], &[]).ok(),
        "ok verify rev 10002 (1002 entries, witness rev 10002), full history from genesis through 1 archive\n"
    );
}

/// Every temp file under docs/plans (its archive folder included) and in .git, by name.
fn temps(repo: &Repo) -> Vec<String> {
    let mut names = Vec::new();
    for dir in ["docs/plans", "docs/plans/archive", ".git"] {
        let Ok(entries) = std::fs::read_dir(repo.path(dir)) else {
            continue;
        };
        for entry in entries {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if name.ends_with(".tmp") {
                names.push(format!("{dir}/{name}"));
            }
        }
    }
    names.sort();
    names
}

/// A cut killed at each of its steps: what is on disk, then `unlock` and the retry of the
/// same op, which prints one receipt and leaves the archive and queue.json as an unbroken cut.
#[test]
fn a_cut_killed_at_each_step_recovers_with_unlock_and_its_retry() {
    use mosaic_queue::io::seams::CUT_STEPS;
    let at = |s: &str| CUT_STEPS.iter().position(|w| *w == s).unwrap();
    for step in CUT_STEPS {
        let repo = Repo::new(&format!("archive-kill-{step}"));
        let (at_cut, _) = history(&repo);
        let out = repo.run(CUT, &[("MOSAIC_KILL_AT", step)]);
        assert_eq!(out.signal, Some(9), "killed at {step}: {out:?}");
        let printed = if *step == "receipt-printed" {
            CUT_RECEIPT
        } else {
            ""
        };
        assert_eq!(
            (out.stdout.as_str(), out.stderr.as_str()),
            (printed, ""),
            "{step}"
        );
        let archive = repo.path("docs/plans/archive/epoch-0001.json");
        let placed = at(step) >= at("archive-placed");
        assert_eq!(archive.exists(), placed, "the archive after {step}");
        if placed {
            assert_eq!(std::fs::read(&archive).unwrap(), at_cut, "{step}");
        }
        let visible = at(step) >= at("queue-renamed");
        assert_eq!(
            repo.queue()["revision"],
            if visible { 13 } else { 12 },
            "{step}"
        );
        let left = temps(&repo);
        let archive_temp = left.iter().any(|t| t.starts_with("docs/plans/archive/"));
        assert_eq!(
            archive_temp,
            *step == "archive-temp-written",
            "{step}: {left:?}"
        );

        let unlocked = repo.run(&["unlock"], &[]);
        assert!(
            unlocked
                .ok()
                .starts_with("ok unlock: removed the dead queue lock"),
            "{step}"
        );
        assert_eq!(repo.run(CUT, &[]).ok(), CUT_RECEIPT, "retry after {step}");
        assert_eq!(
            repo.read_bytes("docs/plans/archive/epoch-0001.json"),
            at_cut,
            "{step}"
        );
        assert_eq!(
            repo.ops().last().map(String::as_str),
            Some("lead-archive-1")
        );
        assert_eq!(repo.ops().len(), 5, "{step}");
        assert_eq!(
            repo.run(&["verify", "--current", "--full"], &[]).ok(),
            "ok verify rev 13 (5 entries, witness rev 13), table current, full history from genesis through 1 archive\n",
            "{step}"
        );
        assert_eq!(temps(&repo), Vec::<String>::new(), "{step}");
    }
}

/// A cut killed once its archive was placed, then made at another revision instead: the
/// archive no epoch named is replaced by the new cut's.
#[test]
fn a_stray_archive_of_a_killed_cut_is_replaced_by_a_cut_at_another_revision() {
    let repo = Repo::new("archive-replace");
    history(&repo);
    let out = repo.run(CUT, &[("MOSAIC_KILL_AT", "archive-written")]);
    assert_eq!(out.signal, Some(9));
    repo.run(&["unlock"], &[]).ok();
    let doctor = repo.run(&["doctor"], &[]).stdout.clone();
    assert!(
        doctor.contains("archive-unnamed: docs/plans/archive/epoch-0001.json is named by no epoch"),
        "{doctor}"
    );
    let other = [
        "archive",
        "--before",
        "12",
        "--yes",
        "--op",
        "lead-archive-2",
        "--by",
        "lead",
    ];
    assert_eq!(
        repo.run(&other, &[]).ok(),
        "ok lead-archive-2 rev 13 archived 11 entries and 2 done rows to docs/plans/archive/epoch-0001.json\n"
    );
    let archived: serde_json::Value =
        serde_json::from_slice(&repo.read_bytes("docs/plans/archive/epoch-0001.json")).unwrap();
    assert_eq!(archived["revision"], 11);
    assert!(
        !repo
            .run(&["doctor"], &[])
            .stdout
            .contains("archive-unnamed")
    );
    assert!(
        repo.run(&["verify", "--full"], &[])
            .ok()
            .starts_with("ok verify rev 13 ")
    );
}

/// Two cuts: the second archive starts with the first cut's epoch entry; reads, retries and
/// `verify --full` go through both, and a commit publishes both.
#[test]
fn a_second_cut_chains_on_the_first() {
    let repo = Repo::new("archive-twice");
    repo.install_guard();
    let (_, head) = history(&repo);
    assert_eq!(repo.run(CUT, &[]).ok(), CUT_RECEIPT);
    add_done(&repo, 6);
    let n = repo.queue()["revision"].as_u64().unwrap();
    assert_eq!(n, 17);
    let note = change(&["note", "1", "after"], "darkwing-1-note-5", "darkwing");
    assert_eq!(
        repo.run(&note, &[]).ok(),
        "ok darkwing-1-note-5 rev 18 note 1\n"
    );
    // The first cut's archive entry is rev 13: the second starts at 14 at the earliest.
    let early = [
        "archive",
        "--before",
        "13",
        "--yes",
        "--op",
        "lead-archive-2",
        "--by",
        "lead",
    ];
    let line = repo.run(&early, &[]).fails(2).to_owned();
    assert!(line.starts_with("mosaic-queue: refused: "), "{line}");
    let second = [
        "archive",
        "--before",
        "18",
        "--yes",
        "--op",
        "lead-archive-2",
        "--by",
        "lead",
    ];
    assert_eq!(
        repo.run(&second, &[]).ok(),
        "ok lead-archive-2 rev 19 archived 8 entries and 1 done rows to docs/plans/archive/epoch-0002.json\n"
    );
    let archive2: serde_json::Value =
        serde_json::from_slice(&repo.read_bytes("docs/plans/archive/epoch-0002.json")).unwrap();
    assert_eq!(archive2["log"][0]["op"], "lead-archive-1.epoch");
    assert_eq!(archive2["revision"], 17);
    assert_eq!(repo.queue()["log"][0]["args"]["epoch"], 2);
    assert_eq!(
        repo.run(&["verify", "--full"], &[]).ok(),
        "ok verify rev 19 (3 entries, witness rev 19), full history from genesis through 2 archives\n"
    );
    // Rows of either cut read from their own archive; an op of either is never applied again.
    assert!(
        repo.run(&["show", "4"], &[])
            .ok()
            .ends_with("  archived: docs/plans/archive/epoch-0001.json (history before rev 10)\n")
    );
    assert!(
        repo.run(&["show", "6"], &[])
            .ok()
            .ends_with("  archived: docs/plans/archive/epoch-0002.json (history before rev 18)\n")
    );
    assert_eq!(repo.run(&["log", "6"], &[]).ok().lines().count(), 4);
    let evidence = format!("comment=55,round=1,candidate=git:{head}");
    let done4 = ["move", "4", "done", "--evidence", &evidence];
    let before = repo.snapshot();
    assert_eq!(
        repo.run(&change(&done4, "darkwing-4-done", "darkwing"), &[])
            .ok(),
        "ok darkwing-4-done rev 5 move 4 in-review -> done\n"
    );
    // The first cut's op, archived by the second: its original receipt, nothing cut again.
    assert_eq!(repo.run(CUT, &[]).ok(), CUT_RECEIPT);
    let mut other = CUT.to_vec();
    *other.last_mut().unwrap() = "sage";
    assert_eq!(
        repo.run(&other, &[]).fails(2),
        "mosaic-queue: refused: op `lead-archive-1` was recorded at rev 13 by lead, not sage; choose a new op id"
    );
    assert_eq!(
        repo.run(&["sync", "--op", "darkwing-1-note-1"], &[]).ok(),
        "ok sync rev 19: darkwing-1-note-1 is durable at rev 10 (by darkwing), archived in docs/plans/archive/epoch-0002.json\n"
    );
    repo.assert_unchanged(&before);
    let out = repo.run(&["commit", "-m", "queue: two cuts", "--by", "lead"], &[]);
    assert!(out.ok().ends_with(" (queue rev 19)\n"), "{}", out.stdout);
    assert_eq!(
        repo.git(&["ls-tree", "--name-only", "HEAD", "docs/plans/archive/"]),
        "docs/plans/archive/epoch-0001.json\ndocs/plans/archive/epoch-0002.json"
    );
    assert_eq!(repo.git(&["status", "--porcelain", "--", "docs/plans"]), "");
}
