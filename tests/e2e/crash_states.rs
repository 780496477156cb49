//! Power loss and I/O errors on the real binary, as a smoke test: the enumeration and the sweep
//! run in full in memory (host/src/store/tests, in the test command), and here the same
//! machinery runs on the binary itself for the verbs whose paths differ (a change, genesis's
//! link, sync's rewrite, unlock's gate, commit, and a review request's two writes around its
//! POST), a sample of states each. `same_calls` holds the binary to the calls the in-memory
//! runs make, call for call, so the full figures there are figures of this binary.

#[path = "crash/mod.rs"]
mod crash;

use std::path::Path;

use mosaic_queue::in_memory::Checkout;
use mosaic_queue::io::trace::{Event, Op, Tracer};
use support::review::{OP, Review, to_review};
use support::{Holder, Repo, ok, run_in};

/// A committed genesis with the guard active.
fn ready(name: &str) -> Repo {
    let repo = Repo::new(name);
    repo.install_guard();
    repo
}

fn change(args: &[&str], op: &'static str, by: &'static str) -> Vec<String> {
    support::change(args, op, by)
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// Declares, for a set-up that returns the checkout and the command to record, the power-loss
/// test and the I/O-error test.
macro_rules! verb {
    ($power:ident, $faults:ident, $name:literal, $setup:ident) => {
        #[test]
        fn $power() {
            let (repo, args) = $setup();
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            crash::enumerate($name, &repo, &refs, &[], 0, &[], None);
        }

        #[test]
        fn $faults() {
            let (repo, args) = $setup();
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            let person = crash::sweep::sweep($name, &repo, &refs, &[], &[], None);
            assert_eq!(person, 0, "no outcome of {} needs a person", $name);
        }
    };
}

verb!(power_loss_note, io_errors_note, "note", note);
verb!(power_loss_genesis, io_errors_genesis, "genesis", genesis);
verb!(power_loss_sync, io_errors_sync, "sync", sync);
verb!(power_loss_unlock, io_errors_unlock, "unlock", unlock);
verb!(power_loss_commit, io_errors_commit, "commit", commit);

/// The Gitea variables of a run by `by`, as pairs the enumeration takes.
fn gitea_env(r: &Review, by: &str) -> Vec<(String, String)> {
    r.gitea_env(by)
}

/// Declares, for a set-up that returns a review harness (checkout and fake Gitea), the command
/// to record and its seat, the power-loss test and the I/O-error test. A request whose comment
/// may have been posted is the contract's case for a person (`review-unresolved`): the check
/// plays that person, who looks on the issue and then resolves or abandons. `settled` is how
/// many distinct outcomes of the I/O-error sweep only that person heals: the contract's case,
/// counted apart from those the commands alone recover.
macro_rules! review_verb {
    ($power:ident, $faults:ident, $name:literal, $setup:ident, settled $settled:literal) => {
        #[test]
        fn $power() {
            let (r, args, by) = $setup();
            let env = gitea_env(&r, by);
            let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (&**k, &**v)).collect();
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            let person = ["review-unresolved"];
            crash::enumerate($name, &r.repo, &refs, &env, 0, &person, Some(&r.fake));
        }

        #[test]
        fn $faults() {
            let (r, args, by) = $setup();
            let env = gitea_env(&r, by);
            let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (&**k, &**v)).collect();
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            let person = ["review-unresolved"];
            let settled = crash::sweep::sweep($name, &r.repo, &refs, &env, &person, Some(&r.fake));
            assert_eq!(settled, $settled, "outcomes settled by a person");
        }
    };
}

review_verb!(
    power_loss_review_request,
    io_errors_review_request,
    "move in-review (posts a request)",
    request_on_move,
    settled 6
);

/// Row 1 with reviewers and in progress; the move into in-review opens a request attempt,
/// posts its comment and logs the outcome: two writes with the POST between them.
fn request_on_move() -> (Review, Vec<String>, &'static str) {
    let (r, head) = support::review::ready("crash-request");
    r.repo.install_guard();
    let args = change(&to_review(&head), OP, "darkwing");
    (r, args, "darkwing")
}

fn note() -> (Repo, Vec<String>) {
    let repo = ready("crash-note");
    let args = change(
        &["note", "1", "after the crash"],
        "darkwing-1-note",
        "darkwing",
    );
    (repo, args)
}

fn genesis() -> (Repo, Vec<String>) {
    let repo = Repo::bare("crash-genesis");
    repo.install_guard();
    let map = repo.map_path();
    let args = change(
        &["genesis", "--map", map.to_str().unwrap()],
        "genesis-0001",
        "jason",
    );
    (repo, args)
}

