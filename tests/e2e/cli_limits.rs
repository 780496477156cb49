//! Files that are not what they should be, through the real binary: a FIFO, a device, a
//! directory, a symlink or a file over its kind's cap at every path the tool reads. Each is
//! refused at once in one line (no command may hang: every run has a deadline) and leaves
//! every queue file as it was; the read view, a cache, is skipped instead.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use support::{Out, Repo, change, run_within};

/// Long enough for a loaded machine, far shorter than a hang.
const LIMIT: Duration = Duration::from_secs(60);

const QUEUE_JSON: &str = "docs/plans/queue.json";
const QUEUE_MD: &str = "docs/plans/QUEUE.md";
const WITNESS: &str = ".git/mosaic-queue.head";
const LOCK: &str = ".git/mosaic-queue.lock";
const GATE: &str = ".git/mosaic-queue.unlock";
const VIEW: &str = ".git/mosaic-queue.view";

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;

fn mkfifo(path: &Path) {
    let _ = std::fs::remove_file(path);
    let ok = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(ok.success(), "mkfifo {}", path.display());
}

/// A sparse file of `len` bytes: costs no disk, and all of it in memory if read whole.
fn sparse(path: &Path, len: u64) {
    let _ = std::fs::remove_file(path);
    std::fs::File::create(path).unwrap().set_len(len).unwrap();
}

fn run(repo: &Repo, args: &[&str]) -> Out {
    run_within(&repo.root, args, &[], LIMIT)
}

fn note() -> Vec<&'static str> {
    change(&["note", "1", "fifo"], "darkwing-1-note", "darkwing")
}

fn queue_json_next() -> &'static str {
    "restore it from git (`git checkout -- docs/plans/queue.json`) or see Manual recovery"
}

fn queue_md_next() -> &'static str {
    "restore it from git (`git checkout -- docs/plans/QUEUE.md`)"
}

#[test]
fn a_fifo_at_a_queue_file_is_refused_by_every_verb_at_once() {
    let fifo = "is a named pipe (FIFO), not a regular file";
    for (rel, next) in [
        (WITNESS, "see Manual recovery"),
        (QUEUE_JSON, queue_json_next()),
        (QUEUE_MD, queue_md_next()),
    ] {
        let repo = Repo::new("fifo-file");
        mkfifo(&repo.path(rel));
        let before = repo.snapshot();
        let line = format!("mosaic-queue: {} {fifo}; {next}", named(&repo, rel));
        refused_by_its_readers(&repo, rel, &line);
        repo.assert_unchanged(&before);
    }
}

/// A queue file as a refusal names it: the witness's path does not say what it is for.
fn named(repo: &Repo, rel: &str) -> String {
    let path = repo.path(rel).display().to_string();
    if rel == WITNESS {
        format!("the witness {path}")
    } else {
        path
    }
}

/// Every verb that reads `rel` refuses with `line`; the verbs that never open QUEUE.md answer
/// when `rel` is QUEUE.md.
fn refused_by_its_readers(repo: &Repo, rel: &str, line: &str) {
    for args in table_readers() {
        assert_eq!(run(repo, &args).fails(2), line, "{rel}: {args:?}");
    }
    for args in table_blind() {
        let out = run(repo, &args);
        if rel == QUEUE_MD {
            assert_eq!(out.code, 0, "{rel}: {args:?}: {}", out.stderr);
        } else {
            assert_eq!(out.fails(2), line, "{rel}: {args:?}");
        }
    }
}

/// The verbs that read QUEUE.md (and queue.json and the witness).
fn table_readers() -> Vec<Vec<&'static str>> {
    vec![
        note(),
        vec!["verify", "--current"],
        vec!["render"],
        vec!["snapshot", "--out", "../snap"],
    ]
}

/// The verbs that read queue.json and the witness but never open QUEUE.md, so nothing that
/// stands at QUEUE.md changes their answer (docs/limits.md).
fn table_blind() -> Vec<Vec<&'static str>> {
    vec![
        vec!["list"],
        vec!["show", "1"],
        vec!["next", "darkwing"],
        vec!["verify"],
        vec!["sync"],
    ]
}

