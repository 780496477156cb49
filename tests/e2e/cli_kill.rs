//! Kill points: the fault-injection binary SIGKILLs itself at the write step MOSAIC_KILL_AT
//! names. For each step a `move`, a `note` and a `take` pass, this checks what a reader sees after the
//! kill, that `unlock` plus a retry of the same op prints one receipt, and that the log holds it once.

use std::collections::BTreeSet;
use std::path::Path;

use mosaic_queue::io::seams::{
    ADOPT_STEPS, CONFIRM_STEPS, CUT_STEPS, FENCE_STEPS, FOLLOW_STEPS, REQUEST_STEPS, WRITE_STEPS,
};
use support::{GENESIS_BODY, Repo};

/// A change to kill: its arguments (without `--op`/`--by`), op id and receipt.
struct Case {
    args: &'static [&'static str],
    op: &'static str,
    verb: &'static str,
    receipt: &'static str,
}

const MOVE: Case = Case {
    args: &["move", "2", "in-progress"],
    op: "darkwing-2-start",
    verb: "move",
    receipt: "ok darkwing-2-start rev 2 move 2 queued -> in-progress\n",
};

const NOTE: Case = Case {
    args: &["note", "1", "killed midway"],
    op: "darkwing-1-note",
    verb: "note",
    receipt: "ok darkwing-1-note rev 2 note 1\n",
};

const TAKE: Case = Case {
    args: &["take"],
    op: "darkwing-take-1",
    verb: "take",
    receipt: "ok darkwing-take-1 rev 2 take 1 queued -> in-progress\n",
};

impl Case {
    fn argv(&self) -> Vec<&'static str> {
        let mut v = self.args.to_vec();
        v.extend(["--op", self.op, "--by", "darkwing"]);
        v
    }
}

/// Whether `step` comes at or after `other` in a write.
fn reached(step: &str, other: &str) -> bool {
    let at = |s: &str| WRITE_STEPS.iter().position(|w| *w == s).unwrap();
    at(step) >= at(other)
}

/// The pid the lock file names; the killed writer's.
fn lock_pid(repo: &Repo, case: &Case) -> u32 {
    let lock: serde_json::Value =
        serde_json::from_str(&repo.read(".git/mosaic-queue.lock")).expect("the lock remains");
    assert_eq!(
        (&lock["op"], &lock["verb"]),
        (&case.op.into(), &case.verb.into())
    );
    let pid = lock["pid"].as_u64().unwrap() as u32;
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists(),
        "the killed writer is gone"
    );
    pid
}

/// Temp files left in docs/plans and .git (top level), by name.
fn temp_files(repo: &Repo) -> Vec<String> {
    let mut names = Vec::new();
    for dir in ["docs/plans", ".git"] {
        for entry in std::fs::read_dir(repo.path(dir)).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if name.ends_with(".tmp") {
                names.push(format!("{dir}/{name}"));
            }
        }
    }
    names.sort();
    names
}

/// The stray temp file a kill at `step` leaves: the write's own temp, named by the killed
/// pid, which nothing reads or removes (like the lock's, in the contract's known limits).
fn expected_temp(step: &str, pid: u32) -> Vec<String> {
    match step {
        "queue-temp-written" => vec![format!("docs/plans/.queue.json.{pid}.tmp")],
        "witness-temp-written" => vec![format!(".git/.mosaic-queue.head.{pid}.tmp")],
        "table-temp-written" => vec![format!("docs/plans/.QUEUE.md.{pid}.tmp")],
        _ => vec![],
    }
}

