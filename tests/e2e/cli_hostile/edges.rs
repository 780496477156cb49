//! The command line's edges: every value an argument checks (op ids, actors, row ids and every
//! other number, statuses, verdicts, digests, timeouts, shells, bytes that are not UTF-8) gives
//! exit 2 and the same one line however it is spelled (`--op=V`, `--op V`, a leading `-`), and
//! the same id the same answer in every verb; a command line of the wrong shape is one line and
//! exit 4; a huge value is never repeated whole (the case's secret is the whole value).

use super::{Arg, Case, DIGEST, Family, change, refs};

/// Every case of this file.
pub fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    out.extend(spellings());
    out.extend(row_ids());
    out.extend(values());
    out.extend(slips());
    out
}

fn case(name: &str, args: &[&str], code: i32, gist: &str) -> Case {
    Case::new(Family::Argv, format!("argv/edges/{name}"), args, code, gist)
}

/// An op id, an actor and a status refused alike whether the value follows its flag as the
/// next word, after `=`, or starts with `-`.
fn spellings() -> Vec<Case> {
    let mut out = Vec::new();
    for (label, op) in [
        ("dash", "-darkwing-note"),
        ("short", "x-1"),
        ("dashes", "--x"),
    ] {
        let gist = format!("refused: op id \"{op}\" is invalid");
        let spaced = ["note", "1", "text", "--by", "darkwing", "--op", op];
        let joined = format!("--op={op}");
        let equals = ["note", "1", "text", "--by", "darkwing", &joined];
        out.push(case(&format!("op/{label}/spaced"), &spaced, 2, &gist));
        out.push(case(&format!("op/{label}/equals"), &equals, 2, &gist));
        out.push(case(
            &format!("op/{label}/take"),
            &["take", "--by", "darkwing", &joined],
            2,
            &gist,
        ));
        out.push(case(
            &format!("op/{label}/sync"),
            &["sync", "--op", op],
            2,
            &gist,
        ));
    }
    for (label, by) in [("dash", "-x"), ("upper", "Darkwing")] {
        let gist = format!("refused: actor \"{by}\" is not a seat name");
        let joined = format!("--by={by}");
        let spaced = change(&["note", "1", "text"], "hostile-op-1", by);
        out.push(case(
            &format!("by/{label}/spaced"),
            &refs(&spaced),
            2,
            &gist,
        ));
        out.push(case(
            &format!("by/{label}/equals"),
            &["note", "1", "text", "--op", "hostile-op-1", &joined],
            2,
            &gist,
        ));
    }
    let status = "refused: unknown status \"-x\"";
    // After `--` every word is positional, so the flags go first.
    let after_dashes = [
        "move",
        "--op",
        "hostile-op-1",
        "--by",
        "darkwing",
        "1",
        "--",
        "-x",
    ];
    out.push(case("status/move", &after_dashes, 2, status));
    for (label, flag) in [
        ("add-spaced", vec!["--status", "-x"]),
        ("add-equals", vec!["--status=-x"]),
    ] {
        let mut args = vec!["add", "--piece", "P"];
        args.extend(flag);
        let args = change(&args, "hostile-op-1", "sage");
        out.push(case(&format!("status/{label}"), &refs(&args), 2, status));
    }
    out.push(case(
        "status/wait",
        &["wait", "1", "--status", "-x"],
        2,
        status,
    ));
    out
}

