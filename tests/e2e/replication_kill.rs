//! Replication's durability claim, broken on purpose over a real ssh remote: the host (its
//! waiting writer and its follower) SIGKILLed at every step of a follower round, a standby's
//! adopt SIGKILLed at every step of its own, and the power-loss states of the follower's
//! record. After each, a standby adopts: every op acknowledged under `required` is there once
//! with its receipt, the adopted queue passes `verify --full`, and the old host refuses.

use std::process::Stdio;
use std::time::Duration;

use mosaic_queue::io::seams::{ADOPT_STEPS, FOLLOW_STEPS};
use support::replica::{
    Follower, LIVE, Remote, adopt_lines, adopt_within, assert_no_op_twice, fence_line,
    required_host, required_noted, standby,
};
use support::{Repo, command, run_within};

const WAIT: Duration = Duration::from_secs(60);

/// An acknowledged change: its op and the receipt it printed.
type Acked = Vec<(String, String)>;

/// Whether `step` comes at or after `other` in `steps`.
fn reached(steps: &[&str], step: &str, other: &str) -> bool {
    let at = |s: &str| steps.iter().position(|w| *w == s).unwrap();
    at(step) >= at(other)
}

/// A host under `required` with one note acknowledged (rev 3), its follower still running.
fn host_at_rev_3(name: &str, remote: &Remote) -> (Repo, Follower, Acked) {
    let (host, follower) = required_noted(name, remote);
    let mut acked = vec![(
        "lead-replication-1".to_owned(),
        "ok lead-replication-1 rev 2 replication required".to_owned(),
    )];
    acked.push((
        "darkwing-note-2".to_owned(),
        "ok darkwing-note-2 rev 3 note 1".to_owned(),
    ));
    (host, follower, acked)
}

/// The standby adopts what the ref holds (`revision` at `commit`), with its exact lines.
fn adopt(host: &Repo, standby: &Repo, remote: &Remote, revision: u64) -> String {
    let commit = remote.head(LIVE).expect("the ref exists");
    assert_eq!(remote.revision_of(&commit), revision, "the ref's head");
    let out = adopt_within(standby, remote, &[], WAIT);
    assert_eq!(
        out.ok(),
        adopt_lines(host, standby, remote, "lead-adopt-1", revision, &commit)
    );
    commit
}

/// What must hold after an adopt of `revision`: every acknowledged op in the standby's log
/// exactly once, at the revision its receipt named; the log's ops all distinct; `verify --full`;
/// the ref's head the adopt's commit; and the old host, once its follower looks, fenced.
fn after_adopt(host: &Repo, standby: &Repo, remote: &Remote, revision: u64, acked: &Acked) {
    let queue = standby.queue();
    let log = queue["log"].as_array().unwrap();
    assert_no_op_twice(standby);
    let ops = standby.ops();
    for (op, receipt) in acked {
        let entry = log
            .iter()
            .find(|e| e["op"] == op.as_str())
            .unwrap_or_else(|| panic!("acknowledged op {op} is missing from {ops:?}"));
        let rev = entry["rev"].as_u64().unwrap();
        assert!(
            receipt.contains(&format!(" rev {rev} ")),
            "{receipt} at rev {rev}"
        );
    }
    assert_eq!(queue["revision"], revision + 1);
    assert_eq!(ops.last().unwrap(), "lead-adopt-1");
    let n = revision + 1;
    assert_eq!(
        standby.run(&["verify", "--full"], &[]).ok(),
        format!("ok verify rev {n} ({n} entries, witness rev {n}), full history from genesis\n")
    );
    let adopt_commit = remote.head(LIVE).unwrap();
    assert_eq!(remote.revision_of(&adopt_commit), revision + 1);

    // The old host's follower finds the adopt, writes the fence and stops; then every change
    // there is refused with the fence's line, its files as they were.
    let line = fence_line(standby, remote, revision + 1, &adopt_commit, revision);
    let out = run_within(&host.root, &["follow", "--to", &remote.url], &[], WAIT);
    assert_eq!(
        out.fails(2),
        format!("mosaic-queue: the follower stops: {line}")
    );
    let before = host.snapshot();
    let out = host.run(
        &[
            "note",
            "1",
            "too late",
            "--op",
            "darkwing-late-1",
            "--by",
            "darkwing",
        ],
        &[],
    );
    assert_eq!(out.fails(2), format!("mosaic-queue: {line}"));
    host.assert_unchanged(&before);
}

