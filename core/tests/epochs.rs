//! Cuts into epochs: every cut of every scenario replays to the rows of the whole history, the
//! archive is the file as it stood at the cut, the archived-rows rule keeps what the window
//! needs, retries and witnesses reach across the cut, and `verify_full` catches every edit.

mod common;

use mosaic_queue_core::{
    Args, BodyStatus, Command, CutOutcome, GenesisArgs, MapRow, NoteArgs, Outcome, Queue,
    QueueFile, Status, VerbError, WitnessError, parse_queue, sha256_hex, verify_full,
};

const AT: &str = "2026-12-01T00:00:00.000Z";

/// The queue's bytes at every revision a scenario writes (index rev - 1), and its final queue.
fn revisions(name: &str) -> (Vec<Vec<u8>>, Queue) {
    let sc = common::load_scenario(name);
    let g = &sc.genesis;
    let (mut queue, _) = Queue::genesis(g.args.clone(), &g.op, &g.by, &g.at).unwrap();
    let mut out = vec![queue.to_bytes()];
    for step in &sc.steps {
        let applied = match step.semantics {
            None => matches!(
                queue.execute(&step.command, &step.op, &step.by, &step.at),
                Ok(Outcome::Applied { .. })
            ),
            Some(sem) => step
                .command
                .normalize(queue.state(), queue.revision() + 1, &step.by, &step.at)
                .and_then(|args| queue.append_entry(args, &step.op, &step.by, &step.at, sem))
                .is_ok(),
        };
        if applied {
            out.push(queue.to_bytes());
        }
    }
    assert_eq!(out.len() as u64, queue.revision(), "{name}");
    (out, queue)
}

fn planned(queue: &Queue, before: u64, op: &str) -> mosaic_queue_core::Cut {
    match queue.plan_archive(before, op, "lead", AT) {
        Ok(CutOutcome::Planned(cut)) => *cut,
        other => panic!("cut before {before}: {other:?}"),
    }
}

/// The ids the cut queue's epoch archived at its last cut.
fn archived_ids(queue: &Queue) -> Vec<u64> {
    let epoch = queue.epoch().expect("a cut queue");
    let last = epoch.archives.last().unwrap();
    last.rows.iter().flat_map(|r| r[0]..=r[1]).collect()
}

#[test]
fn every_cut_of_every_scenario_replays_to_the_rows_of_the_whole() {
    let (mut cuts, mut with_reasons, mut with_manifests) = (0, 0, 0);
    for name in common::scenario_names() {
        let (history, full) = revisions(&name);
        let head = full.revision();
        for before in 2..=head + 1 {
            let cut = planned(&full, before, "lead-cut-0001");
            cuts += 1;
            let what = format!("{name} cut before {before}");
            // The archive is the file as it stood at the cut, byte for byte.
            assert!(
                cut.archive_bytes == history[before as usize - 2],
                "{what}: archive"
            );
            assert_eq!(cut.archive_file, "docs/plans/archive/epoch-0001.json");
            let bytes = cut.queue.to_bytes();
            // The one-pass reader takes it (reasons and manifests as pairs, ranges, base64),
            // so a read after a cut never falls back to the slow reference check.
            let text = std::str::from_utf8(&bytes).unwrap();
            assert!(
                mosaic_queue_core::internal::read::<QueueFile>(text).is_ok(),
                "{what}: the strict reader refuses it"
            );
            let again = Queue::verify(&bytes).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(again.revision(), head + 1, "{what}");
            assert_eq!(again.file().first_rev(), before - 1, "{what}");
            let epoch = again.epoch().unwrap();
            with_reasons += usize::from(!epoch.state.reasons.is_empty());
            with_manifests += usize::from(!epoch.state.manifests.is_empty());
            // The rows of the whole history less the archived ones, in the same order.
            let archived = archived_ids(&again);
            let kept: Vec<_> = full
                .rows()
                .iter()
                .filter(|r| !archived.contains(&r.id))
                .cloned()
                .collect();
            assert_eq!(again.rows(), &kept[..], "{what}");
            // A round opened before the cut still finds its manifest's text.
            for round in kept
                .iter()
                .filter_map(|r| r.review.as_ref())
                .flat_map(|r| &r.rounds)
            {
                assert_eq!(
                    again.round_manifest(round),
                    full.round_manifest(round),
                    "{what}: round opened at rev {}",
                    round.opened_rev
                );
            }
            for id in &archived {
                let row = full.state().row(*id).unwrap();
                assert_eq!(row.status, Status::Done, "{what}: row {id}");
                assert_eq!(
                    again.state().row(*id).unwrap_err(),
                    VerbError::RowArchived { id: *id, epoch: 1 },
                    "{what}"
                );
                assert_eq!(again.archive_of_row(*id).unwrap().epoch, 1);
            }
            assert_eq!(again.state().next_id(), full.state().next_id(), "{what}");
            assert_eq!(
                again.body_status(&again.render_body()),
                BodyStatus::Current,
                "{what}"
            );
            assert_eq!(
                cut.receipt,
                format!(
                    "ok lead-cut-0001 rev {} archived {} entries and {} done rows to docs/plans/archive/epoch-0001.json",
                    head + 1,
                    before - 1,
                    archived.len()
                )
            );
            // verify --full recomputes the epoch entry from the archive.
            let proved = verify_full(&[&cut.archive_bytes], &bytes)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(proved.rows(), again.rows());
            // The retry answers with its receipt; another REV under the op is refused.
            match again.plan_archive(before, "lead-cut-0001", "lead", AT) {
                Ok(CutOutcome::Recorded { rev, receipt }) => {
                    assert_eq!((rev, receipt), (head + 1, cut.receipt.clone()))
                }
                other => panic!("{what}: retry {other:?}"),
            }
            let other = again.plan_archive(before + 1, "lead-cut-0001", "lead", AT);
            assert_eq!(other.unwrap_err().kind(), "op-reused", "{what}");
        }
    }
    assert!(cuts > 60, "{cuts} cuts");
    assert!(
        with_reasons > 0 && with_manifests > 0,
        "{with_reasons} {with_manifests}"
    );
}