/// Every verb that takes a row id reads it with one parser: too large, no number, a leading
/// `-`, and 400 digits (quoted in part) give the same line in each.
fn row_ids() -> Vec<Case> {
    let long = "9".repeat(400);
    let verbs: Vec<(&str, Vec<String>)> = vec![
        ("show", vec!["show".into(), "{}".into()]),
        ("log", vec!["log".into(), "{}".into()]),
        (
            "wait",
            vec!["wait".into(), "{}".into(), "--status".into(), "done".into()],
        ),
        (
            "move",
            change(&["move", "{}", "in-progress"], "hostile-op-1", "darkwing"),
        ),
        (
            "release",
            change(&["release", "{}"], "hostile-op-1", "darkwing"),
        ),
        (
            "note",
            change(&["note", "{}", "t"], "hostile-op-1", "darkwing"),
        ),
        (
            "verify-commit",
            vec![
                "review".into(),
                "verify-commit".into(),
                "{}".into(),
                "HEAD".into(),
            ],
        ),
    ];
    let values: [(&str, &str, &str); 5] = [
        (
            "2pow53",
            "9007199254740992",
            "refused: row id 9007199254740992 is above",
        ),
        (
            "2pow64",
            "18446744073709551616",
            "refused: row id 18446744073709551616 is above",
        ),
        (
            "word",
            "abc",
            "refused: row id \"abc\" is not a whole number",
        ),
        (
            "negative",
            "-1",
            "refused: row id \"-1\" is not a whole number",
        ),
        (
            "400-digits",
            &long,
            "… (400 digits) is above 9007199254740991",
        ),
    ];
    let mut out = Vec::new();
    for (verb, template) in &verbs {
        for (label, value, gist) in &values {
            let args: Vec<String> = template.iter().map(|a| a.replace("{}", value)).collect();
            let mut c = case(&format!("row-id/{verb}/{label}"), &refs(&args), 2, gist);
            if value.len() > 100 {
                c = c.secret(value);
            }
            out.push(c);
        }
    }
    // Row ids in lists, and the other numbers, through the same parsers.
    for (label, args, gist) in [
        (
            "add-after",
            change(
                &["add", "--piece", "P", "--after", "1,abc"],
                "hostile-op-1",
                "sage",
            ),
            "refused: --after \"abc\" is not a whole number",
        ),
        (
            "set-after",
            change(&["set", "1", "after", "-1"], "hostile-op-1", "sage"),
            "refused: after \"-1\" is not a whole number",
        ),
        (
            "move-issue",
            change(
                &[
                    "move",
                    "1",
                    "in-review",
                    "--candidate",
                    "HEAD",
                    "--issue",
                    "-12",
                ],
                "hostile-op-1",
                "darkwing",
            ),
            "refused: --issue \"-12\" is not a whole number",
        ),
        (
            "add-issues",
            change(
                &["add", "--piece", "P", "--issues=-12"],
                "hostile-op-1",
                "sage",
            ),
            "refused: --issues \"-12\" is not a whole number",
        ),
        (
            "log-limit",
            vec!["log".into(), "--limit".into(), "-1".into()],
            "refused: --limit \"-1\" is not a whole number",
        ),
        (
            "log-limit-zero",
            vec!["log".into(), "--limit=0".into()],
            "refused: --limit 0 counts nothing",
        ),
        (
            "list-stale",
            vec!["list".into(), "--stale".into(), "4294967296".into()],
            "refused: --stale 4294967296 is above 4294967295",
        ),
        (
            "wait-revision",
            vec!["wait".into(), "--revision-after".into(), "x".into()],
            "refused: --revision-after \"x\" is not a whole number",
        ),
    ] {
        out.push(case(&format!("number/{label}"), &refs(&args), 2, gist));
    }
    out
}

