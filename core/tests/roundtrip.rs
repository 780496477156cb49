//! Property tests over random command sequences from the basic scenario's genesis: refusals and
//! retries never change the bytes, the written file verifies back to the same rows, revision and
//! bytes, and every recorded op answers a retry with its original receipt.

mod common;

use std::sync::OnceLock;

use mosaic_queue_core::{
    AbandonCmd, AssignArgs, Command, Evidence, IdArgs, LeaseDefaultArgs, MoveArgs, NewRow,
    NoteArgs, Outcome, Queue, ReclaimCmd, RecordArgs, ResolveArgs, Row, SetArgs, SetField,
    SetValue, Status, TakeCmd, VerdictKind,
    internal::matrix::{RULES, Via, Who},
    parse_queue,
    signs::Signs,
    to_canonical,
};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// Seats the basic genesis knows; `filbert` owns row 3.
const SEATS: &[&str] = &["jason", "sage", "lead", "darkwing", "flicker", "filbert"];
/// `|` and non-ASCII must survive the round trip as they are.
const SAFE: &[char] = &['a', 'b', 'z', '7', '|', '#', '-', '.', 'é', 'ß', '日', '🦆'];
/// For text the rules refuse: `<`, `\`, a control character, a space at an edge, nothing.
const RISKY: &[char] = &['a', '|', 'é', ' ', '<', '\\', '\t'];
const ISSUES: &[u64] = &[0, 1400, 1508, 1510, 1511, 1512, 1520];
const DIGESTS: &[&str] = &[
    "git:abababababababababababababababababababab",
    // A manifest digest whose text no command carries: the move must refuse it.
    "sha256:cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd",
    "git:0123456789abcdef0123456789abcdef01234567",
    "sha256:not-a-digest",
];

/// One command as it ran: its op id, its actor and the command.
#[derive(Clone, Debug)]
struct Step {
    op: String,
    by: String,
    command: Command,
}

fn genesis() -> Queue {
    // Loading and replaying genesis once is enough; every case starts from a clone.
    static QUEUE: OnceLock<Queue> = OnceLock::new();
    QUEUE
        .get_or_init(|| {
            let sc = common::load_scenario("basic");
            let g = &sc.genesis;
            Queue::genesis(g.args.clone(), &g.op, &g.by, &g.at)
                .expect("basic genesis")
                .0
        })
        .clone()
}

fn seat() -> impl Strategy<Value = String> {
    prop::sample::select(SEATS).prop_map(String::from)
}

/// A seat, now and then a name the seat rules refuse.
fn seat_or_bad() -> impl Strategy<Value = String> {
    prop_oneof![12 => seat(), 1 => Just(String::from("Flicker"))]
}

/// Mostly text the rules accept (words of the safe alphabet), sometimes anything.
fn text() -> impl Strategy<Value = String> {
    let word = prop::collection::vec(prop::sample::select(SAFE), 1..6)
        .prop_map(|chars| chars.into_iter().collect::<String>());
    prop_oneof![
        6 => prop::collection::vec(word, 1..4).prop_map(|words| words.join(" ")),
        1 => prop::collection::vec(prop::sample::select(RISKY), 0..8)
            .prop_map(|chars| chars.into_iter().collect()),
    ]
}

fn anchor() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(&["docs/plans/queue.md#data", "docs/é.md#日本", ""][..])
            .prop_map(String::from),
        1 => text(),
    ]
}

fn status() -> impl Strategy<Value = Status> {
    prop::sample::select(&Status::ALL[..])
}

fn issues() -> impl Strategy<Value = Vec<u64>> {
    prop::collection::vec(prop::sample::select(ISSUES), 0..4)
}

fn digest() -> impl Strategy<Value = String> {
    prop::sample::select(DIGESTS).prop_map(String::from)
}

/// Row ids 1 to 4 exist after genesis and adds make more; 9 stays missing.
fn row_id() -> impl Strategy<Value = u64> {
    prop_oneof![12 => 1..=4u64, 3 => 5..=6u64, 1 => Just(9u64)]
}

