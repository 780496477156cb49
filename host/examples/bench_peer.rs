//! bench-peer: mosaic-queue side by side with beads_rust's `br` at 1,000 items (another count
//! with `BENCH_PEER_ITEMS`), whole process (spawn to exit) and peak RSS, rounds interleaved in
//! one run. Run: `cargo build --release -p mosaic-queue`, then `cargo run --release -p
//! mosaic-queue --example bench-peer` (needs `br` 0.7.6 on PATH; `MOSAIC_QUEUE_BIN` names
//! another build of the binary).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use support::bench::{BENCH_QUEUE_MD, Scratch, queued_checkout, release_binary};
use support::relay::{self, Run, measure};

/// Items in each tool's store: the size the goals are stated at, 1,000, unless
/// `BENCH_PEER_ITEMS` names another (the goals are also stated at 10,000).
fn items_count() -> u64 {
    static COUNT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *COUNT.get_or_init(|| {
        std::env::var("BENCH_PEER_ITEMS")
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|n| (1..=100_000).contains(n))
            .unwrap_or(1_000)
    })
}
/// Timed rounds; each round runs every command of both tools once.
const ROUNDS: usize = 15;
/// The peer version the goals were set against; another one is measured but named.
const PEER_VERSION: &str = "0.7.6";

/// The seat `next` answers for (it needs one; `br ready` has no such notion).
const SEAT: &str = "lead";

const INSTALL: &str = "cargo +nightly install beads_rust --no-default-features --locked";

/// Set in the environment of this example re-run as a child: it exits at once, which measures
/// what any Rust process costs to start and stop here (the floor under both tools).
const NOOP_VAR: &str = "BENCH_PEER_NOOP";

// ---- targets: mosaic-queue / br ----

const WRITE_TARGET: f64 = 0.15;
const LIST_TARGET: f64 = 0.10;
const NEXT_TARGET: f64 = 0.10;
const RSS_TARGET: f64 = 0.25;

/// Both tools run with the same minimal environment: PATH to find nothing else, HOME and
/// XDG dirs in the scratch dir so neither reads a user's configuration, and no variable
/// that points either tool at another store or changes its output. The command is the relay
/// (this example re-run) with the program and its arguments after it.
fn hermetic(program: &Path, dir: &Path, home: &Path, args: &[&str]) -> Command {
    let me = std::env::current_exe().expect("this example knows its path");
    let mut cmd = Command::new(me);
    cmd.arg(program).args(args).current_dir(dir).env_clear();
    if let Some(path) = std::env::var_os("PATH") {
        cmd.env("PATH", path);
    }
    cmd.env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("USER", "bench")
        .env("NO_COLOR", "1");
    cmd
}

/// One tool's checkout: the program, the directory it runs in, the scratch HOME, and the
/// scratch dir for the relay's stderr and report files.
struct Tool {
    program: PathBuf,
    dir: PathBuf,
    home: PathBuf,
    scratch: PathBuf,
}

impl Tool {
    fn run(&self, args: &[&str]) -> Run {
        measure(
            hermetic(&self.program, &self.dir, &self.home, args),
            &self.scratch,
        )
    }
}

fn br_on_path() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("br"))
        .find(|p| p.is_file())
}

/// The number of items in a read's JSON document: a top-level array, or the first array among
/// an object's values (`rows` for mosaic-queue, whatever br names its list).
fn items(stdout: &[u8]) -> usize {
    let doc: Value = serde_json::from_slice(stdout).expect("the read prints JSON");
    match &doc {
        Value::Array(a) => a.len(),
        Value::Object(o) => o
            .values()
            .find_map(Value::as_array)
            .map_or(usize::from(!doc["row"].is_null()), Vec::len),
        _ => 0,
    }
}

/// A br workspace of `items_count()` open tasks in a git repository at `<dir>/br`, created in one bulk
/// import (`create --file`, one `## Title` heading per item); returns the tool and the ids.
fn br_workspace(br: &Path, base: &Path) -> (Tool, Vec<String>) {
    let dir = base.join("br");
    std::fs::create_dir_all(&dir).expect("create the br dir");
    support::git(&dir, &["init", "-q", "-b", "main"]);
    let tool = Tool {
        program: br.to_path_buf(),
        dir: dir.clone(),
        home: base.join("home"),
        scratch: base.to_path_buf(),
    };
    tool.run(&["init", "--prefix", "bench"]);
    let mut md = String::new();
    for id in 1..=items_count() {
        md.push_str(&format!(
            "## Piece {id}\n\n### Type\ntask\n\n### Priority\n2\n\n"
        ));
    }
    let md_path = base.join("items.md");
    std::fs::write(&md_path, md).expect("write the import file");
    tool.run(&["create", "--file", &md_path.to_string_lossy()]);
    let list = tool.run(&["list", "--json"]);
    let doc: Value = serde_json::from_slice(&list.stdout).expect("br list prints JSON");
    let array = doc
        .as_array()
        .or_else(|| doc.as_object()?.values().find_map(Value::as_array))
        .expect("br list --json holds an array of issues");
    let ids: Vec<String> = array
        .iter()
        .filter_map(|i| Some(i.get("id")?.as_str()?.to_owned()))
        .collect();
    assert_eq!(
        ids.len() as u64,
        items_count(),
        "br holds every imported item"
    );
    (tool, ids)
}

