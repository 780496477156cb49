//! Every cell of the transition matrix, allowed and refused, by every kind of actor. The
//! expectations are written out by hand from SPEC.md section 4, not derived from `RULES`, so a
//! wrong rule in the code fails here; docs/transitions.md is checked against `RULES` too.

mod common;

use mosaic_queue_core::{
    Command, Evidence, GenesisArgs, IdArgs, MapRow, MoveArgs, Queue, ReclaimCmd, Status,
    internal::matrix,
};

const ACTORS: [&str; 5] = ["darkwing", "flicker", "lead", "jason", "sage"];
const CANDIDATE: &str = "git:1111111111111111111111111111111111111111";
const AT: &str = "2026-11-29T12:00:00.000Z";

/// Row: from-status; columns: to-status in `Status::ALL` order (queued, in-progress,
/// in-review, waiting-on-jason, blocked, parked, done); each cell lists who may move the
/// row (owned by darkwing) there: o = owner darkwing, f = flicker, l = lead, j = jason,
/// s = sage; `=` marks the same status and `x` a done row (refused as done, even done -> done).
const EXPECTED: [(&str, [&str; 7]); 7] = [
    ("queued", ["=", "o", "", "", "", "js", ""]),
    ("in-progress", ["js", "=", "o", "", "ojs", "js", ""]),
    ("in-review", ["js", "o", "=", "o", "", "js", "ojs"]),
    ("waiting-on-jason", ["js", "", "", "=", "", "js", "j"]),
    ("blocked", ["js", "ojs", "", "", "=", "js", ""]),
    ("parked", ["js", "js", "js", "js", "js", "=", ""]),
    ("done", ["x", "x", "x", "x", "x", "x", "x"]),
];

fn letter(actor: &str) -> char {
    match actor {
        "darkwing" => 'o',
        other => other.chars().next().unwrap(),
    }
}

/// A queue whose row 1 (owned by darkwing, issue #7) is in `from`. In-review rows get there
/// by a real move so they have a review round; every other status comes from the map.
fn queue_with_row_in(from: Status, owner: Option<&str>) -> Queue {
    let map_status = if from == Status::InReview {
        Status::InProgress
    } else {
        from
    };
    let args = GenesisArgs {
        branch: "main".into(),
        root: "/srv/q".into(),
        source: "0".repeat(40),
        rows: vec![MapRow {
            id: 1,
            piece: "Cell under test".into(),
            owner: owner.map(Into::into),
            status: map_status,
            gate: None,
            issues: vec![7],
            note: None,
        }],
        legacy_view: String::new(),
    };
    let (mut q, _) = Queue::genesis(args, "genesis-cells", "jason", AT).unwrap();
    if from == Status::InReview {
        let cmd = Command::Move(MoveArgs {
            id: 1,
            to: Status::InReview,
            reason: None,
            candidate: Some(CANDIDATE.into()),
            manifest: None,
            issue: None,
            evidence: None,
            lease: None,
        });
        q.execute(&cmd, "setup-review", owner.unwrap(), AT).unwrap();
    }
    q
}

/// The move from `from` to `to` with whatever extra the target needs.
fn move_cmd(from: Status, to: Status) -> Command {
    Command::Move(MoveArgs {
        id: 1,
        to,
        reason: (to == Status::Blocked).then(|| "cell reason".into()),
        candidate: (to == Status::InReview).then(|| CANDIDATE.into()),
        manifest: None,
        issue: None,
        evidence: (from == Status::InReview && to == Status::Done).then(|| Evidence {
            comment: 5,
            round: 1,
            candidate: CANDIDATE.into(),
        }),
        lease: None,
    })
}