fn add() -> impl Strategy<Value = Command> {
    (
        text(),
        prop::option::of(seat()),
        prop::sample::select(&[Status::Queued, Status::Parked, Status::InProgress][..]),
        prop::option::of(text()),
        issues(),
        prop::collection::vec(seat(), 0..2),
        prop::option::of(anchor()),
        prop::option::of(text()),
        prop::collection::vec(row_id(), 0..2),
    )
        .prop_map(
            |(piece, owner, status, gate, issues, reviewers, brief, note, after)| {
                Command::Add(NewRow {
                    piece,
                    owner,
                    status,
                    gate,
                    issues,
                    reviewers,
                    brief,
                    note,
                    after,
                })
            },
        )
}

fn evidence() -> impl Strategy<Value = Evidence> {
    (1..100u64, 1..3u32, digest()).prop_map(|(comment, round, candidate)| Evidence {
        comment,
        round,
        candidate,
    })
}

/// A move mostly carries only what its target needs; a sloppy one (one in ten) keeps every
/// flag it drew, which the rules must refuse or ignore.
fn move_() -> impl Strategy<Value = Command> {
    (
        (row_id(), status(), prop::option::of(text())),
        (
            digest(),
            prop::option::weighted(0.4, prop::sample::select(ISSUES)),
        ),
        (evidence(), prop::bool::weighted(0.1), lease()),
    )
        .prop_map(
            |((id, to, reason), (candidate, issue), (evidence, sloppy, lease))| {
                let review = to == Status::InReview;
                let args = if sloppy {
                    MoveArgs {
                        id,
                        to,
                        reason,
                        candidate: Some(candidate),
                        manifest: None,
                        issue,
                        evidence: Some(evidence),
                        lease,
                    }
                } else {
                    MoveArgs {
                        id,
                        to,
                        reason: match to {
                            Status::Blocked => reason.or_else(|| Some(String::from("waiting"))),
                            _ => reason,
                        },
                        candidate: review.then_some(candidate),
                        manifest: None,
                        issue: issue.filter(|_| review),
                        evidence: (to == Status::Done).then_some(evidence),
                        lease: lease.filter(|_| to == Status::InProgress),
                    }
                };
                Command::Move(args)
            },
        )
}

/// Mostly a value of the field's own type, sometimes another type, which `set` must refuse.
fn set() -> impl Strategy<Value = Command> {
    let text_value = || prop::option::of(text()).prop_map(SetValue::Text);
    let value = prop_oneof![
        3 => (
            prop::sample::select(&[SetField::Piece, SetField::Gate][..]),
            text_value()
        ),
        2 => (
            Just(SetField::Brief),
            prop::option::of(anchor()).prop_map(SetValue::Text)
        ),
        3 => (
            prop::sample::select(&[SetField::Issues, SetField::Closes][..]),
            issues().prop_map(SetValue::Numbers)
        ),
        2 => (
            Just(SetField::Reviewers),
            prop::collection::vec(seat_or_bad(), 0..3).prop_map(SetValue::Seats)
        ),
        2 => (
            Just(SetField::After),
            prop::collection::vec(row_id(), 0..3).prop_map(SetValue::Numbers)
        ),
        1 => (prop::sample::select(&SetField::ALL[..]), text_value()),
    ];
    (row_id(), value, prop::option::of(text())).prop_map(|(id, (field, value), reason)| {
        Command::Set(SetArgs {
            id,
            field,
            value,
            reason,
        })
    })
}

fn command() -> impl Strategy<Value = Command> {
    prop_oneof![
        2 => add(),
        6 => move_(),
        2 => row_id().prop_map(|id| Command::Release(IdArgs { id })),
        2 => (row_id(), seat_or_bad()).prop_map(|(id, owner)| Command::Assign(AssignArgs { id, owner })),
        2 => (row_id(), prop::option::of(text())).prop_map(|(id, text)| Command::Note(NoteArgs { id, text })),
        3 => set(),
        3 => review(),
        2 => Just(Command::Take(TakeCmd::default())),
        4 => leases(),
    ]
}

