//! The session's rules, each run in memory through the verbs a person runs: a retried op
//! answers with its original receipt and writes nothing; an op id is one command's; genesis
//! runs once and its retry finishes it; locks are never broken, only removed by `unlock` when
//! dead or mismatched; the witness tells a visible tail from lost history; and a writer killed
//! (or a host powered off) at any write step is healed by the retry.

use std::path::Path;

use mosaic_queue_core::to_canonical;
use serde_json::json;

use super::scenarios::cmd;
use crate::exit::Exit;
use crate::in_memory::{Checkout, Failed, NOW, Ran};
use crate::io::seams::WRITE_STEPS;
use crate::io::trace::{Event, FaultKind, Op, Tracer};
use crate::store::lock::Holder;

const NOTE: &str = "darkwing-1-note";
const RECEIPT: &str = "ok darkwing-1-note rev 2 note 1";

fn note(c: &Checkout, hook: Option<&Tracer>) -> Ran {
    let command = cmd(json!({"verb": "note", "id": 1, "text": "in memory"}));
    c.process(hook.map(|t| t as _))
        .change(&command, NOTE, "darkwing")
}

fn failed(ran: Ran) -> Failed {
    ran.expect_err("the command fails")
}

/// Every regular file of the checkout, for "nothing was written".
fn files(c: &Checkout) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    c.disk.files(Path::new("/")).into_iter().collect()
}

/// The log's op ids, in order.
fn ops(c: &Checkout) -> Vec<String> {
    let queue = c.queue().expect("queue.json verifies");
    queue.file().log.iter().map(|e| e.op.clone()).collect()
}