/// The timings and peak RSS of one command of one tool over every round.
#[derive(Default)]
struct Series {
    walls: Vec<Duration>,
    rss: Vec<u64>,
}

impl Series {
    fn push(&mut self, run: &Run) {
        self.walls.push(run.wall);
        self.rss.push(run.max_rss_kib);
    }
    fn median_ms(&self) -> f64 {
        let mut v = self.walls.clone();
        v.sort();
        v[v.len() / 2].as_secs_f64() * 1e3
    }
    fn median_rss(&self) -> u64 {
        let mut v = self.rss.clone();
        v.sort();
        v[v.len() / 2]
    }
    fn peak_rss(&self) -> u64 {
        self.rss.iter().copied().max().unwrap_or(0)
    }
}

fn verdict(ratio: f64, target: f64) -> &'static str {
    if ratio <= target { "met" } else { "NOT met" }
}

fn main() {
    // The relay first: a relay of the no-op run has both variables and must relay.
    relay::relay_if_asked();
    if std::env::var_os(NOOP_VAR).is_some() {
        return;
    }
    let Some(br) = br_on_path() else {
        println!(
            "bench-peer: `br` is not on PATH; install beads_rust {PEER_VERSION} with `{INSTALL}`"
        );
        std::process::exit(2);
    };
    let bin = release_binary("bench-peer");
    let scratch = Scratch::new("bench-peer");
    let base = &scratch.0;
    std::fs::create_dir_all(base.join("home")).expect("create the scratch HOME");

    let mq = Tool {
        program: bin.clone(),
        dir: queued_checkout(&bin, base, items_count(), BENCH_QUEUE_MD),
        home: base.join("home"),
        scratch: base.clone(),
    };
    let (peer, ids) = br_workspace(&br, base);
    let versions = [&mq, &peer].map(|t| {
        String::from_utf8_lossy(&t.run(&["--version"]).stdout)
            .trim()
            .to_owned()
    });
    println!(
        "bench-peer: {} ({}) against {} ({}); {} items each, {ROUNDS} interleaved rounds, in {}",
        bin.display(),
        versions[0],
        br.display(),
        versions[1],
        items_count(),
        base.display()
    );
    if !versions[1].contains(PEER_VERSION) {
        println!("   note: the goals were set against br {PEER_VERSION}");
    }

    // The pairs. Writes: `note ID TEXT` and `br update ID --notes TEXT` each replace one text
    // field of one existing item, durably, in the tool's default mode (mosaic-queue: the
    // locked write of queue.json, its witness and QUEUE.md; br: its SQLite database and the
    // JSONL export it flushes after every change). Reads: the whole list as JSON
    // on both sides; `next` answers "what do I work on" with one row where `br ready` lists
    // every ready item, which is the verb br offers for that question.
    let write_mq = |k: usize| {
        let row = (k as u64 % items_count() + 1).to_string();
        let (text, op) = (format!("bench note {k}"), format!("peer-note-{k:04}"));
        mq.run(&["note", &row, &text, "--op", &op, "--by", "lead"])
    };
    let write_br = |k: usize| {
        let text = format!("bench note {k}");
        peer.run(&["update", &ids[k % ids.len()], "--notes", &text])
    };
    let read = |tool: &Tool, args: &[&str]| tool.run(args);

    // What each read returns, checked once before any timing.
    let list = [
        read(&mq, &["list", "--json"]),
        read(&peer, &["list", "--json"]),
    ];
    let next = [
        read(&mq, &["next", SEAT, "--json"]),
        read(&peer, &["ready", "--json"]),
    ];
    assert_eq!(
        items(&list[0].stdout) as u64,
        items_count(),
        "mosaic-queue lists every row"
    );
    assert_eq!(
        items(&list[1].stdout) as u64,
        items_count(),
        "br lists every item"
    );
    println!(
        "   outputs: list --json {} / {} items ({} / {} KiB); next SEAT --json {} row ({} B), ready --json {} items ({} KiB)",
        items(&list[0].stdout),
        items(&list[1].stdout),
        list[0].stdout.len() / 1024,
        list[1].stdout.len() / 1024,
        items(&next[0].stdout),
        next[0].stdout.len(),
        items(&next[1].stdout),
        next[1].stdout.len() / 1024,
    );
    // One untimed write each, so both stores and the page cache are past their first touch.
    write_mq(ROUNDS);
    write_br(ROUNDS);

    let noop = Tool {
        program: std::env::current_exe().expect("this example knows its path"),
        dir: base.clone(),
        home: base.join("home"),
        scratch: base.clone(),
    };
    let (mut w, mut l, mut n): ([Series; 2], [Series; 2], [Series; 2]) = Default::default();
    let mut floor: [Series; 4] = Default::default();
    for k in 0..ROUNDS {
        // Each round alternates which tool goes first, so neither always runs right after
        // the other's writeback or always meets the machine's quieter half of a round.
        let order: [usize; 2] = if k % 2 == 0 { [0, 1] } else { [1, 0] };
        for &side in &order {
            let run = if side == 0 { write_mq(k) } else { write_br(k) };
            w[side].push(&run);
        }
        for &side in &order {
            let tool = [&mq, &peer][side];
            l[side].push(&read(tool, &["list", "--json"]));
        }
        for &side in &order {
            let run = if side == 0 {
                read(&mq, &["next", SEAT, "--json"])
            } else {
                read(&peer, &["ready", "--json"])
            };
            n[side].push(&run);
        }
        // The floors: an exec of a tiny C program, a Rust process that exits at once, and
        // each tool's cheapest run (`--version`).
        let cmd = hermetic(Path::new("/bin/true"), &noop.dir, &noop.home, &[]);
        floor[0].push(&measure(cmd, &noop.scratch));
        let mut cmd = hermetic(&noop.program, &noop.dir, &noop.home, &[]);
        cmd.env(NOOP_VAR, "1");
        floor[1].push(&measure(cmd, &noop.scratch));
        floor[2].push(&read(&mq, &["--version"]));
        floor[3].push(&read(&peer, &["--version"]));
    }

    let line = |name: &str, mq: &Series, br: &Series, target: f64| {
        let (a, b) = (mq.median_ms(), br.median_ms());
        let ratio = a / b;
        println!(
            "   {name:<44} mosaic-queue {a:>8.2} ms  br {b:>8.2} ms  ratio {ratio:.3}  (target <= {target}) {}",
            verdict(ratio, target)
        );
    };
    println!("   wall time, spawn to exit, median of {ROUNDS}:");
    line(
        "note ID TEXT / update ID --notes TEXT",
        &w[0],
        &w[1],
        WRITE_TARGET,
    );
    line("list --json / list --json", &l[0], &l[1], LIST_TARGET);
    line("next SEAT --json / ready --json", &n[0], &n[1], NEXT_TARGET);

    println!("   peak RSS (wait4 ru_maxrss), median of {ROUNDS}:");
    let rss = |name: &str, mq: &Series, br: &Series| {
        let (a, b) = (mq.median_rss(), br.median_rss());
        let ratio = a as f64 / b as f64;
        println!(
            "   {name:<44} mosaic-queue {a:>6} KiB  br {b:>6} KiB  ratio {ratio:.3}  (target <= {RSS_TARGET}) {}",
            verdict(ratio, RSS_TARGET)
        );
    };
    rss("note / update", &w[0], &w[1]);
    rss("list --json", &l[0], &l[1]);
    rss("next SEAT --json / ready --json", &n[0], &n[1]);
    let peak = |side: usize| {
        [&w[side], &l[side], &n[side]]
            .map(Series::peak_rss)
            .into_iter()
            .max()
            .unwrap_or(0)
    };
    let (a, b) = (peak(0), peak(1));
    let ratio = a as f64 / b as f64;
    println!(
        "   {:<44} mosaic-queue {a:>6} KiB  br {b:>6} KiB  ratio {ratio:.3}  (target <= {RSS_TARGET}) {}",
        "peak RSS over every timed run",
        verdict(ratio, RSS_TARGET)
    );

    println!("   floors, median of {ROUNDS} (what no tool here can go below):");
    for (name, s) in [
        ("/bin/true", &floor[0]),
        ("a Rust process that exits at once", &floor[1]),
        ("mosaic-queue --version", &floor[2]),
        ("br --version", &floor[3]),
    ] {
        println!(
            "   {name:<44} {:>8.2} ms  {:>6} KiB",
            s.median_ms(),
            s.median_rss()
        );
    }
}
