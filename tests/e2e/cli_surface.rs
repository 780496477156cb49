//! The surface a seat scripts and a person reads, through the real binary: `--json` on every
//! verb (receipt objects, error objects, one document on stdout), `log`, the help text, shell
//! completions and man pages.

use std::path::Path;

use serde_json::Value;
use support::{Holder, Out, Repo, change, run_in};

/// Exit `code`, stderr exactly `line` (one line), stdout exactly `json`.
#[track_caller]
fn json_failure(out: &Out, code: i32, line: &str, json: &str) {
    assert_eq!(
        (out.code, out.stderr.as_str(), out.stdout.as_str()),
        (code, format!("{line}\n").as_str(), json)
    );
}

fn receipt_json(op: &str, rev: u64, verb: &str, row: &str, recorded: bool, text: &str) -> String {
    format!(
        "{{\n  \"op\": \"{op}\",\n  \"revision\": {rev},\n  \"verb\": \"{verb}\",\n  \"row\": {row},\n  \"recorded\": {recorded},\n  \"text\": \"{text}\"\n}}\n"
    )
}

#[test]
fn a_change_prints_its_receipt_object_and_a_retry_its_original() {
    let repo = Repo::new("json-change");
    let args = change(
        &["move", "1", "in-progress", "--json"],
        "darkwing-1-start-1",
        "darkwing",
    );
    let text = "ok darkwing-1-start-1 rev 2 move 1 queued -> in-progress";
    let first = repo.run(&args, &[]);
    assert_eq!(
        first.ok(),
        receipt_json("darkwing-1-start-1", 2, "move", "1", false, text)
    );
    let again = repo.run(&args, &[]);
    assert_eq!(
        again.ok(),
        receipt_json("darkwing-1-start-1", 2, "move", "1", true, text)
    );
    // --json before the verb is the same flag.
    let mut front = vec!["--json"];
    front.extend(change(
        &["add", "--piece", "Docs"],
        "lead-add-docs-1",
        "lead",
    ));
    assert_eq!(
        repo.run(&front, &[]).ok(),
        receipt_json(
            "lead-add-docs-1",
            3,
            "add",
            "4",
            false,
            "ok lead-add-docs-1 rev 3 add 4 queued"
        )
    );
    assert_eq!(repo.ops().len(), 3);
}

#[test]
fn genesis_has_no_row() {
    let repo = Repo::bare("json-genesis");
    let map = repo.map_path();
    let out = repo.run(
        &[
            "genesis",
            "--map",
            map.to_str().unwrap(),
            "--op",
            "genesis-0001",
            "--by",
            "jason",
            "--json",
        ],
        &[],
    );
    let text = repo.queue()["log"][0]["receipt"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        out.ok(),
        receipt_json("genesis-0001", 1, "genesis", "null", false, &text)
    );
}

#[test]
fn a_refusal_keeps_its_line_and_code_and_prints_the_error_object() {
    let repo = Repo::new("json-refused");
    let before = repo.snapshot();
    let out = repo.run(
        &change(&["move", "9", "done", "--json"], "jason-9-done-1", "jason"),
        &[],
    );
    json_failure(
        &out,
        2,
        "mosaic-queue: refused: no row 9 in the queue; `mosaic-queue list` shows the rows",
        "{\n  \"error\": {\n    \"exit\": 2,\n    \"kind\": \"no-such-row\",\n    \"message\": \"refused: no row 9 in the queue; `mosaic-queue list` shows the rows\",\n    \"next\": \"`mosaic-queue list` shows the rows\",\n    \"retryable\": false\n  }\n}\n",
    );
    repo.assert_unchanged(&before);

    // A message that names its next step gives it as `next`.
    let out = repo.run(
        &change(
            &["note", "1", "x", "--json"],
            "darkwing-1-note-1",
            "darkwing",
        ),
        &[("GIT_DIR", ".git")],
    );
    json_failure(
        &out,
        2,
        "mosaic-queue: GIT_DIR is set; unset it: the queue runs only in its canonical checkout's own .git",
        "{\n  \"error\": {\n    \"exit\": 2,\n    \"kind\": \"git-env\",\n    \"message\": \"GIT_DIR is set; unset it: the queue runs only in its canonical checkout's own .git\",\n    \"next\": \"unset it: the queue runs only in its canonical checkout's own .git\",\n    \"retryable\": false\n  }\n}\n",
    );
    repo.assert_unchanged(&before);
}

