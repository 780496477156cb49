//! bench-cut: what a cut buys. Builds a queue of 100,000 log entries (through the core in
//! memory, not one process per entry), cuts it with the release binary to a window of 1,000,
//! and times `note` on it against `note` on a queue of only those 1,000 entries; compares the
//! bytes a note writes (queue.json + QUEUE.md + witness); times `verify --full` at 10,000 and
//! 100,000 entries of history; and prints the table (note, verify, bytes per op at
//! 1,003, 10,003 and 100,001 entries) before and after a cut. Medians of a few runs each.
//! Run: `cargo build --release -p mosaic-queue`, then `cargo run --release -p mosaic-queue
//! --example bench-cut`.

use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::time::{Duration, Instant};

use support::bench::{Scratch, cleared, release_binary};
use support::long::long_checkout;

/// `note` after the cut / `note` on a queue of only the window.
const NOTE_TARGET: f64 = 1.5;
/// Bytes a note writes after the cut / on a queue of only the window.
const BYTES_TARGET: f64 = 2.0;
/// The rows every queue holds (queued, from genesis).
const ROWS: u64 = 100;
/// The entries a cut keeps.
const WINDOW: u64 = 1_000;
/// Runs per median.
const RUNS: usize = 5;

fn run(bin: &Path, root: &Path, args: &[&str]) -> Duration {
    let t = Instant::now();
    let out = cleared(Process::new(bin))
        .args(args)
        .current_dir(root)
        .output()
        .expect("the binary runs");
    let elapsed = t.elapsed();
    assert!(
        out.status.success(),
        "bench bug: {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr).trim()
    );
    elapsed
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Bytes of the three files a note writes.
fn written(root: &Path) -> u64 {
    [
        "docs/plans/queue.json",
        "docs/plans/QUEUE.md",
        ".git/mosaic-queue.head",
    ]
    .iter()
    .map(|f| std::fs::metadata(root.join(f)).map_or(0, |m| m.len()))
    .sum()
}

/// What `RUNS` notes on row 1 cost: the median time, and the bytes written by the last.
fn notes(bin: &Path, root: &Path, tag: &str) -> (Duration, u64) {
    let times = (0..RUNS)
        .map(|i| {
            let op = format!("lead-{tag}-note-{i}");
            run(
                bin,
                root,
                &[
                    "note",
                    "1",
                    &format!("{tag} {i}"),
                    "--op",
                    &op,
                    "--by",
                    "lead",
                ],
            )
        })
        .collect();
    (median(times), written(root))
}

fn verify(bin: &Path, root: &Path, full: bool) -> Duration {
    let args: &[&str] = if full {
        &["verify", "--full"]
    } else {
        &["verify"]
    };
    median((0..RUNS).map(|_| run(bin, root, args)).collect())
}

/// A checkout of `entries` log entries (`ROWS` rows, then notes) in its own folder.
fn checkout(scratch: &Path, name: &str, entries: u64) -> PathBuf {
    let dir = scratch.join(name);
    std::fs::create_dir_all(&dir).expect("a folder");
    long_checkout(&dir, ROWS, entries - 1)
}

/// Cuts `root` (at revision `rev`) to its last `WINDOW` entries.
fn cut(bin: &Path, root: &Path, rev: u64) -> Duration {
    let before = (rev + 1 - WINDOW).to_string();
    let args = [
        "archive",
        "--before",
        &before,
        "--yes",
        "--op",
        "lead-cut-1",
        "--by",
        "lead",
    ];
    run(bin, root, &args)
}

fn main() {
    let bin = release_binary("bench-cut");
    let scratch = Scratch::new("bench-cut");
    let s = &scratch.0;

    println!("bench-cut: {ROWS} rows; medians of {RUNS} runs");
    println!("| log entries | queue.json | note | verify | bytes written per op |");
    println!("| --- | --- | --- | --- | --- |");
    let mut before = Vec::new();
    for entries in [1_003, 10_003, 100_001] {
        let root = checkout(s, &format!("plain-{entries}"), entries);
        let size = std::fs::metadata(root.join("docs/plans/queue.json")).map_or(0, |m| m.len());
        let v = verify(&bin, &root, false);
        let (n, bytes) = notes(&bin, &root, "plain");
        println!(
            "| {entries} | {:.2} MB | {:.1} ms | {:.1} ms | {bytes} |",
            size as f64 / 1e6,
            ms(n),
            ms(v)
        );
        before.push((entries, root));
    }
    println!("after a cut to the last {WINDOW} entries:");
    println!(
        "| history | queue.json | cut | note | verify | verify --full | bytes written per op |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    let mut after = Vec::new();
    for (entries, root) in &before {
        let rev = entries + RUNS as u64;
        let c = cut(&bin, root, rev);
        let size = std::fs::metadata(root.join("docs/plans/queue.json")).map_or(0, |m| m.len());
        let v = verify(&bin, root, false);
        let full = verify(&bin, root, true);
        let (n, bytes) = notes(&bin, root, "cut");
        println!(
            "| {entries} | {:.2} MB | {:.1} ms | {:.1} ms | {:.1} ms | {:.1} ms | {bytes} |",
            size as f64 / 1e6,
            ms(c),
            ms(n),
            ms(v),
            ms(full)
        );
        after.push((*entries, n, bytes, full));
    }
    // The queue of only the window: the same rows, `WINDOW` entries.
    let window = checkout(s, "window", WINDOW);
    let (wn, wbytes) = notes(&bin, &window, "window");
    let (_, n100k, b100k, full100k) = after[2];
    let full10k = after[1].3;
    let note_ratio = ms(n100k) / ms(wn);
    let bytes_ratio = b100k as f64 / wbytes as f64;
    let linear = (ms(full100k) / ms(full10k)) / (100_001.0 / 10_003.0);
    println!(
        "note after cutting 100,001 entries to {WINDOW} / note on {WINDOW} entries: {:.2} ms / {:.2} ms = {note_ratio:.2}x (target <= {NOTE_TARGET}x)",
        ms(n100k),
        ms(wn)
    );
    println!(
        "bytes a note writes there / on {WINDOW} entries: {b100k} / {wbytes} = {bytes_ratio:.2}x (target <= {BYTES_TARGET}x)"
    );
    println!(
        "verify --full at 100,001 / at 10,003 entries of history: {:.1} ms / {:.1} ms = {:.2}x the history's growth (1.00 is linear)",
        ms(full100k),
        ms(full10k),
        linear
    );
}
