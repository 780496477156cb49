//! The verbs the crash enumeration and the fault sweep record, each from the checkout a person
//! would run it in (the same set-ups as the end-to-end enumeration had): a change of every
//! kind, genesis, accept-history, render, sync, unlock, commit, and the review request in its
//! states (posted, refused and asked again, cut short before or after its POST, recorded).

use mosaic_queue_core::Command;
use serde_json::{Value, json};

use super::gitea::{self, Gitea};
use crate::in_memory::{Checkout, Process, Ran};
use crate::io::trace::Tracer;
use crate::store::session::Session;

/// The attempt row 1's move into in-review opens.
pub const OP: &str = "darkwing-1-review";
/// The commit a move into in-review names as its candidate.
const CANDIDATE: &str = "git:0123456789abcdef0123456789abcdef01234567";

/// What the recorded run is; its retry is the same.
pub enum Run {
    Change(Command, &'static str, &'static str),
    /// A change that may open a review request, carried out against Gitea.
    Request(Command, &'static str, &'static str),
    /// `review resolve`: the queue read under the lock first (the CLI checks the comment
    /// outside it), then the change.
    Resolve(Command, &'static str, &'static str),
    Genesis,
    AcceptHistory,
    /// `archive --before REV --yes`, by the lead.
    Archive(u64, &'static str),
    Render,
    Sync,
    Unlock,
    Commit,
}

impl Run {
    /// The op id the run writes under, if it has one.
    pub fn op(&self) -> Option<&'static str> {
        match self {
            Run::Change(_, op, _) | Run::Request(_, op, _) | Run::Resolve(_, op, _) => Some(op),
            Run::Genesis => Some("genesis-0001"),
            Run::AcceptHistory => Some("jason-accept-0001"),
            Run::Archive(_, op) => Some(op),
            _ => None,
        }
    }

    pub fn exec(&self, p: &Process, gitea: &Gitea) -> Ran {
        match self {
            Run::Change(command, op, by) => p.change(command, op, by),
            Run::Request(command, op, by) => gitea::request(p, gitea, command, op, by),
            Run::Resolve(command, op, by) => resolve_as_the_cli(p, command, op, by),
            Run::Genesis => p.genesis("genesis-0001", "jason"),
            Run::AcceptHistory => {
                p.accept_history("witness lost in a test", "jason-accept-0001", "jason")
            }
            Run::Archive(before, op) => p.archive(*before, op, "lead"),
            Run::Render => p.render(),
            Run::Sync => p.sync(None),
            Run::Unlock => p.unlock(),
            Run::Commit => p.commit(false),
        }
    }
}

/// `review resolve` as the CLI runs it: the verified queue read under the lock and released,
/// then (unless the op is recorded) the comment fetched and checked, then the change.
pub fn resolve_as_the_cli(p: &Process, command: &Command, op: &str, by: &str) -> Ran {
    let held = Session::open(p.world(), p.paths(), Some("review-read"), "read")?;
    held.load()?;
    held.release()?;
    p.change(command, op, by)
}

/// A checkout, Gitea as it stands, and the run to record there.
pub struct Scenario {
    pub name: &'static str,
    pub checkout: Checkout,
    pub gitea: Gitea,
    pub run: Run,
    /// Whether a request attempt a person must settle (`review-unresolved`) is the contract's
    /// case here rather than a failure.
    pub person: bool,
}

/// A command as the core reads one from JSON.
pub fn cmd(v: Value) -> Command {
    serde_json::from_value(v).expect("a command")
}

/// Runs a change that must succeed.
fn ok(c: &Checkout, command: Value, op: &str, by: &str) {
    let ran = c.process(None).change(&cmd(command), op, by);
    assert!(ran.is_ok(), "{op}: {ran:?}");
}

fn plain(name: &'static str, checkout: Checkout, run: Run) -> Scenario {
    Scenario {
        name,
        checkout,
        gitea: Gitea::default(),
        run,
        person: false,
    }
}

fn change(
    name: &'static str,
    checkout: Checkout,
    v: Value,
    op: &'static str,
    by: &'static str,
) -> Scenario {
    plain(name, checkout, Run::Change(cmd(v), op, by))
}

