//! The acknowledgement under `replication required` and the fence, in memory: a change whose
//! revision the follower's record does not yet name is durable and unanswered (exit 3), its
//! retry answers the original receipt once the record names it, and a host with the fence
//! refuses every change with nothing written.

use mosaic_queue_core::to_canonical;

use super::Checkout;
use crate::engine::{Change, Policy, Request};
use crate::exit::Exit;
use crate::io::trace::Tracer;
use crate::reply::Finished;
use crate::store::adopted::{self, Adopted};
use crate::store::replicated::{self, Replicated};

fn change(op: &str, by: &str) -> Change {
    Change {
        op: op.to_owned(),
        by: Some(by.to_owned()),
        replication_timeout: None,
    }
}

fn note(op: &str) -> Request {
    Request::Note {
        id: 2,
        text: "replicated or not".to_owned(),
        change: change(op, "jason"),
    }
}

fn run(c: &Checkout, request: Request) -> (serde_json::Value, i32) {
    let Finished { document, exit, .. } = c.engine(request, &Policy::local());
    (serde_json::from_str(&document).unwrap(), exit)
}

fn record(c: &Checkout, revision: u64) {
    let r = Replicated {
        revision,
        log_digest: "0".repeat(64),
        commit: "a".repeat(40),
        remote: "origin".into(),
        reference: "refs/mosaic-queue/live".into(),
        at: "2026-12-01T00:00:00.000Z".into(),
    };
    c.disk.put(&replicated::path(&c.paths), &to_canonical(&r));
}

/// A queue whose rev 2 sets `replication required`, answered because the record names it.
fn required() -> Checkout {
    let c = Checkout::genesis();
    record(&c, 2);
    let set = Request::Replication {
        mode: mosaic_queue_core::ReplicationMode::Required,
        change: change("lead-replication-1", "lead"),
    };
    let (doc, exit) = run(&c, set);
    assert_eq!(
        (doc["text"].as_str(), exit),
        (Some("ok lead-replication-1 rev 2 replication required"), 0)
    );
    c
}

#[test]
fn a_change_the_follower_has_not_pushed_is_durable_and_unanswered_until_it_has() {
    let c = required();
    let (doc, exit) = run(&c, note("jason-note-0001"));
    assert_eq!(exit, 3);
    assert_eq!(
        doc["error"]["message"],
        "rev 3 durable here, not yet replicated: the follower is behind or not running; retry with the same --op"
    );
    assert_eq!(doc["error"]["kind"], "not-replicated");
    assert_eq!(doc["error"]["retryable"], true);
    // Durable: the witness names it.
    let witness = c.disk.get(&c.paths.witness).unwrap();
    assert!(String::from_utf8_lossy(&witness).contains("\"revision\": 3"));
    // Still not pushed: the retry waits again, and writes nothing.
    let (_, again) = run(&c, note("jason-note-0001"));
    assert_eq!(again, 3);
    assert_eq!(c.queue().unwrap().revision(), 3);
    // Pushed: the retry answers the original receipt, applied once.
    record(&c, 3);
    let (doc, exit) = run(&c, note("jason-note-0001"));
    assert_eq!(
        (doc["text"].as_str(), doc["recorded"].as_bool(), exit),
        (Some("ok jason-note-0001 rev 3 note 2"), Some(true), 0)
    );
    assert_eq!(c.queue().unwrap().revision(), 3);
}

#[test]
fn a_record_that_cannot_be_read_counts_as_nothing_replicated() {
    let c = required();
    c.disk
        .put(&replicated::path(&c.paths), b"{\"revision\": 99}\n");
    let (doc, exit) = run(&c, note("jason-note-0002"));
    assert_eq!(
        (doc["error"]["kind"].as_str(), exit),
        (Some("not-replicated"), 3)
    );
}

#[test]
fn replication_off_answers_once_durable_whatever_the_record_says() {
    let c = Checkout::genesis();
    let (doc, exit) = run(&c, note("jason-note-0003"));
    assert_eq!(
        (doc["text"].as_str(), exit),
        (Some("ok jason-note-0003 rev 2 note 2"), 0)
    );
}