/// A lease in seconds: mostly none, else a minute (which a few quiet steps outlast), an
/// hour, or one out of bounds.
fn lease() -> impl Strategy<Value = Option<u32>> {
    prop::option::weighted(
        0.3,
        prop::sample::select(&[60u32, 90, 3_600, 59, 86_401][..]),
    )
}

/// A heartbeat stamp: early in the run, late in it, ahead of any step, or not a time.
fn stamp() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => (0..120usize).prop_map(at),
        1 => Just(String::from("2099-01-01T00:00:00.000Z")),
        1 => Just(String::from("not a time")),
    ]
}

/// The verbs of semantics 7: takes with a lease and the heartbeats of some seats (so that
/// claims expire and are reclaimed), the default lease, and privileged reclaims.
fn leases() -> impl Strategy<Value = Command> {
    let beats = prop::collection::vec((seat(), stamp()), 0..4).prop_map(|beats| {
        beats
            .iter()
            .fold(Signs::none(), |signs, (seat, at)| signs.with(seat, at))
    });
    prop_oneof![
        4 => (lease(), prop::bool::weighted(0.2), beats).prop_map(|(lease, no_reclaim, heartbeats)| {
            Command::Take(TakeCmd { lease, no_reclaim, heartbeats })
        }),
        2 => lease().prop_map(|lease| Command::LeaseDefault(LeaseDefaultArgs { lease })),
        1 => (row_id(), text(), prop::option::of(stamp())).prop_map(|(id, reason, heartbeat)| {
            Command::Reclaim(ReclaimCmd { id, reason, heartbeat })
        }),
    ]
}

/// Review steps against whatever attempts the run has made: attempts are named from the same
/// op pool as every step, so a resolve or an abandon now and then names a real one.
fn review() -> impl Strategy<Value = Command> {
    let attempt = (0..100u32).prop_map(|n| format!("op-{n:03}-x"));
    let verdict = prop::sample::select(&[VerdictKind::Approve, VerdictKind::Changes][..]);
    prop_oneof![
        2 => row_id().prop_map(|id| Command::ReviewRequest(IdArgs { id })),
        3 => (row_id(), verdict, 0..4u64, digest()).prop_map(|(id, verdict, comment, candidate)| {
            Command::ReviewRecord(RecordArgs { id, verdict, comment, candidate })
        }),
        2 => (row_id(), attempt.clone(), 0..4u64).prop_map(|(id, attempt, comment)| {
            Command::ReviewResolve(ResolveArgs { id, attempt, comment })
        }),
        1 => (row_id(), attempt, text(), prop::bool::weighted(0.8)).prop_map(|(id, attempt, reason, yes)| {
            Command::ReviewAbandon(AbandonCmd { id, attempt, reason, yes })
        }),
    ]
}

/// Who acts: a seat drawn up front, or whoever owns the command's row when the step runs
/// (most moves need the owner, and the owner is only known once earlier steps have run).
#[derive(Clone, Debug)]
enum Actor {
    Seat(String),
    RowOwner,
}

/// One entry of a plan: a new command, or the same op, actor and command as an earlier step
/// (`Again(k)` repeats the step k+1 back), the way a caller retries after a crash.
#[derive(Clone, Debug)]
enum Plan {
    Fresh {
        op: String,
        actor: Actor,
        command: Box<Command>,
        steer: Option<usize>,
    },
    Again(usize),
}

/// A small op pool, so ops now and then collide across steps and actors; rarely an op id or an
/// actor the rules refuse.
fn plan() -> impl Strategy<Value = Plan> {
    let op = prop_oneof![
        25 => (0..100u32).prop_map(|n| format!("op-{n:03}-x")),
        1 => Just(String::from("Bad Op")),
    ];
    let actor = prop_oneof![
        12 => seat().prop_map(Actor::Seat),
        8 => Just(Actor::RowOwner),
        1 => Just(Actor::Seat(String::from("Flicker"))),
    ];
    let steer = prop::option::weighted(0.5, 0..8usize);
    let fresh = (op, actor, command(), steer).prop_map(|(op, actor, command, steer)| Plan::Fresh {
        op,
        actor,
        command: Box::new(command),
        steer,
    });
    prop_oneof![8 => fresh, 1 => (0..8usize).prop_map(Plan::Again)]
}