/// Kills `case` at `step`, checks what is on disk and what readers see, then recovers with
/// `unlock` and a retry of the same op.
fn kill_and_retry(step: &str, case: &Case) {
    let repo = Repo::new(&format!("kill-{}-{step}", case.verb));
    let argv = case.argv();

    let out = repo.run(&argv, &[("MOSAIC_KILL_AT", step)]);
    assert_eq!(out.signal, Some(9), "killed at {step}: {out:?}");
    // Only the last step has printed the receipt; nothing else ever reaches stdout or stderr.
    let printed = if step == "receipt-printed" {
        case.receipt
    } else {
        ""
    };
    assert_eq!((out.stdout.as_str(), out.stderr.as_str()), (printed, ""));
    let pid = lock_pid(&repo, case);

    let visible = reached(step, "queue-renamed");
    let witnessed = reached(step, "witness-renamed");
    let tabled = reached(step, "table-renamed");
    let rev = if visible { 2 } else { 1 };
    assert_eq!(repo.queue()["revision"], rev, "queue.json after {step}");
    assert_eq!(
        repo.witness().unwrap()["revision"],
        if witnessed { 2 } else { 1 },
        "witness after {step}"
    );
    assert_eq!(repo.body() == GENESIS_BODY, !tabled, "table after {step}");
    assert_eq!(temp_files(&repo), expected_temp(step, pid));

    // Unlocked reads: a file ahead of the witness is visible, not confirmed durable.
    let ahead = visible && !witnessed;
    let out = repo.run(&["list"], &[]);
    let warning = if ahead {
        "rev 2 visible, not confirmed durable\n"
    } else {
        ""
    };
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (0, warning),
        "list after {step}"
    );
    assert!(out.stdout.starts_with(&format!("rev {rev}\n")));
    let out = repo.run(&["list", "--json"], &[]);
    assert!(
        out.stdout.contains(&format!(
            "\"durable\": {}",
            if ahead { "false" } else { "true" }
        )),
        "{}",
        out.stdout
    );

    // The retry meets the dead writer's lock and is told what to do.
    let before = repo.snapshot();
    let line = repo.run(&argv, &[]).fails(1).to_owned();
    assert!(
        line.contains(&format!(
            "is stale (dead: pid {pid} (op {}, verb {}, at ",
            case.op, case.verb
        )) && line.ends_with("run `mosaic-queue unlock`, then retry the same op"),
        "{line}"
    );
    repo.assert_unchanged(&before);

    let out = repo.run(&["unlock"], &[]);
    assert!(
        out.ok().starts_with(&format!(
            "ok unlock: removed the dead queue lock of pid {pid} (op {}, verb {}",
            case.op, case.verb
        )),
        "{}",
        out.stdout
    );

    // The retry: exactly one receipt, the same rev, the op in the log once.
    assert_eq!(
        repo.run(&argv, &[]).ok(),
        case.receipt,
        "retry after {step}"
    );
    assert_eq!(repo.ops(), ["genesis-0001", case.op]);
    assert_eq!(repo.witness().unwrap()["revision"], 2);
    assert_eq!(
        repo.run(&["verify"], &[]).ok(),
        "ok verify rev 2 (2 entries, witness rev 2)\n"
    );
    assert_eq!(repo.run(&["list"], &[]).stderr, "");
    // The retry completes the write it repeats: killed after the rename and before the
    // table, the table was stale, and the retry rendered it.
    assert_eq!(
        repo.run(&["verify", "--current"], &[]).ok(),
        "ok verify rev 2 (2 entries, witness rev 2), table current\n"
    );
    // Recovery leaves nothing of its own behind, and the queue goes on.
    // The retry's write swept the temp files the killed writer left.
    assert_eq!(temp_files(&repo), Vec::<String>::new());
    assert!(!repo.path(".git/mosaic-queue.lock").exists());
    let out = repo.run(
        &[
            "note",
            "2",
            "after the kill",
            "--op",
            "lead-2-note",
            "--by",
            "lead",
        ],
        &[],
    );
    assert_eq!(out.ok(), "ok lead-2-note rev 3 note 2\n");
}

