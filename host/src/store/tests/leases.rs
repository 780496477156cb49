//! Leases on the host, in memory with a clock the test sets: a heartbeat keeps a claim alive
//! across lease lengths, a take reclaims an expired claim and fences its holder, and a
//! hostile heartbeat file makes a claim unknown, never reclaimed.

use std::path::Path;

use mosaic_queue_core::{Command, Queue, TakeCmd};
use serde_json::json;

use crate::change::heartbeat::heartbeat_in;
use crate::in_memory::{Checkout, Failed, Ran};
use crate::reply::Gathered;
use crate::store::heartbeat;
use crate::store::session;
use crate::store::world::{Clock, World};

/// A clock that says what the test set last.
struct At(&'static str);

impl Clock for At {
    fn now(&self) -> String {
        self.0.to_owned()
    }
}

/// `command` as op `op` by `by` at `at`: the receipt printed, or the failure.
pub(super) fn run(c: &Checkout, at: &'static str, command: &Command, op: &str, by: &str) -> Ran {
    let p = c.process(None);
    let clock = At(at);
    let world = World {
        clock: &clock,
        ..p.world()
    };
    let mut out = Vec::new();
    session::change(world, p.paths(), command, op, by, |queue: &Queue, _| {
        if let Some(entry) = queue.entry_for_op(op) {
            out.push(entry.receipt.clone());
        }
        Ok::<(), session::SessionError>(())
    })
    .map_err(Failed::from)?;
    Ok(out)
}

/// `heartbeat --by seat --json` at `at`, as the CLI runs it: its document.
fn beat(c: &Checkout, at: &'static str, seat: &str) -> String {
    let p = c.process(None);
    let clock = At(at);
    let world = World {
        clock: &clock,
        ..p.world()
    };
    let mut reply = Gathered::new(true);
    let result = heartbeat_in(world, p.paths(), seat, &mut reply);
    reply.finish("heartbeat", false, &result).document
}

/// A command as the core reads one from JSON.
fn cmd(v: serde_json::Value) -> Command {
    serde_json::from_value(v).expect("a command")
}

fn take(lease: Option<u32>) -> Command {
    Command::Take(TakeCmd {
        lease,
        ..TakeCmd::default()
    })
}

/// The checkout after genesis: row 2 is the one free row (1 is darkwing's, 3 is parked).
fn queue_with_free_row() -> Checkout {
    Checkout::genesis()
}

/// That checkout once huey took row 2 at noon with a lease of a minute.
fn huey_holds_row_2() -> Checkout {
    let c = queue_with_free_row();
    run(
        &c,
        "2026-12-01T12:00:00.000Z",
        &take(Some(60)),
        "huey-take-0001",
        "huey",
    )
    .unwrap();
    c
}

#[test]
fn a_heartbeat_every_third_of_the_lease_keeps_a_claim_for_three_lease_lengths() {
    let c = queue_with_free_row();
    assert_eq!(
        run(
            &c,
            "2026-12-01T12:00:00.000Z",
            &take(Some(60)),
            "huey-take-0001",
            "huey"
        ),
        Ok(vec![
            "ok huey-take-0001 rev 2 take 2 queued -> in-progress, lease 1m".to_owned()
        ])
    );
    // The take wrote huey's heartbeat: it holds a leased claim now.
    let file = heartbeat::path(&c.paths, "huey");
    assert_eq!(
        c.disk.get(&file),
        Some(b"2026-12-01T12:00:00.000Z\n".to_vec())
    );
    // Three minutes of renewals every 20 s; louie looks after each one and finds nothing.
    let beats = [
        "2026-12-01T12:00:20.000Z",
        "2026-12-01T12:00:40.000Z",
        "2026-12-01T12:01:00.000Z",
        "2026-12-01T12:01:20.000Z",
        "2026-12-01T12:01:40.000Z",
        "2026-12-01T12:02:00.000Z",
        "2026-12-01T12:02:20.000Z",
        "2026-12-01T12:02:40.000Z",
        "2026-12-01T12:03:00.000Z",
    ];
    let looks = [
        "2026-12-01T12:00:39.000Z",
        "2026-12-01T12:00:59.000Z",
        "2026-12-01T12:01:19.000Z",
        "2026-12-01T12:01:39.000Z",
        "2026-12-01T12:01:59.000Z",
        "2026-12-01T12:02:19.000Z",
        "2026-12-01T12:02:39.000Z",
        "2026-12-01T12:02:59.000Z",
        "2026-12-01T12:03:59.999Z",
    ];
    for (at, look) in beats.into_iter().zip(looks) {
        let want = format!(
            "{{\n  \"verb\": \"heartbeat\",\n  \"seat\": \"huey\",\n  \"at\": \"{at}\",\n  \"text\": \"heartbeat huey at {at}\"\n}}\n"
        );
        assert_eq!(beat(&c, at, "huey"), want);
        let op = format!("louie-take-{}", &look[14..16]);
        let ran = run(&c, look, &take(None), &op, "louie");
        // Nothing to take: no entry, no receipt.
        assert_eq!(ran, Ok(vec![]), "{look}");
    }
    // The renewals stop: a lease after the last, the claim has expired and louie takes it.
    assert_eq!(
        run(&c, "2026-12-01T12:04:00.000Z", &take(None), "louie-take-0099", "louie"),
        Ok(vec!["ok louie-take-0099 rev 3 take 2 reclaimed from huey (last sign of life 2026-12-01T12:03:00.000Z, lease 1m)".to_owned()])
    );
}

#[test]
fn a_fenced_holder_is_refused_with_one_line_and_its_retry_still_answers() {
    let c = huey_holds_row_2();
    let note = cmd(json!({"verb": "note", "id": 2, "text": "halfway"}));
    assert_eq!(
        run(
            &c,
            "2026-12-01T12:00:30.000Z",
            &note,
            "huey-2-note-1",
            "huey"
        ),
        Ok(vec!["ok huey-2-note-1 rev 3 note 2".to_owned()])
    );
    assert_eq!(
        run(&c, "2026-12-01T12:01:30.000Z", &take(None), "louie-take-0001", "louie"),
        Ok(vec!["ok louie-take-0001 rev 4 take 2 reclaimed from huey (last sign of life 2026-12-01T12:00:30.000Z, lease 1m)".to_owned()])
    );
    let late = cmd(json!({"verb": "note", "id": 2, "text": "done now"}));
    let refused = run(
        &c,
        "2026-12-01T12:01:40.000Z",
        &late,
        "huey-2-note-2",
        "huey",
    )
    .unwrap_err();
    assert_eq!(
        (refused.exit, refused.message.as_str()),
        (
            crate::exit::Exit::Refused,
            "refused: row 2 was reclaimed from huey at rev 4 and louie holds it now: huey's changes to it are refused (retries of its earlier ops still answer); `mosaic-queue take` finds other work"
        )
    );
    assert_eq!(
        run(
            &c,
            "2026-12-01T12:01:50.000Z",
            &note,
            "huey-2-note-1",
            "huey"
        ),
        Ok(vec!["ok huey-2-note-1 rev 3 note 2".to_owned()])
    );
}

/// Each hostile heartbeat file: past the lease by the log, the claim is unknown, and another
/// seat's take leaves it alone.
#[test]
fn a_hostile_heartbeat_file_makes_the_claim_unknown_and_nothing_is_reclaimed() {
    type Plant = fn(&Checkout, &Path);
    let plants: [(&str, Plant); 5] = [
        ("fifo", |c, p| c.disk.fifo(p)),
        ("symlink", |c, p| {
            let target = p.with_file_name("elsewhere");
            c.disk.put(&target, b"2026-12-01T12:09:00.000Z\n");
            c.disk.remove(p);
            c.disk.symlink(p, &target);
        }),
        ("directory", |c, p| {
            c.disk.remove(p);
            c.disk.mkdir_all(p);
        }),
        ("oversize", |c, p| c.disk.put(p, &[b'2'; 4096])),
        ("garbage", |c, p| c.disk.put(p, b"2026-12-01 12:09\n")),
    ];
    for (name, plant) in plants {
        let c = huey_holds_row_2();
        plant(&c, &heartbeat::path(&c.paths, "huey"));
        let ran = run(
            &c,
            "2026-12-01T12:10:00.000Z",
            &take(None),
            "louie-take-0001",
            "louie",
        );
        assert_eq!(ran, Ok(vec![]), "{name}");
        let queue = c.queue().unwrap();
        let row = queue.state().row(2).unwrap();
        assert_eq!(
            (queue.revision(), row.owner.as_deref()),
            (2, Some("huey")),
            "{name}"
        );
        let seen = crate::read::claims::Seen {
            signs: heartbeat::signs(&c.disk.io(None), &c.paths, queue.state()),
            now: "2026-12-01T12:10:00.000Z".to_owned(),
        };
        let claim = seen.judge(row).unwrap();
        assert_eq!(
            claim.line(),
            "row 2: huey, lease 1m, ends 2026-12-01T12:01:00.000Z, last sign of life 2026-12-01T12:00:00.000Z: unknown",
            "{name}"
        );
    }
}