/// Host killed in a follower round: the follower at `step`, the writer waiting for that push
/// with it. The seat's retry on the adopted host answers once.
fn follower_killed_at(step: &str) {
    let remote = Remote::ssh(&format!("kill-follow-{step}"));
    let (host, follower, mut acked) = host_at_rev_3(&format!("kill-follow-{step}"), &remote);
    follower.kill();
    let killed = Follower::start(&host, &remote, &[], &[("MOSAIC_KILL_AT", step)]);
    let argv = [
        "note",
        "1",
        "in the round",
        "--op",
        "darkwing-note-3",
        "--by",
        "darkwing",
    ];
    let writer = command(&host.root, &argv, &[])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = killed.ended(WAIT);
    assert_eq!(out.signal, Some(9), "killed at {step}: {out:?}");
    // The host goes down with the follower: the writer waiting for the push too.
    let mut writer = writer;
    let _ = writer.kill();
    let written = writer.wait_with_output().unwrap();
    let printed = String::from_utf8(written.stdout).unwrap();
    if !printed.is_empty() {
        assert_eq!(printed, "ok darkwing-note-3 rev 4 note 1\n", "at {step}");
        acked.push(("darkwing-note-3".to_owned(), printed.trim_end().to_owned()));
    }
    let pushed = reached(FOLLOW_STEPS, step, "follow-pushed");
    // A receipt is printed only once the record names the push.
    if reached(FOLLOW_STEPS, step, "replicated-renamed") {
        assert!(pushed);
    } else {
        assert_eq!(printed, "", "no receipt before the record at {step}");
    }
    let revision = if pushed { 4 } else { 3 };

    let standby = standby(&host, &remote);
    adopt(&host, &standby, &remote, revision);
    after_adopt(&host, &standby, &remote, revision, &acked);

    // The seat retries what it did not see acknowledged, on the new host: the op the ref kept
    // answers its receipt; the one it lacked is applied now, once.
    let follower = Follower::start(&standby, &remote, &[], &[]);
    let receipt = if pushed {
        "ok darkwing-note-3 rev 4 note 1\n"
    } else {
        "ok darkwing-note-3 rev 5 note 1\n"
    };
    assert_eq!(standby.run(&argv, &[]).ok(), receipt, "retry after {step}");
    let once = standby
        .ops()
        .iter()
        .filter(|o| *o == "darkwing-note-3")
        .count();
    assert_eq!(once, 1);
    drop(follower);
}

/// A standby's adopt SIGKILLed at `step` (the host gone after rev 3); `unlock` and the retry
/// with the same op adopt once.
fn adopt_killed_at(step: &str) {
    let remote = Remote::ssh(&format!("kill-adopt-{step}"));
    let (host, follower, acked) = host_at_rev_3(&format!("kill-adopt-{step}"), &remote);
    follower.kill();
    let standby = standby(&host, &remote);
    let argv = [
        "adopt",
        "--from",
        &remote.url,
        "--op",
        "lead-adopt-1",
        "--by",
        "lead",
    ];
    let head = remote.head(LIVE).unwrap();
    let out = standby.run(&argv, &[("MOSAIC_KILL_AT", step)]);
    assert_eq!(out.signal, Some(9), "killed at {step}: {out:?}");
    assert_eq!((out.stdout.as_str(), out.stderr.as_str()), ("", ""));
    let pushed = reached(ADOPT_STEPS, step, "adopt-pushed");
    let now = remote.head(LIVE).unwrap();
    assert_eq!(
        remote.revision_of(&now),
        if pushed { 4 } else { 3 },
        "at {step}"
    );

    let out = standby.run(&["unlock"], &[]);
    assert!(
        out.ok()
            .starts_with("ok unlock: removed the dead queue lock of pid "),
        "{}",
        out.stdout
    );
    let out = standby.run(&argv, &[]);
    let lines = adopt_lines(&host, &standby, &remote, "lead-adopt-1", 3, &head);
    if pushed {
        // The entry is on the ref already: the retry installs it and answers its receipt.
        assert_eq!(
            out.ok(),
            lines.lines().next().unwrap().to_owned() + "\n",
            "retry after {step}"
        );
    } else {
        assert_eq!(out.ok(), lines, "retry after {step}");
    }
    after_adopt(&host, &standby, &remote, 3, &acked);
}

