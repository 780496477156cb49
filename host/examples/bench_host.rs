//! bench-host: drives the release `mosaic-queue` binary in scratch canonical checkouts and prints
//! write latency against the bare I/O of a write, read scaling from 1k to 100k log entries,
//! throughput of 8 concurrent writers against 1, and a write and peak memory at 100k entries.
//! Run: `cargo build --release -p mosaic-queue`, then `cargo run --release -p mosaic-queue
//! --example bench-host`.

use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command as Process, Output};
use std::time::{Duration, Instant};

use mosaic_queue::clock;
use mosaic_queue_core::{markdown, sha256_hex, to_canonical};
use support::bench::{Scratch, cleared, new_repo, queued_checkout, release_binary};
use support::git;
use support::relay::{self, Run, measure, relayed};

// ---- targets ----

const WRITE_TARGET: f64 = 1.2;
const READ_TARGET: f64 = 2.0;
const THROUGHPUT_TARGET: f64 = 0.8;
const SCALE_TARGET: f64 = 1.3;
/// `verify --snapshot` at 100k entries against `verify` of the same files.
const SANDBOX_TARGET: f64 = 2.0;

// ---- sizes ----

/// Mutating ops timed for the write latency, and the bare I/O sequences timed against them.
const LATENCY_OPS: usize = 50;
/// Process runs per median for the cheap commands.
const RUNS: usize = 15;
/// Concurrent writers, and ops each of them runs.
const WRITERS: usize = 8;
const OPS_PER_WRITER: usize = 25;
/// The two log sizes of the read scaling.
const SMALL_LOG: u64 = 1_000;
const BIG_LOG: u64 = 100_000;
/// Runs of each command at the bigger log (each costs a replay of the whole file).
const SCALE_RUNS: usize = 3;

const QUEUE_MD: &str = "\
# Queue

Hand-written header: the table below is generated.

<!-- mosaic-queue:begin -->
| # | What | Who |
| 1 | parser | darkwing |
legacy text kept as the legacy view
<!-- mosaic-queue:end -->

Hand-written footer.
";

// ---- the binary, processes and scratch directories ----

/// Runs the CLI in a checkout.
#[derive(Clone)]
struct Cli {
    bin: PathBuf,
    root: PathBuf,
}

impl Cli {
    fn output(&self, args: &[&str]) -> Output {
        let mut cmd = cleared(Process::new(&self.bin));
        cmd.args(args)
            .current_dir(&self.root)
            .output()
            .expect("the binary runs")
    }