fn started() -> Checkout {
    let c = Checkout::genesis();
    ok(
        &c,
        json!({"verb": "move", "id": 1, "to": "in-progress"}),
        "darkwing-1-start",
        "darkwing",
    );
    c
}

pub fn add() -> Scenario {
    let v = json!({"verb": "add", "piece": "Crash piece", "issues": [31]});
    change("add", Checkout::genesis(), v, "lead-add-0001", "lead")
}

pub fn move_to_in_progress() -> Scenario {
    let v = json!({"verb": "move", "id": 1, "to": "in-progress"});
    change(
        "move",
        Checkout::genesis(),
        v,
        "darkwing-1-start",
        "darkwing",
    )
}

/// A move into in-review on a row without reviewers: a round that posts nothing.
pub fn move_in_review() -> Scenario {
    let v =
        json!({"verb": "move", "id": 1, "to": "in-review", "candidate": CANDIDATE, "issue": 12});
    change("move in-review", started(), v, OP, "darkwing")
}

pub fn release() -> Scenario {
    change(
        "release",
        started(),
        json!({"verb": "release", "id": 1}),
        "darkwing-1-release",
        "darkwing",
    )
}

pub fn assign() -> Scenario {
    let v = json!({"verb": "assign", "id": 2, "owner": "flicker"});
    change("assign", Checkout::genesis(), v, "lead-2-assign", "lead")
}

pub fn note() -> Scenario {
    let v = json!({"verb": "note", "id": 1, "text": "after the crash"});
    change(
        "note",
        Checkout::genesis(),
        v,
        "darkwing-1-note",
        "darkwing",
    )
}

pub fn set() -> Scenario {
    let v = json!({"verb": "set", "id": 1, "field": "piece", "value": "Parser v2"});
    change("set", Checkout::genesis(), v, "lead-1-piece", "lead")
}

pub fn take() -> Scenario {
    change(
        "take",
        Checkout::genesis(),
        json!({"verb": "take"}),
        "huey-take-0001",
        "huey",
    )
}

/// huey holds row 2 with a lease of a minute, taken (and its heartbeat written) an hour before
/// the scenario runs: the claim has expired.
fn expired_claim() -> Checkout {
    let c = Checkout::genesis();
    let take = json!({"verb": "take", "lease": 60});
    let an_hour_before = "2026-03-04T04:06:07.089Z";
    let ran = super::leases::run(&c, an_hour_before, &cmd(take), "huey-take-0001", "huey");
    assert!(ran.is_ok(), "{ran:?}");
    c
}

/// louie's take reclaims huey's expired claim, reading huey's heartbeat, and writes its own.
pub fn take_reclaim() -> Scenario {
    let v = json!({"verb": "take", "lease": 60});
    change(
        "take reclaim",
        expired_claim(),
        v,
        "louie-take-0001",
        "louie",
    )
}

/// The lead ends huey's claim at once, citing its heartbeat.
pub fn reclaim() -> Scenario {
    let v = json!({"verb": "reclaim", "id": 2, "reason": "huey stopped"});
    change("reclaim", expired_claim(), v, "lead-2-reclaim", "lead")
}

pub fn genesis() -> Scenario {
    plain("genesis", Checkout::new(), Run::Genesis)
}

/// The witness is gone after a note: Manual recovery ends with accept-history.
pub fn accept_history() -> Scenario {
    let c = Checkout::genesis();
    ok(
        &c,
        json!({"verb": "note", "id": 1, "text": "before the loss"}),
        "darkwing-1-note",
        "darkwing",
    );
    c.disk.remove(&c.paths.witness);
    plain("accept-history", c, Run::AcceptHistory)
}

/// Row 1 taken to done (revs 2 to 4) through a round that posts nothing, two notes on row 2,
/// then the cut before rev 5: row 1 and the history to rev 4 go to the archive (the folder
/// created with it), which is placed before the queue file that names it.
pub fn archive() -> Scenario {
    let c = started();
    let steps = [
        json!({"verb": "move", "id": 1, "to": "in-review", "candidate": CANDIDATE, "issue": 12}),
        json!({"verb": "move", "id": 1, "to": "done",
            "evidence": {"comment": 55, "round": 1, "candidate": CANDIDATE}}),
        json!({"verb": "note", "id": 2, "text": "kept"}),
        json!({"verb": "note", "id": 2, "text": "kept again"}),
    ];
    let ops = [OP, "darkwing-1-done", "lead-2-note-1", "lead-2-note-2"];
    for (step, op) in steps.into_iter().zip(ops) {
        let by = if op.starts_with("lead") {
            "lead"
        } else {
            "darkwing"
        };
        ok(&c, step, op, by);
    }
    plain("archive", c, Run::Archive(5, "lead-archive-0001"))
}