/// The calls that changed the disk under docs/plans or the witness.
fn queue_writes(t: &Tracer) -> Vec<Op> {
    t.events()
        .into_iter()
        .filter_map(|e| match e {
            Event::Ok { op, .. }
                if !matches!(op, Op::Read(_) | Op::List(_) | Op::Stat(_) | Op::Statfs(_)) =>
            {
                let p = op.path().to_string_lossy().into_owned();
                (p.contains("/docs/plans") || p.contains("mosaic-queue.head")).then_some(op)
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_retried_op_answers_its_original_receipt_and_writes_nothing() {
    let c = Checkout::genesis();
    assert_eq!(note(&c, None), Ok(vec![RECEIPT.to_owned()]));
    let before = files(&c);
    let t = Tracer::memory();
    assert_eq!(note(&c, Some(&t)), Ok(vec![RECEIPT.to_owned()]));
    assert_eq!(queue_writes(&t), []);
    assert_eq!(files(&c), before);
    assert_eq!(ops(&c), ["genesis-0001", NOTE]);
}

#[test]
fn an_op_id_is_one_commands_and_a_reuse_changes_nothing() {
    let c = Checkout::genesis();
    note(&c, None).unwrap();
    let before = files(&c);
    let set = cmd(json!({"verb": "set", "id": 1, "field": "piece", "value": "Other"}));
    let f = failed(c.process(None).change(&set, NOTE, "darkwing"));
    assert_eq!(
        (f.exit, f.message.as_str()),
        (
            Exit::Refused,
            "refused: op `darkwing-1-note` was already used at rev 2 for another command (note); choose a new op id"
        )
    );
    // The same command by someone else is a reuse too.
    let again = cmd(json!({"verb": "note", "id": 1, "text": "in memory"}));
    let f = failed(c.process(None).change(&again, NOTE, "lead"));
    assert_eq!(f.exit, Exit::Refused);
    assert!(
        f.message.contains("not lead; choose a new op id"),
        "{}",
        f.message
    );
    assert_eq!(files(&c), before);
}

#[test]
fn genesis_runs_once_and_its_retry_finishes_what_a_kill_cut_short() {
    let c = Checkout::new();
    let kill = Tracer::memory().halting_at("queue-renamed");
    assert!(
        c.process(Some(&kill))
            .genesis("genesis-0001", "jason")
            .is_err()
    );
    assert!(c.disk.get(&c.paths.witness).is_none());
    c.process(None).unlock().unwrap();
    // A new op refuses: queue.json exists. The same op and actor finish the witness and table.
    let f = failed(c.process(None).genesis("genesis-0002", "jason"));
    assert_eq!(f.exit, Exit::Refused);
    assert!(
        f.message
            .starts_with("docs/plans/queue.json exists already; genesis runs once")
    );
    let ran = c.process(None).genesis("genesis-0001", "jason").unwrap();
    assert!(
        ran[0].starts_with("ok genesis-0001 rev 1 genesis 3 rows on main"),
        "{ran:?}"
    );
    assert!(c.disk.get(&c.paths.witness).is_some());
    c.commit();
    assert_eq!(
        c.process(None).verify(true),
        Ok(vec!["ok verify rev 1".to_owned()])
    );
}

#[test]
fn a_change_refuses_until_genesis_is_committed() {
    let c = Checkout::new();
    c.process(None).genesis("genesis-0001", "jason").unwrap();
    let f = failed(note(&c, None));
    assert_eq!(f.exit, Exit::Refused);
    assert!(
        f.message.starts_with("genesis not committed"),
        "{}",
        f.message
    );
    c.commit();
    assert_eq!(note(&c, None), Ok(vec![RECEIPT.to_owned()]));
}

#[test]
fn accept_history_records_a_lost_witness_once() {
    let c = Checkout::genesis();
    note(&c, None).unwrap();
    c.disk.remove(&c.paths.witness);
    let f = failed(c.process(None).verify(false));
    assert_eq!(f.exit, Exit::Refused);
    assert!(
        f.message.starts_with("there is no witness"),
        "{}",
        f.message
    );
    let accept = |op: &str| {
        c.process(None)
            .accept_history("lost in a test", op, "jason")
    };
    let first = accept("jason-accept-0001").unwrap();
    assert_eq!(
        first,
        [
            "ok jason-accept-0001 rev 3 accept-history replaces no witness; at-most-once not guaranteed before rev 3"
        ]
    );
    // Its retry answers the same; a new op finds nothing to accept.
    assert_eq!(accept("jason-accept-0001").unwrap(), first);
    let f = failed(accept("jason-accept-0002"));
    assert_eq!(f.exit, Exit::Refused);
    assert!(
        f.message
            .starts_with("nothing to accept: queue.json extends the witness (rev 3)")
    );
    assert_eq!(ops(&c), ["genesis-0001", NOTE, "jason-accept-0001"]);
}

/// A lock file holding `holder`, as a writer writes one.
fn plant(c: &Checkout, pid: u32, start: u64, host: &str, boot: &str) {
    let holder = Holder {
        pid,
        start,
        host: host.to_owned(),
        boot: boot.to_owned(),
        op: Some("other-op-0001".to_owned()),
        verb: "note".to_owned(),
        at: NOW.to_owned(),
    };
    c.disk.put(&c.paths.lock, &to_canonical(&holder));
}

#[test]
fn locks_are_never_broken_and_only_dead_or_mismatched_ones_are_unlocked() {
    let c = Checkout::genesis();
    let lock = c.paths.lock.display().to_string();
    // Dead: the writer killed while it held the lock.
    let kill = Tracer::memory().halting_at("lock-taken");
    assert!(note(&c, Some(&kill)).is_err());
    let f = failed(note(&c, None));
    assert_eq!(f.exit, Exit::Failed);
    assert!(
        f.message
            .starts_with(&format!("the queue lock {lock} is stale (dead: pid ")),
        "{}",
        f.message
    );
    assert!(
        f.message
            .ends_with("run `mosaic-queue unlock`, then retry the same op")
    );
    assert!(c.process(None).unlock().unwrap()[0].starts_with("ok unlock: removed the dead"));
    // From an earlier boot: dead too, whatever its pid names now.
    plant(&c, 7, 1, "memory", "boot-0");
    assert!(
        failed(note(&c, None))
            .message
            .contains("was taken during an earlier boot")
    );
    c.process(None).unlock().unwrap();
    // Unknown host, and unreadable: a person's, which unlock refuses too.
    plant(&c, 7, 1, "elsewhere", "boot-1");
    let f = failed(note(&c, None));
    assert!(f.message.contains("is unknown: pid 7"), "{}", f.message);
    assert!(
        failed(c.process(None).unlock())
            .message
            .starts_with("not removing the queue lock")
    );
    c.disk.put(&c.paths.lock, b"not a holder");
    assert!(failed(note(&c, None)).message.contains("is invalid: "));
    c.disk.remove(&c.paths.lock);
    assert_eq!(note(&c, None), Ok(vec![RECEIPT.to_owned()]));
}

/// A lock its writer could not remove once it had answered: the command still succeeded, the
/// lock stays (live while that process runs: a long-lived one must end), the process knows it
/// left one, and once it is gone `unlock` removes it as dead.
#[test]
fn a_lock_its_writer_could_not_remove_is_known_to_that_process() {
    let c = Checkout::genesis();
    let clean = Tracer::memory();
    note(&c.clone(), Some(&clean)).unwrap();
    let n = clean
        .events()
        .iter()
        .find_map(|e| match e {
            Event::Call {
                n,
                op: Op::Unlink(p),
            } if *p == c.paths.lock => Some(*n),
            _ => None,
        })
        .unwrap();
    let unlink = Tracer::memory().failing(n, FaultKind::Eio);
    assert_eq!(note(&c, Some(&unlink)), Ok(vec![RECEIPT.to_owned()]));
    assert!(unlink.fired());
    assert!(c.disk.get(&c.paths.lock).is_some());
    assert!(crate::store::lock::left_behind());
    assert!(c.process(None).unlock().unwrap()[0].starts_with("ok unlock: removed the dead"));
    assert_eq!(c.disk.get(&c.paths.lock), None);
}

#[test]
fn a_live_lock_is_waited_for_and_a_reused_pid_is_a_mismatch() {
    let c = Checkout::genesis();
    let p = c.process(None);
    let command = cmd(json!({"verb": "note", "id": 1, "text": "in memory"}));
    // The holder runs (this process's own pid and start time): the wait, zero here, runs out.
    plant(&c, p.pid(), 1, "memory", "boot-1");
    let f = failed(p.change(&command, NOTE, "darkwing"));
    assert_eq!(f.exit, Exit::Failed);
    assert!(
        f.message.contains("was not released within 0.0s"),
        "{}",
        f.message
    );
    // The pid runs but started at another time: the holder is gone.
    plant(&c, p.pid(), 2, "memory", "boot-1");
    assert!(
        failed(p.change(&command, NOTE, "darkwing"))
            .message
            .contains("is stale (mismatch: ")
    );
    assert!(p.unlock().unwrap()[0].starts_with("ok unlock: removed the mismatched queue lock"));
    assert_eq!(
        p.change(&command, NOTE, "darkwing"),
        Ok(vec![RECEIPT.to_owned()])
    );
}

#[test]
fn the_witness_tells_a_visible_tail_from_lost_and_rewritten_history() {
    let c = Checkout::genesis();
    let rev1 = c.disk.get(&c.paths.queue_json).unwrap();
    // Ahead: a tail visible, not durable; reads say so, a new op goes through, sync confirms.
    let kill = Tracer::memory().halting_at("queue-renamed");
    assert!(note(&c, Some(&kill)).is_err());
    c.process(None).unlock().unwrap();
    assert_eq!(c.process(None).list(), Ok(vec!["rev 2".to_owned()]));
    let report = c.process(None).doctor().unwrap();
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.kind.as_str() == "tail-not-durable")
    );
    let sync = c.process(None).sync(None).unwrap();
    assert_eq!(
        sync[0],
        "durable darkwing-1-note rev 2 (by darkwing): tell darkwing"
    );
    // Behind: the file rolled back under a witness that saw rev 2.
    let rev2 = c.disk.get(&c.paths.queue_json).unwrap();
    c.disk.put(&c.paths.queue_json, &rev1);
    let f = failed(note(&c, None));
    assert_eq!(f.exit, Exit::Refused);
    assert_eq!(
        f.message,
        "queue.json is at rev 1 but the witness saw rev 2: history was lost (see Manual recovery)"
    );
    let report = c.process(None).doctor().unwrap();
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.kind.as_str() == "history-lost")
    );
    // Diverged: another rev 2 than the one the witness saw.
    let other = Checkout::genesis();
    let set = cmd(json!({"verb": "set", "id": 1, "field": "piece", "value": "Other"}));
    other.process(None).change(&set, NOTE, "darkwing").unwrap();
    c.disk.put(
        &c.paths.queue_json,
        &other.disk.get(&other.paths.queue_json).unwrap(),
    );
    let f = failed(c.process(None).verify(false));
    assert_eq!(f.exit, Exit::Refused);
    assert_eq!(
        f.message,
        "queue.json's log up to rev 2 differs from what the witness saw: history was rewritten (see Manual recovery)"
    );
    c.disk.put(&c.paths.queue_json, &rev2);
    assert_eq!(
        c.process(None).verify(false),
        Ok(vec!["ok verify rev 2".to_owned()])
    );
}