    /// Runs `args`, which must succeed; its wall time, spawn and exit included.
    fn timed(&self, args: &[&str]) -> Duration {
        let t = Instant::now();
        let out = self.output(args);
        let elapsed = t.elapsed();
        assert!(
            out.status.success(),
            "bench bug: mosaic-queue {args:?} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
        elapsed
    }

    /// One warm-up run, then the median of `runs`.
    fn median(&self, runs: usize, args: &[&str]) -> Duration {
        self.timed(args);
        median((0..runs).map(|_| self.timed(args)).collect())
    }

    /// `note ID TEXT --op OP --by lead`, timed.
    fn note(&self, id: u64, text: &str, op: &str) -> Duration {
        self.timed(&["note", &id.to_string(), text, "--op", op, "--by", "lead"])
    }
}

/// Flushes every dirty page (the 43 MiB file and the git objects of a generated queue among
/// them) so that one phase's writeback does not land in the next phase's fsyncs.
fn settle() {
    rustix::fs::sync();
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
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

/// A canonical checkout after `mosaic-queue genesis` from a map of `rows` queued rows,
/// committed: the path the CLI's users take.
fn small_checkout(bin: &Path, base: &Path, rows: u64) -> Cli {
    Cli {
        bin: bin.to_path_buf(),
        root: queued_checkout(bin, &base.join("small"), rows, QUEUE_MD),
    }
}

use support::workload::{Origin, Shape, Sim};

/// Rows in the generated queue: it stays flat, only the log grows.
const GEN_ROWS: u64 = 40;

/// A canonical checkout whose queue.json holds `entries` log entries generated in-process,
/// committed, with a witness for it and one real write through the CLI on top (which leaves
/// the read view). Returns the CLI, the file size and the generation time.
fn generated_checkout(bin: &Path, base: &Path, entries: u64) -> (Cli, usize, Duration) {
    let (root, blob) = new_repo(&base.join(format!("log-{entries}")), QUEUE_MD);
    let t = Instant::now();
    let mut sim = Sim::new(
        Shape {
            genesis_rows: GEN_ROWS,
            max_rows: GEN_ROWS as usize,
            add_every: u64::MAX,
        },
        Origin {
            root: root.to_string_lossy().into_owned(),
            source: blob,
            legacy_view: markdown::body(QUEUE_MD)
                .expect("QUEUE_MD has markers")
                .to_owned(),
        },
    );
    while sim.queue.revision() < entries {
        sim.step();
    }
    let generated = t.elapsed();
    let queue = sim.queue;
    let bytes = queue.to_bytes();
    let plans = root.join("docs/plans");
    std::fs::write(plans.join("queue.json"), &bytes).expect("write queue.json");
    let md = markdown::splice(QUEUE_MD, &queue.render_body()).expect("QUEUE_MD has markers");
    std::fs::write(plans.join("QUEUE.md"), md).expect("write QUEUE.md");
    git(&root, &["add", "docs/plans"]);
    git(&root, &["commit", "-q", "-m", "generated queue"]);
    let witness = queue.witness(sha256_hex(&bytes), clock::now());
    std::fs::write(root.join(".git/mosaic-queue.head"), to_canonical(&witness))
        .expect("write the witness");
    let cli = Cli {
        bin: bin.to_path_buf(),
        root,
    };
    (cli, bytes.len(), generated)
}

// ---- the bare I/O of one write, in-process ----

fn create_synced(path: &Path, bytes: &[u8]) {
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .expect("create a temp file");
    f.write_all(bytes).expect("write a temp file");
    f.sync_all().expect("fsync a temp file");
}

fn sync_dir(dir: &Path) {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .expect("fsync a directory");
}

fn read(path: &Path) -> usize {
    std::fs::read(path).expect("read a file").len()
}

/// The byte sizes one write of the small queue puts on disk.
struct WriteSizes {
    queue_json: usize,
    witness: usize,
    queue_md: usize,
    view: usize,
    lock: usize,
}

/// One write's file system calls, as the store and the lock make them for a `note` (witness
/// current, so no catch-up): 5 files created and written, 4 of them fsynced (lock temp,
/// queue.json, witness and QUEUE.md temps; the read view is a cache and is not), 4 renames,
/// 1 link, 2 unlinks (lock temp, lock), 4 directory fsyncs (docs/plans after queue.json, .git
/// after the witness, docs/plans after QUEUE.md, .git after the release), one listing each of
/// docs/plans and .git (the sweep of a killed writer's temps before queue.json), and the reads
/// of the witness, queue.json (load, then the check that it is unchanged), QUEUE.md and the
/// lock.
fn bare_write(plans: &Path, git_dir: &Path, s: &WriteSizes) {
    let fill = |n: usize| vec![b'x'; n];
    let sweep = || {
        for dir in [plans, git_dir] {
            let names = std::fs::read_dir(dir).expect("list a directory");
            std::hint::black_box(names.filter_map(Result::ok).count());
        }
    };
    // The lock: temp, fsync, link, unlink the temp.
    let lock = git_dir.join("mosaic-queue.lock");
    let lock_temp = git_dir.join("mosaic-queue.lock.bench.tmp");
    create_synced(&lock_temp, &fill(s.lock));
    std::fs::hard_link(&lock_temp, &lock).expect("link the lock");
    std::fs::remove_file(&lock_temp).expect("remove the lock temp");
    // Load: the witness, queue.json, QUEUE.md.
    let queue_json = plans.join("queue.json");
    let witness = git_dir.join("mosaic-queue.head");
    read(&witness);
    read(&queue_json);
    read(&plans.join("QUEUE.md"));
    // queue.json: temp, fsync, re-read, rename, fsync docs/plans.
    sweep();
    let temp = plans.join(".queue.json.bench.tmp");
    create_synced(&temp, &fill(s.queue_json));
    read(&queue_json);
    std::fs::rename(&temp, &queue_json).expect("rename queue.json");
    sync_dir(plans);
    // The witness: temp, fsync, rename, fsync .git.
    let temp = git_dir.join(".mosaic-queue.head.bench.tmp");
    create_synced(&temp, &fill(s.witness));
    std::fs::rename(&temp, &witness).expect("rename the witness");
    sync_dir(git_dir);
    // The read view: temp, no fsync, rename (no directory fsync).
    let temp = git_dir.join(".mosaic-queue.view.bench.tmp");
    std::fs::write(&temp, fill(s.view)).expect("write the view temp");
    std::fs::rename(&temp, git_dir.join("mosaic-queue.view")).expect("rename the view");
    // QUEUE.md: temp, fsync, rename, fsync docs/plans.
    let temp = plans.join(".QUEUE.md.bench.tmp");
    create_synced(&temp, &fill(s.queue_md));
    std::fs::rename(&temp, plans.join("QUEUE.md")).expect("rename QUEUE.md");
    sync_dir(plans);
    // Release: re-read the lock, unlink, fsync .git.
    read(&lock);
    std::fs::remove_file(&lock).expect("remove the lock");
    sync_dir(git_dir);
}

// ---- the three measurements ----

fn write_latency(bin: &Path, base: &Path) -> Cli {
    println!("1. write latency: `note` on a small queue against the bare I/O of a write");
    let cli = small_checkout(bin, base, (WRITERS + 2) as u64);
    for k in 0..3 {
        cli.note(1, &format!("warm-up {k}"), &format!("bench-warm-{k:04}"));
    }
    settle();
    let ops: Vec<Duration> = (0..LATENCY_OPS)
        .map(|k| {
            cli.note(
                1,
                &format!("latency note {k}"),
                &format!("bench-lat-{k:04}"),
            )
        })
        .collect();
    let git_dir = cli.root.join(".git");
    let sizes = WriteSizes {
        queue_json: read(&cli.root.join("docs/plans/queue.json")),
        witness: read(&git_dir.join("mosaic-queue.head")),
        queue_md: read(&cli.root.join("docs/plans/QUEUE.md")),
        view: read(&git_dir.join("mosaic-queue.view")),
        // What a holder takes in canonical JSON: pid, start, host, boot id, op, verb, at.
        lock: 200 + rustix::system::uname().nodename().to_bytes().len(),
    };
    let rev = cli.output(&["list", "--json"]);
    let rev = String::from_utf8_lossy(&rev.stdout)
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("\"revision\": ")?
                .trim_end_matches(',')
                .parse::<u64>()
                .ok()
        })
        .unwrap_or(0);

