//! Semantics 8 beyond the replication scenario's steps: a cut carries the setting and the
//! adopted root across the epoch, replay holds the file's root to the last adopt, and a queue
//! that never sets replication writes no semantics 8.

mod common;

use mosaic_queue_core::{
    Command, CutOutcome, NoteArgs, Queue, ReplicationMode, parse_queue, verify_full,
};

fn replication() -> Queue {
    common::run(&common::load_scenario("replication"))
}

fn t(hms: &str) -> String {
    format!("2026-12-02T{hms}.000Z")
}

#[test]
fn a_cut_carries_the_setting_and_the_adopted_root_across_the_epoch() {
    let mut head = replication();
    // The scenario ends with replication off; set it again so the epoch must carry it.
    let required =
        serde_json::from_str::<Command>(r#"{"verb":"replication","mode":"required"}"#).unwrap();
    head.execute(&required, "lead-replication-9", "lead", &t("11:00:00"))
        .unwrap();
    assert_eq!(head.state().replication(), ReplicationMode::Required);
    let CutOutcome::Planned(cut) = head
        .plan_archive(6, "lead-cut-0001", "lead", &t("11:10:00"))
        .unwrap()
    else {
        panic!("planned");
    };
    let bytes = cut.queue.to_bytes();
    let file = parse_queue(&bytes).unwrap();
    let epoch = file.epoch().unwrap();
    assert_eq!(epoch.state.replication, ReplicationMode::Required);
    assert_eq!(epoch.state.root, "/srv/standby");
    assert_eq!(file.canonical_root, "/srv/standby");
    assert_eq!(file.log.last().unwrap().semantics, 8, "the archive entry");
    let text = String::from_utf8(bytes.clone()).unwrap();
    assert!(text.contains("\"replication\": \"required\""), "{text}");
    verify_full(&[&cut.archive_bytes], &bytes).unwrap();
    let mut queue = Queue::verify(&bytes).unwrap();
    assert_eq!(queue.state().replication(), ReplicationMode::Required);
    // Every later entry still carries 8.
    let note = Command::Note(NoteArgs {
        id: 1,
        text: Some("after the cut".into()),
    });
    queue
        .execute(&note, "huey-note-0010", "huey", &t("11:20:00"))
        .unwrap();
    assert_eq!(queue.file().log.last().unwrap().semantics, 8);
    // `off` is what a missing field means: written out, the state is not canonical.
    let off = text.replace(
        "\"replication\": \"required\",",
        "\"replication\": \"off\",",
    );
    assert_ne!(off, text);
    assert_eq!(
        Queue::verify(off.as_bytes()).map(drop).unwrap_err().kind(),
        "schema"
    );
}

#[test]
fn replay_holds_the_files_root_to_the_last_adopt() {
    let queue = replication();
    let text = String::from_utf8(queue.to_bytes()).unwrap();
    let back = text.replacen(
        "\"canonicalRoot\": \"/srv/standby\"",
        "\"canonicalRoot\": \"/srv/mosaic\"",
        1,
    );
    assert_ne!(back, text);
    let err = Queue::verify(back.as_bytes()).map(drop).unwrap_err();
    assert_eq!(err.kind(), "root-mismatch");
    assert_eq!(
        err.to_string(),
        Queue::verify(back.as_bytes())
            .map(drop)
            .unwrap_err()
            .to_string()
    );
}

#[test]
fn a_queue_that_never_sets_replication_writes_no_semantics_8() {
    for name in common::scenario_names() {
        if name == "replication" {
            continue;
        }
        let queue = common::run(&common::load_scenario(&name));
        assert!(
            queue.file().log.iter().all(|e| e.semantics < 8),
            "{name} holds a semantics 8 entry"
        );
        assert_eq!(queue.state().replication(), ReplicationMode::Off);
    }
}