/// The power-loss states of `.git/mosaic-queue.replicated` after a push returned: the rename
/// lost (the record absent, or the one before), or a torn file. The follower started again
/// continues from the ref, and a change under `required` still gets its receipt.
#[derive(Debug, Clone, Copy)]
enum Record {
    Absent,
    Old,
    Torn,
}

fn record_lost(state: Record) {
    let name = format!("record-{state:?}").to_lowercase();
    let remote = Remote::ssh(&name);
    let (host, follower) = required_host(&name, &remote);
    let old = host.read_bytes(".git/mosaic-queue.replicated");
    let out = host.run(
        &[
            "note",
            "1",
            "pushed",
            "--op",
            "darkwing-note-2",
            "--by",
            "darkwing",
        ],
        &[],
    );
    assert_eq!(out.ok(), "ok darkwing-note-2 rev 3 note 1\n");
    follower.kill();
    let record = host.path(".git/mosaic-queue.replicated");
    match state {
        Record::Absent => std::fs::remove_file(&record).unwrap(),
        Record::Old => std::fs::write(&record, &old).unwrap(),
        Record::Torn => {
            let now = std::fs::read(&record).unwrap();
            std::fs::write(&record, &now[..now.len() / 2]).unwrap();
        }
    }
    let commit = remote.head(LIVE).unwrap();
    let follower = Follower::start(&host, &remote, &[], &[]);
    assert_eq!(
        follower.lines()[0],
        format!(
            "following: {} {LIVE} holds rev 3 (commit {}); each durable revision is pushed there",
            remote.url,
            &commit[..12]
        )
    );
    // The seat that never saw its receipt retries: the push it waits for is on the ref.
    let retry = [
        "note",
        "1",
        "pushed",
        "--op",
        "darkwing-note-2",
        "--by",
        "darkwing",
        "--replication-timeout",
        "5",
    ];
    assert_eq!(
        host.run(&retry, &[]).ok(),
        "ok darkwing-note-2 rev 3 note 1\n"
    );
    let out = host.run(
        &[
            "note",
            "1",
            "after",
            "--op",
            "darkwing-note-3",
            "--by",
            "darkwing",
        ],
        &[],
    );
    assert_eq!(out.ok(), "ok darkwing-note-3 rev 4 note 1\n");
    follower.kill();
    let acked = vec![
        (
            "lead-replication-1".to_owned(),
            "ok lead-replication-1 rev 2 replication required".to_owned(),
        ),
        (
            "darkwing-note-2".to_owned(),
            "ok darkwing-note-2 rev 3 note 1".to_owned(),
        ),
        (
            "darkwing-note-3".to_owned(),
            "ok darkwing-note-3 rev 4 note 1".to_owned(),
        ),
    ];
    let standby = standby(&host, &remote);
    adopt(&host, &standby, &remote, 4);
    after_adopt(&host, &standby, &remote, 4, &acked);
}

/// Runs `case` for every step of `steps` (the seam's own list, so a new step is covered),
/// three at a time: each has its own remote, host and standby.
fn each_step(steps: &[&'static str], case: fn(&str)) {
    for chunk in steps.chunks(3) {
        std::thread::scope(|s| {
            let runs: Vec<_> = chunk
                .iter()
                .map(|step| s.spawn(move || case(step)))
                .collect();
            for (run, step) in runs.into_iter().zip(chunk) {
                assert!(run.join().is_ok(), "killed at {step}: see the panic above");
            }
        });
    }
}

#[test]
fn the_host_killed_at_every_step_of_a_follower_round() {
    each_step(FOLLOW_STEPS, follower_killed_at);
}

#[test]
fn an_adopt_killed_at_every_step_is_retried_once() {
    each_step(ADOPT_STEPS, adopt_killed_at);
}

#[test]
fn the_record_absent_after_a_power_loss() {
    record_lost(Record::Absent);
}

#[test]
fn the_record_one_push_old_after_a_power_loss() {
    record_lost(Record::Old);
}

#[test]
fn the_record_torn() {
    record_lost(Record::Torn);
}
