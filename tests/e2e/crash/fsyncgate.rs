//! A failed fsync is never treated as success (docs/durability.md): the verb whose fsync of
//! docs/plans fails after its rename exits 3 without a receipt, and the next writer (`sync`, or
//! the retry of the same op) writes queue.json again from the bytes it read and verified, with
//! its own fsyncs, before any witness vouches for it; it never just fsyncs again.

use serde_json::Value;

use super::check::reset;
use support::{Repo, change, run_in};

const NOTE: &[&str] = &["note", "1", "fsync fails"];

/// The calls a run made that change the disk, as (op, path relative to the checkout, bytes).
fn mutations(repo: &Repo, trace: &std::path::Path) -> Vec<(String, String, Option<Vec<u8>>)> {
    let root = format!("{}/", repo.root.display());
    std::fs::read_to_string(trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["ev"] == "ok")
        .filter(|v| v["op"] != "read" && v["op"] != "list" && v["op"] != "stat")
        .filter(|v| v["op"] != "statfs")
        .map(|v| {
            let path = v["path"].as_str().unwrap().replacen(&root, "", 1);
            let bytes = v["hex"].as_str().map(|h| {
                (0..h.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
                    .collect()
            });
            (v["op"].as_str().unwrap().to_owned(), path, bytes)
        })
        .collect()
}

/// A checkout where `note` failed its fsync of docs/plans after the rename: rev 2 visible, the
/// witness at rev 1, nothing acknowledged. Returns it with the trace file to use next.
fn failed_fsync(name: &str) -> (Repo, std::path::PathBuf) {
    let repo = Repo::new(name);
    repo.install_guard();
    let trace = repo.base.join("fsyncgate.jsonl");
    let pristine = repo.base.join("pristine-fsyncgate");
    reset(&repo.root, &pristine);
    let args = change(NOTE, "darkwing-1-note", "darkwing");
    // A clean run numbers the calls; the fsync of docs/plans after the rename is the one.
    let out = run_in(
        &repo.root,
        &args,
        &[("MOSAIC_IO_TRACE", trace.to_str().unwrap())],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let calls: Vec<Value> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["ev"] == "call")
        .collect();
    let plans = repo.path("docs/plans").display().to_string();
    let queue = repo.path("docs/plans/queue.json").display().to_string();
    let renamed = calls
        .iter()
        .position(|v| v["op"] == "rename" && v["to"] == queue.as_str())
        .unwrap();
    let n = calls[renamed..]
        .iter()
        .find(|v| v["op"] == "fsync_dir" && v["path"] == plans.as_str())
        .unwrap()["n"]
        .as_u64()
        .unwrap();
    reset(&pristine, &repo.root);
    let _ = std::fs::remove_dir_all(&pristine);
    let fail = format!("{n}:eio");
    let out = run_in(&repo.root, &args, &[("MOSAIC_IO_FAIL", &fail)]);
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (
            3,
            "",
            "mosaic-queue: rev 2 is visible but not confirmed durable (fsync of docs/plans: Input/output error (os error 5)); run `mosaic-queue sync` and retry the same op\n"
        )
    );
    assert_eq!(repo.queue()["revision"], 2);
    assert_eq!(repo.witness().unwrap()["revision"], 1);
    (repo, trace)
}

/// What the next writer must do with the visible tail, in this order: a fresh temp file holding
/// exactly the bytes now on disk (which it verified), its fsync, the rename over queue.json,
/// the fsync of docs/plans, and only then the witness. No fsync of docs/plans comes first.
fn assert_rewritten(repo: &Repo, trace: &std::path::Path, bytes: &[u8]) {
    let calls = mutations(repo, trace);
    let plans: Vec<&(String, String, Option<Vec<u8>>)> = calls
        .iter()
        .filter(|(_, p, _)| p.starts_with("docs/plans"))
        .collect();
    let temp = &plans[0].1;
    assert!(
        temp.starts_with("docs/plans/.queue.json.") && temp.ends_with(".tmp"),
        "{plans:?}"
    );
    let shape: Vec<(&str, &str)> = plans[..5]
        .iter()
        .map(|(op, p, _)| (op.as_str(), p.as_str()))
        .collect();
    assert_eq!(
        shape,
        [
            ("create", temp.as_str()),
            ("write", temp.as_str()),
            ("fsync", temp.as_str()),
            ("rename", temp.as_str()),
            ("fsync_dir", "docs/plans"),
        ]
    );
    assert_eq!(plans[1].2.as_deref(), Some(bytes));
    let at = |want: &(String, String, Option<Vec<u8>>)| {
        calls.iter().position(|c| std::ptr::eq(c, want)).unwrap()
    };
    let witness = calls
        .iter()
        .position(|(op, p, _)| op == "create" && p.starts_with(".git/.mosaic-queue.head."))
        .unwrap();
    assert!(at(plans[4]) < witness, "{calls:?}");
}

#[test]
fn after_a_failed_fsync_sync_rewrites_the_verified_bytes_before_the_witness() {
    let (repo, trace) = failed_fsync("fsyncgate-sync");
    let visible = repo.read_bytes("docs/plans/queue.json");
    let _ = std::fs::remove_file(&trace);
    let out = run_in(
        &repo.root,
        &["sync"],
        &[("MOSAIC_IO_TRACE", trace.to_str().unwrap())],
    );
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (
            0,
            "durable darkwing-1-note rev 2 (by darkwing): tell darkwing\nok sync rev 2: 1 op confirmed durable\n",
            ""
        )
    );
    assert_rewritten(&repo, &trace, &visible);
    assert_eq!(repo.read_bytes("docs/plans/queue.json"), visible);
    assert_eq!(repo.witness().unwrap()["revision"], 2);
    // The table was never rendered for rev 2; sync leaves it to `render`.
    assert_eq!(
        repo.run(&["verify"], &[]).ok(),
        "ok verify rev 2 (2 entries, witness rev 2)\n"
    );
}

#[test]
fn after_a_failed_fsync_the_retry_rewrites_the_verified_bytes_and_answers_the_receipt() {
    let (repo, trace) = failed_fsync("fsyncgate-retry");
    let visible = repo.read_bytes("docs/plans/queue.json");
    let _ = std::fs::remove_file(&trace);
    let out = run_in(
        &repo.root,
        &change(NOTE, "darkwing-1-note", "darkwing"),
        &[("MOSAIC_IO_TRACE", trace.to_str().unwrap())],
    );
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (0, "ok darkwing-1-note rev 2 note 1\n", "")
    );
    assert_rewritten(&repo, &trace, &visible);
    assert_eq!(repo.read_bytes("docs/plans/queue.json"), visible);
    assert_eq!(repo.witness().unwrap()["revision"], 2);
    assert_eq!(repo.ops(), ["genesis-0001", "darkwing-1-note"]);
}
