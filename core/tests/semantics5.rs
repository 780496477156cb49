//! Semantics 5, the reach rule: written only by the first `set … after` that names rows, then by
//! every later entry; a set that joins more than 1,000 rows on both sides is refused as a write
//! and on replay, and the same set under semantics 4 still replays.

mod common;

use mosaic_queue_core::{
    Args, Command, NewRow, Queue, QueueError, ReplayError, SetArgs, SetField, SetValue, Status,
    internal::{self, Ctx},
    to_canonical,
};

const AT: &str = "2026-11-30T10:00:00.000Z";

/// The basic scenario's genesis (rows 1 to 4).
fn basic() -> Queue {
    let sc = common::load_scenario("basic");
    let g = &sc.genesis;
    Queue::genesis(g.args.clone(), &g.op, &g.by, &g.at)
        .unwrap()
        .0
}

fn add(after: &[u64]) -> Command {
    add_as(Status::Queued, after)
}

fn add_as(status: Status, after: &[u64]) -> Command {
    Command::Add(NewRow {
        piece: "Later".into(),
        owner: None,
        status,
        gate: None,
        issues: vec![],
        reviewers: vec![],
        brief: None,
        note: None,
        after: after.to_vec(),
    })
}

fn set_after(id: u64, after: &[u64]) -> SetArgs {
    SetArgs {
        id,
        field: SetField::After,
        value: SetValue::Numbers(after.to_vec()),
        reason: None,
    }
}

fn last_semantics(q: &Queue) -> u8 {
    q.file().log.last().unwrap().semantics
}

#[test]
fn the_first_set_that_names_rows_writes_5_and_everything_after_it() {
    let mut q = basic();
    // A parked row stands in no table row, so what it waits on is named nowhere: 3.
    let parked = add_as(Status::Parked, &[1]);
    q.execute(&parked, "lead-add-1", "lead", AT).unwrap();
    assert_eq!(last_semantics(&q), 3);
    // Clearing a row's dependencies needs no rule.
    let clear = Command::Set(set_after(5, &[]));
    q.execute(&clear, "lead-set-1", "lead", AT).unwrap();
    assert_eq!(last_semantics(&q), 3);
    let set = Command::Set(set_after(5, &[2]));
    q.execute(&set, "lead-set-2", "lead", AT).unwrap();
    assert_eq!(last_semantics(&q), 5);
    q.execute(&add(&[]), "lead-add-2", "lead", AT).unwrap();
    q.execute(&clear, "lead-set-3", "lead", AT).unwrap();
    assert_eq!(last_semantics(&q), 5);
    // A row in the table that waits on an open row is no lease: the table names it as such
    // tables always did, and the entry stays under 5.
    q.execute(&add(&[1]), "lead-add-3", "lead", AT).unwrap();
    assert_eq!(last_semantics(&q), 5);
    q.execute(&clear, "lead-set-4", "lead", AT).unwrap();
    assert_eq!(last_semantics(&q), 5);
    let again = Queue::verify(&q.to_bytes()).unwrap();
    assert_eq!(again.rows(), q.rows());
}

/// `q` with chains of rows added from `first` to `last`, each after the one before, entry by
/// entry through the verbs (a write per row would copy every row each time) and verified.
fn with_chain(q: Queue, first: u64, last: u64) -> Queue {
    let (mut file, mut state) = (q.file().clone(), q.state().clone());
    for id in first..=last {
        let rev = file.revision + 1;
        let op = format!("lead-add-{id}");
        let mut entry = file.log.last().unwrap().clone();
        let after = if id == first { vec![] } else { vec![id - 1] };
        let args = add(&after)
            .normalize(&state, rev, "lead", "2026-11-30T09:00:00.000Z")
            .unwrap();
        let ctx = Ctx {
            rev,
            op: &op,
            by: "lead",
            at: AT,
            semantics: 3,
        };
        entry.receipt = internal::apply(&mut state, &args, &ctx).unwrap();
        (entry.rev, entry.op, entry.verb, entry.by) = (rev, op, args.verb(), "lead".into());
        (entry.semantics, entry.args) = (3, args);
        file.log.push(entry);
        file.revision = rev;
    }
    file.rows.clone_from(&state.rows);
    Queue::verify(&to_canonical(&file)).unwrap()
}

/// Rows 5 to 1,006 in a chain: 1,001 rows wait on row 5 and row 1,006 waits on 1,001.
fn chain() -> Queue {
    with_chain(basic(), 5, 1006)
}

