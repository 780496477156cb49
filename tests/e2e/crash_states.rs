//! Power loss by enumeration (docs/durability.md): for each verb that writes, one recorded run
//! and every crash state the ext4 `data=ordered` model and the weak model allow, each checked
//! by what a person runs next after the reboot. Sampled unless `MOSAIC_CRASH_FULL=1`.

#[path = "crash/mod.rs"]
mod crash;

use support::fake_gitea::{Answer, Endpoint};
use support::review::{OP, Review, to_review};
use support::{Holder, Repo, ok};

/// A committed genesis with the guard active.
fn ready(name: &str) -> Repo {
    let repo = Repo::new(name);
    repo.install_guard();
    repo
}

fn start_row_1(repo: &Repo) {
    ok(
        repo,
        &["move", "1", "in-progress"],
        "darkwing-1-start",
        "darkwing",
        "ok darkwing-1-start rev 2 move 1 queued -> in-progress",
    );
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
            crash::sweep::sweep($name, &repo, &refs, &[], &[], None);
        }
    };
}

verb!(power_loss_add, io_errors_add, "add", add);
verb!(power_loss_move, io_errors_move, "move", move_to_in_progress);
verb!(
    power_loss_move_in_review,
    io_errors_move_in_review,
    "move in-review",
    move_into_in_review_without_reviewers
);
verb!(power_loss_release, io_errors_release, "release", release);
verb!(power_loss_assign, io_errors_assign, "assign", assign);
verb!(power_loss_note, io_errors_note, "note", note);
verb!(power_loss_set, io_errors_set, "set", set);
verb!(power_loss_genesis, io_errors_genesis, "genesis", genesis);
verb!(
    power_loss_accept_history,
    io_errors_accept_history,
    "accept-history",
    accept_history
);
verb!(power_loss_render, io_errors_render, "render", render);
verb!(power_loss_sync, io_errors_sync, "sync", sync);
verb!(power_loss_unlock, io_errors_unlock, "unlock", unlock);
verb!(power_loss_commit, io_errors_commit, "commit", commit);
verb!(power_loss_take, io_errors_take, "take", take);

/// The Gitea variables of a run by `by`, as pairs the enumeration takes.
fn gitea_env(r: &Review, by: &str) -> Vec<(String, String)> {
    r.gitea_env(by)
}

/// Declares, for a set-up that returns a review harness (checkout and fake Gitea), the command
/// to record and its seat, the power-loss test and the I/O-error test. A request whose comment
/// may have been posted is the contract's case for a person (`review-unresolved`): the check
/// plays that person, who looks on the issue and then resolves or abandons.
macro_rules! review_verb {
    ($power:ident, $faults:ident, $name:literal, $setup:ident) => {
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
            crash::sweep::sweep($name, &r.repo, &refs, &env, &person, Some(&r.fake));
        }
    };
}

review_verb!(
    power_loss_review_request,
    io_errors_review_request,
    "move in-review (posts a request)",
    request_on_move
);

review_verb!(
    power_loss_review_request_again,
    io_errors_review_request_again,
    "review request (a new attempt)",
    request_again
);
review_verb!(
    power_loss_review_resolve,
    io_errors_review_resolve,
    "review resolve",
    resolve
);
review_verb!(
    power_loss_review_abandon,
    io_errors_review_abandon,
    "review abandon",
    abandon
);
review_verb!(
    power_loss_review_record,
    io_errors_review_record,
    "review record",
    record
);

/// Row 1's request, killed at `step` of the move into in-review; the harness and HEAD.
fn request_killed_at(name: &str, step: &str) -> (Review, String) {
    let (r, head) = support::review::ready(name);
    r.repo.install_guard();
    let out = r.run_with(
        &to_review(&head),
        OP,
        "darkwing",
        &[("MOSAIC_KILL_AT", step)],
    );
    assert_eq!(out.signal, Some(9), "{out:?}");
    (r, head)
}

/// The move's request was refused by Gitea (failed, nothing posted): `review request 1` makes
/// a new attempt, which posts.
fn request_again() -> (Review, Vec<String>, &'static str) {
    let (r, head) = support::review::ready("crash-request-again");
    r.repo.install_guard();
    r.fake.script(Endpoint::PostComment, Answer::Status(404));
    let out = r.run(&to_review(&head), OP, "darkwing");
    assert_eq!(out.code, 1, "{}", out.stderr);
    let args = change(
        &["review", "request", "1"],
        "darkwing-1-request-2",
        "darkwing",
    );
    (r, args, "darkwing")
}

