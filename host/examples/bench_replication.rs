//! bench-replication: what replication costs, in one run, against a bare repository behind a
//! local OpenSSH server (the test suite's sshd): the lag from durable to pushed at 1, 10 and 50
//! changes a second; a change under `replication required` against the same change under
//! `off`, beside one `git push` of its own over the same ssh; git's bytes sent per revision at
//! 1,000 and 10,000 rows; and `adopt` of the 10,000-row line against `verify --full` of it.
//! Run: `cargo build --release -p mosaic-queue`, then `cargo run --release -p mosaic-queue
//! --example bench-replication`. Needs sshd (Debian's openssh-server), ssh and git.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use support::bench::{BENCH_QUEUE_MD, Scratch, cleared, queued_checkout, release_binary, run_ok};
use support::git;
use support::replica::{Follower, LIVE, Remote, pushed_rev};

/// Sequential changes timed under each mode, and at each size for the bytes.
const SEQUENTIAL: usize = 15;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The value at fraction `q` of `v` sorted (0.5 the median).
fn quantile<T: Copy + Ord>(v: &[T], q: f64) -> T {
    let mut v = v.to_vec();
    v.sort();
    v[((v.len() - 1) as f64 * q).round() as usize]
}

/// A committed checkout of `rows` queued rows reaching a bare repository behind its own sshd.
struct Host {
    bin: PathBuf,
    root: PathBuf,
    remote: Remote,
    ops: usize,
    _scratch: Scratch,
}

impl Host {
    fn new(bin: &Path, rows: u64) -> Host {
        let scratch = Scratch::new(&format!("bench-replication-{rows}"));
        let root = queued_checkout(bin, &scratch.0, rows, BENCH_QUEUE_MD);
        let remote = Remote::ssh(&format!("bench-{rows}"));
        remote.configure(&root);
        Host {
            bin: bin.to_owned(),
            root,
            remote,
            ops: 0,
            _scratch: scratch,
        }
    }

    fn follow(&self) -> Follower {
        let mut cmd = cleared(Command::new(&self.bin));
        cmd.args(["follow", "--to", &self.remote.url])
            .current_dir(&self.root);
        Follower::spawn(cmd)
    }

    /// The next note's argv, with an op of its own.
    fn note_args(&mut self) -> Vec<String> {
        self.ops += 1;
        ["note", "1", &format!("bench note {}", self.ops)]
            .into_iter()
            .map(String::from)
            .chain([
                "--op".into(),
                format!("bench-note-{}", self.ops),
                "--by".into(),
                "lead".into(),
            ])
            .collect()
    }

    /// One note as a whole process: its time and the revision its receipt names.
    fn note(&mut self) -> (Duration, u64) {
        let args = self.note_args();
        let t = Instant::now();
        let out = cleared(Command::new(&self.bin))
            .args(&args)
            .current_dir(&self.root)
            .output()
            .expect("the binary runs");
        let took = t.elapsed();
        (took, receipt_rev(&out))
    }
}

/// The revision of a note's receipt; a refusal is a bench bug, not a figure.
fn receipt_rev(out: &std::process::Output) -> u64 {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "bench bug: a note failed: {}",
        String::from_utf8_lossy(&out.stderr).trim()
    );
    stdout
        .split(' ')
        .nth(3)
        .and_then(|r| r.parse().ok())
        .unwrap_or_else(|| panic!("bench bug: not a receipt: {stdout}"))
}

/// When the follower's line for `rev` (or a later one) was read.
fn pushed_at(follower: &Follower, rev: u64) -> Option<Instant> {
    follower
        .timed_lines()
        .into_iter()
        .find(|(_, l)| pushed_rev(l).is_some_and(|r| r >= rev))
        .map(|(t, _)| t)
}

/// The `bytes sent` figures of the follower's lines past the first `skip`.
fn bytes_sent(follower: &Follower, skip: usize) -> Vec<u64> {
    follower
        .lines()
        .iter()
        .filter(|l| pushed_rev(l).is_some())
        .skip(skip)
        .filter_map(|l| {
            let (_, rest) = l.split_once(" ms, ")?;
            rest.strip_suffix(" bytes sent")?.parse().ok()
        })
        .collect()
}