/// The other checked values: verdicts, digests, fields, timeouts, shells, bytes that are not
/// UTF-8, and huge values of each kind (quoted in part).
fn values() -> Vec<Case> {
    let record = |verdict: &str, candidate: &str| {
        change(
            &[
                "review",
                "record",
                "1",
                "--verdict",
                verdict,
                "--comment",
                "7",
                "--candidate",
                candidate,
            ],
            "hostile-op-1",
            "flicker",
        )
    };
    let long = "x".repeat(400);
    let mut out = vec![
        case(
            "verdict/dash",
            &refs(&record("-x", DIGEST)),
            2,
            "refused: unknown verdict \"-x\"",
        ),
        case(
            "digest/dash",
            &refs(&record("approve", "-x")),
            2,
            "candidate \"-x\" is not a digest",
        ),
        case(
            "digest/long",
            &refs(&record("approve", &long)),
            2,
            "… (400 characters) is not a digest",
        )
        .secret(&long),
        case(
            "candidate/dash",
            &refs(&change(
                &["move", "1", "in-review", "--candidate", "--git-dir=x"],
                "hostile-op-1",
                "darkwing",
            )),
            2,
            "--candidate \"--git-dir=x\" is neither a manifest file nor a commit",
        ),
        case(
            "candidate/long",
            &refs(&change(
                &["move", "1", "in-review", "--candidate", &long],
                "hostile-op-1",
                "darkwing",
            )),
            2,
            "… (400 characters) is neither a manifest file nor a commit",
        )
        .secret(&long),
        case(
            "field/unknown",
            &refs(&change(
                &["set", "1", "colour", "red"],
                "hostile-op-1",
                "sage",
            )),
            2,
            "refused: unknown field \"colour\"",
        ),
        case(
            "timeout/dash",
            &["wait", "1", "--status", "done", "--timeout", "-1"],
            2,
            "refused: --timeout \"-1\" is not a number of seconds",
        ),
        case(
            "timeout/equals",
            &["wait", "1", "--status", "done", "--timeout=-1"],
            2,
            "refused: --timeout \"-1\" is not a number of seconds",
        ),
        case(
            "shell/unknown",
            &["completions", "tcsh"],
            2,
            "refused: shell \"tcsh\" is not one of bash, zsh, fish, powershell",
        ),
        case(
            "op/long",
            &["note", "1", "text", "--by", "darkwing", "--op", &long],
            2,
            "… (400 characters) is invalid",
        )
        .secret(&long),
        case(
            "seat/long",
            &["next", &long],
            2,
            "… (400 characters) is not a seat name",
        )
        .secret(&long),
        case(
            "status/long",
            &refs(&change(&["move", "1", &long], "hostile-op-1", "darkwing")),
            2,
            "refused: unknown status \"xxxx",
        )
        .secret(&long),
    ];
    // Bytes that are not UTF-8, as the flag's next word, after `=`, and as a positional.
    for (label, before, value) in [
        (
            "spaced",
            vec!["note", "1", "text", "--by", "darkwing", "--op"],
            b"op-\xff-1".to_vec(),
        ),
        (
            "equals",
            vec!["note", "1", "text", "--by", "darkwing"],
            b"--op=op-\xff-1".to_vec(),
        ),
        ("positional", vec!["show"], b"\xff".to_vec()),
    ] {
        let gist = if label == "positional" {
            "refused: argument 2 is not UTF-8"
        } else {
            "refused: --op is not UTF-8"
        };
        let mut c = case(&format!("utf8/{label}"), &before, 2, gist);
        c.args.push(Arg::B(value));
        out.push(c);
    }
    out
}

/// A command line of the wrong shape: one line, exit 4, and a huge word quoted in part.
fn slips() -> Vec<Case> {
    let long = format!("--{}", "y".repeat(400));
    vec![
        case(
            "usage/no-op",
            &["note", "1", "text", "--by", "darkwing"],
            4,
            "mosaic-queue: the following required arguments were not provided: --op <ID>; see `mosaic-queue note --help`",
        ),
        case(
            "usage/op-without-value",
            &["note", "1", "text", "--by", "darkwing", "--op"],
            4,
            "mosaic-queue: a value is required for '--op <ID>' but none was supplied",
        ),
        case(
            "usage/unknown-flag",
            &["list", "--bogus"],
            4,
            "mosaic-queue: unexpected argument '--bogus' found; see `mosaic-queue list --help`",
        ),
        case(
            "usage/no-verb",
            &[],
            4,
            "mosaic-queue: `mosaic-queue` needs a verb",
        ),
        case(
            "usage/review-no-verb",
            &["review"],
            4,
            "mosaic-queue: `mosaic-queue review` needs a verb",
        ),
        case(
            "usage/unknown-verb",
            &["lst"],
            4,
            "mosaic-queue: unrecognized subcommand 'lst' (a similar subcommand exists: 'list')",
        ),
        case(
            "usage/long-flag",
            &["list", &long],
            4,
            "…' (402 characters) found",
        )
        .secret(&long),
        case(
            "usage/long-word",
            &["show", "1", &long[2..]],
            4,
            "…' (400 characters) found",
        )
        .secret(&long[2..]),
    ]
}