#[test]
fn a_usage_error_is_one_line_and_an_error_object() {
    let repo = Repo::new("json-usage");
    let line = "mosaic-queue: the following required arguments were not provided: --op <ID>, <STATUS>; see `mosaic-queue move --help`";
    let out = repo.run(&["move", "1", "--json"], &[]);
    json_failure(
        &out,
        4,
        line,
        "{\n  \"error\": {\n    \"exit\": 4,\n    \"kind\": \"usage\",\n    \"message\": \"the following required arguments were not provided: --op <ID>, <STATUS>; see `mosaic-queue move --help`\",\n    \"next\": \"see `mosaic-queue move --help`\",\n    \"retryable\": false\n  }\n}\n",
    );
    // Without --json, the same one line and nothing on stdout.
    let plain = repo.run(&["move", "1"], &[]);
    assert_eq!(plain.fails(4), line);
}

#[test]
fn a_lock_wait_that_ran_out_is_retryable() {
    let repo = Repo::new("json-lock");
    let holder = Holder::this_process();
    repo.plant_lock(&holder);
    let out = repo.run(
        &change(
            &["note", "1", "x", "--json"],
            "darkwing-1-note-1",
            "darkwing",
        ),
        &[("MOSAIC_LOCK_WAIT_MS", "100")],
    );
    assert_eq!(out.code, 1);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["error"]["kind"], "lock-held");
    assert_eq!(doc["error"]["retryable"], true);
    assert_eq!(
        doc["error"]["next"],
        "retry the same op once that command finishes"
    );
    assert_eq!(
        format!(
            "mosaic-queue: {}\n",
            doc["error"]["message"].as_str().unwrap()
        ),
        out.stderr
    );
}

#[test]
fn the_other_verbs_print_their_text_in_one_object() {
    let repo = Repo::new("json-text");
    assert_eq!(
        repo.run(&["verify", "--current", "--json"], &[]).ok(),
        "{\n  \"verb\": \"verify\",\n  \"text\": \"ok verify rev 1 (1 entries, witness rev 1), table current\"\n}\n"
    );
    assert_eq!(
        repo.run(&["render", "--json"], &[]).ok(),
        "{\n  \"verb\": \"render\",\n  \"text\": \"ok render rev 1: table current\"\n}\n"
    );
    let list: Value = serde_json::from_str(repo.run(&["list", "--json"], &[]).ok()).unwrap();
    assert_eq!(list["revision"], 1);
    assert_eq!(list["rows"].as_array().unwrap().len(), 3);
    let show: Value = serde_json::from_str(repo.run(&["show", "2", "--json"], &[]).ok()).unwrap();
    assert_eq!(show["row"]["piece"], "Render");
}

/// One `log` line as the log holds the entry.
fn log_line(e: &Value) -> String {
    format!(
        "{}\t{}\t{}\t{}\t{}\t{}\n",
        e["rev"],
        e["at"].as_str().unwrap(),
        e["by"].as_str().unwrap(),
        e["verb"].as_str().unwrap(),
        e["receipt"].as_str().unwrap(),
        e["op"].as_str().unwrap()
    )
}