    // The same calls in-process, on the same file system, with files of the same sizes.
    let bare_dir = base.join("bare-io");
    let (plans, bare_git) = (bare_dir.join("docs/plans"), bare_dir.join(".git"));
    std::fs::create_dir_all(&plans).expect("create the bare I/O dirs");
    std::fs::create_dir_all(&bare_git).expect("create the bare I/O dirs");
    std::fs::write(plans.join("queue.json"), vec![b'x'; sizes.queue_json]).expect("seed");
    std::fs::write(plans.join("QUEUE.md"), vec![b'x'; sizes.queue_md]).expect("seed");
    std::fs::write(
        bare_git.join("mosaic-queue.head"),
        vec![b'x'; sizes.witness],
    )
    .expect("seed");
    bare_write(&plans, &bare_git, &sizes);
    settle();
    let bare: Vec<Duration> = (0..LATENCY_OPS)
        .map(|_| {
            let t = Instant::now();
            bare_write(&plans, &bare_git, &sizes);
            t.elapsed()
        })
        .collect();

    let verify = cli.median(RUNS, &["verify"]);
    let spawn = cli.median(RUNS, &["--version"]);
    let (op, bare) = (median(ops.clone()), median(bare));
    let mut sorted = ops;
    sorted.sort();
    let p90 = sorted[sorted.len() * 9 / 10];
    println!(
        "   queue: {} rows, rev {rev}; files: queue.json {} B, witness {} B, QUEUE.md {} B, view {} B, lock ~{} B",
        WRITERS + 2,
        sizes.queue_json,
        sizes.witness,
        sizes.queue_md,
        sizes.view,
        sizes.lock
    );
    println!(
        "   one write = 5 create+write (lock temp, queue.json, witness, view, QUEUE.md), 4 of them \
         fsynced (not the view), 4 renames, 1 link, 2 unlinks, 4 directory fsyncs (.git x2, \
         docs/plans x2), 2 directory listings (the temp sweep), 5 reads"
    );
    println!(
        "   note (new process each), median of {LATENCY_OPS}: {:>8.3} ms  (p90 {:.3} ms)",
        ms(op),
        ms(p90)
    );
    println!(
        "   bare I/O of one write, in-process, median of {LATENCY_OPS}: {:>8.3} ms",
        ms(bare)
    );
    println!(
        "   verify (new process), median of {RUNS}: {:>8.3} ms",
        ms(verify)
    );
    println!(
        "   --version (no-op spawn), median of {RUNS}: {:>8.3} ms",
        ms(spawn)
    );
    let ratio = ms(op) / (ms(bare) + ms(verify));
    println!(
        "   ratio note / (bare I/O + verify) = {:.3} / ({:.3} + {:.3}) = {ratio:.2}  (target <= {WRITE_TARGET}) {}",
        ms(op),
        ms(bare),
        ms(verify),
        verdict(ratio <= WRITE_TARGET)
    );
    cli
}