/// Changes at `rate` a second for `count` changes, each a process started on its tick
/// (overlapping when one takes longer than a tick): the lag of each from its receipt (durable,
/// under `off`) to the follower's line for its revision, and how many pushes carried them.
fn lag_at(host: &mut Host, follower: &Follower, rate: u32, count: usize) -> (Vec<Duration>, usize) {
    let pushes_before = follower
        .lines()
        .iter()
        .filter(|l| pushed_rev(l).is_some())
        .count();
    let done: Arc<Mutex<Vec<(Instant, u64)>>> = Arc::default();
    let tick = Duration::from_secs(1) / rate;
    let start = Instant::now();
    let mut threads = Vec::new();
    for k in 0..count {
        let at = start + tick * k as u32;
        if let Some(wait) = at.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        let mut cmd = cleared(Command::new(&host.bin));
        cmd.args(host.note_args()).current_dir(&host.root);
        let done = Arc::clone(&done);
        threads.push(std::thread::spawn(move || {
            let out = cmd.output().expect("the binary runs");
            let end = Instant::now();
            done.lock().unwrap().push((end, receipt_rev(&out)));
        }));
    }
    for t in threads {
        t.join().unwrap();
    }
    let done = done.lock().unwrap().clone();
    let last = done.iter().map(|d| d.1).max().unwrap();
    follower.wait_pushed(last);
    let lags = done
        .iter()
        .map(|(end, rev)| {
            pushed_at(follower, *rev)
                .unwrap()
                .saturating_duration_since(*end)
        })
        .collect();
    let pushes = follower
        .lines()
        .iter()
        .filter(|l| pushed_rev(l).is_some())
        .count()
        - pushes_before;
    (lags, pushes)
}

