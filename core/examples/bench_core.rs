//! bench-core: builds 1k/10k/100k-entry queues through the public API and times `Queue::verify`
//! against Node's `JSON.stringify(JSON.parse(text), null, 2)` on the same file, plus peak heap
//! and a stage breakdown at 100k. Run: `cargo run --release -p mosaic-queue-core --example bench-core`

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

use mosaic_queue_core::entry::{
    AssignArgs, GenesisArgs, IdArgs, MapRow, MoveArgs, NoteArgs, SetArgs, SetField, SetValue,
};
use mosaic_queue_core::verbs::NewRow;
use mosaic_queue_core::{Command, Outcome, Queue, Status, canon, digest, replay};

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

// ---- deterministic inputs: a small PRNG and a clock that prints like toISOString ----

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `pct` percent.
    fn pct(&mut self, pct: u64) -> bool {
        self.next() % 100 < pct
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Milliseconds since 2026-11-29T10:00:00.000Z, printed as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
fn stamp(ms: u64) -> String {
    let (mut year, mut month, mut day) = (2026u64, 11u64, 29u64);
    let total = ms + 10 * 3_600_000;
    for _ in 0..total / 86_400_000 {
        let leap =
            year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
        let len = match month {
            2 if leap => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        day += 1;
        if day > len {
            day = 1;
            month += 1;
            if month > 12 {
                month = 1;
                year += 1;
            }
        }
    }
    let rest = total % 86_400_000;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3_600_000,
        rest / 60_000 % 60,
        rest / 1000 % 60,
        rest % 1000
    )
}

// ---- the generator: plausible seats doing plausible things, never refused ----

const WORKERS: &[&str] = &[
    "darkwing",
    "filbert",
    "flicker",
    "gizmo",
    "launchpad",
    "gosalyn",
    "honker",
    "morgana",
];
const WORDS: &[&str] = &[
    "parser",
    "replay",
    "render",
    "witness",
    "lock file",
    "Node shim",
    "wasm build",
    "review rounds",
    "migration map",
    "CLI flags",
    "docs",
    "fixtures",
];
const NOTES: &[&str] = &[
    "parser handles the three legacy layouts",
    "waiting on CI run for the wasm build",
    "split into two PRs, see #1620",
    "pairing with filbert on the | escape",
    "first draft pushed, tests pending",
    "needs a second look at the receipt text",
    "rebased on main after the model change",
    "benchmarks look fine on the small fixture",
];
const REASONS: &[&str] = &[
    "waiting for review of #1620",
    "needs a decision from jason",
    "CI runner is down",
    "depends on the lock file change",
    "upstream serde_json bug, pinned",
];
const GATES: &[&str] = &["jason", "sage", "CI green", "review by filbert"];

/// Rows in genesis; `add` grows the queue to at most `MAX_ROWS`, one row every `ADD_EVERY`.
const GENESIS_ROWS: u64 = 200;
const MAX_ROWS: usize = 800;
const ADD_EVERY: u64 = 160;

struct Sim {
    queue: Queue,
    rng: Rng,
    clock_ms: u64,
    seq: u64,
}

impl Sim {
    fn new() -> Sim {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let rows: Vec<MapRow> = (1..=GENESIS_ROWS)
            .map(|id| {
                let started = rng.pct(20);
                MapRow {
                    id,
                    piece: format!("Piece {id}: {}", rng.pick(WORDS)),
                    owner: started.then(|| rng.pick(WORKERS).to_string()),
                    status: if started {
                        Status::InProgress
                    } else {
                        Status::Queued
                    },
                    gate: rng.pct(30).then(|| rng.pick(GATES).to_string()),
                    issues: vec![1000 + id],
                    note: rng.pct(25).then(|| rng.pick(NOTES).to_string()),
                }
            })
            .collect();
        let mut legacy_view = String::from(
            "| # | Piece | Owner | Status | Gate | Issues | Note |\n| --- | --- | --- | --- | --- | --- | --- |\n",
        );
        for r in &rows {
            legacy_view.push_str(&format!(
                "| {} | {} | {} | {} | | #{} | |\n",
                r.id,
                r.piece,
                r.owner.as_deref().unwrap_or(""),
                r.status,
                r.issues[0]
            ));
        }
        let args = GenesisArgs {
            branch: String::from("main"),
            root: String::from("/srv/mosaic"),
            source: String::from("0123456789abcdef0123456789abcdef01234567"),
            rows,
            legacy_view,
        };
        let (queue, _) = Queue::genesis(args, "jason-genesis-1", "jason", &stamp(0))
            .unwrap_or_else(|e| panic!("bench bug: genesis refused: {e}"));
        Sim {
            queue,
            rng,
            clock_ms: 0,
            seq: 1,
        }
    }

    /// Appends exactly one entry.
    fn step(&mut self) {
        self.seq += 1;
        let n = self.seq;
        let rows = self.queue.rows();
        if n.is_multiple_of(ADD_EVERY) && rows.len() < MAX_ROWS {
            let id = rows.iter().map(|r| r.id).max().unwrap_or(0) + 1;
            let cmd = Command::Add(NewRow {
                piece: format!("Piece {id}: {}", self.rng.pick(WORDS)),
                owner: None,
                status: Status::Queued,
                gate: self.rng.pct(30).then(|| self.rng.pick(GATES).to_string()),
                issues: vec![1000 + id, 2000 + id],
                reviewers: Vec::new(),
                brief: self
                    .rng
                    .pct(50)
                    .then(|| format!("docs/plans/queue-as-data.md#piece-{id}")),
                note: self.rng.pct(40).then(|| self.rng.pick(NOTES).to_string()),
            });
            return self.run(&cmd, "lead", &format!("lead-add-{n}"));
        }
        let row = &rows[self.rng.below(rows.len())];
        let id = row.id;
        let owner = row.owner.clone();
        let roll = self.rng.below(100);
        let worker = self.rng.pick(WORKERS);
        let mv = |to: Status, reason: Option<String>| {
            Command::Move(MoveArgs {
                id,
                to,
                reason,
                candidate: None,
                issue: None,
                evidence: None,
            })
        };
        let (cmd, by, kind) = match (row.status, owner.as_deref()) {
            (Status::Queued, None) if roll < 75 => (mv(Status::InProgress, None), worker, "start"),
            (Status::Queued, None) => (
                Command::Assign(AssignArgs {
                    id,
                    owner: worker.to_string(),
                }),
                "lead",
                "assign",
            ),
            (Status::Queued, Some(w)) if roll < 80 => (mv(Status::InProgress, None), w, "start"),
            (Status::Queued, Some(_)) => (
                Command::Assign(AssignArgs {
                    id,
                    owner: worker.to_string(),
                }),
                "lead",
                "reassign",
            ),
            (Status::InProgress, Some(w)) => match roll {
                0..30 => (self.note(id, true), w, "note"),
                30..35 => (self.note(id, false), w, "note-clear"),
                35..47 => {
                    let gate = self.rng.pct(80).then(|| self.rng.pick(GATES).to_string());
                    (set(id, SetField::Gate, SetValue::Text(gate)), w, "gate")
                }
                47..55 => {
                    let extra = 3000 + self.rng.below(900) as u64;
                    let issues = SetValue::Numbers(vec![extra, 1000 + id]);
                    (set(id, SetField::Issues, issues), w, "issues")
                }
                55..75 => {
                    let reason = self.rng.pick(REASONS).to_string();
                    (mv(Status::Blocked, Some(reason)), w, "block")
                }
                75..90 => (Command::Release(IdArgs { id }), w, "release"),
                90..95 => (self.note(id, true), "lead", "lead-note"),
                _ => (
                    Command::Assign(AssignArgs {
                        id,
                        owner: worker.to_string(),
                    }),
                    "lead",
                    "reassign",
                ),
            },
            (Status::Blocked, Some(w)) => match roll {
                0..50 => (mv(Status::InProgress, None), w, "unblock"),
                50..70 => {
                    let reason = Some(String::from("unblocked by sage"));
                    (mv(Status::InProgress, reason), "sage", "unblock")
                }
                _ => (self.note(id, true), w, "note"),
            },
            // Nothing else is reachable from the generator; the lead may note any open row.
            _ => (self.note(id, true), "lead", "lead-note"),
        };
        self.run(&cmd, by, &format!("{by}-{id}-{kind}-{n}"));
    }

    fn note(&mut self, id: u64, with_text: bool) -> Command {
        let text = with_text.then(|| format!("{} (step {})", self.rng.pick(NOTES), self.seq));
        Command::Note(NoteArgs { id, text })
    }

    fn run(&mut self, cmd: &Command, by: &str, op: &str) {
        self.clock_ms += 200 + self.rng.below(20_000) as u64;
        let at = stamp(self.clock_ms);
        match self.queue.execute(cmd, op, by, &at) {
            Ok(Outcome::Applied { .. }) => {}
            Ok(Outcome::Recorded { rev, .. }) => {
                panic!("bench bug: {op} was already recorded at rev {rev}")
            }
            Err(e) => panic!("bench bug: {op} by {by} refused: {e} ({cmd:?})"),
        }
    }
}

fn set(id: u64, field: SetField, value: SetValue) -> Command {
    Command::Set(SetArgs {
        id,
        field,
        value,
        reason: None,
    })
}

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
    let mut sim = Sim::new();
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
    let file = canon::parse_queue(&big.bytes).expect("the 100k file parses");
    let stages = [
        (
            "canon::parse_queue (the strict one-pass reader)",
            ms(median_of(runs, || canon::parse_queue(&big.bytes).unwrap())),
        ),
        (
            "  canon::parse_lenient (the reference path, errors only)",
            ms(median_of(runs, || {
                canon::parse_lenient::<mosaic_queue_core::QueueFile>(&big.bytes).unwrap()
            })),
        ),
        (
            "canon::to_canonical alone",
            ms(median_of(runs, || canon::to_canonical(&file))),
        ),
        (
            "replay::replay alone",
            ms(median_of(runs, || replay::replay(&file).unwrap())),
        ),
        (
            "digest::log_digest over the whole log (not part of verify)",
            ms(median_of(runs, || {
                digest::log_digest(&file.log, file.log.len())
            })),
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
