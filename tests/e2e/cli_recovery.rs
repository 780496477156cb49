//! The states "Manual recovery" and "Unlocked reads" talk about, made by hand in a scratch
//! checkout: a hand-edited queue.json or table, a rollback, a rewritten history, a missing
//! witness, and a file ahead of its witness. Writes refuse and leave every file as it was.

use support::Repo;

/// `args` plus `--op OP` and `--by BY`.
fn change<'a>(args: &[&'a str], op: &'a str, by: &'a str) -> Vec<&'a str> {
    let mut v = args.to_vec();
    v.extend(["--op", op, "--by", by]);
    v
}

const QUEUE_JSON: &str = "docs/plans/queue.json";
const QUEUE_MD: &str = "docs/plans/QUEUE.md";
const WITNESS: &str = ".git/mosaic-queue.head";

#[test]
fn a_hand_edit_of_queue_json_is_refused_by_every_verb() {
    let repo = Repo::new("edit-json");
    let text = repo.read(QUEUE_JSON);
    // Valid JSON in canonical form, but rows the log does not produce.
    repo.write(
        QUEUE_JSON,
        text.replacen("\"note\": \"first\"", "\"note\": \"frist\"", 1),
    );
    let before = repo.snapshot();
    let line = "mosaic-queue: queue.json is invalid: rows differ from the replayed log: row 1's note is not what the log produces; restore docs/plans/queue.json from git (`git checkout -- docs/plans/queue.json`) or see Manual recovery";
    for args in [
        vec!["list"],
        vec!["show", "1"],
        vec!["next", "zed"],
        vec!["verify"],
        vec!["render"],
        change(&["note", "1", "fixed"], "darkwing-1-note", "darkwing"),
    ] {
        assert_eq!(repo.run(&args, &[]).fails(2), line, "{args:?}");
    }
    // With --json the same line, and the core's kind in the error object on stdout.
    let json = repo.run(&["show", "1", "--json"], &[]);
    assert_eq!(
        (json.code, json.stderr.as_str()),
        (2, format!("{line}\n").as_str())
    );
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(doc["error"]["kind"], "rows-mismatch");
    repo.assert_unchanged(&before);

    // Bytes that are not the file's own re-serialization: the error points at them.
    repo.write(
        QUEUE_JSON,
        text.replacen("\"revision\": 1,", "\"revision\":  1,", 1),
    );
    let before = repo.snapshot();
    let out = repo.run(
        &change(&["note", "1", "fixed"], "darkwing-1-note", "darkwing"),
        &[],
    );
    assert!(
        out.fails(2)
            .starts_with("mosaic-queue: queue.json not in canonical form at line 4, column 15"),
        "{}",
        out.stderr
    );
    repo.assert_unchanged(&before);

    // Putting the bytes back is the whole repair.
    repo.write(QUEUE_JSON, &text);
    repo.run(&["verify", "--current"], &[]).ok();
}

#[test]
fn a_rollback_reads_as_lost_history() {
    let repo = Repo::new("rollback");
    let old = repo.read_bytes(QUEUE_JSON);
    for (op, note) in [("darkwing-1-note1", "one"), ("darkwing-1-note2", "two")] {
        repo.run(&change(&["note", "1", note], op, "darkwing"), &[])
            .ok();
    }
    // Only the file goes back (as `git checkout` would); the witness remembers rev 3.
    repo.write(QUEUE_JSON, &old);
    let before = repo.snapshot();
    let line = "mosaic-queue: queue.json is at rev 1 but the witness saw rev 3: history was lost (see Manual recovery)";
    for args in [
        vec!["list"],
        vec!["show", "1"],
        vec!["verify"],
        vec!["render", "--check"],
        change(&["note", "1", "three"], "darkwing-1-note3", "darkwing"),
        // A retry of a lost op is refused too: its id is no longer in the file.
        change(&["note", "1", "two"], "darkwing-1-note2", "darkwing"),
    ] {
        assert_eq!(repo.run(&args, &[]).fails(2), line, "{args:?}");
    }
    repo.assert_unchanged(&before);
}