/// Prints read scaling; returns the checkout of the bigger log and its queue.json's size.
fn read_scaling(bin: &Path, base: &Path) -> (Cli, usize) {
    println!();
    println!("2. read scaling: `list` at {SMALL_LOG} and {BIG_LOG} log entries (read view)");
    struct Sized {
        entries: u64,
        file: usize,
        generated: Duration,
        first_write: Duration,
        list: Duration,
        json: Duration,
        verify: Duration,
        verify_runs: usize,
    }
    let mut results = Vec::new();
    let mut biggest = None;
    for (entries, verify_runs) in [(SMALL_LOG, 5), (BIG_LOG, 3)] {
        let (cli, file, generated) = generated_checkout(bin, base, entries);
        biggest = Some((cli.clone(), file));
        // One real write through the CLI: it verifies the whole log, writes the witness and
        // leaves the read view the reads below answer from.
        let first_write = cli.note(1, "bench read view", "bench-view-0001");
        settle();
        let list = cli.median(RUNS, &["list"]);
        let json = cli.median(RUNS, &["list", "--json"]);
        let verify = cli.median(verify_runs, &["verify"]);
        results.push(Sized {
            entries: entries + 1,
            file,
            generated,
            first_write,
            list,
            json,
            verify,
            verify_runs,
        });
    }
    for r in &results {
        println!(
            "   {:>6} entries, {:>9} queue.json: generated in {:.1} s; one note (full verify + write) {:.1} ms",
            r.entries,
            size(r.file),
            r.generated.as_secs_f64(),
            ms(r.first_write)
        );
    }
    println!(
        "   {:>8}  {:>22}  {:>22}  {:>22}",
        "entries",
        format!("list ms (median {RUNS})"),
        format!("list --json ms ({RUNS})"),
        "verify ms (median)"
    );
    for r in &results {
        println!(
            "   {:>8}  {:>22.3}  {:>22.3}  {:>22}",
            r.entries,
            ms(r.list),
            ms(r.json),
            format!("{:.3} ({} runs)", ms(r.verify), r.verify_runs)
        );
    }
    let (small, big) = (&results[0], &results[1]);
    let ratio = ms(big.list) / ms(small.list);
    println!(
        "   ratio list@100k / list@1k = {ratio:.2}  (target <= {READ_TARGET}) {}",
        verdict(ratio <= READ_TARGET)
    );
    println!(
        "   for contrast: list --json {:.2}x, verify {:.1}x",
        ms(big.json) / ms(small.json),
        ms(big.verify) / ms(small.verify)
    );
    biggest.expect("two sizes ran")
}