#[test]
fn a_set_past_the_rule_is_refused_as_a_write_and_on_replay() {
    let mut q = chain();
    let before = q.to_bytes();
    let set = Command::Set(set_after(5, &[1006]));
    let err = q.execute(&set, "lead-set-5", "lead", AT).unwrap_err();
    assert_eq!(err.kind(), "dependency-reach");
    assert_eq!(
        err.to_string(),
        "row 5 cannot wait on #1006: more than 1000 rows wait on row 5, directly or through others, and the rows it would add wait on more than 1000, more than one set may join (docs/coordination.md); make a row that fewer rows wait on wait on them instead, or clear dependencies that are no longer needed first"
    );
    assert_eq!(q.to_bytes(), before);
    // One row nearer the end passes: 1,000 rows wait on row 6.
    let nearer = Command::Set(set_after(6, &[5, 1006]));
    let err = q.execute(&nearer, "lead-set-6", "lead", AT).unwrap_err();
    assert_eq!(err.kind(), "dependency-cycle", "{err}");
    assert!(
        err.to_string().ends_with("(1001 rows): that makes a cycle"),
        "{err}"
    );

    // Written under semantics 5 by hand, replay refuses it; under 4 it is a cycle as before.
    let args = Args::Set(Box::new(set_after(5, &[1006])));
    for (semantics, kind) in [(5, "dependency-reach"), (4, "dependency-cycle")] {
        let mut file = q.file().clone();
        let mut entry = file.log.last().unwrap().clone();
        entry.rev += 1;
        entry.op = format!("lead-set-5-{semantics}");
        entry.verb = args.verb();
        entry.semantics = semantics;
        entry.args = args.clone();
        entry.receipt = format!("ok {} rev {} set 5 after", entry.op, entry.rev);
        file.revision = entry.rev;
        file.log.push(entry);
        let bytes = to_canonical(&file);
        match Queue::verify(&bytes) {
            Err(QueueError::Replay(ReplayError::Refused { rev, source })) => {
                assert_eq!((rev, source.kind()), (file.revision, kind));
            }
            other => panic!("semantics {semantics}: {other:?}"),
        }
    }
}

/// The same set between two chains, no cycle: refused as a new write, while an entry of
/// semantics 4 that made it replays as it always did, and later sets of 5 are held to the rule
/// on the graph it left.
#[test]
fn the_same_set_under_semantics_4_replays() {
    let mut q = with_chain(chain(), 1007, 2008);
    let set = Command::Set(set_after(5, &[2008]));
    let err = q.execute(&set, "lead-set-5", "lead", AT).unwrap_err();
    assert_eq!(err.kind(), "dependency-reach");
    let args = Args::Set(Box::new(set_after(5, &[2008])));
    q.append_entry(args, "lead-set-5", "lead", AT, 4).unwrap();
    let mut again = Queue::verify(&q.to_bytes()).unwrap();
    assert_eq!(again.rows(), q.rows());
    // Naming it again adds nothing; clearing it is free.
    let same = Command::Set(set_after(5, &[2008]));
    again
        .execute(&same, "lead-set-5-again", "lead", AT)
        .unwrap();
    // A set that names rows is written under 5, which holds every set to the rule.
    assert_eq!(last_semantics(&again), 5);
    let clear = Command::Set(set_after(5, &[]));
    again
        .execute(&clear, "lead-set-5-clear", "lead", AT)
        .unwrap();
    Queue::verify(&again.to_bytes()).unwrap();
}

/// A queue that never uses a lease writes what the build before leases wrote: an entry that
/// makes a row wait on another is under 3 (5 for a `set … after` that names rows), its table
/// names the rows waited on as that build did (`#1`), and any later entry keeps the table byte
/// for byte but for what it changes. The first entry that carries a lease brings 7, and from
/// it the table names them as rows.
#[test]
fn only_a_lease_brings_semantics_7_and_the_table_that_names_rows_as_rows() {
    let mut q = basic();
    q.execute(&add(&[1]), "lead-add-1", "lead", AT).unwrap();
    assert_eq!(last_semantics(&q), 3);
    assert!(
        q.render_body()
            .contains("| 5 | Later |  | queued (waits on #1) |  |  |  |\n"),
        "{}",
        q.render_body()
    );
    let set = Command::Set(set_after(5, &[1, 2]));
    q.execute(&set, "lead-set-1", "lead", AT).unwrap();
    assert_eq!(last_semantics(&q), 5);
    let before = q.render_body();
    let waiting = "| 5 | Later |  | queued (waits on #1, #2) |  |  |  |\n";
    assert!(before.contains(waiting), "{before}");
    let note = Command::Note(mosaic_queue_core::NoteArgs {
        id: 5,
        text: Some("soon".into()),
    });
    q.execute(&note, "lead-note-1", "lead", AT).unwrap();
    assert_eq!(last_semantics(&q), 5);
    assert_eq!(
        q.render_body(),
        before.replace(
            waiting,
            "| 5 | Later |  | queued (waits on #1, #2) |  |  | soon |\n"
        )
    );
    let lease = Command::LeaseDefault(mosaic_queue_core::LeaseDefaultArgs { lease: Some(7_200) });
    q.execute(&lease, "lead-lease-1", "lead", AT).unwrap();
    assert_eq!(last_semantics(&q), 7);
    assert!(
        q.render_body()
            .contains("| 5 | Later |  | queued (waits on rows 1, 2) |  |  | soon |\n"),
        "{}",
        q.render_body()
    );
    assert_eq!(Queue::verify(&q.to_bytes()).unwrap().rows(), q.rows());
}