#[test]
fn log_lists_newest_first_and_filters_by_row() {
    let repo = Repo::new("log");
    for (args, op, by) in [
        (
            &["move", "1", "in-progress"][..],
            "darkwing-1-start-1",
            "darkwing",
        ),
        (&["note", "2", "later"], "jason-2-note-1", "jason"),
        (
            &["move", "1", "blocked", "--reason", "waiting"],
            "darkwing-1-block-1",
            "darkwing",
        ),
        (&["add", "--piece", "Docs"], "lead-add-docs-1", "lead"),
    ] {
        repo.run(&change(args, op, by), &[]).ok();
    }
    let log = repo.queue()["log"].as_array().unwrap().clone();
    let lines =
        |revs: &[usize]| -> String { revs.iter().map(|&r| log_line(&log[r - 1])).collect() };

    assert_eq!(repo.run(&["log"], &[]).ok(), lines(&[5, 4, 3, 2, 1]));
    // Row 1: genesis brought it in, then its two moves.
    assert_eq!(repo.run(&["log", "1"], &[]).ok(), lines(&[4, 2, 1]));
    assert_eq!(
        repo.run(&["log", "1", "--limit", "2"], &[]).ok(),
        lines(&[4, 2])
    );
    assert_eq!(repo.run(&["log", "4"], &[]).ok(), lines(&[5]));
    assert_eq!(repo.run(&["log", "--limit", "1"], &[]).ok(), lines(&[5]));

    // --json: the log's own entry objects, newest first.
    let out = repo.run(&["log", "2", "--json"], &[]);
    let doc: Value = serde_json::from_str(out.ok()).unwrap();
    assert_eq!(doc, Value::Array(vec![log[2].clone(), log[0].clone()]));
    assert!(
        out.stdout.starts_with(
            "[\n  {\n    \"rev\": 3,\n    \"op\": \"jason-2-note-1\",\n    \"verb\": \"note\",\n"
        ),
        "{}",
        out.stdout
    );

    // A row that does not exist, and a limit of 0.
    let before = repo.snapshot();
    assert_eq!(
        repo.run(&["log", "9"], &[]).fails(2),
        "mosaic-queue: refused: no row 9 in the queue; `mosaic-queue list` shows the rows"
    );
    assert_eq!(
        repo.run(&["log", "--limit", "0"], &[]).fails(2),
        "mosaic-queue: refused: --limit 0 counts nothing; give 1 or more"
    );
    repo.assert_unchanged(&before);
}