/// A note killed at `step`, then (with `power`) the host powered off: the next commands run
/// after the reboot. The retry, with the commands doctor names, leaves the op in the log once
/// with its receipt, and the checkout healthy.
fn killed_at(step: &str, power: bool) {
    let c = Checkout::genesis();
    let kill = Tracer::memory().halting_at(step);
    let ran = note(&c, Some(&kill));
    assert!(kill.halted(), "{step}: the kill point was passed");
    if power {
        c.disk.power_loss();
        c.reboot();
    }
    let printed = ran.is_ok();
    let mut retry = note(&c, None);
    if retry.is_err() {
        c.process(None)
            .unlock()
            .unwrap_or_else(|f| panic!("{step}: unlock: {f:?}"));
        retry = note(&c, None);
    }
    assert_eq!(
        retry,
        Ok(vec![RECEIPT.to_owned()]),
        "{step} (power loss: {power})"
    );
    assert_eq!(ops(&c), ["genesis-0001", NOTE], "{step}");
    assert!(c.process(None).doctor().unwrap().healthy, "{step}");
    assert_eq!(
        c.process(None).verify(true),
        Ok(vec!["ok verify rev 2".to_owned()])
    );
    // Only the last step comes after the receipt printed.
    assert_eq!(printed, step == "receipt-printed", "{step}");
}