#[test]
fn a_rewritten_history_reads_as_diverged() {
    let repo = Repo::new("diverged");
    let (json1, md1, witness1) = (
        repo.read_bytes(QUEUE_JSON),
        repo.read_bytes(QUEUE_MD),
        repo.read_bytes(WITNESS),
    );
    repo.run(
        &change(&["note", "1", "one way"], "darkwing-1-way-a", "darkwing"),
        &[],
    )
    .ok();
    let json_a = repo.read_bytes(QUEUE_JSON);
    // Back to rev 1, all three files, and another rev 2 from there.
    repo.write(QUEUE_JSON, &json1);
    repo.write(QUEUE_MD, &md1);
    repo.write(WITNESS, &witness1);
    repo.run(
        &change(&["note", "1", "other way"], "darkwing-1-way-b", "darkwing"),
        &[],
    )
    .ok();
    // The first rev 2 put in place of the second.
    repo.write(QUEUE_JSON, &json_a);
    let before = repo.snapshot();
    let line = "mosaic-queue: queue.json's log up to rev 2 differs from what the witness saw: history was rewritten (see Manual recovery)";
    for args in [
        vec!["list"],
        vec!["verify"],
        change(&["note", "1", "third"], "darkwing-1-way-c", "darkwing"),
    ] {
        assert_eq!(repo.run(&args, &[]).fails(2), line, "{args:?}");
    }
    repo.assert_unchanged(&before);
}

#[test]
fn a_missing_witness_refuses_writes() {
    let repo = Repo::new("no-witness");
    std::fs::remove_file(repo.path(WITNESS)).unwrap();
    let before = repo.snapshot();
    let line = "mosaic-queue: there is no witness .git/mosaic-queue.head: if queue.json holds genesis alone run `mosaic-queue sync`, otherwise see Manual recovery";
    for args in [
        vec!["verify"],
        vec!["render"],
        change(&["note", "1", "x"], "darkwing-1-note", "darkwing"),
    ] {
        assert_eq!(repo.run(&args, &[]).fails(2), line, "{args:?}");
    }
    // Reads go on, saying the file is not confirmed durable.
    let out = repo.run(&["list", "--json"], &[]);
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (0, "rev 1 visible, not confirmed durable\n")
    );
    assert!(
        out.stdout
            .starts_with("{\n  \"revision\": 1,\n  \"durable\": false,\n")
    );
    repo.assert_unchanged(&before);
}

#[test]
fn a_hand_edit_of_the_table_body_refuses_writes_and_render() {
    let repo = Repo::new("edit-table");
    let md = repo.read(QUEUE_MD);
    repo.write(
        QUEUE_MD,
        md.replacen("| 2 | Render |", "| 2 | Rendering |", 1),
    );
    let before = repo.snapshot();
    for (args, line) in [
        (
            change(&["note", "1", "x"], "darkwing-1-note", "darkwing"),
            "mosaic-queue: QUEUE.md's table is not a render of this queue (a hand edit?); restore it with git or re-apply the edit as queue ops, then run `mosaic-queue render`",
        ),
        (
            vec!["render"],
            "mosaic-queue: QUEUE.md's table is not a render of this queue; restore it with git or re-apply the edit as queue ops first",
        ),
        (
            vec!["render", "--check"],
            "mosaic-queue: QUEUE.md's table is not a render of this queue; restore it with git or re-apply the edit as queue ops first",
        ),
        (
            vec!["verify", "--current"],
            "mosaic-queue: QUEUE.md's table is not a render of this queue; restore it with git, then run `mosaic-queue render`",
        ),
    ] {
        assert_eq!(repo.run(&args, &[]).fails(2), line, "{args:?}");
    }
    repo.assert_unchanged(&before);
    // queue.json itself is fine: plain verify and the reads pass.
    repo.run(&["verify"], &[]).ok();
    repo.run(&["list"], &[]).ok();

    // Restored with git (genesis's table is committed), writes go on.
    repo.git(&["checkout", "--", QUEUE_MD]);
    repo.run(
        &change(&["note", "1", "x"], "darkwing-1-note", "darkwing"),
        &[],
    )
    .ok();
}

