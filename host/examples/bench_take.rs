//! bench-take: what a `take` costs against a plain `move` of the same kind of row, in one run.
//! In a scratch canonical checkout of 400 unowned queued rows, each round times one seat's
//! `move ID in-progress` of the first free row and another seat's `take` (which claims the
//! next one), so both writes meet the same queue size; it prints both medians and their
//! ratio. Run: `cargo build --release -p mosaic-queue`, then
//! `cargo run --release -p mosaic-queue --example bench-take` (`MOSAIC_QUEUE_BIN` names
//! another build of the binary).

use std::path::Path;
use std::time::{Duration, Instant};

use support::bench::{BENCH_QUEUE_MD, Scratch, queued_checkout, release_binary, run_ok};

/// Rows in the queue, and rounds (one move and one take each).
const ROWS: u64 = 400;
const ROUNDS: u64 = 60;

fn timed(bin: &Path, dir: &Path, args: &[&str]) -> (Duration, String) {
    let t = Instant::now();
    let out = run_ok(bin, dir, args);
    (t.elapsed(), out)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let bin = release_binary("bench-take");
    let scratch = Scratch::new("bench-take");
    let root = queued_checkout(&bin, &scratch.0, ROWS, BENCH_QUEUE_MD);
    // The first take moves the queue to semantics 3; both kinds of write are timed after it.
    run_ok(
        &bin,
        &root,
        &["take", "--op", "warm-take-0", "--by", "warm"],
    );

    let (mut moves, mut takes) = (Vec::new(), Vec::new());
    for k in 0..ROUNDS {
        // The first free row is the one `next` names for a new seat: move claims it by id.
        let id = 2 + 2 * k;
        let (seat, op) = (format!("mover{k}"), format!("bench-move-{k:04}"));
        let (t, out) = timed(
            &bin,
            &root,
            &[
                "move",
                &id.to_string(),
                "in-progress",
                "--op",
                &op,
                "--by",
                &seat,
            ],
        );
        assert!(
            out.ends_with(&format!("move {id} queued -> in-progress\n")),
            "{out}"
        );
        moves.push(t);
        let (seat, op) = (format!("taker{k}"), format!("bench-take-{k:04}"));
        let (t, out) = timed(&bin, &root, &["take", "--op", &op, "--by", &seat]);
        assert!(
            out.ends_with(&format!("take {} queued -> in-progress\n", id + 1)),
            "{out}"
        );
        takes.push(t);
    }
    let (m, t) = (median(moves), median(takes));
    println!(
        "bench-take: {} on a queue of {ROWS} rows, {ROUNDS} rounds",
        bin.display()
    );
    println!(
        "   move ID in-progress: median {:.3} ms",
        m.as_secs_f64() * 1e3
    );
    println!(
        "   take:                median {:.3} ms",
        t.as_secs_f64() * 1e3
    );
    println!(
        "   ratio take / move = {:.3}",
        t.as_secs_f64() / m.as_secs_f64()
    );
}
