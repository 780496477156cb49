//! bench-epochs: what a cut buys in the core. The benchmarks' workload (400 rows, flat) grown
//! to 100,000 entries and cut to a window of 1,000, against it grown to only 1,000 entries: a
//! `note` (verify the bytes, execute, serialize) on each, the bytes a write produces, and
//! `verify_full` at 10,000 and 100,000 entries of history. Ratios, one run of medians of five.
//! Run: `cargo run --release -p mosaic-queue-core --example bench-epochs`

use std::hint::black_box;
use std::time::{Duration, Instant};

use mosaic_queue_core::{Command, CutOutcome, NoteArgs, Queue, verify_full};
use support::workload::{Origin, Shape, Sim};

const AT: &str = "2027-01-01T00:00:00.000Z";

fn grown(entries: u64) -> Queue {
    let mut sim = Sim::new(
        // Flat: the same 400 rows however long the log, so the 1,000-entry queue holds the
        // active work the cut one does and only the history differs.
        Shape {
            genesis_rows: 400,
            max_rows: 400,
            add_every: u64::MAX,
        },
        Origin {
            root: String::from("/srv/mosaic"),
            source: String::from("0123456789abcdef0123456789abcdef01234567"),
            legacy_view: String::from("| # | Piece |\n| --- | --- |\n"),
        },
    );
    while sim.queue.revision() < entries {
        sim.step();
    }
    sim.queue
}

/// The queue cut to keep its last `window` entries, and the archive's bytes.
fn cut(queue: &Queue, window: u64) -> (Queue, Vec<u8>, Duration) {
    let start = Instant::now();
    let before = queue.revision() + 1 - window;
    let Ok(CutOutcome::Planned(cut)) = queue.plan_archive(before, "lead-cut-0001", "lead", AT)
    else {
        panic!("the cut is refused");
    };
    let took = start.elapsed();
    (cut.queue, cut.archive_bytes, took)
}

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}

/// A `note` as a write does it in the core: verify the file's bytes, execute, serialize; and
/// the median of verify alone.
fn note(bytes: &[u8]) -> (Duration, usize, Duration) {
    let mut written = 0;
    let mut verifies = Vec::new();
    let runs = (0..5)
        .map(|i| {
            let start = Instant::now();
            let mut queue = Queue::verify(bytes).expect("the file verifies");
            verifies.push(start.elapsed());
            let id = queue.rows().iter().find(|r| r.status.is_open()).unwrap().id;
            let cmd = Command::Note(NoteArgs {
                id,
                text: Some(format!("bench note {i}")),
            });
            queue
                .execute(&cmd, &format!("lead-bench-note-{i}"), "lead", AT)
                .expect("the note applies");
            written = black_box(queue.to_bytes()).len();
            start.elapsed()
        })
        .collect();
    (median(runs), written, median(verifies))
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let small = grown(1_000).to_bytes();
    let mut fulls = Vec::new();
    for entries in [10_000, 100_000] {
        let full = grown(entries);
        let (after, archive, took) = cut(&full, 1_000);
        let active = after.to_bytes();
        println!(
            "{entries} entries: queue.json {} KB; cut to a window of 1000 in {}: queue.json {} KB, archive {} KB",
            full.to_bytes().len() / 1024,
            ms(took),
            active.len() / 1024,
            archive.len() / 1024
        );
        fulls.push((entries, full.to_bytes(), active, archive));
    }
    let (small_note, small_written, small_verify) = note(&small);
    println!(
        "1000 entries only: note {} (verify {}) writing {} KB",
        ms(small_note),
        ms(small_verify),
        small_written / 1024
    );
    let mut full_times = Vec::new();
    for (entries, full, active, archive) in &fulls {
        let (whole, _, _) = note(full);
        let (cut_note, cut_written, cut_verify) = note(active);
        println!(
            "{entries} entries: note {} on the whole file, {} after the cut (verify {}): {:.2}x the 1000-entry queue's; bytes written {:.2}x",
            ms(whole),
            ms(cut_note),
            ms(cut_verify),
            cut_note.as_secs_f64() / small_note.as_secs_f64(),
            cut_written as f64 / small_written as f64
        );
        let runs = (0..5)
            .map(|_| {
                let start = Instant::now();
                black_box(verify_full(&[archive], active).expect("verify --full"));
                start.elapsed()
            })
            .collect();
        let full_time = median(runs);
        println!("{entries} entries: verify_full {}", ms(full_time));
        full_times.push(full_time);
    }
    println!(
        "verify_full at 100000 / at 10000 entries: {:.1}x (linear: about 10x)",
        full_times[1].as_secs_f64() / full_times[0].as_secs_f64()
    );
}