/// The first cut made, two notes more, then a second cut before the first note: its archive
/// goes into the folder the first created (and opens with the first epoch entry).
pub fn archive_again() -> Scenario {
    let s = archive();
    let c = s.checkout;
    let first = c.process(None).archive(5, "lead-archive-0001", "lead");
    assert!(first.is_ok(), "{first:?}");
    for n in 1..=2 {
        ok(
            &c,
            json!({"verb": "note", "id": 2, "text": format!("after {n}")}),
            &format!("lead-2-note-after-{n}"),
            "lead",
        );
    }
    plain("archive again", c, Run::Archive(8, "lead-archive-0002"))
}

/// A note whose table was put back as it was: `render` rewrites it.
pub fn render() -> Scenario {
    let c = Checkout::genesis();
    let old = c.disk.get(&c.paths.queue_md).unwrap();
    ok(
        &c,
        json!({"verb": "note", "id": 1, "text": "table goes stale"}),
        "darkwing-1-note",
        "darkwing",
    );
    c.disk.put(&c.paths.queue_md, &old);
    plain("render", c, Run::Render)
}

/// A note whose writer was killed after its rename (visible, not durable), its dead lock
/// removed by `unlock`: `sync` confirms the tail.
pub fn sync() -> Scenario {
    let c = Checkout::genesis();
    let kill = Tracer::memory().halting_at("queue-renamed");
    let note = cmd(json!({"verb": "note", "id": 1, "text": "visible only"}));
    let killed = c
        .process(Some(&kill))
        .change(&note, "darkwing-1-note", "darkwing");
    assert!(killed.is_err() && kill.halted(), "{killed:?}");
    let unlocked = c.process(None).unlock();
    assert!(
        unlocked
            .as_ref()
            .is_ok_and(|l| l[0].starts_with("ok unlock: removed the dead"))
    );
    plain("sync", c, Run::Sync)
}

/// Row 1's move to done killed after its rename (rev 4 visible, the witness at rev 3), then
/// the cut before rev 5 killed after its rename too, each dead lock removed: the witness is
/// older than the epoch (rev 4), and `sync` confirms through the archive the tail both left
/// visible, naming the move the archive holds and the cut.
pub fn sync_after_cut() -> Scenario {
    let c = started();
    ok(
        &c,
        json!({"verb": "move", "id": 1, "to": "in-review", "candidate": CANDIDATE, "issue": 12}),
        OP,
        "darkwing",
    );
    let killed_at_rename = |run: &dyn Fn(&Process) -> Ran| {
        let kill = Tracer::memory().halting_at("queue-renamed");
        let killed = run(&c.process(Some(&kill)));
        assert!(killed.is_err() && kill.halted(), "{killed:?}");
        let unlocked = c.process(None).unlock();
        assert!(unlocked.is_ok(), "{unlocked:?}");
    };
    let done = cmd(json!({"verb": "move", "id": 1, "to": "done",
        "evidence": {"comment": 55, "round": 1, "candidate": CANDIDATE}}));
    killed_at_rename(&|p| p.change(&done, "darkwing-1-done", "darkwing"));
    killed_at_rename(&|p| p.archive(5, "lead-archive-0001", "lead"));
    plain("sync after a cut", c, Run::Sync)
}

/// A dead lock, left by a writer killed once it held it.
pub fn unlock() -> Scenario {
    let c = Checkout::genesis();
    let kill = Tracer::memory().halting_at("lock-taken");
    let note = cmd(json!({"verb": "note", "id": 1, "text": "never written"}));
    assert!(
        c.process(Some(&kill))
            .change(&note, "darkwing-1-note", "darkwing")
            .is_err()
    );
    assert!(c.disk.get(&c.paths.lock).is_some());
    plain("unlock", c, Run::Unlock)
}

