//! bench-core: builds 1k/10k/100k-entry queues through the public API and times `Queue::verify`
//! against Node's `JSON.stringify(JSON.parse(text), null, 2)` on the same file, plus peak heap
//! and a stage breakdown at 100k. Run: `cargo run --release -p mosaic-queue-core --example bench-core`

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

use mosaic_queue_core::{Queue, log_digest, parse_lenient, parse_queue, replay, to_canonical};

// ---- a counting allocator: current and peak live heap bytes ----

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// Plain loads and stores rather than read-modify-write atomics: everything that allocates here
// runs on the main thread, and this keeps the counter from slowing down what it measures.
fn grew(bytes: usize) {
    let now = CURRENT.load(Relaxed) + bytes;
    CURRENT.store(now, Relaxed);
    if now > PEAK.load(Relaxed) {
        PEAK.store(now, Relaxed);
    }
}

fn shrank(bytes: usize) {
    CURRENT.store(CURRENT.load(Relaxed).wrapping_sub(bytes), Relaxed);
}

// SAFETY: every call is forwarded unchanged to `System`; only counters are updated around it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, i.e. from `System`, with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: same contract as the caller's; `ptr` came from `System`.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                shrank(layout.size() - new_size);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

use support::workload::{Origin, Shape, Sim};

// ---- measurement helpers ----

/// Runs `f` once to warm up, then `runs` times; returns the median. Dropping what `f` returns
/// happens after the clock stops (a CLI can exit without freeing).
fn median_of<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    drop(black_box(f()));
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            let out = black_box(f());
            let elapsed = t.elapsed();
            drop(out);
            elapsed
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn size(bytes: usize) -> String {
    if bytes >= 1 << 20 {
        format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20))
    } else {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    }
}

const NODE_SCRIPT: &str = r#"
const fs = require('fs');
const file = process.argv[1], runs = Number(process.argv[2]);
const text = fs.readFileSync(file, 'utf8');
let sink = 0;
const once = () => {
  const t0 = process.hrtime.bigint();
  const out = JSON.stringify(JSON.parse(text), null, 2);
  const t1 = process.hrtime.bigint();
  sink += out.length;
  return Number(t1 - t0) / 1e6;
};
once();
const times = [];
for (let i = 0; i < runs; i++) times.push(once());
times.sort((a, b) => a - b);
console.log('median_ms ' + times[runs >> 1] + ' sink ' + sink);
"#;

/// Node's median parse+stringify time for `file`, or why there is none.
fn node_median(file: &Path, runs: usize) -> Result<f64, String> {
    let out = Process::new("node")
        .arg("-e")
        .arg(NODE_SCRIPT)
        .arg(file)
        .arg(runs.to_string())
        .output()
        .map_err(|e| format!("node not run: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "node failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace()
        .skip_while(|w| *w != "median_ms")
        .nth(1)
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| format!("unexpected node output: {}", text.trim()))
}

fn vm_hwm() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(|l| l["VmHWM:".len()..].trim().to_string())
        })
        .unwrap_or_else(|| String::from("unavailable"))
}

const TARGET_RATIO: f64 = 0.5;

struct Sample {
    entries: u64,
    path: PathBuf,
    bytes: Vec<u8>,
    runs: usize,
}

