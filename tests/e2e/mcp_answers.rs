//! Tool calls at the bounds of what the MCP server answers, each against the CLI run as its
//! own process or a document written here: a number read as the command line reads it (the
//! same refusal, exit and line), `limit` 0 refused and a page at most `limit` long, a cut
//! document that says how many strings were cut, and the command an `answer-too-large`
//! refusal names, run as printed.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};
use support::Repo;
use support::mcp::{Answer, Mcp, answer, minified};

/// Calls `tool` with `arguments` written as JSON text, so a number keeps digits no `f64` holds.
fn call_raw(mcp: &mut Mcp, id: i64, tool: &str, arguments: &str) -> Answer {
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments}}}}}"#
    );
    mcp.raw(format!("{line}\n").as_bytes());
    answer(&mcp.response(id))
}

/// The CLI's `--json` refusal for `args`: its exit and its document, minified.
fn cli(repo: &Repo, args: &[&str]) -> (i32, String) {
    let mut argv = args.to_vec();
    argv.push("--json");
    let out = repo.run(&argv, &[]);
    (out.code, minified(&out.stdout))
}

#[test]
fn numbers_are_refused_as_the_command_line_refuses_the_same_value() {
    let repo = Repo::new("mcp-numbers");
    let (mut mcp, _) = Mcp::start(&repo.root, "darkwing", &[]);
    let before = repo.snapshot();
    let big = "18446744073709551616";
    let huge = "1000000000000000000000000000000";
    let cases: &[(&str, String, Vec<&str>)] = &[
        (
            "read",
            format!(r#"{{"what":"show","id":{big}}}"#),
            vec!["show", big],
        ),
        (
            "read",
            format!(r#"{{"what":"show","id":{huge}}}"#),
            vec!["show", huge],
        ),
        (
            "read",
            r#"{"what":"show","id":9007199254740992}"#.into(),
            vec!["show", "9007199254740992"],
        ),
        (
            "read",
            r#"{"what":"show","id":-1}"#.into(),
            vec!["show", "-1"],
        ),
        (
            "read",
            r#"{"what":"show","id":1e3}"#.into(),
            vec!["show", "1e3"],
        ),
        (
            "read",
            format!(r#"{{"what":"log","id":{big}}}"#),
            vec!["log", big],
        ),
        (
            "read",
            r#"{"what":"stale","days":4294967296}"#.into(),
            vec!["list", "--stale", "4294967296"],
        ),
        (
            "read",
            format!(r#"{{"what":"stale","days":{huge}}}"#),
            vec!["list", "--stale", huge],
        ),
        (
            "wait",
            format!(r#"{{"id":{big},"status":"done"}}"#),
            vec!["wait", big, "--status", "done"],
        ),
        (
            "change",
            format!(r#"{{"verb":"note","op":"darkwing-n-1","id":{huge},"text":"x"}}"#),
            vec![
                "note",
                huge,
                "x",
                "--op",
                "darkwing-n-1",
                "--by",
                "darkwing",
            ],
        ),
        (
            "review",
            format!(
                r#"{{"verb":"resolve","op":"darkwing-r-1","id":1,"attempt":"a-1","comment":{big}}}"#
            ),
            vec![
                "review",
                "resolve",
                "1",
                "a-1",
                "--comment",
                big,
                "--op",
                "darkwing-r-1",
                "--by",
                "darkwing",
            ],
        ),
    ];
    for (n, (tool, arguments, argv)) in cases.iter().enumerate() {
        let got = call_raw(&mut mcp, 100 + n as i64, tool, arguments);
        let (code, doc) = cli(&repo, argv);
        assert_eq!(code, 2, "{argv:?}: {doc}");
        assert_eq!(
            (got.is_error, got.text.as_str()),
            (true, doc.as_str()),
            "{arguments}"
        );
    }
    // The first, written out: the CLI's line, kind and exit.
    let got = call_raw(
        &mut mcp,
        1,
        "read",
        &format!(r#"{{"what":"show","id":{big}}}"#),
    );
    assert_eq!(
        got.json(),
        json!({"error": {"exit": 2, "kind": "invalid-value",
            "message": "refused: row id 18446744073709551616 is above 9007199254740991 (2^53-1), the largest number queue.json can hold; give the real number",
            "next": "give the real number", "retryable": false}})
    );
    repo.assert_unchanged(&before);
    assert_eq!(mcp.close().code(), Some(0));
}

/// `read` with `what: stale` takes the spellings `list --stale` takes: days as a number or as
/// digits, hours and minutes as `2h` and `90m`; each answer is the CLI's document for the same
/// spelling, and each spelling the CLI refuses is refused with its document.
#[test]
fn stale_takes_the_spellings_list_stale_takes() {
    let repo = Repo::new("mcp-stale-spans");
    let now = [("MOSAIC_NOW_MS", "1767225600000")];
    // Row 1 in progress since the clock's time minus three hours.
    let out = repo.run(
        &[
            "move",
            "1",
            "in-progress",
            "--op",
            "darkwing-1-start",
            "--by",
            "darkwing",
        ],
        &[("MOSAIC_NOW_MS", "1767214800000")],
    );
    out.ok();
    let (mut mcp, _) = Mcp::start(&repo.root, "darkwing", &now);
    let cli_at = |args: &[&str]| {
        let mut argv = args.to_vec();
        argv.push("--json");
        let out = repo.run(&argv, &now);
        (out.code, minified(&out.stdout))
    };
    for (days, spelled) in [
        (json!("2h"), "2h"),
        (json!("180m"), "180m"),
        (json!("181m"), "181m"),
        (json!("3"), "3"),
        (json!(0), "0"),
    ] {
        let got = mcp.call("read", json!({"what": "stale", "days": days}));
        let (code, doc) = cli_at(&["list", "--stale", spelled]);
        assert_eq!(code, 0, "{spelled}: {doc}");
        assert_eq!(
            (got.is_error, got.text.as_str()),
            (false, doc.as_str()),
            "{spelled}"
        );
    }
    // The hours form finds row 1; 181 minutes does not.
    let two_hours = mcp
        .call("read", json!({"what": "stale", "days": "2h"}))
        .json();
    assert_eq!(two_hours["rows"][0]["id"], 1, "{two_hours}");
    assert_eq!(two_hours["span"], "2h", "{two_hours}");
    let longer = mcp
        .call("read", json!({"what": "stale", "days": "181m"}))
        .json();
    assert_eq!(longer["rows"], json!([]), "{longer}");
    for spelled in ["2x", "h", "-1h", "4294967296h", "2 h", ""] {
        let got = mcp.call("read", json!({"what": "stale", "days": spelled}));
        let (code, doc) = cli_at(&["list", &format!("--stale={spelled}")]);
        assert_eq!(code, 2, "{spelled:?}: {doc}");
        assert_eq!(
            (got.is_error, got.text.as_str()),
            (true, doc.as_str()),
            "{spelled:?}"
        );
    }
    assert_eq!(mcp.close().code(), Some(0));
}

#[test]
fn limit_zero_is_refused_and_a_page_holds_at_most_limit() {
    let repo = Repo::new("mcp-limit");
    let (mut mcp, _) = Mcp::start(&repo.root, "darkwing", &[]);
    let zero = json!({"error": {"exit": 2, "kind": "invalid-value",
        "message": "refused: limit 0 counts nothing; give 1 or more",
        "next": "give 1 or more", "retryable": false}});
    for what in ["list", "log", "next"] {
        let got = mcp.call("read", json!({"what": what, "limit": 0}));
        assert!(got.is_error, "{what}");
        assert_eq!(got.json(), zero, "{what}");
    }
    let list = |mcp: &mut Mcp, args: Value| {
        let got = mcp.call("read", args).json();
        let ids: Vec<u64> = got["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_u64().unwrap())
            .collect();
        (ids, got["page"].clone())
    };
    assert_eq!(
        list(&mut mcp, json!({"what": "list", "limit": 2})),
        (
            vec![1, 2],
            json!({"offset": 0, "count": 2, "total": 3, "next": 2})
        )
    );
    assert_eq!(
        list(&mut mcp, json!({"what": "list", "offset": 2, "limit": 1})),
        (
            vec![3],
            json!({"offset": 2, "count": 1, "total": 3, "next": null})
        )
    );
    assert_eq!(mcp.close().code(), Some(0));
}

/// An answer bound low enough for a three-row queue to reach it (the fault-injection seam).
fn bounded(repo: &Repo, bytes: usize) -> Mcp {
    let bound = bytes.to_string();
    Mcp::start(&repo.root, "darkwing", &[("MOSAIC_MCP_MAX_ANSWER", &bound)]).0
}

#[test]
fn a_cut_document_that_needed_no_paging_says_how_many_strings_were_cut() {
    let repo = Repo::new("mcp-cut");
    let note = "é".repeat(400);
    let out = repo.run(
        &["note", "1", &note, "--op", "lead-note-1", "--by", "lead"],
        &[],
    );
    out.ok();
    let whole = cli(&repo, &["show", "1"]).1;
    let mut mcp = bounded(&repo, whole.len() - 1);
    let got = mcp.call("read", json!({"what": "show", "id": 1}));
    // The note is cut to 200 bytes (100 characters) and noted, the rest as the CLI has it.
    let cut = format!("{}...[800 bytes cut]", "é".repeat(100));
    let expected = whole.replace(&note, &cut);
    let expected = format!("{},\"cut\":1}}", expected.strip_suffix('}').unwrap());
    assert_eq!((got.is_error, got.text), (false, expected));
    assert_eq!(mcp.close().code(), Some(0));
}

/// The command between the backticks of a refusal's message.
fn named_command(refusal: &Value) -> String {
    let message = refusal["error"]["message"].as_str().unwrap();
    let (_, rest) = message.split_once('`').unwrap();
    rest.split_once('`').unwrap().0.to_owned()
}

/// Runs `line` as a shell runs it in `dir`, with the binary under test first on the `PATH`.
fn shell(dir: &Path, line: &str) -> (i32, String) {
    let bin = Path::new(support::bin()).parent().unwrap();
    let out = Command::new("sh")
        .args(["-c", line])
        .current_dir(dir)
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        minified(&String::from_utf8(out.stdout).unwrap()),
    )
}

#[test]
fn the_command_an_answer_too_large_names_runs_as_printed() {
    let repo = Repo::new("mcp-too-large");
    let status = repo.row(1)["status"].as_str().unwrap().to_owned();
    let mut mcp = bounded(&repo, 200);
    let cases: &[(&str, Value, &str, Vec<&str>)] = &[
        (
            "read",
            json!({"what": "show", "id": 1}),
            "mosaic-queue show --json -- 1",
            vec!["show", "1"],
        ),
        (
            "orient",
            json!({}),
            "mosaic-queue prime --json -- darkwing",
            vec!["prime", "darkwing"],
        ),
        (
            "read",
            json!({"what": "next"}),
            "mosaic-queue next --explain --json -- darkwing",
            vec!["next", "--explain", "darkwing"],
        ),
        (
            "wait",
            json!({"id": 1, "status": status, "timeout": 5}),
            &format!("mosaic-queue wait --status={status} --timeout=5 --json -- 1"),
            vec!["wait", "1", "--status", &status, "--timeout", "5"],
        ),
    ];
    for (tool, args, command, argv) in cases {
        let got = mcp.call(tool, args.clone());
        let refusal = got.json();
        assert_eq!(
            (got.is_error, &refusal["error"]["kind"]),
            (true, &json!("answer-too-large")),
            "{refusal}"
        );
        assert_eq!(named_command(&refusal), *command);
        // Run as printed, it prints what the CLI prints for the same verb.
        let (code, printed) = shell(&repo.root, command);
        assert_eq!((code, printed), (0, cli(&repo, argv).1), "{command}");
    }
    assert_eq!(mcp.close().code(), Some(0));
}