fn sync() -> (Repo, Vec<String>) {
    let repo = ready("crash-sync");
    // A note whose writer died after its rename: visible, not durable, lock left behind.
    let out = repo.run(
        &support::change(
            &["note", "1", "visible only"],
            "darkwing-1-note",
            "darkwing",
        ),
        &[("MOSAIC_KILL_AT", "queue-renamed")],
    );
    assert_eq!(out.signal, Some(9));
    assert!(
        repo.run(&["unlock"], &[])
            .ok()
            .starts_with("ok unlock: removed the dead")
    );
    (repo, vec!["sync".to_owned()])
}

fn unlock() -> (Repo, Vec<String>) {
    let repo = ready("crash-unlock");
    repo.plant_lock(&Holder::dead());
    (repo, vec!["unlock".to_owned()])
}

fn commit() -> (Repo, Vec<String>) {
    let repo = ready("crash-commit");
    ok(
        &repo,
        &["note", "1", "to commit"],
        "darkwing-1-note",
        "darkwing",
        "ok darkwing-1-note rev 2 note 1",
    );
    let args: Vec<String> = ["commit", "-m", "queue rev 2", "--by", "lead"]
        .map(str::to_owned)
        .to_vec();
    (repo, args)
}

/// The calls that changed the disk and the marks of a run, as both runs spell them: paths
/// inside the checkout relative to its root (a person's file outside it, the map, left out),
/// pids and random suffixes in temp names as `N` and `X`, a write without its bytes (which
/// hold the time and the root), a printed line without its text.
fn shape(events: &[Event], root: &Path) -> Vec<String> {
    let rel = |p: &Path| -> Option<String> {
        let name = p.strip_prefix(root).ok()?.to_string_lossy().into_owned();
        let parts: Vec<String> = name
            .split('.')
            .map(|part| {
                if !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()) {
                    "N".to_owned()
                } else if part.len() == 16 && part.bytes().all(|b| b.is_ascii_hexdigit()) {
                    "X".to_owned()
                } else {
                    part.to_owned()
                }
            })
            .collect();
        Some(parts.join("."))
    };
    events
        .iter()
        .filter_map(|e| match e {
            Event::Ok { op, .. } => {
                let to = op.to().and_then(rel).map(|t| format!(" -> {t}"));
                let what = match op {
                    Op::Write(..) => "write".to_owned(),
                    op => op.name().to_owned(),
                };
                Some(format!(
                    "{what} {}{}",
                    rel(op.path())?,
                    to.unwrap_or_default()
                ))
            }
            Event::Mark { what, text, .. } if what == "step" => Some(format!("step {text}")),
            Event::Mark { what, .. } => Some(what.clone()),
            _ => None,
        })
        .collect()
}

/// The binary's trace of `args` run in `repo`, which must succeed.
fn binary_trace(repo: &Repo, args: &[&str]) -> Vec<String> {
    let trace = repo.base.join("same-calls.jsonl");
    let _ = std::fs::remove_file(&trace);
    let out = run_in(
        &repo.root,
        args,
        &[("MOSAIC_IO_TRACE", trace.to_str().unwrap())],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let events = crash::model::events(&std::fs::read_to_string(&trace).unwrap());
    shape(&events, &repo.root)
}

/// The in-memory run's trace: `run` in a process of `checkout` with a recording hook.
fn memory_trace(
    checkout: &Checkout,
    run: impl FnOnce(&mosaic_queue::in_memory::Process<'_>),
) -> Vec<String> {
    let tracer = Tracer::memory();
    run(&checkout.process(Some(&tracer)));
    shape(&tracer.events(), &checkout.paths.root)
}

fn note_command() -> mosaic_queue_core::Command {
    serde_json::from_value(serde_json::json!({"verb": "note", "id": 1, "text": "after the crash"}))
        .unwrap()
}

#[test]
fn same_calls_for_a_change() {
    let (repo, args) = note();
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let real = binary_trace(&repo, &refs);
    let memory = memory_trace(&Checkout::genesis(), |p| {
        p.change(&note_command(), "darkwing-1-note", "darkwing")
            .unwrap();
    });
    assert_eq!(real, memory);
    // What the enumeration counts for a change: 40 calls, of which these change the disk.
    assert!(real.len() > 20, "{real:#?}");
}

#[test]
fn same_calls_for_genesis() {
    let (repo, args) = genesis();
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let real = binary_trace(&repo, &refs);
    let memory = memory_trace(&Checkout::new(), |p| {
        p.genesis("genesis-0001", "jason").unwrap();
    });
    assert_eq!(real, memory);
}

#[test]
fn same_calls_for_sync() {
    let (repo, _) = sync();
    let real = binary_trace(&repo, &["sync"]);
    let checkout = Checkout::genesis();
    let kill = Tracer::memory().halting_at("queue-renamed");
    let killed =
        checkout
            .process(Some(&kill))
            .change(&note_command(), "darkwing-1-note", "darkwing");
    assert!(killed.is_err() && kill.halted());
    checkout.process(None).unlock().unwrap();
    let memory = memory_trace(&checkout, |p| {
        p.sync(None).unwrap();
    });
    assert_eq!(real, memory);
}