#[test]
fn a_fifo_at_the_lock_or_gate_is_an_invalid_lock_not_a_hang() {
    let repo = Repo::new("fifo-lock");
    mkfifo(&repo.path(LOCK));
    let before = repo.snapshot();
    let lock = repo.path(LOCK).display().to_string();
    let invalid = "invalid: it is a named pipe (FIFO), not a regular file";
    assert_eq!(
        run(&repo, &note()).fails(1),
        format!(
            "mosaic-queue: the queue lock {lock} is {invalid}; locks are never removed for their age: a person must check that no queue command is running and remove it by hand"
        )
    );
    assert_eq!(
        run(&repo, &["unlock"]).fails(1),
        format!(
            "mosaic-queue: not removing the queue lock {lock} ({invalid}): a person must check that no queue command is running and remove it by hand"
        )
    );
    repo.assert_unchanged(&before);

    std::fs::remove_file(repo.path(LOCK)).unwrap();
    mkfifo(&repo.path(GATE));
    let before = repo.snapshot();
    let gate = repo.path(GATE).display().to_string();
    assert_eq!(
        run(&repo, &["unlock"]).fails(1),
        format!(
            "mosaic-queue: the unlock gate {gate} exists ({invalid}); another unlock is running or was killed: run `mosaic-queue unlock --check-gate`"
        )
    );
    assert_eq!(
        run(&repo, &["unlock", "--check-gate"]).ok(),
        format!(
            "ok unlock --check-gate: gate {invalid}; this host cannot check its holder, so this is no clearance to remove it: a person must make sure no queue command is running anywhere\n"
        )
    );
    repo.assert_unchanged(&before);
}

#[test]
fn the_read_view_is_skipped_when_it_is_not_a_plain_file_of_a_sane_size() {
    let repo = Repo::new("view");
    let listed = run(&repo, &["list"]).ok().to_owned();
    let next = run(&repo, &["next", "darkwing"]).ok().to_owned();
    mkfifo(&repo.path(VIEW));
    assert_eq!(run(&repo, &["list"]).ok(), listed);
    assert_eq!(run(&repo, &["next", "darkwing"]).ok(), next);
    sparse(&repo.path(VIEW), 256 * MIB + 1);
    assert_eq!(run(&repo, &["list"]).ok(), listed);
    std::fs::remove_file(repo.path(VIEW)).unwrap();
    std::fs::create_dir(repo.path(VIEW)).unwrap();
    assert_eq!(run(&repo, &["list"]).ok(), listed);
}

#[test]
fn queue_files_over_their_cap_are_refused_before_they_are_read() {
    for (rel, len, cap, next) in [
        (
            WITNESS,
            64 * KIB + 1,
            "64 KiB cap for the witness",
            "see Manual recovery",
        ),
        (
            QUEUE_JSON,
            256 * MIB + 1,
            "256 MiB cap for queue.json",
            queue_json_next(),
        ),
        (
            QUEUE_MD,
            64 * MIB + 1,
            "64 MiB cap for QUEUE.md",
            queue_md_next(),
        ),
    ] {
        let repo = Repo::new("cap");
        let mut before = repo.snapshot();
        before.remove(rel);
        sparse(&repo.path(rel), len);
        let line = format!(
            "mosaic-queue: {} is larger than the {cap}; {next}",
            named(&repo, rel)
        );
        refused_by_its_readers(&repo, rel, &line);
        // The big file is left as it was, and every other file too.
        assert_eq!(std::fs::metadata(repo.path(rel)).unwrap().len(), len);
        std::fs::remove_file(repo.path(rel)).unwrap();
        support::assert_same(&before, &repo.snapshot());
    }

    let repo = Repo::new("cap-lock");
    sparse(&repo.path(LOCK), 64 * KIB + 1);
    assert_eq!(
        run(&repo, &note()).fails(1),
        format!(
            "mosaic-queue: the queue lock {} is invalid: it is larger than the 64 KiB cap for a queue lock; locks are never removed for their age: a person must check that no queue command is running and remove it by hand",
            repo.path(LOCK).display()
        )
    );
    // At the cap exactly, the file is read (and is simply not a lock).
    sparse(&repo.path(LOCK), 64 * KIB);
    assert_eq!(
        run(&repo, &note()).fails(1),
        format!(
            "mosaic-queue: the queue lock {} is invalid: not valid JSON at line 1, column 1 (byte 0): expected value; locks are never removed for their age: a person must check that no queue command is running and remove it by hand",
            repo.path(LOCK).display()
        )
    );
}

