//! The witness: a later file extends an earlier witness; a rolled-back, rewritten or
//! hand-changed file does not, and each case is told apart. Also the table body status.

mod common;

use mosaic_queue_core::{BodyStatus, Command, NoteArgs, Queue, WitnessError, sha256_hex};

const AT: &str = "2026-11-29T12:00:00.000Z";

fn basic_after(steps: usize) -> Queue {
    let mut sc = common::load_scenario("basic");
    sc.steps.truncate(steps);
    common::run(&sc)
}

fn witness_of(q: &Queue) -> mosaic_queue_core::Witness {
    q.witness(sha256_hex(&q.to_bytes()), AT.into())
}

#[test]
fn a_later_file_extends_an_earlier_witness() {
    let early = basic_after(6);
    let late = basic_after(20);
    assert!(late.revision() > early.revision());
    let late_sha = sha256_hex(&late.to_bytes());
    late.check_extends(&late_sha, &witness_of(&early)).unwrap();
    late.check_extends(&late_sha, &witness_of(&late)).unwrap();
}

#[test]
fn a_rolled_back_file_is_behind_its_witness() {
    let early = basic_after(6);
    let late = basic_after(20);
    let err = early
        .check_extends(&sha256_hex(&early.to_bytes()), &witness_of(&late))
        .unwrap_err();
    assert_eq!(
        err,
        WitnessError::Behind {
            witness: late.revision(),
            file: early.revision()
        }
    );
    assert_eq!(err.kind(), "witness-behind");
}

#[test]
fn a_rewritten_history_diverges() {
    let mut a = basic_after(6);
    let mut b = basic_after(6);
    let note = |text: &str| {
        Command::Note(NoteArgs {
            id: 1,
            text: Some(text.into()),
        })
    };
    a.execute(&note("first version"), "lead-note-history", "lead", AT)
        .unwrap();
    b.execute(&note("other version"), "lead-note-history", "lead", AT)
        .unwrap();
    let err = b
        .check_extends(&sha256_hex(&b.to_bytes()), &witness_of(&a))
        .unwrap_err();
    assert_eq!(
        err,
        WitnessError::Diverged {
            revision: a.revision()
        }
    );
}

#[test]
fn same_revision_other_bytes_is_a_changed_file() {
    let q = basic_after(6);
    let w = witness_of(&q);
    let err = q.check_extends(&"0".repeat(64), &w).unwrap_err();
    assert_eq!(err.kind(), "witness-file-changed");
}

#[test]
fn body_status_tells_current_stale_and_unknown() {
    let early = basic_after(6);
    let late = basic_after(20);
    assert_eq!(late.body_status(&late.render_body()), BodyStatus::Current);
    match late.body_status(&early.render_body()) {
        BodyStatus::Stale { rev } => assert!(rev <= early.revision()),
        other => panic!("expected stale, got {other:?}"),
    }
    assert_eq!(late.body_status("| hand | edit |\n"), BodyStatus::Unknown);
}

#[test]
fn a_witness_continued_from_an_earlier_one_equals_one_hashed_from_genesis() {
    let early = basic_after(6);
    let late = basic_after(20);
    let prev = witness_of(&early);
    let sha = sha256_hex(&late.to_bytes());
    let full = late.witness(sha.clone(), AT.into());
    assert_eq!(
        late.witness_after(Some(&prev), sha.clone(), AT.into()),
        full
    );
    assert_eq!(late.witness_after(None, sha.clone(), AT.into()), full);
    // A witness from ahead of the file is not continued from.
    let ahead = witness_of(&basic_after(25));
    assert_eq!(
        early
            .witness_after(Some(&ahead), sha256_hex(&early.to_bytes()), AT.into())
            .log_digest,
        prev.log_digest
    );
}