/// One `git push` of a commit of its own from the checkout to a scratch ref on the same
/// remote, over the same ssh: the branch's tree with queue.json as it stands now and one line
/// more (a new blob of a revision's size, which git sends as a delta of one the remote holds),
/// the connection, negotiation and pack the follower's push makes, without the follower's round.
fn one_push(host: &Host, n: usize) -> Duration {
    let queue = host.root.join("docs/plans/queue.json");
    let mut bytes = std::fs::read(&queue).expect("read queue.json");
    bytes.extend_from_slice(format!("bench push {n}\n").as_bytes());
    let scratch = host.root.join(".git/bench-push");
    std::fs::write(&scratch, &bytes).expect("write the push's blob");
    let blob = git(&host.root, &["hash-object", "-w", ".git/bench-push"]);
    // A tree of its own through an index of its own, so the checkout's index is untouched.
    let index = host.root.join(".git/bench-push-index");
    let with_index = |args: &[&str]| {
        let out = cleared(Command::new("git"))
            .args(args)
            .env("GIT_INDEX_FILE", &index)
            .current_dir(&host.root)
            .output()
            .expect("git runs");
        assert!(out.status.success(), "bench bug: git {args:?} failed");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    with_index(&["read-tree", "HEAD"]);
    with_index(&[
        "update-index",
        "--cacheinfo",
        &format!("100644,{blob},docs/plans/queue.json"),
    ]);
    let tree = with_index(&["write-tree"]);
    let head = git(&host.root, &["rev-parse", "HEAD"]);
    let message = format!("bench push {n}");
    let commit = git(
        &host.root,
        &["commit-tree", &tree, "-p", &head, "-m", &message],
    );
    let t = Instant::now();
    git(
        &host.root,
        &[
            "push",
            "-q",
            &host.remote.url,
            &format!("{commit}:refs/bench/push-{n}"),
        ],
    );
    t.elapsed()
}

fn main() {
    let bin = release_binary("bench-replication");
    println!("bench-replication: {}", bin.display());

    let mut host = Host::new(&bin, 1000);
    let follower = host.follow();

    println!(
        "\nlag from durable to pushed, 1,000 rows, replication off (the follower's line read)"
    );
    println!("| changes a second | changes | pushes | median | p90 | max |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for (rate, count) in [(1u32, 10usize), (10, 50), (50, 150)] {
        let (lags, pushes) = lag_at(&mut host, &follower, rate, count);
        println!(
            "| {rate} | {count} | {pushes} | {:.0} ms | {:.0} ms | {:.0} ms |",
            ms(quantile(&lags, 0.5)),
            ms(quantile(&lags, 0.9)),
            ms(quantile(&lags, 1.0)),
        );
    }

    // The same note one at a time, under off and then under required; a push of its own beside.
    let pushed_so_far = follower
        .lines()
        .iter()
        .filter(|l| pushed_rev(l).is_some())
        .count();
    let off: Vec<Duration> = (0..SEQUENTIAL)
        .map(|_| {
            let (took, rev) = host.note();
            follower.wait_pushed(rev);
            took
        })
        .collect();
    let bytes_1k = bytes_sent(&follower, pushed_so_far);
    run_ok(
        &bin,
        &host.root,
        &[
            "replication",
            "required",
            "--op",
            "bench-required",
            "--by",
            "lead",
        ],
    );
    let required: Vec<Duration> = (0..SEQUENTIAL).map(|_| host.note().0).collect();
    let push: Vec<Duration> = (0..SEQUENTIAL).map(|n| one_push(&host, n)).collect();
    let (off_m, req_m, push_m) = (
        quantile(&off, 0.5),
        quantile(&required, 0.5),
        quantile(&push, 0.5),
    );
    println!("\na note at 1,000 rows, one at a time ({SEQUENTIAL} of each; medians)");
    println!(
        "| replication off | replication required | one git push over ssh | (required - off) / push |"
    );
    println!("| --- | --- | --- | --- |");
    println!(
        "| {:.1} ms | {:.1} ms | {:.1} ms | {:.2} (target <= 1.20) |",
        ms(off_m),
        ms(req_m),
        ms(push_m),
        (ms(req_m) - ms(off_m)) / ms(push_m)
    );
    drop(follower);

    // 10,000 rows: bytes per revision, then adopt of the whole line on a standby.
    let mut big = Host::new(&bin, 10_000);
    let follower = big.follow();
    let first = follower
        .lines()
        .iter()
        .filter(|l| pushed_rev(l).is_some())
        .count();
    for _ in 0..SEQUENTIAL {
        let (_, rev) = big.note();
        follower.wait_pushed(rev);
    }
    let bytes_10k = bytes_sent(&follower, first.max(1));
    drop(follower);
    println!("\ngit's bytes sent per revision (one note each; medians)");
    println!("| rows | bytes sent | queue.json |");
    println!("| --- | --- | --- |");
    for (rows, bytes, root) in [
        (1000, &bytes_1k, &host.root),
        (10_000, &bytes_10k, &big.root),
    ] {
        let size = std::fs::metadata(root.join("docs/plans/queue.json"))
            .unwrap()
            .len();
        println!("| {rows} | {} | {size} |", quantile(bytes, 0.5));
    }

    let standby_dir = Scratch::new("bench-replication-standby");
    git(
        &standby_dir.0,
        &["clone", "-q", big.root.to_str().unwrap(), "repo"],
    );
    let standby = standby_dir.0.join("repo");
    git(&standby, &["config", "user.name", "Bench Standby"]);
    git(
        &standby,
        &["config", "user.email", "standby@example.invalid"],
    );
    big.remote.configure(&standby);
    let line = big.remote.git(&["rev-list", "--count", LIVE]);
    let t = Instant::now();
    run_ok(
        &bin,
        &standby,
        &[
            "adopt",
            "--from",
            &big.remote.url,
            "--op",
            "bench-adopt",
            "--by",
            "lead",
        ],
    );
    let adopt = t.elapsed();
    let verify: Vec<Duration> = (0..3)
        .map(|_| {
            let t = Instant::now();
            run_ok(&bin, &big.root, &["verify", "--full"]);
            t.elapsed()
        })
        .collect();
    let verify = quantile(&verify, 0.5);
    println!("\nadopt at 10,000 rows (a line of {line} replicated commits)");
    println!("| adopt | verify --full of the host | adopt / verify |");
    println!("| --- | --- | --- |");
    println!(
        "| {:.0} ms | {:.0} ms | {:.1}x |",
        ms(adopt),
        ms(verify),
        ms(adopt) / ms(verify)
    );
}