#[test]
fn a_writer_killed_at_any_write_step_is_healed_by_its_retry() {
    for step in WRITE_STEPS {
        killed_at(step, false);
    }
}

#[test]
fn a_power_loss_at_any_write_step_is_healed_by_the_retry() {
    for step in WRITE_STEPS {
        killed_at(step, true);
    }
}

/// After the fsync of docs/plans fails (the revision visible, not durable), `sync` writes the
/// verified bytes again (temp, fsync, rename, fsync of docs/plans) before any witness.
#[test]
fn after_a_failed_fsync_sync_rewrites_the_verified_bytes_before_the_witness() {
    let c = Checkout::genesis();
    let clean = Tracer::memory();
    note(&c.clone(), Some(&clean)).unwrap();
    let n = clean
        .events()
        .iter()
        .find_map(|e| match e {
            Event::Call {
                n,
                op: Op::FsyncDir(d),
            } if *d == c.paths.plans => Some(*n),
            _ => None,
        })
        .unwrap();
    let fsync = Tracer::memory().failing(n, FaultKind::Eio);
    let f = failed(note(&c, Some(&fsync)));
    assert!(fsync.fired());
    assert_eq!(
        (f.exit, f.message.as_str()),
        (
            Exit::Uncertain,
            "rev 2 is visible but not confirmed durable (fsync of docs/plans: Input/output error (os error 5)); run `mosaic-queue sync` and retry the same op"
        )
    );
    let visible = c.disk.get(&c.paths.queue_json).unwrap();
    let t = Tracer::memory();
    c.process(Some(&t)).sync(None).unwrap();
    let writes = queue_writes(&t);
    let temp = writes[0].path().to_path_buf();
    assert!(
        temp.to_string_lossy().contains("/docs/plans/.queue.json."),
        "{writes:?}"
    );
    assert_eq!(
        &writes[..5],
        [
            Op::Create(temp.clone()),
            Op::Write(temp.clone(), visible.clone()),
            Op::Fsync(temp.clone()),
            Op::Rename(temp, c.paths.queue_json.clone()),
            Op::FsyncDir(c.paths.plans.clone()),
        ]
    );
    assert!(
        matches!(&writes[5], Op::Create(p) if p.to_string_lossy().contains(".mosaic-queue.head."))
    );
    assert_eq!(c.disk.get(&c.paths.queue_json), Some(visible));
}

/// The cut the crash scenario records archives the done row and the history before it, and
/// a writer killed at each of its steps (in memory) is healed by the retry once `unlock` has
/// removed its lock: one receipt, the archive named and whole.
#[test]
fn a_cut_archives_the_done_row_and_a_kill_at_each_step_is_healed_by_its_retry() {
    use crate::io::seams::CUT_STEPS;
    const CUT: &str = "ok lead-archive-0001 rev 7 archived 4 entries and 1 done rows to docs/plans/archive/epoch-0001.json";
    let s = super::scenarios::archive();
    let gitea = super::gitea::Gitea::default();
    let once = s.checkout.clone();
    assert_eq!(
        s.run.exec(&once.process(None), &gitea),
        Ok(vec![CUT.to_owned()])
    );
    let archive = once.paths.archive.join("epoch-0001.json");
    let json = |bytes: Option<Vec<u8>>| -> serde_json::Value {
        serde_json::from_slice(&bytes.expect("the file")).expect("JSON")
    };
    let archived = json(once.disk.get(&archive));
    assert_eq!(archived["revision"], 4);
    assert_eq!(archived["rows"][0]["status"], "done");
    let ids = |q: &serde_json::Value| -> Vec<u64> {
        q["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(ids(&json(once.disk.get(&once.paths.queue_json))), [2, 3]);
    for step in CUT_STEPS.iter().skip(1) {
        let work = s.checkout.clone();
        let kill = Tracer::memory().halting_at(step);
        assert!(
            s.run.exec(&work.process(Some(&kill)), &gitea).is_err() || *step == "receipt-printed"
        );
        assert!(kill.halted(), "{step}");
        work.process(None).unlock().expect("unlock");
        assert_eq!(
            s.run.exec(&work.process(None), &gitea),
            Ok(vec![CUT.to_owned()]),
            "retry after {step}"
        );
        assert_eq!(work.disk.get(&archive), once.disk.get(&archive), "{step}");
        assert_eq!(
            work.disk.get(&work.paths.queue_json).map(|b| b.len()),
            once.disk.get(&once.paths.queue_json).map(|b| b.len()),
            "{step}"
        );
    }
}
