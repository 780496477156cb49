//! bench-leases: what leases cost, in one run. At 1,000 rows, a `heartbeat` against a `note`
//! by the same seat (target at most 0.3); at 10,000 rows, a `take` in a queue where 1,000
//! seats hold leased claims (each with a heartbeat file to read) against the same queue whose
//! 1,000 claims carry no lease (target at most 1.2); and the MCP server's renewals for a seat
//! holding 5 claims, counted as its heartbeat file changes over 65 s at the shortest lease
//! (1m) and scaled to the recommended 2h (a renewal every third of the shortest lease). Run:
//! `cargo build --release -p mosaic-queue`, then
//! `cargo run --release -p mosaic-queue --example bench-leases`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mosaic_queue_core::{Command, Queue, TakeCmd};
use support::bench::{Scratch, release_binary, run_ok};
use support::git;
use support::long::{long_checkout, write};
use support::mcp::Mcp;

const ROUNDS: usize = 15;
const CLAIMS: usize = 1_000;
/// The time the claims of the built queues were taken at (before any run of the binary).
const AT: &str = "2026-01-01T00:00:00.000Z";

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn timed(bin: &Path, dir: &Path, args: &[&str]) -> Duration {
    let t = Instant::now();
    run_ok(bin, dir, args);
    t.elapsed()
}

fn heartbeat_file(root: &Path, seat: &str) -> PathBuf {
    root.join(".git/mosaic-queue.heartbeats").join(seat)
}

/// `heartbeat` against `note` by one seat holding a leased claim, at 1,000 rows.
fn heartbeat_against_note(bin: &Path, scratch: &Path) -> (Duration, Duration) {
    let root = long_checkout(&scratch.join("beat"), 1_000, 0);
    let out = run_ok(
        bin,
        &root,
        &[
            "take",
            "--lease",
            "2h",
            "--op",
            "huey-take-1",
            "--by",
            "huey",
        ],
    );
    assert!(out.contains("take 1 queued -> in-progress"), "{out}");
    let (mut beats, mut notes) = (Vec::new(), Vec::new());
    for k in 0..ROUNDS {
        beats.push(timed(bin, &root, &["heartbeat", "--by", "huey"]));
        let op = format!("huey-note-{k:04}");
        let text = format!("note {k}");
        notes.push(timed(
            bin,
            &root,
            &["note", "1", &text, "--op", &op, "--by", "huey"],
        ));
    }
    (median(beats), median(notes))
}

/// A committed checkout of 10,000 queued rows whose first 1,000 are claimed by 1,000 seats,
/// with a lease of 2h (and a heartbeat file each, stamped `now`) or without one.
fn claimed_checkout(dir: &Path, leased: bool, now: &str) -> PathBuf {
    let root = long_checkout(dir, 10_000, 0);
    let text = std::fs::read(root.join("docs/plans/queue.json")).unwrap();
    let mut queue = Queue::verify(&text).expect("the queue reads");
    for k in 0..CLAIMS {
        let seat = format!("seat-{k}");
        let take = Command::Take(TakeCmd {
            lease: leased.then_some(7_200),
            ..TakeCmd::default()
        });
        queue
            .execute(&take, &format!("take-{k:05}"), &seat, AT)
            .expect("a take applies");
        if leased {
            let file = heartbeat_file(&root, &seat);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, format!("{now}\n")).unwrap();
        }
    }
    write(&root, &queue);
    git(&root, &["add", "docs/plans"]);
    git(&root, &["commit", "-q", "-m", "1,000 claims"]);
    root
}