/// A write at the bigger log against what it cannot avoid (replaying the file, as `verify`
/// does, and serializing, writing and fsyncing the same bytes once), `verify --snapshot` (the
/// check in the wasmtime sandbox) against `verify` of the same files, and the peak resident
/// set of the verbs there against twice the file plus 16 MiB. Each command runs under the
/// relay, which times it and reads its own peak RSS.
fn write_at_scale(cli: &Cli, file: usize) {
    println!();
    println!("4. a write at {} log entries, and peak memory", BIG_LOG + 1);
    let scratch = cli.root.parent().expect("a checkout has a parent dir");
    let run = |args: &[&str]| -> Run {
        let mut cmd = cleared(relayed(&cli.bin));
        cmd.args(args).current_dir(&cli.root);
        measure(cmd, scratch)
    };
    let mut runs: Vec<(&str, Vec<Run>)> = Vec::new();
    let notes = (0..SCALE_RUNS)
        .map(|k| {
            let (text, op) = (format!("scale note {k}"), format!("bench-scale-{k:04}"));
            run(&["note", "1", &text, "--op", &op, "--by", "lead"])
        })
        .collect();
    runs.push(("note", notes));
    let snapshot = scratch.join("scale-snapshot");
    let snapshot = snapshot.to_str().expect("a UTF-8 scratch path");
    let taken = cli.output(&["snapshot", "--out", snapshot]);
    assert!(taken.status.success(), "bench bug: snapshot failed");
    for (name, args) in [
        ("verify", &["verify"][..]),
        ("verify --snapshot", &["verify", "--snapshot", snapshot][..]),
        ("list --json", &["list", "--json"][..]),
        ("show 1", &["show", "1"][..]),
        ("next lead --json", &["next", "lead", "--json"][..]),
    ] {
        runs.push((name, (0..SCALE_RUNS).map(|_| run(args)).collect()));
    }
    // `commit` checks the snapshot against HEAD's queue.json in the sandbox, so it holds two
    // files of this size for a moment; each run commits one new note.
    install_guard(cli);
    let commits = (0..SCALE_RUNS)
        .map(|k| {
            cli.note(
                1,
                &format!("commit note {k}"),
                &format!("bench-commit-{k:04}"),
            );
            run(&["commit", "-m", &format!("bench commit {k}"), "--by", "lead"])
        })
        .collect();
    runs.push(("commit", commits));
    // The bytes of the file as it now stands, serialized, written, fsynced and renamed once.
    let plans = cli.root.join("docs/plans");
    let bytes = std::fs::read(plans.join("queue.json")).expect("read queue.json");
    let queue = mosaic_queue_core::Queue::verify(&bytes).expect("the file verifies");
    let bare_dir = scratch.join("bare-scale");
    std::fs::create_dir_all(&bare_dir).expect("create the bare dir");
    let bare: Vec<Duration> = (0..SCALE_RUNS)
        .map(|k| {
            let t = Instant::now();
            let out = queue.to_bytes();
            let temp = bare_dir.join(format!("queue.json.{k}.tmp"));
            create_synced(&temp, &out);
            std::fs::rename(&temp, bare_dir.join("queue.json")).expect("rename");
            sync_dir(&bare_dir);
            t.elapsed()
        })
        .collect();
    let wall = |name: &str| {
        let (_, r) = runs.iter().find(|(n, _)| *n == name).expect("measured");
        median(r.iter().map(|r| r.wall).collect())
    };
    let (note, verify, bare) = (wall("note"), wall("verify"), median(bare));
    let ratio = ms(note) / (ms(verify) + ms(bare));
    println!("   queue.json {} (medians of {SCALE_RUNS})", size(file));
    println!(
        "   ratio note / (verify + serialize, write and fsync the file once) = {:.1} / ({:.1} + {:.1}) = {ratio:.2}  (target <= {SCALE_TARGET}) {}",
        ms(note),
        ms(verify),
        ms(bare),
        verdict(ratio <= SCALE_TARGET)
    );
    let boxed = wall("verify --snapshot");
    let ratio = ms(boxed) / ms(verify);
    println!(
        "   ratio verify --snapshot / verify, whole process = {:.1} / {:.1} = {ratio:.2}  (target <= {SANDBOX_TARGET}) {}",
        ms(boxed),
        ms(verify),
        verdict(ratio <= SANDBOX_TARGET)
    );
    let limit_kib = (2 * file as u64 + 16 * 1024 * 1024) / 1024;
    let mut highest = 0;
    for (name, r) in &runs {
        let peak = r.iter().map(|r| r.max_rss_kib).max().unwrap_or(0);
        highest = highest.max(peak);
        println!(
            "   {name:<18} {:>9.1} ms  peak RSS {peak:>7} KiB = {:.2}x the file",
            ms(median(r.iter().map(|r| r.wall).collect())),
            peak as f64 * 1024.0 / file as f64
        );
    }
    println!(
        "   highest peak RSS {highest} KiB against 2 x file + 16 MiB = {limit_kib} KiB {}",
        verdict(highest <= limit_kib)
    );
}

