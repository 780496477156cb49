//! bench-take: what a `take` costs against a plain `move` of the same kind of row, in one run.
//! In a scratch canonical checkout of 400 unowned queued rows, each round times one seat's
//! `move ID in-progress` of the first free row and another seat's `take` (which claims the
//! next one), so both writes meet the same queue size; it prints both medians and their
//! ratio. Run: `cargo build --release -p mosaic-queue`, then
//! `cargo run --release -p mosaic-queue --example bench-take` (`MOSAIC_QUEUE_BIN` names
//! another build of the binary).

use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};

/// Rows in the queue, and rounds (one move and one take each).
const ROWS: u64 = 400;
const ROUNDS: u64 = 60;

const CLEARED: &[&str] = &[
    "MOSAIC_AGENT_NAME",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
    "MOSAIC_KILL_AT",
    "MOSAIC_LOCK_WAIT_MS",
    "MOSAIC_NOW_MS",
];

const QUEUE_MD: &str =
    "# Queue\n\n<!-- mosaic-queue:begin -->\nlegacy\n<!-- mosaic-queue:end -->\n";

fn binary() -> PathBuf {
    let bin = std::env::var_os("MOSAIC_QUEUE_BIN").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/release/mosaic-queue"),
        PathBuf::from,
    );
    bin.canonicalize().unwrap_or_else(|_| {
        eprintln!(
            "bench-take: the binary {} is missing; build it first with \
             `cargo build --release -p mosaic-queue`",
            bin.display()
        );
        std::process::exit(1);
    })
}

/// The scratch directory of this run; removed when dropped, also after a panic.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run(bin: &Path, dir: &Path, args: &[&str]) -> String {
    let mut cmd = Process::new(bin);
    for var in CLEARED {
        cmd.env_remove(var);
    }
    let out = cmd
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs");
    assert!(
        out.status.success(),
        "bench bug: {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr).trim()
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn git(dir: &Path, args: &[&str]) -> String {
    let mut cmd = Process::new("git");
    for var in CLEARED {
        cmd.env_remove(var);
    }
    let out = cmd.args(args).current_dir(dir).output().expect("git runs");
    assert!(out.status.success(), "bench bug: git {args:?} failed");
    String::from_utf8_lossy(&out.stdout).trim_end().to_owned()
}

fn timed(bin: &Path, dir: &Path, args: &[&str]) -> (Duration, String) {
    let t = Instant::now();
    let out = run(bin, dir, args);
    (t.elapsed(), out)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let bin = binary();
    let base = std::env::temp_dir().join(format!("mosaic-bench-take-{}", std::process::id()));
    std::fs::create_dir_all(base.join("repo/docs/plans")).expect("create the scratch repo");
    let scratch = Scratch(base.canonicalize().expect("canonical scratch dir"));
    let root = scratch.0.join("repo");
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["config", "user.name", "Bench Seat"]);
    git(&root, &["config", "user.email", "bench@example.invalid"]);
    git(&root, &["config", "commit.gpgsign", "false"]);
    std::fs::write(root.join("docs/plans/QUEUE.md"), QUEUE_MD).expect("write QUEUE.md");
    git(&root, &["add", "docs/plans/QUEUE.md"]);
    git(&root, &["commit", "-q", "-m", "QUEUE.md by hand"]);
    let blob = git(&root, &["hash-object", "docs/plans/QUEUE.md"]);
    let mut map = format!(
        "source: docs/plans/QUEUE.md blob {blob}\n\n\
         | # | Piece | Owner | Status | Gate | Issues | Note |\n\
         | --- | --- | --- | --- | --- | --- | --- |\n"
    );
    for id in 1..=ROWS {
        map.push_str(&format!(
            "| {id} | Piece {id} | | queued | | #{} | |\n",
            100 + id
        ));
    }
    let map_path = scratch.0.join("map.md");
    std::fs::write(&map_path, map).expect("write the map");
    let map_arg = map_path.to_string_lossy().into_owned();
    run(
        &bin,
        &root,
        &[
            "genesis",
            "--map",
            &map_arg,
            "--op",
            "bench-genesis",
            "--by",
            "jason",
        ],
    );
    git(&root, &["add", "docs/plans"]);
    git(&root, &["commit", "-q", "-m", "queue genesis"]);
    // The first take moves the queue to semantics 3; both kinds of write are timed after it.
    run(
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