/// Rewrites a drawn move into the k-th transition the matrix allows from the row's status, with
/// what that transition needs, and returns the actor it needs. Random moves alone rarely get a
/// row through review to done; steered ones do, while the drawn flags still vary the rest.
fn steer_move(m: &mut MoveArgs, row: &Row, k: usize) -> Option<String> {
    let rules: Vec<_> = RULES
        .iter()
        .filter(|r| r.from == row.status && r.via == Via::Move)
        .collect();
    let rule = rules.get(k % rules.len().max(1))?;
    m.to = rule.to;
    if m.to == Status::InReview {
        m.candidate.get_or_insert_with(|| String::from(DIGESTS[0]));
        if m.issue.is_none() && row.issues.len() > 1 {
            m.issue = row.issues.first().copied();
        }
    } else {
        m.candidate = None;
        m.issue = None;
    }
    if m.to == Status::Blocked && m.reason.is_none() {
        m.reason = Some(String::from("waiting"));
    }
    let round = row.review.as_ref().and_then(|r| r.rounds.last());
    m.evidence = match (row.status, m.to, round) {
        (Status::InReview, Status::Done, Some(round)) => Some(Evidence {
            comment: 77,
            round: round.round,
            candidate: round.candidate.clone().unwrap_or_default(),
        }),
        _ => None,
    };
    let privileged = if k.is_multiple_of(2) { "jason" } else { "sage" };
    Some(String::from(match rule.who {
        Who::Jason => "jason",
        Who::Privileged | Who::LeadOrPrivileged => privileged,
        Who::Owner | Who::OwnerOrPrivileged | Who::OwnerOrClaimer => {
            row.owner.as_deref().unwrap_or("darkwing")
        }
    }))
}

fn row_of(command: &Command) -> Option<u64> {
    match command {
        Command::Move(a) => Some(a.id),
        Command::Release(a) => Some(a.id),
        Command::Assign(a) => Some(a.id),
        Command::Note(a) => Some(a.id),
        Command::Set(a) => Some(a.id),
        Command::ReviewRequest(a) => Some(a.id),
        Command::ReviewOutcome(a) => Some(a.id),
        Command::ReviewResolve(a) => Some(a.id),
        Command::ReviewAbandon(a) => Some(a.id),
        Command::ReviewRecord(a) => Some(a.id),
        Command::Reclaim(a) => Some(a.id),
        Command::Add(_)
        | Command::AcceptHistory(_)
        | Command::Take(_)
        | Command::LeaseDefault(_)
        | Command::Replication(_)
        | Command::Adopt(_) => None,
    }
}

/// The concrete step a plan entry stands for at this point of the run. An `Again` with nothing
/// before it has nothing to repeat and is skipped.
fn resolve(plan: &Plan, queue: &Queue, done: &[Step]) -> Option<Step> {
    match plan {
        Plan::Again(_) if done.is_empty() => None,
        Plan::Again(k) => Some(done[done.len() - 1 - k % done.len()].clone()),
        Plan::Fresh {
            op,
            actor,
            command,
            steer,
        } => {
            let row = row_of(command).and_then(|id| queue.rows().iter().find(|r| r.id == id));
            let by = match actor {
                Actor::Seat(s) => s.clone(),
                Actor::RowOwner => row
                    .and_then(|r| r.owner.clone())
                    .unwrap_or_else(|| String::from("lead")),
            };
            let mut step = Step {
                op: op.clone(),
                by,
                command: (**command).clone(),
            };
            if let (Some(k), Some(row), Command::Move(m)) = (steer, row, &mut step.command) {
                step.by = steer_move(m, row, *k).unwrap_or(step.by);
            }
            Some(step)
        }
    }
}

/// Step `i`'s time: 30 seconds apart, so that a lease of a minute runs out within a run.
fn at(i: usize) -> String {
    let s = 30 * i;
    format!(
        "2026-11-29T{:02}:{:02}:{:02}.000Z",
        11 + s / 3_600,
        s / 60 % 60,
        s % 60
    )
}