fn genesis() -> Queue {
    let row = |id, status: Status| MapRow {
        id,
        piece: format!("Piece {id}"),
        owner: Some("darkwing".into()),
        status,
        gate: None,
        issues: vec![1000 + id],
        note: None,
    };
    let args = GenesisArgs {
        branch: "main".into(),
        root: "/srv/mosaic".into(),
        source: "0123456789abcdef0123456789abcdef01234567".into(),
        rows: vec![
            row(1, Status::Done),
            row(2, Status::Done),
            row(3, Status::Done),
            row(4, Status::InProgress),
            row(5, Status::WaitingOnJason),
        ],
        legacy_view: "old table\n".into(),
    };
    Queue::genesis(args, "jason-genesis-1", "jason", "2026-11-01T00:00:00.000Z")
        .unwrap()
        .0
}

fn run(queue: &mut Queue, op: &str, by: &str, cmd: serde_json::Value) -> Outcome {
    let cmd: Command = serde_json::from_value(cmd).unwrap();
    queue
        .execute(&cmd, op, by, AT)
        .unwrap_or_else(|e| panic!("{op}: {e}"))
}

fn note(id: u64, text: &str) -> Command {
    Command::Note(NoteArgs {
        id,
        text: Some(text.into()),
    })
}

/// Row 1 is done and nothing needs it; row 2 is done and row 6 waits on it; row 3 is done and
/// an entry after the cut names it; row 4 is done with a request whose outcome is not logged;
/// row 5 is open.
fn mixed() -> Queue {
    use serde_json::json;
    let mut q = genesis();
    run(
        &mut q,
        "lead-add-0006",
        "lead",
        json!({"verb": "add", "piece": "Waits on 2", "after": [2]}),
    );
    run(
        &mut q,
        "sage-4-reviewers",
        "sage",
        json!({"verb": "set", "id": 4, "field": "reviewers", "value": ["flicker"]}),
    );
    run(
        &mut q,
        "darkwing-4-review-1",
        "darkwing",
        json!({"verb": "move", "id": 4, "to": "in-review", "candidate": "git:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}),
    );
    run(
        &mut q,
        "sage-4-abandon-1",
        "sage",
        json!({"verb": "review-abandon", "id": 4, "attempt": "darkwing-4-review-1", "reason": "no comment found", "yes": true}),
    );
    run(
        &mut q,
        "flicker-4-verdict-1",
        "flicker",
        json!({"verb": "review-record", "id": 4, "verdict": "approve", "comment": 9, "candidate": "git:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}),
    );
    run(
        &mut q,
        "darkwing-4-done-1",
        "darkwing",
        json!({"verb": "move", "id": 4, "to": "done"}),
    );
    run(
        &mut q,
        "lead-5-note-0001",
        "lead",
        json!({"verb": "note", "id": 5, "text": "open"}),
    );
    // The cut will be before this entry: it names row 3.
    run(
        &mut q,
        "lead-add-0007",
        "lead",
        json!({"verb": "add", "piece": "Waits on 3", "after": [3]}),
    );
    q
}

#[test]
fn the_cut_archives_only_rows_nothing_after_it_needs() {
    let q = mixed();
    assert_eq!(q.state().row(4).unwrap().status, Status::Done);
    let cut = planned(&q, q.revision(), "lead-cut-0001");
    assert_eq!(archived_ids(&cut.queue), [1]);
    let ids: Vec<u64> = cut.queue.rows().iter().map(|r| r.id).collect();
    assert_eq!(ids, [2, 3, 4, 5, 6, 7]);
    // The late outcome of row 4's abandoned request still applies after the cut.
    let mut after = cut.queue.clone();
    let outcome = serde_json::json!({"verb": "review-outcome", "id": 4, "attempt": "darkwing-4-review-1", "result": "failed", "status": 500, "detail": "http 500: server error", "comment": null});
    run(
        &mut after,
        "darkwing-4-review-1.outcome",
        "darkwing",
        outcome,
    );
    Queue::verify(&after.to_bytes()).unwrap();
    // A cut at the head keeps row 3 no more: nothing after it names it, but row 7 waits on it.
    let at_head = planned(&q, q.revision() + 1, "lead-cut-0002");
    assert_eq!(archived_ids(&at_head.queue), [1]);
}

#[test]
fn an_archived_row_is_refused_by_every_verb_and_its_id_never_given_again() {
    let mut q = genesis();
    let cut = planned(&q, 2, "lead-cut-0001");
    assert_eq!(archived_ids(&cut.queue), [1, 2, 3]);
    q = cut.queue;
    let refused = q.execute(&note(2, "x"), "lead-2-note-0001", "lead", AT);
    assert_eq!(
        refused.unwrap_err().to_string(),
        "row 2 is done and archived in docs/plans/archive/epoch-0001.json: `show 2` reads it; a dependency on it is already met"
    );
    let cmd: Command =
        serde_json::from_value(serde_json::json!({"verb": "add", "piece": "X", "after": [3]}))
            .unwrap();
    let dep = q.execute(&cmd, "lead-add-0006", "lead", AT).unwrap_err();
    assert_eq!(dep, VerbError::RowArchived { id: 3, epoch: 1 });
    // Archive rows 4 and 5 too; the next add still gets 6.
    let digest = "git:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    let steps = [
        (
            "darkwing-4-review-1",
            "darkwing",
            serde_json::json!({"verb": "move", "id": 4, "to": "in-review", "candidate": digest}),
        ),
        (
            "darkwing-4-done-01",
            "darkwing",
            serde_json::json!({"verb": "move", "id": 4, "to": "done", "evidence": {"comment": 1, "round": 1, "candidate": digest}}),
        ),
        (
            "jason-5-done-01",
            "jason",
            serde_json::json!({"verb": "move", "id": 5, "to": "done"}),
        ),
    ];
    for (op, by, cmd) in steps {
        run(&mut q, op, by, cmd);
    }
    let cut = planned(&q, q.revision() + 1, "lead-cut-0002");
    assert_eq!(archived_ids(&cut.queue), [4, 5]);
    assert!(cut.queue.rows().is_empty());
    q = cut.queue;
    let add: Command =
        serde_json::from_value(serde_json::json!({"verb": "add", "piece": "Next"})).unwrap();
    let got = q.execute(&add, "lead-add-0006", "lead", AT).unwrap();
    assert!(got.receipt().ends_with("add 6 queued"), "{}", got.receipt());
    assert_eq!(
        q.state().row(2).unwrap_err(),
        VerbError::RowArchived { id: 2, epoch: 1 }
    );
    assert_eq!(
        q.state().row(5).unwrap_err(),
        VerbError::RowArchived { id: 5, epoch: 2 }
    );
    // A state rebuilt from what a write recorded (the host's read view) refuses the same ids
    // and gives the same next id once it is told the archived ranges.
    let st = q.state();
    assert_eq!(st.archived(), [(1, 3, 1), (4, 5, 2)]);
    let rebuilt = mosaic_queue_core::State::from_parts(
        q.revision(),
        q.rows().to_vec(),
        Vec::new(),
        st.branch.clone().unwrap(),
        st.root.clone().unwrap(),
        st.semantics(),
    );
    assert_eq!(
        rebuilt.row(2).unwrap_err(),
        VerbError::NoSuchRow { id: 2 },
        "without the ranges"
    );
    let rebuilt = rebuilt.with_archived(st.archived().to_vec(), st.next_id());
    assert_eq!(
        rebuilt.row(2).unwrap_err(),
        VerbError::RowArchived { id: 2, epoch: 1 }
    );
    assert_eq!(rebuilt.next_id(), st.next_id());
}

/// Two cuts in a row, with the archives and `verify_full` over both.
fn two_cuts() -> (Vec<u8>, Vec<u8>, Queue) {
    let mut q = genesis();
    for i in 0..6 {
        q.execute(
            &note(4, &format!("n{i}")),
            &format!("lead-4-note-{i:04}"),
            "lead",
            AT,
        )
        .unwrap();
    }
    let first = planned(&q, 5, "lead-cut-0001");
    q = first.queue;
    for i in 6..10 {
        q.execute(
            &note(5, &format!("n{i}")),
            &format!("lead-5-note-{i:04}"),
            "lead",
            AT,
        )
        .unwrap();
    }
    // Not before the first cut's archive entry (rev 8).
    let low = q.plan_archive(8, "lead-cut-0002", "lead", AT).unwrap_err();
    assert_eq!(
        low.to_string(),
        "archive --before 8 is out of range: give a revision from 9 to 13 (the cut keeps the entries from that revision on)"
    );
    let second = planned(&q, 10, "lead-cut-0002");
    assert_eq!(second.archive_file, "docs/plans/archive/epoch-0002.json");
    (first.archive_bytes, second.archive_bytes, second.queue)
}

#[test]
fn two_cuts_chain_and_verify_in_full() {
    let (one, two, q) = two_cuts();
    let bytes = q.to_bytes();
    let epoch = q.epoch().unwrap();
    assert_eq!((epoch.epoch, epoch.archives.len()), (2, 2));
    assert_eq!(epoch.archives[0].sha, sha256_hex(&one));
    assert_eq!(epoch.archives[1].sha, sha256_hex(&two));
    // Archive 2 starts with epoch 1 and is itself a valid queue file.
    let second = Queue::verify(&two).unwrap();
    assert_eq!(second.epoch().unwrap().epoch, 1);
    verify_full(&[&one, &two], &bytes).unwrap();
    let missing = verify_full(&[&one], &bytes).unwrap_err();
    assert_eq!(
        missing.to_string(),
        "epoch 2 does not hold: queue.json names 2 archives but 1 were given"
    );
    let swapped = verify_full(&[&two, &one], &bytes).unwrap_err();
    assert_eq!(
        swapped.to_string(),
        "epoch 1 does not hold: docs/plans/archive/epoch-0001.json does not start with genesis"
    );
}

#[test]
fn verify_full_catches_every_edit() {
    let (one, two, q) = two_cuts();
    let bytes = q.to_bytes();
    let text = String::from_utf8(bytes.clone()).unwrap();
    // An archive edited by hand: it no longer hashes to the sha the epoch records.
    let edited = String::from_utf8(one.clone())
        .unwrap()
        .replace("\"text\": \"n1\"", "\"text\": \"nX\"");
    assert_ne!(edited.as_bytes(), &one[..]);
    let err = verify_full(&[edited.as_bytes(), &two], &bytes).unwrap_err();
    assert_eq!(
        err.to_string(),
        "epoch 1 does not hold: the epoch entry is not what docs/plans/archive/epoch-0001.json and the entries after it make (its digest differs)"
    );
    // The epoch entry's state, digest, filter or an archive's sha edited by hand: the archive
    // entry's epochSha catches it on every read; made to agree with it, the file verifies
    // alone, and only the full check, which recomputes the entry, catches it.
    let mut file: QueueFile = parse_queue(&bytes).unwrap();
    type Edit = fn(&mut mosaic_queue_core::EpochArgs);
    let cases: [(&str, Edit); 4] = [
        ("its state", |e| e.state.spent += 1),
        ("its digest", |e| e.digest = "0".repeat(64)),
        ("an op filter", |e| e.archives[1].ops.bits[0] ^= 1),
        ("an archive's sha", |e| e.archives[0].sha = "0".repeat(64)),
    ];
    for (what, edit) in cases {
        let mut f = file.clone();
        let Args::Epoch(e) = &mut f.log[0].args else {
            panic!()
        };
        edit(e);
        let alone = Queue::verify(&mosaic_queue_core::to_canonical(&f)).unwrap_err();
        assert_eq!(alone.kind(), "entry-refused", "{what}: {alone}");
        let pinned = sha256_hex(&serde_json::to_vec(&f.log[0]).unwrap());
        let last = f.log.len() - 1;
        let Args::Archive(a) = &mut f.log[last].args else {
            panic!()
        };
        a.epoch_sha = pinned;
        let edited = mosaic_queue_core::to_canonical(&f);
        Queue::verify(&edited).unwrap_or_else(|e| panic!("{what}: {e}"));
        let err = verify_full(&[&one, &two], &edited).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "epoch 2 does not hold: the epoch entry is not what docs/plans/archive/epoch-0002.json and the entries after it make ({what} differs)"
            )
        );
    }
    // An op of the window renamed to one archive 1 holds: each file holds together alone,
    // and only the check of the whole history finds the op used twice.
    let mut twice = file.clone();
    assert_eq!(twice.log[1].op, "lead-5-note-0007");
    twice.log[1].op = "lead-4-note-0001".into();
    twice.log[1].receipt = "ok lead-4-note-0001 rev 10 note 5".into();
    let twice = mosaic_queue_core::to_canonical(&twice);
    Queue::verify(&twice).unwrap();
    assert_eq!(
        verify_full(&[&one, &two], &twice).unwrap_err().to_string(),
        "epoch 2 does not hold: op `lead-4-note-0001` is used at rev 3 and again at rev 10"
    );
    // An entry of the window edited: the file holds together alone and in full, and the
    // witness of the write before the edit catches it, as it does without a cut.
    let witness = q.witness(sha256_hex(&bytes), AT.into());
    file.log[1].at = "2026-12-02T00:00:00.000Z".into();
    let edited = mosaic_queue_core::to_canonical(&file);
    let again = verify_full(&[&one, &two], &edited).unwrap();
    let err = again
        .check_extends(&sha256_hex(&edited), &witness)
        .unwrap_err();
    assert_eq!(err, WitnessError::Diverged { revision: 13 });
    assert!(text.contains("\"verb\": \"epoch\""));
}

#[test]
fn a_retry_of_an_archived_op_answers_with_its_receipt() {
    let (one, two, mut q) = two_cuts();
    let archived = parse_queue(&one).unwrap();
    let cmd = note(4, "n1");
    let err = q.execute(&cmd, "lead-4-note-0001", "lead", AT).unwrap_err();
    let VerbError::OpMaybeArchived { epochs, .. } = &err else {
        panic!("{err}")
    };
    assert!(epochs.contains(&1), "{epochs:?}");
    let before = q.to_bytes();
    let files: Vec<(u32, &QueueFile)> = vec![(1, &archived)];
    let got = q
        .execute_with_archives(&cmd, "lead-4-note-0001", "lead", AT, &files)
        .unwrap();
    assert_eq!(
        got,
        Outcome::Recorded {
            rev: 3,
            receipt: "ok lead-4-note-0001 rev 3 note 4".into(),
            request: None
        }
    );
    assert_eq!(q.to_bytes(), before);
    // Other args or another actor under the archived op are refused.
    let other = q.execute_with_archives(&note(4, "other"), "lead-4-note-0001", "lead", AT, &files);
    assert_eq!(other.unwrap_err().kind(), "op-reused");
    let actor = q.execute_with_archives(&cmd, "lead-4-note-0001", "sage", AT, &files);
    assert_eq!(actor.unwrap_err().kind(), "op-other-actor");
    // An archive that is not the one the epoch names is refused.
    let wrong = parse_queue(&two).unwrap();
    let bad = q.execute_with_archives(&cmd, "lead-4-note-0001", "lead", AT, &[(1, &wrong)]);
    assert_eq!(bad.unwrap_err(), VerbError::ArchiveMismatch { epoch: 1 });
    // An op that no filter holds is applied once.
    let fresh = note(4, "fresh");
    assert!(q.maybe_archived("lead-4-note-new1").is_empty());
    let applied = q.execute(&fresh, "lead-4-note-new1", "lead", AT).unwrap();
    assert!(matches!(applied, Outcome::Applied { .. }));
    // A false maybe: the archives hold no such op, so it applies, once.
    let false_maybe = (0..100_000)
        .map(|i| format!("lead-4-probe-{i:06}"))
        .find(|op| !q.maybe_archived(op).is_empty())
        .expect("a false maybe among 100000 ids");
    let epochs = q.maybe_archived(&false_maybe);
    let second = parse_queue(&two).unwrap();
    let all: Vec<(u32, &QueueFile)> = vec![(1, &archived), (2, &second)];
    let files: Vec<(u32, &QueueFile)> = all
        .iter()
        .filter(|(k, _)| epochs.contains(k))
        .copied()
        .collect();
    let fresh = note(4, "probe");
    let first = q
        .execute_with_archives(&fresh, &false_maybe, "lead", AT, &files)
        .unwrap();
    assert!(matches!(first, Outcome::Applied { .. }), "{first:?}");
    let again = q
        .execute_with_archives(&fresh, &false_maybe, "lead", AT, &files)
        .unwrap();
    assert!(matches!(again, Outcome::Recorded { .. }), "{again:?}");
    // Without the archives read, the maybe is not an answer.
    let unread = q.execute_with_archives(&cmd, "lead-4-note-0001", "lead", AT, &[]);
    assert_eq!(unread.unwrap_err().kind(), "op-maybe-archived");
}

#[test]
fn a_witness_before_the_epoch_is_checked_through_the_archives() {
    let mut q = genesis();
    let mut witnesses = vec![q.witness(sha256_hex(&q.to_bytes()), AT.into())];
    for i in 0..6 {
        q.execute(
            &note(4, &format!("n{i}")),
            &format!("lead-4-note-{i:04}"),
            "lead",
            AT,
        )
        .unwrap();
        witnesses.push(q.witness(sha256_hex(&q.to_bytes()), AT.into()));
    }
    let first = planned(&q, 5, "lead-cut-0001");
    let cut = first.queue;
    let sha = sha256_hex(&cut.to_bytes());
    let archive = parse_queue(&first.archive_bytes).unwrap();
    for w in &witnesses {
        match cut.check_extends(&sha, w) {
            Ok(()) => assert!(w.revision >= 4, "rev {}", w.revision),
            Err(WitnessError::BeforeEpoch {
                witness,
                epoch_rev,
                epochs,
            }) => {
                assert_eq!((witness, epoch_rev, epochs), (w.revision, 4, vec![1]));
                cut.check_extends_archived(&sha, w, &[(1, &archive)])
                    .unwrap();
            }
            Err(e) => panic!("rev {}: {e}", w.revision),
        }
    }
    // A witness of another history, before the epoch, is caught in the archive.
    let mut other = witnesses[1].clone();
    other.log_digest = "1".repeat(64);
    assert_eq!(
        cut.check_extends_archived(&sha, &other, &[(1, &archive)]),
        Err(WitnessError::Diverged { revision: 2 })
    );
    // A swapped or missing archive is named.
    let mut edited = archive.clone();
    edited.log[2].at = "2026-12-03T00:00:00.000Z".into();
    let err = cut
        .check_extends_archived(&sha, &witnesses[1], &[(1, &edited)])
        .unwrap_err();
    assert_eq!(err.kind(), "archive-mismatch");
    let err = cut
        .check_extends_archived(&sha, &witnesses[1], &[])
        .unwrap_err();
    assert_eq!(err.kind(), "archive-mismatch");
    // The witness the cut itself leaves continues the chain.
    let next = cut.witness_after(Some(&witnesses[6]), sha.clone(), AT.into());
    assert_eq!(next, cut.witness(sha, AT.into()));
}

#[test]
fn a_new_op_may_not_end_in_epoch() {
    let mut q = genesis();
    let err = q
        .execute(&note(4, "x"), "lead-4-note.epoch", "lead", AT)
        .unwrap_err();
    assert_eq!(err.kind(), "reserved-op");
    assert_eq!(
        q.plan_archive(2, "lead-cut-1.epoch", "lead", AT)
            .unwrap_err()
            .kind(),
        "reserved-op"
    );
    let seat = q
        .plan_archive(2, "darkwing-cut-1", "darkwing", AT)
        .unwrap_err();
    assert_eq!(seat.kind(), "not-allowed");
}

fn snapshot_md(queue: &Queue) -> Vec<u8> {
    use mosaic_queue_core::markdown::{BEGIN, END};
    format!("# Queue\n{BEGIN}\n{}{END}\n", queue.render_body()).into_bytes()
}

#[test]
fn a_snapshot_extends_a_base_from_before_its_cut_through_the_archives() {
    use mosaic_queue_core::{Certified, SnapshotError, verify_snapshot, verify_snapshot_archived};
    let (history, full) = revisions("review");
    let cut = planned(&full, 10, "lead-cut-0001");
    let (json, md) = (cut.queue.to_bytes(), snapshot_md(&cut.queue));
    let archives: [&[u8]; 1] = [&cut.archive_bytes];
    for (i, base) in history.iter().enumerate() {
        let rev = i as u64 + 1;
        let got = verify_snapshot_archived(&json, &md, Some(base), &archives);
        assert_eq!(
            got,
            Ok(Certified {
                revision: full.revision() + 1,
                base_revision: Some(rev)
            })
        );
        // Without the archive, a base from before the cut cannot be compared.
        let alone = verify_snapshot(&json, &md, Some(base)).unwrap_err();
        assert_eq!(
            alone.to_string(),
            format!(
                "the base (rev {rev}) is older than the snapshot's cut, and docs/plans/archive/epoch-0001.json is not among the snapshot's archives"
            )
        );
    }
    // The cut queue itself needs no archive; a base whose history differs is named.
    verify_snapshot(&json, &md, Some(&json)).unwrap();
    let mut other: QueueFile = parse_queue(&history[5]).unwrap();
    other.log[3].at = "2026-12-09T00:00:00.000Z".into();
    let other = mosaic_queue_core::to_canonical(&other);
    assert_eq!(
        verify_snapshot_archived(&json, &md, Some(&other), &archives),
        Err(SnapshotError::Diverged { rev: 4 })
    );
    // An archive that is not the one the epoch names is not used.
    let mut edited = cut.archive_bytes.clone();
    edited.pop();
    let swapped = verify_snapshot_archived(&json, &md, Some(&history[2]), &[&edited]);
    assert_eq!(swapped.unwrap_err().kind(), "snapshot-archive");
}

#[test]
fn a_snapshot_two_cuts_on_extends_the_first_cut() {
    use mosaic_queue_core::verify_snapshot_archived;
    let mut q = genesis();
    for i in 0..6 {
        q.execute(
            &note(4, &format!("n{i}")),
            &format!("lead-4-note-{i:04}"),
            "lead",
            AT,
        )
        .unwrap();
    }
    let first = planned(&q, 5, "lead-cut-0001");
    let base = first.queue.to_bytes();
    q = first.queue;
    for i in 6..10 {
        q.execute(
            &note(5, &format!("n{i}")),
            &format!("lead-5-note-{i:04}"),
            "lead",
            AT,
        )
        .unwrap();
    }
    let second = planned(&q, 10, "lead-cut-0002");
    let (json, md) = (second.queue.to_bytes(), snapshot_md(&second.queue));
    let archives: [&[u8]; 2] = [&second.archive_bytes, &first.archive_bytes];
    let got = verify_snapshot_archived(&json, &md, Some(&base), &archives).unwrap();
    assert_eq!(got.base_revision, Some(8));
    // Only the second archive holds what the base has: the first is not needed.
    verify_snapshot_archived(&json, &md, Some(&base), &[&second.archive_bytes]).unwrap();
}

#[test]
fn writes_after_a_cut_splice_as_they_did_before() {
    use mosaic_queue_core::layout;
    let (_, _, mut q) = two_cuts();
    for i in 0..3 {
        let before = q.to_bytes();
        let rows = q.rows().to_vec();
        q.execute(
            &note(4, &format!("m{i}")),
            &format!("lead-4-more-{i:04}"),
            "lead",
            AT,
        )
        .unwrap();
        for prev_rows in [&rows[..], &[]] {
            let spliced = layout::appended(q.file(), &before, prev_rows).unwrap();
            assert!(spliced.to_vec(&before) == q.to_bytes(), "write {i}");
        }
        assert_eq!(q.file().log.last().unwrap().semantics, 6);
    }
    Queue::verify(&q.to_bytes()).unwrap();
}

/// A cut before rev 2 leaves a log of as many entries as the one it replaces, plus one: the
/// splice a write uses must not take the old log's text for it.
#[test]
fn the_cut_file_is_never_spliced_onto_the_log_it_replaces() {
    use mosaic_queue_core::layout;
    let mut q = genesis();
    q.execute(&note(4, "one"), "lead-4-note-0001", "lead", AT)
        .unwrap();
    let before = q.to_bytes();
    let cut = planned(&q, 2, "lead-cut-0001");
    assert_eq!(cut.queue.file().log.len(), q.file().log.len() + 1);
    assert_eq!(layout::appended(cut.queue.file(), &before, q.rows()), None);
    assert_eq!(layout::appended(cut.queue.file(), &before, &[]), None);
}

/// What one step answered: its receipt, with the revision it names, or its refusal's kind.
#[derive(Debug, PartialEq)]
enum Answer {
    Wrote(Option<u64>, String),
    Refused(String),
}

/// `step` as it is asked of a queue cut at `head`: an adopt names the revision it adopts, which
/// stands one later from the cut's archive entry on (the revision `head` itself included,
/// since the archive entry follows it).
fn later(step: &common::Step, head: u64) -> common::Step {
    let mut step = step.clone();
    if let Command::Adopt(a) = &mut step.command
        && a.revision >= head
    {
        a.revision += 1;
    }
    step
}

/// A receipt's `adopt rev N` as the cut queue at `head` writes it (`later`).
fn adopted_later(receipt: &str, head: u64) -> String {
    let Some((start, rest)) = receipt.split_once(" adopt rev ") else {
        return receipt.to_owned();
    };
    let (n, tail) = rest.split_once(' ').unwrap();
    let n: u64 = n.parse().unwrap();
    let n = if n >= head { n + 1 } else { n };
    format!("{start} adopt rev {n} {tail}")
}

fn step_on(queue: &mut Queue, step: &common::Step) -> Result<Outcome, VerbError> {
    match step.semantics {
        None => queue.execute(&step.command, &step.op, &step.by, &step.at),
        Some(sem) => step
            .command
            .normalize(queue.state(), queue.revision() + 1, &step.by, &step.at)
            .and_then(|args| queue.append_entry(args, &step.op, &step.by, &step.at, sem))
            .map(|receipt| Outcome::Applied {
                rev: queue.revision(),
                receipt,
                request: None,
            }),
    }
}

fn answer(result: Result<Outcome, VerbError>) -> Answer {
    match result {
        Ok(Outcome::Applied { rev, receipt, .. } | Outcome::Recorded { rev, receipt, .. }) => {
            Answer::Wrote(Some(rev), receipt)
        }
        Ok(o @ Outcome::NothingToTake { .. }) => Answer::Wrote(None, o.receipt().to_owned()),
        Err(e) => Answer::Refused(e.kind().to_owned()),
    }
}

/// Every scenario cut after each of its steps at every revision it may be cut at, then driven
/// on by the steps left: each answers as it did on the whole history, a new entry one
/// revision later (the archive entry took one), a retry of an archived op through the archive,
/// and a command naming an archived row refused as archived where the whole history refused it.
#[test]
fn a_cut_queue_answers_every_later_step_as_the_whole_history_does() {
    let (mut runs, mut archived_retries, mut archived_refusals) = (0, 0, 0);
    for name in common::scenario_names() {
        let sc = common::load_scenario(&name);
        let g = &sc.genesis;
        let (mut full, _) = Queue::genesis(g.args.clone(), &g.op, &g.by, &g.at).unwrap();
        let mut prefixes = vec![full.clone()];
        let mut whole = Vec::new();
        for step in &sc.steps {
            whole.push(answer(step_on(&mut full, step)));
            prefixes.push(full.clone());
        }
        for (s, prefix) in prefixes.iter().enumerate() {
            let head = prefix.revision();
            for before in 2..=head + 1 {
                let cut = planned(prefix, before, "lead-cut-0001");
                let archive = parse_queue(&cut.archive_bytes).unwrap();
                let mut q = cut.queue;
                runs += 1;
                for (i, step) in sc.steps.iter().enumerate().skip(s) {
                    let what = format!("{name}: cut before {before} after step {s}, step {i}");
                    let step = &later(step, head);
                    let mut got = step_on(&mut q, step);
                    if matches!(got, Err(VerbError::OpMaybeArchived { .. })) {
                        got = q.execute_with_archives(
                            &step.command,
                            &step.op,
                            &step.by,
                            &step.at,
                            &[(1, &archive)],
                        );
                        archived_retries += 1;
                    }
                    let got = answer(got);
                    let want = match &whole[i] {
                        // New entries stand one revision later; ops from before the cut keep
                        // theirs.
                        Answer::Wrote(Some(rev), receipt) if *rev > head => Answer::Wrote(
                            Some(rev + 1),
                            adopted_later(
                                &receipt.replace(
                                    &format!(" rev {rev} "),
                                    &format!(" rev {} ", rev + 1),
                                ),
                                head,
                            ),
                        ),
                        other => match other {
                            Answer::Wrote(rev, r) => Answer::Wrote(*rev, r.clone()),
                            Answer::Refused(k) => Answer::Refused(k.clone()),
                        },
                    };
                    if got == Answer::Refused("row-archived".into())
                        && matches!(want, Answer::Refused(_))
                    {
                        archived_refusals += 1;
                        continue;
                    }
                    assert_eq!(got, want, "{what}");
                }
                Queue::verify(&q.to_bytes()).unwrap();
            }
        }
    }
    assert!(
        runs > 500 && archived_retries > 50 && archived_refusals > 0,
        "{runs} runs, {archived_retries} archived retries, {archived_refusals} archived refusals"
    );
}

/// The two entries of a cut stand only where a cut puts them, once.
#[test]
fn epoch_and_archive_entries_are_refused_anywhere_else() {
    let (_, _, cut) = two_cuts();
    let last = cut.file().log.last().unwrap().clone();
    let epoch = cut.file().log[0].args.clone();
    let why = |r: Result<String, VerbError>| match r {
        Err(VerbError::EpochEntry { why }) => why,
        other => panic!("{other:?}"),
    };
    // A second archive entry, and an epoch entry past the first.
    let mut q = cut.clone();
    assert_eq!(
        why(q.append_entry(last.args.clone(), "lead-cut-0003", "lead", AT, 6)),
        "the log holds a second archive entry for its epoch"
    );
    assert_eq!(
        why(q.append_entry(epoch.clone(), "lead-cut-0004", "lead", AT, 6)),
        "an epoch entry stands only first in a log"
    );
    let reserved = q.append_entry(epoch, "lead-cut-0004.epoch", "lead", AT, 6);
    assert_eq!(reserved.unwrap_err().kind(), "reserved-op");
    // An archive entry in a log that starts at genesis: semantics 6 is unknown there, under
    // 5 it is refused as no cut writes it, and under 7 as no epoch entry stands before it.
    let mut g = genesis();
    let refused = g.append_entry(last.args.clone(), "lead-cut-0005", "lead", AT, 6);
    assert_eq!(
        refused.unwrap_err(),
        VerbError::UnknownSemantics {
            semantics: 6,
            current: 8
        }
    );
    assert_eq!(
        why(g.append_entry(last.args.clone(), "lead-cut-0005", "lead", AT, 5)),
        "an archive entry is written under semantics 6 (7 in a queue that reached 7)"
    );
    assert_eq!(
        why(g.append_entry(last.args, "lead-cut-0005", "lead", AT, 7)),
        "an archive entry follows the epoch entry it pins; this log has none"
    );
    assert_eq!(q.to_bytes(), cut.to_bytes());
}