#[test]
fn log_shows_a_rows_review_outcomes() {
    let repo = Repo::new("log-review");
    // Row 1 gets a reviewer; its move to in-review fails to post (no Gitea configured), which
    // logs the attempt and its outcome.
    for (args, op, by) in [
        (
            &["set", "1", "reviewers", "flicker"][..],
            "lead-1-reviewers-1",
            "lead",
        ),
        (
            &["move", "1", "in-progress"],
            "darkwing-1-start-1",
            "darkwing",
        ),
    ] {
        repo.run(&change(args, op, by), &[]).ok();
    }
    let out = repo.run(
        &change(
            &[
                "move",
                "1",
                "in-review",
                "--candidate",
                "HEAD",
                "--issue",
                "12",
                "--json",
            ],
            "darkwing-1-review-1",
            "darkwing",
        ),
        &[],
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    // The entries it wrote before failing come with the error.
    let written: Vec<&str> = doc["error"]["written"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["op"].as_str().unwrap())
        .collect();
    assert_eq!(
        written,
        ["darkwing-1-review-1", "darkwing-1-review-1.outcome"]
    );
    assert_eq!(doc["error"]["written"][1]["verb"], "review-outcome");
    assert_eq!(doc["error"]["written"][1]["row"], 1);

    let log = repo.queue()["log"].as_array().unwrap().clone();
    let ops = |out: &str| -> Vec<String> {
        out.lines()
            .map(|l| l.rsplit('\t').next().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        ops(repo.run(&["log", "1"], &[]).ok()),
        [
            "darkwing-1-review-1.outcome",
            "darkwing-1-review-1",
            "darkwing-1-start-1",
            "lead-1-reviewers-1",
            "genesis-0001"
        ]
    );
    assert_eq!(ops(repo.run(&["log", "2"], &[]).ok()), ["genesis-0001"]);
    assert_eq!(log.len(), 5);
}

const VERBS: &[&str] = &[
    "list",
    "show",
    "next",
    "log",
    "add",
    "move",
    "release",
    "assign",
    "note",
    "set",
    "genesis",
    "verify",
    "render",
    "sync",
    "snapshot",
    "commit",
    "unlock",
    "accept-history",
    "archive",
    "demo",
    "guard",
    "install-hook",
    "map-check",
    "review",
    "completions",
    "man",
];

#[test]
fn help_describes_every_argument_and_ends_with_examples() {
    let out = run_in(Path::new("/"), &["move", "--help"], &[]);
    let help = out.ok();
    for want in [
        "The new status: queued, in-progress, in-review, waiting-on-jason, blocked, parked or",
        "--candidate <FILE|REV>",
        "a manifest file (one `<sha256> <path>` line per",
        "--evidence <comment=ID,round=N,candidate=DIGEST>",
        "--op <ID>",
        "defaults to $MOSAIC_AGENT_NAME",
    ] {
        assert!(help.contains(want), "{want:?} in\n{help}");
    }
    assert!(
        help.ends_with(
            "Examples:\n  mosaic-queue move 3 in-progress --op darkwing-3-start-1 --by darkwing\n  mosaic-queue move 3 in-review --candidate HEAD --issue 1510 --op darkwing-3-review-1 --by darkwing\n"
        ),
        "{help}"
    );
    for verb in VERBS {
        let help = run_in(Path::new("/"), &[verb, "--help"], &[])
            .ok()
            .to_owned();
        assert!(help.contains("\nExample"), "{verb}:\n{help}");
    }
    let top = run_in(Path::new("/"), &["--help"], &[]).ok().to_owned();
    for group in [
        "Reads:",
        "Changes (",
        "Review:",
        "Git:",
        "Recovery:",
        "Exit codes: 0 ok;",
    ] {
        assert!(top.contains(group), "{group}\n{top}");
    }
}

#[test]
fn completions_are_generated_for_each_shell() {
    for (shell, marker) in [
        ("bash", "complete -F _mosaic__queue"),
        ("zsh", "#compdef mosaic-queue"),
        ("fish", "complete -c mosaic-queue"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let out = run_in(Path::new("/"), &["completions", shell], &[]);
        let script = out.ok();
        assert!(script.contains(marker), "{shell}: {marker}");
        for verb in ["accept-history", "verify-commit", "completions"] {
            assert!(script.contains(verb), "{shell} completes {verb}");
        }
    }
    // The bash script is valid bash.
    let script = run_in(Path::new("/"), &["completions", "bash"], &[]).stdout;
    let check = std::process::Command::new("bash")
        .args(["-n", "-c", &script])
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    // A shell that is none of the four is a value refused, exit 2.
    assert_eq!(
        run_in(Path::new("/"), &["completions", "tcsh"], &[]).fails(2),
        "mosaic-queue: refused: shell \"tcsh\" is not one of bash, zsh, fish, powershell; give one of them"
    );
}

#[test]
fn man_pages_are_roff_for_the_command_and_each_verb() {
    let top = run_in(Path::new("/"), &["man"], &[]);
    let page = top.ok();
    assert!(page.contains(".TH mosaic-queue 1"), "{page}");
    assert!(page.contains(".SH NAME"));
    assert!(page.contains(".SH SUBCOMMANDS"));
    for verb in VERBS {
        let out = run_in(Path::new("/"), &["man", verb], &[]);
        let page = out.ok();
        assert!(
            page.starts_with(".ie \\n(.g .ds Aq \\(aq"),
            "{verb}: {page}"
        );
        assert!(
            page.contains(&format!(".TH mosaic-queue-{verb} 1")),
            "{verb}: {page}"
        );
        assert!(
            page.contains(".SH NAME\nmosaic\\-queue\\-"),
            "{verb}: {page}"
        );
    }
    let request = run_in(Path::new("/"), &["man", "review", "request"], &[]);
    assert!(
        request.ok().contains(".TH mosaic-queue-review-request 1"),
        "{}",
        request.stdout
    );
    assert_eq!(
        run_in(Path::new("/"), &["man", "nope"], &[]).fails(4),
        "mosaic-queue: no verb \"nope\"; `mosaic-queue --help` lists them"
    );
}