/// Commits the pre-commit guard (which runs this binary's `guard`) and installs it, as
/// `commit` requires of a checkout.
fn install_guard(cli: &Cli) {
    use std::os::unix::fs::PermissionsExt;
    const HOOK: &str = "scripts/git-hooks/pre-commit";
    let hook = cli.root.join(HOOK);
    std::fs::create_dir_all(hook.parent().expect("a parent")).expect("create the hooks dir");
    std::fs::write(
        &hook,
        format!("#!/bin/sh\nexec '{}' guard\n", cli.bin.display()),
    )
    .expect("write the guard");
    let exec = std::fs::Permissions::from_mode(0o755);
    std::fs::set_permissions(&hook, exec.clone()).expect("make the guard executable");
    git(&cli.root, &["add", HOOK]);
    git(&cli.root, &["commit", "-q", "-m", "the guard"]);
    let installed = cli.root.join(".git/hooks/pre-commit");
    std::fs::create_dir_all(installed.parent().expect("a parent")).expect("create .git/hooks");
    std::fs::copy(&hook, &installed).expect("install the guard");
    std::fs::set_permissions(&installed, exec).expect("make the guard executable");
}

fn throughput(cli: &Cli) {
    println!();
    let total = WRITERS * OPS_PER_WRITER;
    println!(
        "3. throughput: {WRITERS} concurrent writers x {OPS_PER_WRITER} `note` ops, each on its own row, against 1 writer doing {total} in a row"
    );
    let one_row = WRITERS as u64 + 1;
    settle();
    let t = Instant::now();
    let each: Vec<Duration> = (0..total)
        .map(|k| {
            let text = format!("serial note {k}");
            cli.note(one_row, &text, &format!("bench-one-{k:05}"))
        })
        .collect();
    let serial = t.elapsed();
    settle();
    let t = Instant::now();
    let threads: Vec<_> = (0..WRITERS)
        .map(|w| {
            let cli = cli.clone();
            std::thread::spawn(move || {
                let row = w as u64 + 1;
                for k in 0..OPS_PER_WRITER {
                    cli.note(
                        row,
                        &format!("writer {w} note {k}"),
                        &format!("bench-par-{w}-{k:04}"),
                    );
                }
            })
        })
        .collect();
    for th in threads {
        th.join().expect("a writer thread panicked");
    }
    let parallel = t.elapsed();
    let rate = |d: Duration| total as f64 / d.as_secs_f64();
    let (one, many) = (rate(serial), rate(parallel));
    println!(
        "   1 writer:  {total} ops in {:>7.3} s = {one:>7.1} ops/s (median op {:.3} ms)",
        serial.as_secs_f64(),
        ms(median(each))
    );
    println!(
        "   {WRITERS} writers: {total} ops in {:>7.3} s = {many:>7.1} ops/s",
        parallel.as_secs_f64()
    );
    let ratio = many / one;
    println!(
        "   ratio {WRITERS}-writer / 1-writer ops/s = {ratio:.2}  (target >= {THROUGHPUT_TARGET}) {}",
        verdict(ratio >= THROUGHPUT_TARGET)
    );
}

fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "MISSED" }
}

fn main() {
    relay::relay_if_asked();
    let bin = release_binary("bench-host");
    let scratch = Scratch::new("bench-host");
    let version = Cli {
        bin: bin.clone(),
        root: scratch.0.clone(),
    }
    .output(&["--version"]);
    println!(
        "bench-host: {} ({}) in {}",
        bin.display(),
        String::from_utf8_lossy(&version.stdout).trim(),
        scratch.0.display()
    );
    let started = Instant::now();
    let small = write_latency(&bin, &scratch.0);
    let (big, file) = read_scaling(&bin, &scratch.0);
    throughput(&small);
    write_at_scale(&big, file);
    println!();
    println!("whole run: {:.1} s", started.elapsed().as_secs_f64());
    drop(scratch);
    println!("bench-host: done");
}