/// `take` by a new seat at 10,000 rows with 1,000 leased claims against 1,000 plain ones.
fn take_with_leases(bin: &Path, scratch: &Path, now: &str) -> (Duration, Duration) {
    let leased = claimed_checkout(&scratch.join("leased"), true, now);
    let plain = claimed_checkout(&scratch.join("plain"), false, now);
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for k in 0..ROUNDS {
        let (seat, op) = (format!("taker-{k}"), format!("bench-take-{k:04}"));
        let lease_args = ["take", "--lease", "2h", "--op", &op, "--by", &seat];
        with.push(timed(bin, &leased, &lease_args));
        without.push(timed(bin, &plain, &["take", "--op", &op, "--by", &seat]));
    }
    let id = CLAIMS + ROUNDS;
    let row = run_ok(bin, &leased, &["show", &id.to_string(), "--json"]);
    assert!(
        row.contains("taker-14"),
        "the takes took queued rows: {row}"
    );
    (median(with), median(without))
}

/// The MCP server's heartbeat writes for a seat holding 5 claims of the shortest lease, over
/// 65 s: the times its heartbeat file changed.
fn renewals(bin: &Path, scratch: &Path) -> Vec<Duration> {
    let root = long_checkout(&scratch.join("renew"), 40, 0);
    for k in 0..5 {
        let op = format!("renewer-take-{k}");
        run_ok(
            bin,
            &root,
            &["take", "--lease", "1m", "--op", &op, "--by", "renewer"],
        );
    }
    let file = heartbeat_file(&root, "renewer");
    let mut mcp = Mcp::start_bin(bin, &root, "renewer");
    mcp.handshake();
    let start = Instant::now();
    let mut last = std::fs::read(&file).unwrap();
    let mut changes = Vec::new();
    while start.elapsed() < Duration::from_secs(65) {
        std::thread::sleep(Duration::from_millis(50));
        let now = std::fs::read(&file).unwrap();
        if now != last {
            changes.push(start.elapsed());
            last = now;
        }
    }
    assert!(mcp.close().success());
    changes
}

fn main() {
    let bin = release_binary("bench-leases");
    let scratch = Scratch::new("bench-leases");
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("bench-leases: {}; load {}", bin.display(), load.trim());

    let (beat, note) = heartbeat_against_note(&bin, &scratch.0);
    println!(
        "   1,000 rows: heartbeat {:.2} ms, note {:.2} ms (medians of {ROUNDS}): {:.3}x (target <= 0.3)",
        ms(beat),
        ms(note),
        beat.as_secs_f64() / note.as_secs_f64()
    );

    // The heartbeat the binary just wrote: a time of the log's form, now by this machine.
    let now = std::fs::read_to_string(heartbeat_file(&scratch.0.join("beat/repo"), "huey"))
        .expect("the heartbeat file")
        .trim_end()
        .to_owned();
    let (with, without) = take_with_leases(&bin, &scratch.0, &now);
    println!(
        "   10,000 rows, 1,000 claims: take {:.2} ms with leases and heartbeats, {:.2} ms without (medians of {ROUNDS}): {:.3}x (target <= 1.2)",
        ms(with),
        ms(without),
        with.as_secs_f64() / without.as_secs_f64()
    );

    let changes = renewals(&bin, &scratch.0);
    let gaps: Vec<f64> = changes
        .windows(2)
        .map(|w| (w[1] - w[0]).as_secs_f64())
        .collect();
    assert!(
        !gaps.is_empty(),
        "fewer than two renewals in 65 s: {changes:?}"
    );
    // The renewal period as measured, and what it gives per hour at 1m and, a third of the
    // lease apart as at 1m, at 2h.
    let gap = gaps.iter().sum::<f64>() / gaps.len() as f64;
    let shown: Vec<String> = gaps.iter().map(|g| format!("{g:.1}")).collect();
    println!(
        "   MCP renewals, one seat with 5 claims of 1m: {} heartbeat writes in 65 s, {} s apart: {:.0} per hour; at a lease of 2h (a third of it apart, {:.0} s): {:.1} per hour, one file write for all 5 claims",
        changes.len(),
        shown.join(", "),
        3_600.0 / gap,
        gap * 120.0,
        3_600.0 / (gap * 120.0)
    );
}