#[test]
fn every_move_cell_by_every_actor() {
    let mut checked = 0;
    for (from_name, cells) in EXPECTED {
        let from = Status::parse(from_name).unwrap();
        for (to, cell) in Status::ALL.into_iter().zip(cells) {
            for actor in ACTORS {
                let mut q = queue_with_row_in(from, Some("darkwing"));
                let before = q.to_bytes();
                let result = q.execute(&move_cmd(from, to), "cell-move-op", actor, AT);
                let expected_kind = match cell {
                    "=" => Some("same-status"),
                    "x" => Some("row-done"),
                    allowed if allowed.contains(letter(actor)) => None,
                    _ if matrix::rule(from, to, matrix::Via::Move).is_none() => {
                        Some("no-transition")
                    }
                    _ => Some("not-allowed"),
                };
                match (expected_kind, result) {
                    (None, Ok(outcome)) => {
                        assert!(outcome.receipt().contains(&format!("{from} -> {to}")));
                        assert_eq!(q.rows()[0].status, to);
                        Queue::verify(&q.to_bytes()).expect("written file verifies");
                    }
                    (Some(kind), Err(e)) => {
                        assert_eq!(e.kind(), kind, "{actor}: {from} -> {to}: {e}");
                        assert_eq!(q.to_bytes(), before, "a refusal changed the file");
                    }
                    (want, got) => {
                        panic!("{actor}: {from} -> {to}: expected {want:?}, got {got:?}")
                    }
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 7 * 7 * ACTORS.len());
}

#[test]
fn an_unowned_queued_row_goes_to_whoever_starts_it() {
    for actor in ACTORS {
        let mut q = queue_with_row_in(Status::Queued, None);
        let cmd = move_cmd(Status::Queued, Status::InProgress);
        q.execute(&cmd, "claim-the-row", actor, AT).unwrap();
        assert_eq!(q.rows()[0].owner.as_deref(), Some(actor));
    }
}

#[test]
fn release_from_every_status_by_every_actor() {
    for from in Status::ALL {
        for actor in ACTORS {
            let mut q = queue_with_row_in(from, Some("darkwing"));
            let result = q.execute(
                &Command::Release(IdArgs { id: 1 }),
                "release-cell",
                actor,
                AT,
            );
            let allowed = from == Status::InProgress && "ojs".contains(letter(actor));
            match result {
                Ok(_) => {
                    assert!(allowed, "{actor} released a {from} row");
                    assert_eq!(q.rows()[0].status, Status::Queued);
                    assert_eq!(q.rows()[0].owner, None);
                }
                Err(e) => {
                    assert!(
                        !allowed,
                        "{actor} could not release an in-progress row: {e}"
                    );
                    let want = match from {
                        Status::Done => "row-done",
                        Status::InProgress => "not-allowed",
                        _ => "no-transition",
                    };
                    assert_eq!(e.kind(), want);
                }
            }
        }
    }
}

/// `reclaim` (semantics 7) ends a claim: only an in-progress row has one, and only the lead,
/// jason and sage end it, leaving the row queued with no owner.
#[test]
fn reclaim_from_every_status_by_every_actor() {
    for from in Status::ALL {
        for actor in ACTORS {
            let mut q = queue_with_row_in(from, Some("darkwing"));
            let before = q.to_bytes();
            let cmd = Command::Reclaim(ReclaimCmd {
                id: 1,
                reason: "the seat stopped".into(),
                heartbeat: None,
            });
            let result = q.execute(&cmd, "reclaim-cell", actor, AT);
            let want = match (from, actor) {
                (Status::Done, _) => Some("row-done"),
                (Status::InProgress, "lead" | "jason" | "sage") => None,
                (Status::InProgress, _) => Some("not-allowed"),
                _ => Some("no-claim"),
            };
            match (want, result) {
                (None, Ok(outcome)) => {
                    assert_eq!(
                        outcome.receipt(),
                        "ok reclaim-cell rev 2 reclaim 1 in-progress -> queued, from darkwing"
                    );
                    assert_eq!(
                        (q.rows()[0].status, &q.rows()[0].owner),
                        (Status::Queued, &None)
                    );
                    assert_eq!(q.rows()[0].fenced[0].seat, "darkwing");
                }
                (Some(kind), Err(e)) => {
                    assert_eq!(e.kind(), kind, "{actor}: {from}: {e}");
                    assert_eq!(q.to_bytes(), before);
                }
                (want, got) => panic!("{actor}: {from}: expected {want:?}, got {got:?}"),
            }
        }
    }
}

#[test]
fn docs_transitions_md_shows_the_matrix() {
    let path = common::fixtures().join("../docs/transitions.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let begin = "<!-- matrix:begin -->\n";
    let start = doc.find(begin).expect("begin marker") + begin.len();
    let end = doc.find("<!-- matrix:end -->").expect("end marker");
    // The page as it would be with the matrix the code prints: compared, never written here.
    let updated = format!("{}{}{}", &doc[..start], matrix::markdown(), &doc[end..]);
    common::checked_in(&path, updated.as_bytes());
}
