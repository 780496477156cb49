//! Replication under load: eight seats writing about ten changes a second to a host whose
//! follower pushes over ssh, the host SIGKILLed (follower and writers in flight) at a seeded
//! moment, and a standby adopting. Under `required` no acknowledged op is missing; under `off`
//! the acknowledged ops missing are exactly those the old host's `doctor` lists past its last
//! push. The suite runs a sample (`MOSAIC_SOAK_SECS`, default 10 s); docs/testing.md names the
//! minute-long run.

use std::process::{Child, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use support::replica::{
    Follower, LIVE, Remote, adopt_within, assert_no_op_twice, required_host, standby,
};
use support::{Repo, command, run_within};

const SEATS: usize = 8;
/// Each seat's pace: eight seats at one change per 800 ms make ten a second.
const PACE: Duration = Duration::from_millis(800);
const WAIT: Duration = Duration::from_secs(120);
/// Receipts the seats must have seen before the kill.
const ENOUGH: usize = 10;

/// How long the seats write before the kill can come, and the seed that places it.
fn settings() -> (Duration, u64) {
    let secs = std::env::var("MOSAIC_SOAK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10u64);
    let seed = std::env::var("MOSAIC_SOAK_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1u64);
    (Duration::from_secs(secs.clamp(2, 3600)), seed)
}

/// splitmix64: the seed's one draw, so a run's kill moment is repeatable.
fn draw(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// One change a seat attempted: its op, its argv's text and what it printed on stdout.
struct Attempt {
    op: String,
    row: String,
    seat: String,
    text: String,
    stdout: String,
    stderr: String,
}

impl Attempt {
    /// The revision its receipt names, when it printed one (acknowledged).
    fn acked_rev(&self) -> Option<u64> {
        let rest = self.stdout.strip_prefix(&format!("ok {} rev ", self.op))?;
        let (rev, tail) = rest.split_once(' ')?;
        (tail == format!("note {}\n", self.row)).then(|| rev.parse().ok())?
    }

    fn argv(&self) -> Vec<&str> {
        vec![
            "note", &self.row, &self.text, "--op", &self.op, "--by", &self.seat,
        ]
    }
}

/// A row of its own for each seat, which only its owner and the privileged may note: the
/// lead adds them before the seats start. Their ids, in seat order.
fn rows(host: &Repo) -> Vec<String> {
    (1..=SEATS)
        .map(|s| {
            let op = format!("lead-add-soak-{s}");
            let piece = format!("soak piece {s}");
            let owner = format!("soak-{s}");
            let argv = [
                "add", "--piece", &piece, "--owner", &owner, "--op", &op, "--by", "lead",
            ];
            let printed = host.run(&argv, &[]).ok().to_owned();
            let added = printed
                .split(" add ")
                .nth(1)
                .and_then(|t| t.split(' ').next());
            added.expect("the add's receipt names its row").to_owned()
        })
        .collect()
}

/// The seats writing until `stop`; each change a child process, killed where it stands when
/// the host goes down. Every attempt, acknowledged or not, is kept.
fn seats(
    host: &Repo,
    stop: &Arc<AtomicBool>,
    acked: &Arc<AtomicUsize>,
) -> Vec<std::thread::JoinHandle<Vec<Attempt>>> {
    rows(host)
        .into_iter()
        .enumerate()
        .map(|(s, row)| {
            let root = host.root.clone();
            let (stop, acked) = (Arc::clone(stop), Arc::clone(acked));
            std::thread::spawn(move || {
                let seat = format!("soak-{}", s + 1);
                let start = Instant::now() + PACE * s as u32 / SEATS as u32;
                let mut attempts = Vec::new();
                for k in 0u32.. {
                    let at = start + PACE * k;
                    while Instant::now() < at && !stop.load(Ordering::SeqCst) {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let mut attempt = Attempt {
                        op: format!("{seat}-soak-{k}"),
                        row: row.clone(),
                        seat: seat.clone(),
                        text: format!("soak {seat} change {k}"),
                        stdout: String::new(),
                        stderr: String::new(),
                    };
                    let child = command(&root, &attempt.argv(), &[])
                        .stdout(Stdio::piped())
                        .stderr(Stdio::piped())
                        .spawn()
                        .expect("a seat's change runs");
                    (attempt.stdout, attempt.stderr) = finish(child, &stop);
                    if attempt.acked_rev().is_some() {
                        acked.fetch_add(1, Ordering::SeqCst);
                    }
                    attempts.push(attempt);
                }
                attempts
            })
        })
        .collect()
}

/// Waits for a change, SIGKILLing it the moment the host goes down; its stdout and stderr.
fn finish(mut child: Child, stop: &AtomicBool) -> (String, String) {
    let (out, err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let reader = std::thread::spawn(move || std::io::read_to_string(out).unwrap_or_default());
    let errors = std::thread::spawn(move || std::io::read_to_string(err).unwrap_or_default());
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if stop.load(Ordering::SeqCst) {
            let _ = child.kill();
            let _ = child.wait();
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    (reader.join().unwrap(), errors.join().unwrap())
}

/// The lag in ms of the follower's last `pushed` line.
fn last_lag(follower: &Follower) -> Option<u64> {
    follower.lines().iter().rev().find_map(|l| {
        let (_, rest) = l.split_once(": lag ")?;
        rest.split(' ').next()?.parse().ok()
    })
}

/// What one soak saw: the attempts, the host's last revision, the ref's at the kill.
struct Soak {
    attempts: Vec<Attempt>,
    host_rev: u64,
    pushed: u64,
}

/// Runs the seats against `host` for the settings' time, kills the host at the seeded moment.
fn soak(host: &Repo, remote: &Remote, follower: Follower) -> Soak {
    let (length, seed) = settings();
    // The kill falls in the second half of the run, once the seats are all writing.
    let at = length / 2 + Duration::from_millis(draw(seed) % (length.as_millis() as u64 / 2));
    let stop = Arc::new(AtomicBool::new(false));
    let acked_so_far = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let threads = seats(host, &stop, &acked_so_far);
    std::thread::sleep(at);
    // Not before the seats have seen enough receipts for the soak to mean something: on a
    // loaded machine that takes longer than the seeded moment, and the kill waits for it.
    let enough = started + WAIT;
    while acked_so_far.load(Ordering::SeqCst) < ENOUGH && Instant::now() < enough {
        std::thread::sleep(Duration::from_millis(10));
    }
    let at = started.elapsed();
    // The power cord: the follower and every writer in flight at once.
    stop.store(true, Ordering::SeqCst);
    let lag = last_lag(&follower);
    let reported = follower.last_pushed();
    let out = follower.kill();
    let attempts: Vec<Attempt> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    let host_rev = host.queue()["revision"].as_u64().unwrap();
    let head = remote.head(LIVE).expect("the follower pushed");
    let pushed = remote.revision_of(&head);
    let acked = attempts.iter().filter(|a| a.acked_rev().is_some()).count();
    eprintln!(
        "soak: seed {seed}, killed at {at:?}; {} changes tried, {acked} acknowledged; host at rev {host_rev}, ref at rev {pushed}, the follower's last line rev {reported:?} lag {lag:?} ms",
        attempts.len()
    );
    assert_eq!(out.signal, Some(9), "{out:?}");
    // The follower prints a push only after it returned: the ref is never behind its word.
    assert!(
        reported.is_none_or(|r| r <= pushed),
        "{reported:?} {pushed}"
    );
    let said = attempts
        .iter()
        .find(|a| !a.stderr.is_empty())
        .map(|a| &a.stderr);
    assert!(
        acked >= ENOUGH,
        "too few changes acknowledged for a soak within {WAIT:?}: {acked}; one said {said:?}"
    );
    Soak {
        attempts,
        host_rev,
        pushed,
    }
}

/// The standby adopts what the ref holds; then the adopted queue verifies, no op is in it
/// twice, and every op at or below the adopted revision that a seat saw acknowledged is there
/// at the revision its receipt named. Answers the acknowledged ops it lacks.
fn adopted(host: &Repo, remote: &Remote, soak: &Soak) -> (Repo, Vec<String>) {
    let standby = standby(host, remote);
    let out = adopt_within(&standby, remote, &[], WAIT);
    let printed = out.ok();
    assert!(
        printed.starts_with(&format!(
            "ok lead-adopt-1 rev {} adopt rev {} from ",
            soak.pushed + 1,
            soak.pushed
        )),
        "{printed}"
    );
    let n = soak.pushed + 1;
    assert_eq!(
        standby.run(&["verify", "--full"], &[]).ok(),
        format!("ok verify rev {n} ({n} entries, witness rev {n}), full history from genesis\n")
    );
    let queue = standby.queue();
    let log = queue["log"].as_array().unwrap();
    assert_no_op_twice(&standby);
    let mut missing = Vec::new();
    for attempt in &soak.attempts {
        let Some(rev) = attempt.acked_rev() else {
            continue;
        };
        match log.iter().find(|e| e["op"] == attempt.op.as_str()) {
            Some(entry) => assert_eq!(entry["rev"], rev, "{} at its receipt's rev", attempt.op),
            None => {
                assert!(rev > soak.pushed, "{} at rev {rev} lost", attempt.op);
                missing.push(attempt.op.clone());
            }
        }
    }
    (standby, missing)
}

/// The old host, its follower run again: it finds the adopt and stops, and refuses changes.
fn fenced(host: &Repo, remote: &Remote) {
    let out = run_within(&host.root, &["follow", "--to", &remote.url], &[], WAIT);
    let line = out.fails(2);
    assert!(
        line.starts_with("mosaic-queue: the follower stops: this queue was adopted at "),
        "{line}"
    );
    let before = host.snapshot();
    let out = host.run(
        &["note", "1", "late", "--op", "lead-late-1", "--by", "lead"],
        &[],
    );
    assert!(
        out.fails(2)
            .starts_with("mosaic-queue: this queue was adopted at "),
        "{out:?}"
    );
    host.assert_unchanged(&before);
}

#[test]
fn a_soak_under_required_loses_no_acknowledged_op() {
    let remote = Remote::ssh("soak-required");
    let (host, follower) = required_host("soak-required", &remote);
    let soak = soak(&host, &remote, follower);
    let (standby, missing) = adopted(&host, &remote, &soak);
    assert_eq!(missing, Vec::<String>::new(), "acknowledged and missing");
    fenced(&host, &remote);

    // Each seat retries what it did not see acknowledged, on the new host: an op the ref kept
    // answers its receipt, one it lacked is applied now; each is in the log once.
    let follower = Follower::start(&standby, &remote, &[], &[]);
    for attempt in soak.attempts.iter().filter(|a| a.acked_rev().is_none()) {
        let out = run_within(&standby.root, &attempt.argv(), &[], WAIT);
        let printed = out.ok();
        let kept = standby.queue()["log"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["op"] == attempt.op.as_str())
            .map(|e| e["rev"].as_u64().unwrap())
            .collect::<Vec<_>>();
        assert_eq!(kept.len(), 1, "{} once", attempt.op);
        assert_eq!(
            printed,
            format!("ok {} rev {} note {}\n", attempt.op, kept[0], attempt.row)
        );
    }
    drop(follower);
}

#[test]
fn a_soak_under_off_loses_only_what_doctor_lists() {
    let remote = Remote::ssh("soak-off");
    let host = Repo::new("soak-off");
    remote.configure(&host.root);
    let follower = Follower::start(&host, &remote, &[], &[]);
    let soak = soak(&host, &remote, follower);
    let (_standby, missing) = adopted(&host, &remote, &soak);
    fenced(&host, &remote);

    // What the old host wrote past the ref is what was not replicated: doctor lists each of
    // those ops, and the acknowledged ones missing on the standby are among them, no others.
    let past: Vec<(u64, String, String, String)> = host.queue()["log"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["rev"].as_u64().unwrap() > soak.pushed)
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap().to_owned();
            (e["rev"].as_u64().unwrap(), s("op"), s("by"), s("receipt"))
        })
        .collect();
    assert_eq!(past.len() as u64, soak.host_rev - soak.pushed);
    let doctor = host.run(&["doctor"], &[]);
    let said = format!("{}{}", doctor.stdout, doctor.stderr);
    for (rev, op, by, receipt) in past.iter().take(50) {
        let item = format!("rev {rev} op {op} by {by}: {receipt}");
        assert!(said.contains(&item), "doctor lists {item}: {said}");
    }
    let unpushed: Vec<&String> = past.iter().map(|p| &p.1).collect();
    for op in &missing {
        assert!(unpushed.contains(&op), "{op} missing but not listed");
    }
    let acked_past = soak
        .attempts
        .iter()
        .filter(|a| a.acked_rev().is_some_and(|r| r > soak.pushed))
        .count();
    assert_eq!(missing.len(), acked_past);
    eprintln!(
        "soak under off: {} revisions past the ref at the kill, {} of them acknowledged and missing",
        past.len(),
        missing.len()
    );
}