#[test]
fn the_hand_written_text_around_the_table_is_free_to_edit() {
    let repo = Repo::new("edit-header");
    let md = repo.read(QUEUE_MD);
    let edited = md.replacen("Hand-written header", "Edited header", 1) + "A new footer line.\n";
    repo.write(QUEUE_MD, &edited);
    repo.run(
        &change(&["note", "1", "x"], "darkwing-1-note", "darkwing"),
        &[],
    )
    .ok();
    let after = repo.read(QUEUE_MD);
    assert!(after.starts_with("# Queue\n\nEdited header: the table below is generated.\n"));
    assert!(after.ends_with("Hand-written footer.\nA new footer line.\n"));
    assert!(after.contains("| 1 | Parser | darkwing | queued |  | #12, #14 | x |"));

    // Without its markers the table has nowhere to go: refused, nothing written.
    repo.write(QUEUE_MD, after.replace("<!-- mosaic-queue:end -->\n", ""));
    let before = repo.snapshot();
    let out = repo.run(
        &change(&["note", "1", "y"], "darkwing-1-note2", "darkwing"),
        &[],
    );
    let line = out.fails(2);
    assert!(
        line.starts_with("mosaic-queue: QUEUE.md ")
            && line.ends_with("it needs one `<!-- mosaic-queue:begin -->` line and, after it, one `<!-- mosaic-queue:end -->` line"),
        "{line}"
    );
    repo.assert_unchanged(&before);
}

#[test]
fn reads_ahead_of_the_witness_say_not_confirmed_durable() {
    let repo = Repo::new("ahead");
    let witness1 = repo.read_bytes(WITNESS);
    repo.run(
        &change(
            &["move", "2", "in-progress"],
            "darkwing-2-start",
            "darkwing",
        ),
        &[],
    )
    .ok();
    // A later valid queue.json beside the old witness: visible, not durable.
    repo.write(WITNESS, &witness1);
    let before = repo.snapshot();
    let warning = "rev 2 visible, not confirmed durable\n";

    let out = repo.run(&["list"], &[]);
    assert_eq!((out.code, out.stderr.as_str()), (0, warning));
    assert!(out.stdout.starts_with("rev 2\n"), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("\n| 2 | Render | darkwing | in-progress | jason | #20 |  |\n")
    );
    for args in [
        &["list", "--json"][..],
        &["show", "2", "--json"],
        &["next", "darkwing", "--json"],
    ] {
        let out = repo.run(args, &[]);
        assert_eq!((out.code, out.stderr.as_str()), (0, warning), "{args:?}");
        let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(
            (&doc["revision"], &doc["durable"]),
            (&2.into(), &false.into()),
            "{args:?}"
        );
    }
    let out = repo.run(&["show", "2"], &[]);
    assert_eq!((out.code, out.stderr.as_str()), (0, warning));
    // The file extends the witness, so verify passes and names both revisions.
    assert_eq!(
        repo.run(&["verify"], &[]).ok(),
        "ok verify rev 2 (2 entries, witness rev 1)\n"
    );
    repo.assert_unchanged(&before);

    // The unacknowledged-op rule: retrying the op confirms it and prints its receipt.
    let out = repo.run(
        &change(
            &["move", "2", "in-progress"],
            "darkwing-2-start",
            "darkwing",
        ),
        &[],
    );
    assert_eq!(
        out.ok(),
        "ok darkwing-2-start rev 2 move 2 queued -> in-progress\n"
    );
    assert_eq!(repo.witness().unwrap()["revision"], 2);
    // The retry writes queue.json again (same bytes, a new inode), so the read view that names
    // the file's identity is renewed with the witness.
    let after = repo.snapshot();
    for (name, bytes) in &before {
        if name != WITNESS && name != ".git/mosaic-queue.view" {
            assert!(after[name] == *bytes, "{name} is unchanged by the retry");
        }
    }
    let out = repo.run(&["list", "--json"], &[]);
    assert!(out.ok().contains("\"durable\": true"));
    assert_eq!(repo.ops(), ["genesis-0001", "darkwing-2-start"]);
}

#[test]
fn a_new_op_on_a_file_ahead_of_its_witness_goes_through() {
    let repo = Repo::new("ahead-new");
    let witness1 = repo.read_bytes(WITNESS);
    repo.run(
        &change(
            &["move", "2", "in-progress"],
            "darkwing-2-start",
            "darkwing",
        ),
        &[],
    )
    .ok();
    repo.write(WITNESS, &witness1);
    let out = repo.run(
        &change(&["note", "2", "next step"], "darkwing-2-note", "darkwing"),
        &[],
    );
    assert_eq!(out.ok(), "ok darkwing-2-note rev 3 note 2\n");
    assert_eq!(
        repo.run(&["verify", "--current"], &[]).ok(),
        "ok verify rev 3 (3 entries, witness rev 3), table current\n"
    );
}