pub fn commit() -> Scenario {
    let c = Checkout::genesis();
    ok(
        &c,
        json!({"verb": "note", "id": 1, "text": "to commit"}),
        "darkwing-1-note",
        "darkwing",
    );
    plain("commit", c, Run::Commit)
}

// ---- review requests: row 1 with reviewers, in progress, moved into in-review on #12 ----

/// `move 1 in-review --candidate ... --issue 12`.
fn to_review() -> Command {
    cmd(json!({"verb": "move", "id": 1, "to": "in-review", "candidate": CANDIDATE, "issue": 12}))
}

/// Row 1 with its reviewers (rev 2) and in progress (rev 3).
fn ready() -> Checkout {
    let c = Checkout::genesis();
    let v = json!({"verb": "set", "id": 1, "field": "reviewers", "value": ["flicker", "pixel"]});
    ok(&c, v, "sage-1-reviewers", "sage");
    ok(
        &c,
        json!({"verb": "move", "id": 1, "to": "in-progress"}),
        "darkwing-1-start",
        "darkwing",
    );
    c
}

fn review(name: &'static str, checkout: Checkout, gitea: Gitea, run: Run) -> Scenario {
    Scenario {
        name,
        checkout,
        gitea,
        run,
        person: true,
    }
}

/// Row 1's request killed at `step`: the harness as it was left.
fn request_killed_at(step: &str) -> (Checkout, Gitea) {
    let (c, g) = (ready(), Gitea::default());
    let kill = Tracer::memory().halting_at(step);
    let ran = gitea::request(&c.process(Some(&kill)), &g, &to_review(), OP, "darkwing");
    assert!(ran.is_err() && kill.halted(), "{ran:?}");
    (c, g)
}

/// The move opens a request attempt, posts its comment and logs the outcome: two writes
/// with the POST between them.
pub fn request_on_move() -> Scenario {
    let run = Run::Request(to_review(), OP, "darkwing");
    review(
        "move in-review (posts a request)",
        ready(),
        Gitea::default(),
        run,
    )
}

/// The move's request was refused by Gitea (failed, nothing posted): `review request 1` makes
/// a new attempt, which posts.
pub fn request_again() -> Scenario {
    let (c, g) = (ready(), Gitea::default());
    g.refuse_next();
    let ran = gitea::request(&c.process(None), &g, &to_review(), OP, "darkwing");
    assert!(ran.is_err(), "{ran:?}");
    let run = Run::Request(
        cmd(json!({"verb": "review-request", "id": 1})),
        "darkwing-1-request-2",
        "darkwing",
    );
    review("review request (a new attempt)", c, g, run)
}

/// Killed after the POST: the attempt is requesting and the comment is on #12; the owner
/// resolves with it.
pub fn resolve() -> Scenario {
    let (c, g) = request_killed_at("request-posted");
    let n = g.find(OP).expect("the comment was posted");
    let v = json!({"verb": "review-resolve", "id": 1, "attempt": OP, "comment": n});
    review(
        "review resolve",
        c,
        g,
        Run::Resolve(cmd(v), "darkwing-1-resolve", "darkwing"),
    )
}

/// Killed before the POST: nothing was sent; jason abandons the attempt.
pub fn abandon() -> Scenario {
    let (c, g) = request_killed_at("request-sending");
    let v = json!({"verb": "review-abandon", "id": 1, "attempt": OP,
        "reason": "nothing on #12", "yes": true});
    review(
        "review abandon",
        c,
        g,
        Run::Change(cmd(v), "jason-1-abandon", "jason"),
    )
}

/// The request posted and logged; reviewer flicker records an approval.
pub fn record() -> Scenario {
    let (c, g) = (ready(), Gitea::default());
    let ran = gitea::request(&c.process(None), &g, &to_review(), OP, "darkwing");
    assert!(ran.is_ok(), "{ran:?}");
    let v = json!({"verb": "review-record", "id": 1, "verdict": "approve",
        "comment": 4101, "candidate": CANDIDATE});
    review(
        "review record",
        c,
        g,
        Run::Change(cmd(v), "flicker-1-verdict", "flicker"),
    )
}