fn main() {
    let dir = std::env::temp_dir().join(format!("mosaic-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create the temp dir");
    println!("bench-core: writing queues to {}", dir.display());

    // One generator, snapshotted at each size, so the smaller files are prefixes of the larger.
    let sizes: [(u64, usize); 3] = [(1_000, 41), (10_000, 15), (100_000, 5)];
    let started = Instant::now();
    let mut sim = Sim::new(
        Shape {
            genesis_rows: 200,
            max_rows: 800,
            add_every: 160,
        },
        Origin {
            root: String::from("/srv/mosaic"),
            source: String::from("0123456789abcdef0123456789abcdef01234567"),
            legacy_view: String::from("| # | Piece |\n| --- | --- |\n"),
        },
    );
    let mut samples = Vec::new();
    for &(entries, runs) in &sizes {
        while sim.queue.revision() < entries {
            sim.step();
        }
        let bytes = sim.queue.to_bytes();
        let path = dir.join(format!("queue-{entries}.json"));
        std::fs::write(&path, &bytes).expect("write the queue file");
        println!(
            "  {entries:>6} entries, {:>4} rows: {} ({} bytes) -> {}",
            sim.queue.rows().len(),
            size(bytes.len()),
            bytes.len(),
            path.display()
        );
        samples.push(Sample {
            entries,
            path,
            bytes,
            runs,
        });
    }
    drop(sim);
    println!(
        "  generated in {:.1} s (execute renders and hashes the body per entry)",
        started.elapsed().as_secs_f64()
    );

    let node_ok = match Process::new("node").arg("--version").output() {
        Ok(out) if out.status.success() => {
            let v = String::from_utf8_lossy(&out.stdout).trim().to_string();
            println!("  node {v} found");
            true
        }
        _ => {
            println!("  node not found: skipping the Node floor and the ratio");
            false
        }
    };

    println!();
    println!(
        "medians after one warm-up run each; ratio target <= {TARGET_RATIO} (native verify / node)"
    );
    println!(
        "{:>8}  {:>10}  {:>5}  {:>36}  {:>24}  {:>24}",
        "entries",
        "file size",
        "runs",
        "native verify ms",
        "node parse+stringify ms",
        "ratio native/node"
    );
    for s in &samples {
        let native = ms(median_of(s.runs, || {
            Queue::verify(&s.bytes)
                .unwrap_or_else(|e| panic!("bench bug: {} does not verify: {e}", s.entries))
        }));
        let node = if node_ok {
            node_median(&s.path, s.runs)
        } else {
            Err(String::from("node not found"))
        };
        let (native_col, node_col, ratio_col) = match &node {
            Ok(node) => (
                format!("{native:.3} (target <= {:.3})", node * TARGET_RATIO),
                format!("{node:.3}"),
                format!("{:.2} (target <= {TARGET_RATIO})", native / node),
            ),
            Err(_) => (
                format!("{native:.3}"),
                String::from("n/a"),
                String::from("n/a"),
            ),
        };
        println!(
            "{:>8}  {:>10}  {:>5}  {native_col:>36}  {node_col:>24}  {ratio_col:>24}",
            s.entries,
            size(s.bytes.len()),
            s.runs
        );
        if let (true, Err(why)) = (node_ok, node) {
            println!("          node: {why}");
        }
    }

    let big = samples.last().expect("the 100k sample");

    // Peak live heap during one verify, above what was live just before it.
    let before = CURRENT.load(Relaxed);
    PEAK.store(before, Relaxed);
    let queue = Queue::verify(&big.bytes).expect("the 100k file verifies");
    let peak = PEAK.load(Relaxed) - before;
    let retained = CURRENT.load(Relaxed) - before;
    drop(queue);
    println!();
    println!(
        "peak heap during verify at {}: {} above baseline = {:.1}x the file (no target set); \
         the verified Queue keeps {}",
        big.entries,
        size(peak),
        peak as f64 / big.bytes.len() as f64,
        size(retained)
    );
    println!(
        "process VmHWM (whole run, generation included, for context): {}",
        vm_hwm()
    );

    // Where verify's time goes at 100k.
    let runs = big.runs;
    let file = parse_queue(&big.bytes).expect("the 100k file parses");
    let stages = [
        (
            "parse_queue (the strict one-pass reader)",
            ms(median_of(runs, || parse_queue(&big.bytes).unwrap())),
        ),
        (
            "  parse_lenient (the reference path, errors only)",
            ms(median_of(runs, || {
                parse_lenient::<mosaic_queue_core::QueueFile>(&big.bytes).unwrap()
            })),
        ),
        (
            "to_canonical alone",
            ms(median_of(runs, || to_canonical(&file))),
        ),
        (
            "replay alone",
            ms(median_of(runs, || replay(&file).unwrap())),
        ),
        (
            "log_digest over the whole log (not part of verify)",
            ms(median_of(runs, || log_digest(&file.log, file.log.len()))),
        ),
        (
            "Queue::verify total",
            ms(median_of(runs, || Queue::verify(&big.bytes).unwrap())),
        ),
        ("dropping the verified Queue (not timed in verify)", {
            let mut times: Vec<Duration> = (0..runs)
                .map(|_| {
                    let queue = Queue::verify(&big.bytes).unwrap();
                    let t = Instant::now();
                    drop(black_box(queue));
                    t.elapsed()
                })
                .collect();
            times.sort();
            ms(times[runs / 2])
        }),
    ];
    println!();
    println!("breakdown at {} entries (median of {runs}):", big.entries);
    for (name, t) in stages {
        println!("  {name:<62} {t:>9.3} ms");
    }

    if std::env::var_os("MOSAIC_BENCH_KEEP").is_some() {
        println!("kept the queue files in {}", dir.display());
    } else if let Err(e) = std::fs::remove_dir_all(&dir) {
        println!("could not remove {}: {e}", dir.display());
    }
    println!("bench-core: done");
}