/// The steps this file walks; `every_write_step_is_covered` holds it to `WRITE_STEPS`.
macro_rules! kill_points {
    ($($name:ident => $step:literal,)*) => {
        const COVERED: &[&str] = &[$($step),*];
        mod move_killed_at {
            $(#[test] fn $name() { super::kill_and_retry($step, &super::MOVE); })*
        }
        mod note_killed_at {
            $(#[test] fn $name() { super::kill_and_retry($step, &super::NOTE); })*
        }
        mod take_killed_at {
            $(#[test] fn $name() { super::kill_and_retry($step, &super::TAKE); })*
        }
    };
}

kill_points! {
    lock_taken => "lock-taken",
    queue_temp_written => "queue-temp-written",
    queue_renamed => "queue-renamed",
    queue_dir_synced => "queue-dir-synced",
    witness_temp_written => "witness-temp-written",
    witness_renamed => "witness-renamed",
    witness_dir_synced => "witness-dir-synced",
    table_temp_written => "table-temp-written",
    table_renamed => "table-renamed",
    receipt_printed => "receipt-printed",
}

#[test]
fn every_write_step_is_covered() {
    assert_eq!(COVERED, WRITE_STEPS);
}

/// A retry that is itself killed while confirming the visible tail: the next retry still
/// prints the one receipt.
#[test]
fn a_retry_killed_while_confirming_is_retried_again() {
    let repo = Repo::new("kill-twice");
    let argv = MOVE.argv();
    let out = repo.run(&argv, &[("MOSAIC_KILL_AT", "queue-dir-synced")]);
    assert_eq!(out.signal, Some(9));
    let steps = ["lock-taken"]
        .iter()
        .chain(CONFIRM_STEPS)
        .chain(&["witness-temp-written", "witness-renamed"]);
    for step in steps {
        repo.run(&["unlock"], &[]).ok();
        let out = repo.run(&argv, &[("MOSAIC_KILL_AT", step)]);
        assert_eq!(out.signal, Some(9), "retry killed at {step}: {out:?}");
        assert_eq!(out.stdout, "");
    }
    repo.run(&["unlock"], &[]).ok();
    assert_eq!(repo.run(&argv, &[]).ok(), MOVE.receipt);
    assert_eq!(repo.ops(), ["genesis-0001", MOVE.op]);
    assert_eq!(
        repo.run(&["verify"], &[]).ok(),
        "ok verify rev 2 (2 entries, witness rev 2)\n"
    );
}

/// The lists the kill tests walk are the steps the code marks: every step named in host/src
/// (a literal `step("...")`, or a `step(&format!("{step}-..."))` in a function whose callers
/// name the step) is in one list, and every listed step is in the code.
#[test]
fn the_step_lists_are_the_codes_steps() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    // One text of every shipped file: a function that marks formatted steps may be called
    // from another file (the record's and the fence's writes call the store's `replace`).
    let mut shipped = String::new();
    for file in rust_files(&src) {
        let text = std::fs::read_to_string(&file).unwrap();
        // Test code marks steps of its own: a test file, or a file's test module (last).
        shipped.push_str(text.split("#[cfg(test)]\nmod ").next().unwrap());
        shipped.push('\n');
    }
    let code = steps_in(&shipped);
    let listed: BTreeSet<String> = [
        WRITE_STEPS,
        CUT_STEPS,
        REQUEST_STEPS,
        CONFIRM_STEPS,
        FOLLOW_STEPS,
        ADOPT_STEPS,
        FENCE_STEPS,
    ]
    .concat()
    .into_iter()
    .map(str::to_owned)
    .collect();
    assert_eq!(
        code, listed,
        "the steps in host/src against the seam's lists"
    );
}

/// The scan finds each spelling of a step: a literal, and a formatted one filled in by the
/// callers of the function that marks it.
#[test]
fn the_step_scan_sees_literal_and_formatted_steps() {
    let text = r#"
        fn write(io: &dyn Io) { io.step("lock-taken"); seams::step("request-sending"); }
        fn replace(io: &dyn Io, bytes: &[u8], step: &str) {
            io.step(&format!("{step}-temp-written"));
            io.step(&format!("{step}-renamed"));
        }
        fn caller(io: &dyn Io) { replace(io, b"x", "witness")?; replace(io, &f(a, b), "table"); }
    "#;
    let found: Vec<String> = steps_in(text).into_iter().collect();
    assert_eq!(
        found,
        [
            "lock-taken",
            "request-sending",
            "table-renamed",
            "table-temp-written",
            "witness-renamed",
            "witness-temp-written"
        ]
    );
}

fn rust_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap();
        if name == "tests" || name == "tests.rs" {
            continue;
        }
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// The steps one source file marks.
fn steps_in(text: &str) -> BTreeSet<String> {
    let mut steps = BTreeSet::new();
    let literal = "step(\"";
    for (at, _) in text.match_indices(literal) {
        let name = &text[at + literal.len()..];
        steps.insert(name[..name.find('"').unwrap()].to_owned());
    }
    // `step(&format!("{step}-SUFFIX"))` inside `fn NAME(`: the callers of NAME give the step.
    let formatted = "step(&format!(\"{step}-";
    for (at, _) in text.match_indices(formatted) {
        let rest = &text[at + formatted.len()..];
        let suffix = &rest[..rest.find('"').unwrap()];
        let name = enclosing_fn(&text[..at]);
        for prefix in literal_last_args(text, name) {
            steps.insert(format!("{prefix}-{suffix}"));
        }
    }
    steps
}

/// The name of the last `fn NAME(` before the end of `before`.
fn enclosing_fn(before: &str) -> &str {
    let at = before.rfind("fn ").expect("a step inside a function") + 3;
    let name = &before[at..];
    &name[..name.find('(').unwrap()]
}

/// The last argument of each call `NAME(...)` in `text` that is a string literal.
fn literal_last_args<'a>(text: &'a str, name: &str) -> Vec<&'a str> {
    let mut found = Vec::new();
    for (at, _) in text.match_indices(&format!("{name}(")) {
        let before = text[..at].chars().last();
        let part_of_a_name = |c: char| c.is_alphanumeric() || c == '_' || c == '.';
        if before.is_some_and(part_of_a_name) || text[..at].ends_with("fn ") {
            continue;
        }
        let args = &text[at + name.len() + 1..];
        let mut depth = 0;
        let end = args
            .char_indices()
            .find(|&(_, c)| {
                match c {
                    '(' | '[' | '{' => depth += 1,
                    ')' | ']' | '}' if depth == 0 => return true,
                    ')' | ']' | '}' => depth -= 1,
                    _ => {}
                }
                false
            })
            .map(|(i, _)| i)
            .unwrap();
        let last = args[..end].rsplit(',').next().unwrap().trim();
        if let Some(lit) = last.strip_prefix('"').and_then(|l| l.strip_suffix('"')) {
            found.push(lit);
        }
    }
    found
}