#[test]
fn a_fenced_host_refuses_every_change_and_writes_nothing() {
    let c = Checkout::genesis();
    let fence = Adopted {
        root: "/srv/standby".into(),
        host: "standby-2".into(),
        revision: 7,
        commit: "b".repeat(40),
        by: "lead".into(),
        at: "2026-12-01T00:00:00.000Z".into(),
        remote: "origin".into(),
        reference: "refs/mosaic-queue/live".into(),
        last_pushed: 6,
    };
    c.disk.put(&adopted::path(&c.paths), &to_canonical(&fence));
    let before = c.disk.get(&c.paths.queue_json);
    let (doc, exit) = run(&c, note("jason-note-0004"));
    assert_eq!(exit, 2);
    assert_eq!(doc["error"]["kind"], "adopted-elsewhere");
    assert_eq!(
        doc["error"]["message"],
        "this queue was adopted at standby-2:/srv/standby (rev 7, commit bbbbbbbbbbbb on origin refs/mosaic-queue/live): no change is made here; run it in that checkout (`mosaic-queue doctor` here lists the ops this host wrote after its last push, rev 6)"
    );
    assert_eq!(c.disk.get(&c.paths.queue_json), before);
    // Something at the fence's name that is no fence fences all the same.
    c.disk.put(&adopted::path(&c.paths), b"not a fence");
    let (doc, exit) = run(&c, note("jason-note-0004"));
    assert_eq!(
        (doc["error"]["kind"].as_str(), exit),
        (Some("adopted-elsewhere"), 2)
    );
    assert_eq!(c.disk.get(&c.paths.queue_json), before);
}

/// A host that went down with a writer holding the lock, then fenced: a change there says the
/// fence, not the stale lock (unlocking would only meet the fence), and writes nothing.
#[test]
fn a_fenced_host_with_a_stale_lock_names_the_fence() {
    let c = Checkout::genesis();
    let kill = Tracer::memory().halting_at("lock-taken");
    let command: mosaic_queue_core::Command =
        serde_json::from_value(serde_json::json!({"verb": "note", "id": 1, "text": "killed"}))
            .unwrap();
    assert!(
        c.process(Some(&kill))
            .change(&command, "jason-note-0005", "jason")
            .is_err()
    );
    assert!(
        c.disk.get(&c.paths.lock).is_some(),
        "the killed writer's lock"
    );
    let (doc, exit) = run(&c, note("jason-note-0006"));
    // No fence yet: the stale lock is what stands in the way.
    assert_eq!(
        (doc["error"]["kind"].as_str(), exit),
        (Some("lock-stale"), 1)
    );
    c.disk.put(&adopted::path(&c.paths), b"not a fence");
    let before = c.disk.get(&c.paths.queue_json);
    let (doc, exit) = run(&c, note("jason-note-0006"));
    assert_eq!(
        (doc["error"]["kind"].as_str(), exit),
        (Some("adopted-elsewhere"), 2)
    );
    assert_eq!(c.disk.get(&c.paths.queue_json), before);
}

/// The cut waits as every change does: `archive` goes its own way through the session.
#[test]
fn a_cut_the_follower_has_not_pushed_is_durable_and_unanswered_until_it_has() {
    let c = required();
    record(&c, 3);
    let (_, exit) = run(&c, note("jason-note-0004"));
    assert_eq!(exit, 0);
    let cut = || c.process(None).archive(3, "lead-archive-1", "lead");
    let failed = cut().unwrap_err();
    assert_eq!(
        (failed.message.as_str(), failed.exit),
        (
            "rev 4 durable here, not yet replicated: the follower is behind or not running; retry with the same --op",
            Exit::Uncertain
        )
    );
    assert_eq!(c.queue().unwrap().revision(), 4);
    record(&c, 4);
    assert_eq!(
        cut().unwrap(),
        vec![
            "ok lead-archive-1 rev 4 archived 2 entries and 0 done rows to docs/plans/archive/epoch-0001.json"
        ]
    );
    assert_eq!(c.queue().unwrap().revision(), 4);
}

/// The follower writes its record and the fence without the queue lock, while writers run:
/// a writer's sweep of leftover temp files under the lock leaves the follower's alone (it
/// once removed the follower's temp record between its write and its rename).
#[test]
fn a_writers_sweep_leaves_the_followers_temp_files() {
    let c = Checkout::genesis();
    let git = |name: &str| c.paths.git_dir.join(name);
    let followers = [
        ".mosaic-queue.replicated.4242.tmp",
        ".mosaic-queue.adopted.4242.tmp",
    ];
    for name in followers {
        c.disk.put(&git(name), b"the follower's, mid-write");
    }
    c.disk
        .put(&git(".mosaic-queue.head.4242.tmp"), b"a killed writer's");
    let (doc, exit) = run(&c, note("jason-note-0007"));
    assert_eq!(
        (doc["text"].as_str(), exit),
        (Some("ok jason-note-0007 rev 2 note 2"), 0)
    );
    assert_eq!(c.disk.get(&git(".mosaic-queue.head.4242.tmp")), None);
    for name in followers {
        assert_eq!(
            c.disk.get(&git(name)).as_deref(),
            Some(&b"the follower's, mid-write"[..]),
            "{name}"
        );
    }
}