#[test]
fn symlinked_queue_files_are_refused_by_readers_and_writers_alike() {
    // Every verb that reads the file refuses the link as a write would; a verb that never
    // opens QUEUE.md answers from queue.json.
    for rel in [QUEUE_MD, QUEUE_JSON] {
        let repo = Repo::new("symlink");
        let copy = repo.base.join("copy");
        std::fs::copy(repo.path(rel), &copy).unwrap();
        let bytes = std::fs::read(&copy).unwrap();
        std::fs::remove_file(repo.path(rel)).unwrap();
        std::os::unix::fs::symlink(&copy, repo.path(rel)).unwrap();
        let before = repo.snapshot();
        let name = Path::new(rel).file_name().unwrap().to_str().unwrap();
        let line = format!(
            "mosaic-queue: {} is a symlink; {name} must be a regular file, not a link: replace the link with a copy of the file it points to",
            repo.path(rel).display()
        );
        refused_by_its_readers(&repo, rel, &line);
        repo.assert_unchanged(&before);
        assert_eq!(std::fs::read(&copy).unwrap(), bytes);
    }
}

#[test]
fn snapshot_files_and_base_that_are_not_plain_files_are_refused() {
    let repo = Repo::new("snapshot-files");
    let snap = repo.base.join("snap");
    repo.run(&["snapshot", "--out", snap.to_str().unwrap()], &[])
        .ok();
    let dir = snap.to_str().unwrap();
    let good = run(&repo, &["verify", "--snapshot", dir]).ok().to_owned();
    assert_eq!(good, "ok verify --snapshot rev 1\n");

    let base = repo.base.join("base.json");
    mkfifo(&base);
    let b = base.to_str().unwrap();
    assert_eq!(
        run(&repo, &["verify", "--snapshot", dir, "--base", b]).fails(2),
        format!(
            "mosaic-queue: --base {b} is a named pipe (FIFO), not a regular file; pass the queue.json the snapshot must extend (`git show HEAD:docs/plans/queue.json > FILE`)"
        )
    );
    assert_eq!(
        run(&repo, &["verify", "--snapshot", dir, "--base", "/dev/zero"]).fails(2),
        "mosaic-queue: --base /dev/zero is a character device, not a regular file; pass the queue.json the snapshot must extend (`git show HEAD:docs/plans/queue.json > FILE`)"
    );
    sparse(&base, 256 * MIB + 1);
    assert_eq!(
        run(&repo, &["verify", "--snapshot", dir, "--base", b]).fails(2),
        format!(
            "mosaic-queue: --base {b} is larger than the 256 MiB cap for queue.json; pass the queue.json the snapshot must extend (`git show HEAD:docs/plans/queue.json > FILE`)"
        )
    );

    for name in ["queue.json", "QUEUE.md"] {
        let path = snap.join(name);
        let bytes = std::fs::read(&path).unwrap();
        mkfifo(&path);
        assert_eq!(
            run(&repo, &["verify", "--snapshot", dir]).fails(2),
            format!(
                "mosaic-queue: {} is a named pipe (FIFO), not a regular file; take the snapshot again with `mosaic-queue snapshot --out DIR`",
                path.display()
            )
        );
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, bytes).unwrap();
    }
    assert_eq!(run(&repo, &["verify", "--snapshot", dir]).ok(), good);
}

