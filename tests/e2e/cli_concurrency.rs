//! Real processes at once in one scratch checkout: concurrent writers each acknowledged exactly
//! once with a gap-free log, seats racing for one unowned row with exactly one winner, and
//! unlocked reads during writes that never go backwards and never report loss.

use std::collections::{BTreeSet, HashMap};
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use serde_json::Value;
use support::retry::past_lock_waits;
use support::{Out, Repo};

/// `args` plus `--op OP` and `--by BY`, owned so a thread can build its own.
fn change(args: &[&str], op: &str, by: &str) -> Vec<String> {
    let mut v: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
    v.extend(["--op", op, "--by", by].map(str::to_owned));
    v
}

fn run(repo: &Repo, args: &[String]) -> Out {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    repo.run(&args, &[])
}

/// Runs one change until it is acknowledged, retrying the same op id after its lock wait ran
/// out, as the unacknowledged-op rule tells a caller to (bounded, and no other failure is
/// retried: a refusal or an exit 3 here is a bug, not contention). Returns the receipt and the
/// retried runs.
fn until_acknowledged(repo: &Repo, args: &[String]) -> (String, Vec<Out>) {
    let (out, retried) = past_lock_waits(|| run(repo, args));
    (out.ok().to_owned(), retried)
}

/// The rev a receipt `ok <op> rev <N> ...` names.
fn receipt_rev(receipt: &str) -> u64 {
    let mut words = receipt.split(' ');
    assert_eq!(words.next(), Some("ok"), "{receipt:?}");
    words.next();
    assert_eq!(words.next(), Some("rev"), "{receipt:?}");
    words.next().unwrap().parse().unwrap()
}

/// Gives each of `seats` a row of its own (added by the lead), so their notes don't need each
/// other's permission. Returns each seat's row id.
fn rows_for(repo: &Repo, seats: &[String]) -> Vec<u64> {
    seats
        .iter()
        .map(|seat| {
            let args = change(
                &[
                    "add",
                    "--piece",
                    &format!("Work of {seat}"),
                    "--owner",
                    seat,
                ],
                &format!("lead-add-{seat}"),
                "lead",
            );
            let out = run(repo, &args);
            // "ok lead-add-<seat> rev N add ID queued"
            let receipt = out.ok().trim_end().to_owned();
            let id = receipt.split(' ').nth(5).unwrap().parse().unwrap();
            assert!(receipt.ends_with(&format!("add {id} queued")), "{receipt}");
            id
        })
        .collect()
}