/// Killed after the POST: the attempt is requesting and the comment is on #12; the owner
/// resolves with it.
fn resolve() -> (Review, Vec<String>, &'static str) {
    let (r, _) = request_killed_at("crash-resolve", "request-posted");
    let n = r.fake.comments()[0].id.to_string();
    let args = change(
        &["review", "resolve", "1", OP, "--comment", &n],
        "darkwing-1-resolve",
        "darkwing",
    );
    (r, args, "darkwing")
}

/// Killed before the POST: nothing was sent; jason abandons the attempt.
fn abandon() -> (Review, Vec<String>, &'static str) {
    let (r, _) = request_killed_at("crash-abandon", "request-sending");
    let args = change(
        &[
            "review",
            "abandon",
            "1",
            OP,
            "--reason",
            "nothing on #12",
            "--yes",
        ],
        "jason-1-abandon",
        "jason",
    );
    (r, args, "jason")
}

/// The request posted and logged; reviewer flicker records an approval.
fn record() -> (Review, Vec<String>, &'static str) {
    let (r, head) = support::review::ready("crash-record");
    r.repo.install_guard();
    let out = r.run(&to_review(&head), OP, "darkwing");
    assert_eq!(out.code, 0, "{}", out.stderr);
    let candidate = support::review::git(&head);
    let args = change(
        &[
            "review",
            "record",
            "1",
            "--verdict",
            "approve",
            "--comment",
            "4101",
            "--candidate",
            &candidate,
        ],
        "flicker-1-verdict",
        "flicker",
    );
    (r, args, "flicker")
}

/// Row 1 with reviewers and in progress; the move into in-review opens a request attempt,
/// posts its comment and logs the outcome: two writes with the POST between them.
fn request_on_move() -> (Review, Vec<String>, &'static str) {
    let (r, head) = support::review::ready("crash-request");
    r.repo.install_guard();
    let args = change(&to_review(&head), OP, "darkwing");
    (r, args, "darkwing")
}

fn add() -> (Repo, Vec<String>) {
    let repo = ready("crash-add");
    let args = change(
        &["add", "--piece", "Crash piece", "--issues", "31"],
        "lead-add-0001",
        "lead",
    );
    (repo, args)
}

fn move_to_in_progress() -> (Repo, Vec<String>) {
    let repo = ready("crash-move");
    let args = change(
        &["move", "1", "in-progress"],
        "darkwing-1-start",
        "darkwing",
    );
    (repo, args)
}

fn move_into_in_review_without_reviewers() -> (Repo, Vec<String>) {
    let repo = ready("crash-review-round");
    start_row_1(&repo);
    let head = repo.git(&["rev-parse", "HEAD"]);
    let args = change(
        &[
            "move",
            "1",
            "in-review",
            "--candidate",
            &head,
            "--issue",
            "12",
        ],
        "darkwing-1-review",
        "darkwing",
    );
    (repo, args)
}

fn release() -> (Repo, Vec<String>) {
    let repo = ready("crash-release");
    start_row_1(&repo);
    let args = change(&["release", "1"], "darkwing-1-release", "darkwing");
    (repo, args)
}

fn assign() -> (Repo, Vec<String>) {
    let repo = ready("crash-assign");
    let args = change(&["assign", "2", "flicker"], "lead-2-assign", "lead");
    (repo, args)
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

fn set() -> (Repo, Vec<String>) {
    let repo = ready("crash-set");
    let args = change(&["set", "1", "piece", "Parser v2"], "lead-1-piece", "lead");
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

fn accept_history() -> (Repo, Vec<String>) {
    let repo = ready("crash-accept");
    ok(
        &repo,
        &["note", "1", "before the loss"],
        "darkwing-1-note",
        "darkwing",
        "ok darkwing-1-note rev 2 note 1",
    );
    // The witness is gone: Manual recovery ends with accept-history.
    std::fs::remove_file(repo.path(".git/mosaic-queue.head")).unwrap();
    let args = change(
        &[
            "accept-history",
            "--reason",
            "witness lost in a test",
            "--yes",
        ],
        "jason-accept-0001",
        "jason",
    );
    (repo, args)
}

fn render() -> (Repo, Vec<String>) {
    let repo = ready("crash-render");
    let old = repo.read("docs/plans/QUEUE.md");
    ok(
        &repo,
        &["note", "1", "table goes stale"],
        "darkwing-1-note",
        "darkwing",
        "ok darkwing-1-note rev 2 note 1",
    );
    repo.write("docs/plans/QUEUE.md", old);
    (repo, vec!["render".to_owned()])
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

fn take() -> (Repo, Vec<String>) {
    let repo = ready("crash-take");
    (repo, change(&["take"], "huey-take-0001", "huey"))
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