/// A step that wrote an entry, with what it printed.
struct Applied {
    index: usize,
    rev: u64,
    receipt: String,
}

fn fail(context: &str, e: impl std::fmt::Display) -> TestCaseError {
    TestCaseError::fail(format!("{context}: {e}"))
}

/// Runs a plan from genesis, checking each step's effect on the bytes. Returns the queue, the
/// steps as they ran and the ones that wrote an entry.
fn run(plans: &[Plan]) -> Result<(Queue, Vec<Step>, Vec<Applied>), TestCaseError> {
    let mut queue = genesis();
    let mut steps: Vec<Step> = Vec::with_capacity(plans.len());
    let mut applied = Vec::new();
    for plan in plans {
        let Some(s) = resolve(plan, &queue, &steps) else {
            continue;
        };
        let i = steps.len();
        let before = queue.to_bytes();
        let revision = queue.revision();
        match queue.execute(&s.command, &s.op, &s.by, &at(i)) {
            Ok(Outcome::Applied { rev, receipt, .. }) => {
                prop_assert_eq!(rev, revision + 1, "step {}", i);
                prop_assert_eq!(queue.revision(), rev, "step {}", i);
                let prefix = format!("ok {} rev {rev} ", s.op);
                prop_assert!(receipt.starts_with(&prefix), "step {}: {}", i, receipt);
                applied.push(Applied {
                    index: i,
                    rev,
                    receipt,
                });
            }
            Ok(Outcome::Recorded { .. } | Outcome::NothingToTake { .. }) => {
                prop_assert!(queue.to_bytes() == before, "step {}: a retry wrote", i);
            }
            Err(e) => {
                prop_assert!(
                    queue.to_bytes() == before,
                    "step {}: refusal {} wrote",
                    i,
                    e.kind()
                );
            }
        }
        steps.push(s);
    }
    Ok((queue, steps, applied))
}

/// Every applied step, run again as it was, must answer with its original receipt.
fn retry_all(
    queue: &mut Queue,
    steps: &[Step],
    applied: &[Applied],
    label: &str,
) -> Result<(), TestCaseError> {
    let before = queue.to_bytes();
    for a in applied {
        let s = &steps[a.index];
        let got = queue
            .execute(&s.command, &s.op, &s.by, &at(steps.len() + a.index))
            .map_err(|e| fail(&format!("{label}: retry of step {}", a.index), e))?;
        // A retry names the attempt its op opened, if any, with the comment as the row now
        // stands; the receipt and revision are the original's.
        let Outcome::Recorded { rev, receipt, .. } = got else {
            return Err(fail(
                &format!("{label}: retry of step {}", a.index),
                "applied again",
            ));
        };
        prop_assert_eq!(
            (rev, receipt),
            (a.rev, a.receipt.clone()),
            "{}: retry of step {}",
            label,
            a.index
        );
    }
    prop_assert!(queue.to_bytes() == before, "{}: a retry wrote", label);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn written_files_verify_back_to_themselves(plans in prop::collection::vec(plan(), 0..60)) {
        let (queue, _, _) = run(&plans)?;
        let bytes = queue.to_bytes();
        let again = Queue::verify(&bytes).map_err(|e| fail("verify", e))?;
        prop_assert_eq!(again.rows(), queue.rows());
        prop_assert_eq!(again.revision(), queue.revision());
        prop_assert!(again.to_bytes() == bytes, "re-serialized bytes differ");
        let parsed = parse_queue(&bytes).map_err(|e| fail("parse_queue", e))?;
        prop_assert!(to_canonical(&parsed) == bytes, "parse then serialize differs");
    }

    #[test]
    fn recorded_ops_answer_retries_with_their_receipt(plans in prop::collection::vec(plan(), 1..60)) {
        let (mut queue, steps, applied) = run(&plans)?;
        retry_all(&mut queue, &steps, &applied, "in memory")?;
        // The CLI retries against a file it read back, not the queue it wrote from.
        let mut reread = Queue::verify(&queue.to_bytes()).map_err(|e| fail("verify", e))?;
        retry_all(&mut reread, &steps, &applied, "re-read")?;
    }
}