#[test]
fn a_candidate_or_map_that_is_not_a_plain_file_is_refused_not_read() {
    let repo = Repo::new("candidate");
    let before = repo.snapshot();
    let fifo = repo.base.join("manifest");
    mkfifo(&fifo);
    let big = repo.base.join("big-manifest");
    sparse(&big, 4 * MIB + 1);
    let next = "pass a manifest file of `<sha256> <path>` lines under the cap, or a commit";
    for (given, what) in [
        (
            fifo.to_str().unwrap(),
            "is a named pipe (FIFO), not a regular file",
        ),
        ("/dev/zero", "is a character device, not a regular file"),
        (
            big.to_str().unwrap(),
            "is larger than the 4 MiB cap for a manifest",
        ),
    ] {
        let args = change(
            &["move", "1", "in-review", "--candidate", given],
            "darkwing-1-review",
            "darkwing",
        );
        assert_eq!(
            run(&repo, &args).fails(2),
            format!("mosaic-queue: --candidate: {given} {what}; {next}")
        );
    }
    repo.assert_unchanged(&before);

    let repo = Repo::bare("map");
    let before = repo.snapshot();
    let map = repo.map_path();
    mkfifo(&map);
    let m = map.to_str().unwrap();
    let fifo_line = format!(
        "mosaic-queue: {m} is a named pipe (FIFO), not a regular file; pass the reviewed migration map file"
    );
    let genesis = change(&["genesis", "--map", m], "genesis-0001", "jason");
    assert_eq!(run(&repo, &genesis).fails(2), fifo_line);
    assert_eq!(run(&repo, &["map-check", "--map", m]).fails(2), fifo_line);
    sparse(&map, 64 * MIB + 1);
    assert_eq!(
        run(&repo, &["map-check", "--map", m]).fails(2),
        format!(
            "mosaic-queue: {m} is larger than the 64 MiB cap for a migration map; pass the reviewed migration map file"
        )
    );
    repo.assert_unchanged(&before);
}

#[test]
fn committed_files_over_their_cap_are_refused_before_they_are_read() {
    // HEAD's guard source over the 1 MiB cap for a git hook: commit refuses, reading nothing.
    let repo = Repo::new("blob-cap");
    repo.install_guard();
    let hook = "scripts/git-hooks/pre-commit";
    let mut big = b"#!/bin/sh\n".to_vec();
    big.resize((MIB + 1) as usize, b'#');
    repo.write(hook, &big);
    repo.git(&["add", hook]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "a huge hook"]);
    let before = repo.snapshot();
    let head = repo.git(&["rev-parse", "HEAD"]);
    assert_eq!(
        run(&repo, &["commit", "-m", "queue", "--by", "lead"]).fails(2),
        format!(
            "mosaic-queue: HEAD's {hook} is {} bytes, over the 1 MiB cap for a git hook, so the guard cannot be checked; restore the hook from git",
            MIB + 1
        )
    );
    assert_eq!(repo.git(&["rev-parse", "HEAD"]), head);
    repo.assert_unchanged(&before);

    // The map's source blob over the 64 MiB cap for QUEUE.md: map-check refuses it unread.
    let repo = Repo::bare("blob-cap-map");
    let huge = repo.base.join("huge.md");
    sparse(&huge, 64 * MIB + 1);
    let blob = repo.git(&["hash-object", "-w", huge.to_str().unwrap()]);
    let map = repo.base.join("map.md");
    std::fs::write(
        &map,
        format!(
            "source: docs/plans/QUEUE.md blob {blob}\n| # | Piece | Owner | Status | Gate | Issues | Note |\n| --- | --- | --- | --- | --- | --- | --- |\n| 1 | P | - | queued | - | - | - |\n"
        ),
    )
    .unwrap();
    assert_eq!(
        run(&repo, &["map-check", "--map", map.to_str().unwrap()]).fails(2),
        format!(
            "mosaic-queue: the map names QUEUE.md blob {blob} of {} bytes, over the 64 MiB cap for QUEUE.md; rebuild the map from a committed QUEUE.md",
            64 * MIB + 1
        )
    );
}