/// The log's entries as (rev, op, receipt).
fn log(repo: &Repo) -> Vec<(u64, String, String)> {
    repo.queue()["log"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["rev"].as_u64().unwrap(),
                e["op"].as_str().unwrap().to_owned(),
                e["receipt"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// `verify --current` passes with the file, the witness and the table all at `rev`.
#[track_caller]
fn verified_at(repo: &Repo, rev: usize) {
    assert_eq!(
        repo.run(&["verify", "--current"], &[]).ok(),
        format!("ok verify rev {rev} ({rev} entries, witness rev {rev}), table current\n")
    );
}

/// No lock, and no temp file a writer or the lock left behind.
#[track_caller]
fn nothing_left_over(repo: &Repo) {
    for dir in ["docs/plans", ".git"] {
        for entry in std::fs::read_dir(repo.path(dir)).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            assert!(
                !name.ends_with(".tmp") && name != "mosaic-queue.lock",
                "{dir}/{name} is left over"
            );
        }
    }
}

/// What one writer thread did: each op with the receipt that acknowledged it, in order, and the
/// failed calls it retried on the way.
struct Written {
    acked: Vec<(String, String)>,
    failed: Vec<Out>,
}

const WRITERS: usize = 8;
const OPS_PER_WRITER: usize = 50;

#[test]
fn concurrent_writers_are_each_acknowledged_once_in_a_gap_free_log() {
    let repo = Repo::new("conc-writers");
    let seats: Vec<String> = (0..WRITERS).map(|w| format!("writer{w}")).collect();
    let rows = rows_for(&repo, &seats);
    let base = repo.ops().len();

    let started = Instant::now();
    let barrier = Barrier::new(WRITERS);
    let results: Vec<Written> = std::thread::scope(|s| {
        let handles: Vec<_> = seats
            .iter()
            .zip(&rows)
            .map(|(seat, row)| {
                let (repo, barrier) = (&repo, &barrier);
                s.spawn(move || {
                    let mut acked = Vec::new();
                    let mut failed = Vec::new();
                    barrier.wait();
                    for i in 0..OPS_PER_WRITER {
                        let op = format!("{seat}-note-{i:03}");
                        let text = format!("note {i} of {seat}");
                        let args = change(&["note", &row.to_string(), &text], &op, seat);
                        let (receipt, failures) = until_acknowledged(repo, &args);
                        acked.push((op, receipt));
                        failed.extend(failures);
                    }
                    Written { acked, failed }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    eprintln!(
        "{WRITERS} writers x {OPS_PER_WRITER} ops took {:.1}s",
        started.elapsed().as_secs_f64()
    );

    let total = WRITERS * OPS_PER_WRITER;
    let failures: Vec<&Out> = results.iter().flat_map(|w| &w.failed).collect();
    // Retries are allowed by the rule, but with a 30 s lock wait none should be needed here;
    // show any so a slow machine's timeouts are visible rather than silently absorbed.
    for f in &failures {
        eprintln!("retried after exit {}: {}", f.code, f.stderr.trim_end());
    }

    // Every receipt printed once, each for its own op with the receipt the core wrote.
    let mut printed: HashMap<&str, usize> = HashMap::new();
    for (_, receipt) in results.iter().flat_map(|w| &w.acked) {
        *printed.entry(receipt.as_str()).or_default() += 1;
    }
    assert_eq!(printed.len(), total, "every receipt is distinct");
    assert!(printed.values().all(|&n| n == 1));
    for (w, (seat, row)) in results.iter().zip(seats.iter().zip(&rows)) {
        assert_eq!(w.acked.len(), OPS_PER_WRITER);
        let mut last = 0;
        for (op, receipt) in &w.acked {
            let rev = receipt_rev(receipt);
            assert_eq!(receipt, &format!("ok {op} rev {rev} note {row}\n"));
            // A writer's ops run one after another, so their revisions rise.
            assert!(rev > last, "{seat}: rev {rev} after {last}");
            last = rev;
        }
        assert_eq!(
            repo.row(*row)["note"],
            format!("note {} of {seat}", OPS_PER_WRITER - 1)
        );
    }

    // The log: exactly the acknowledged ops after the setup, revisions 1..N with no gap, each
    // entry's receipt the one its caller printed.
    let entries = log(&repo);
    assert_eq!(entries.len(), base + total);
    for (i, (rev, _, _)) in entries.iter().enumerate() {
        assert_eq!(*rev, i as u64 + 1, "revisions have no gap");
    }
    let ops: BTreeSet<&str> = entries.iter().map(|(_, op, _)| op.as_str()).collect();
    assert_eq!(ops.len(), entries.len(), "op ids are distinct");
    let by_op: HashMap<&str, &str> = results
        .iter()
        .flat_map(|w| &w.acked)
        .map(|(op, r)| (op.as_str(), r.as_str()))
        .collect();
    for (rev, op, receipt) in &entries[base..] {
        let printed = by_op
            .get(op.as_str())
            .unwrap_or_else(|| panic!("rev {rev} {op} was never acknowledged"));
        assert_eq!(format!("{receipt}\n"), *printed, "rev {rev}");
    }
    assert_eq!(repo.queue()["revision"], entries.len());
    assert_eq!(repo.witness().unwrap()["revision"], entries.len());
    verified_at(&repo, entries.len());
    nothing_left_over(&repo);
}

#[test]
fn racing_seats_take_an_unowned_row_exactly_once() {
    const SEATS: usize = 16;
    let repo = Repo::new("conc-take");
    // Row 2 starts queued with no owner.
    assert_eq!(repo.row(2)["owner"], Value::Null);
    let seats: Vec<String> = (0..SEATS).map(|s| format!("racer{s:02}")).collect();

    let started = Instant::now();
    let barrier = Barrier::new(SEATS);
    let outs: Vec<Out> = std::thread::scope(|s| {
        let handles: Vec<_> = seats
            .iter()
            .map(|seat| {
                let (repo, barrier) = (&repo, &barrier);
                s.spawn(move || {
                    let args = change(&["move", "2", "in-progress"], &format!("{seat}-take"), seat);
                    barrier.wait();
                    run(repo, &args)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    eprintln!(
        "{SEATS} racing takes took {:.1}s",
        started.elapsed().as_secs_f64()
    );

    let winners: Vec<&String> = seats
        .iter()
        .zip(&outs)
        .filter(|(_, o)| o.code == 0)
        .map(|(s, _)| s)
        .collect();
    assert_eq!(winners.len(), 1, "exactly one take wins: {outs:?}");
    let winner = winners[0];
    for (seat, out) in seats.iter().zip(&outs) {
        if seat == winner {
            assert_eq!(
                out.ok(),
                format!("ok {seat}-take rev 2 move 2 queued -> in-progress\n")
            );
        } else {
            // A loser waited for the lock, then found the row taken: refused, one line.
            assert_eq!(
                out.fails(2),
                format!("mosaic-queue: refused: row 2 is already in-progress (owner {winner})"),
                "{seat}"
            );
        }
    }
    let row = repo.row(2);
    assert_eq!(
        (&row["status"], &row["owner"]),
        (&"in-progress".into(), &winner.as_str().into())
    );
    // Only the winner's entry was written; a refusal logs nothing.
    assert_eq!(
        repo.ops(),
        ["genesis-0001".to_owned(), format!("{winner}-take")]
    );
    verified_at(&repo, 2);
    nothing_left_over(&repo);
}

/// What one unlocked read said: its revision and whether it called that revision durable.
fn read_json(repo: &Repo, args: &[&str]) -> (u64, bool) {
    let out = repo.run(args, &[]);
    // Never a witness or lost-history error: a write in progress is not loss.
    assert_eq!(out.code, 0, "{args:?}: {out:?}");
    let v: Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?} prints JSON ({e}): {:?}", out.stdout));
    let rev = v["revision"].as_u64().unwrap();
    let durable = v["durable"].as_bool().unwrap();
    let warning = if durable {
        String::new()
    } else {
        format!("rev {rev} visible, not confirmed durable\n")
    };
    assert_eq!(out.stderr, warning, "{args:?}");
    (rev, durable)
}

#[test]
fn reads_during_writes_never_go_back_or_report_loss() {
    const READ_WRITERS: usize = 4;
    const READ_OPS: usize = 25;
    let repo = Repo::new("conc-reads");
    let seats: Vec<String> = (0..READ_WRITERS).map(|w| format!("busy{w}")).collect();
    let rows = rows_for(&repo, &seats);
    let base = repo.ops().len();
    let done = AtomicBool::new(false);
    // Each reader reads one way, so every unlocked verb meets the writes.
    let readers: Vec<Vec<String>> = vec![
        vec!["list".into(), "--json".into()],
        vec!["show".into(), rows[0].to_string(), "--json".into()],
        vec!["next".into(), seats[1].clone(), "--json".into()],
    ];

    let started = Instant::now();
    let seen: Vec<(usize, BTreeSet<u64>, usize)> = std::thread::scope(|s| {
        let writers: Vec<_> = seats
            .iter()
            .zip(&rows)
            .map(|(seat, row)| {
                let repo = &repo;
                s.spawn(move || {
                    for i in 0..READ_OPS {
                        let args = change(
                            &["note", &row.to_string(), &format!("step {i}")],
                            &format!("{seat}-step-{i:03}"),
                            seat,
                        );
                        until_acknowledged(repo, &args);
                    }
                })
            })
            .collect();
        let handles: Vec<_> = readers
            .iter()
            .map(|args| {
                let (repo, done) = (&repo, &done);
                s.spawn(move || {
                    let args: Vec<&str> = args.iter().map(String::as_str).collect();
                    let mut last = 0;
                    let mut revs = BTreeSet::new();
                    let mut not_durable = 0;
                    // The revision of the latest read that was not durable, until a read
                    // shows durable at it or later. Revisions only rise here, so any later
                    // durable read settles every earlier one.
                    let mut pending: Option<u64> = None;
                    let mut step = || {
                        let (rev, durable) = read_json(repo, &args);
                        assert!(rev >= last, "{args:?}: rev {rev} after {last}");
                        last = rev;
                        revs.insert(rev);
                        if !durable {
                            not_durable += 1;
                            pending = Some(rev);
                        } else if pending.is_some_and(|p| rev >= p) {
                            pending = None;
                        }
                    };
                    let mut reads = 0;
                    while !done.load(Ordering::SeqCst) {
                        step();
                        reads += 1;
                    }
                    // Every writer has exited, so its witness is written: this read is
                    // durable at the final revision and settles anything still pending.
                    step();
                    assert_eq!(pending, None, "{args:?}: a not-durable read never settled");
                    (reads, revs, not_durable)
                })
            })
            .collect();
        // Stop the readers even when a writer failed, so a failure ends the test, not hangs it.
        let joined: Vec<_> = writers.into_iter().map(|w| w.join()).collect();
        done.store(true, Ordering::SeqCst);
        for j in joined {
            j.unwrap();
        }
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    eprintln!(
        "{READ_WRITERS} writers x {READ_OPS} ops under {} readers took {:.1}s",
        readers.len(),
        started.elapsed().as_secs_f64()
    );

    let total = base + READ_WRITERS * READ_OPS;
    let mut all: BTreeSet<u64> = BTreeSet::new();
    for ((reads, revs, not_durable), args) in seen.iter().zip(&readers) {
        eprintln!(
            "{args:?}: {reads} reads during the writes, {} revisions, {not_durable} not durable",
            revs.len()
        );
        assert!(*reads > 0, "{args:?} read while the writers ran");
        assert_eq!(revs.last(), Some(&(total as u64)), "{args:?} ends current");
        all.extend(revs);
    }
    // The reads really overlapped the writes: they saw the queue at several revisions.
    assert!(all.len() > 2, "revisions seen: {all:?}");
    verified_at(&repo, total);
    nothing_left_over(&repo);
}
