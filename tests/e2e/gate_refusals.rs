//! `mosaic-queue gate` as sshd runs it, without sshd: the binary started outside the checkout
//! with `SSH_ORIGINAL_COMMAND` and whatever environment a client could send. Every refusal is
//! exit 2 with one line and leaves each queue file as it was; what is let through runs as the
//! key's seat whatever the environment says. gate_ssh.rs runs the same gate behind a real sshd.

use std::io::Write;
use std::process::Stdio;

use serde_json::json;
use support::{Out, Repo, command, run_in};

/// Runs the gate for `seat` on `repo` from beside the checkout, `remote` as the command sent.
fn gate(repo: &Repo, seat: &str, remote: Option<&str>, env: &[(&str, &str)]) -> Out {
    let mut vars = env.to_vec();
    if let Some(remote) = remote {
        vars.push(("SSH_ORIGINAL_COMMAND", remote));
    }
    let root = repo.root.to_str().unwrap();
    run_in(&repo.base, &["gate", "--seat", seat, "--root", root], &vars)
}

/// `gate` with `input` on stdin.
fn gate_fed(repo: &Repo, seat: &str, remote: &str, input: &[u8]) -> Out {
    let root = repo.root.to_str().unwrap();
    let mut child = command(
        &repo.base,
        &["gate", "--seat", seat, "--root", root],
        &[("SSH_ORIGINAL_COMMAND", remote)],
    )
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    Out {
        code: out.status.code().unwrap_or(-1),
        signal: None,
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// What a client could send to act as someone else or somewhere else.
const HOSTILE_ENV: &[(&str, &str)] = &[
    ("MOSAIC_AGENT_NAME", "jason"),
    ("GIT_DIR", "/nonexistent"),
    ("MOSAIC_GITEA_CREDENTIAL_FILE", "/etc/shadow"),
];

#[test]
fn one_verb_runs_as_the_keys_seat_whatever_the_environment_says() {
    let repo = Repo::new("gate-seat");
    let out = gate(
        &repo,
        "flicker",
        Some("take --op flicker-take-1"),
        HOSTILE_ENV,
    );
    assert_eq!(
        out.ok(),
        "ok flicker-take-1 rev 2 take 2 queued -> in-progress\n"
    );
    let entry = &repo.queue()["log"][1];
    assert_eq!(
        (&entry["op"], &entry["by"]),
        (&json!("flicker-take-1"), &json!("flicker"))
    );
    // A read answers as the CLI does in the checkout.
    let local = repo.run(&["list", "--json"], &[]);
    let remote = gate(
        &repo,
        "flicker",
        Some("mosaic-queue list --json"),
        HOSTILE_ENV,
    );
    assert_eq!(remote.ok(), local.ok());
    // `next` and `prime` without a seat are the key's seat's.
    let next = gate(&repo, "darkwing", Some("next"), HOSTILE_ENV);
    assert_eq!(next.ok(), repo.run(&["next", "darkwing"], &[]).ok());
}

/// Each command a darkwing key sends that the gate refuses, with the line it prints.
const REFUSED: &[(&str, &str)] = &[
    (
        "/bin/sh",
        "refused: this key runs mosaic-queue verbs only, not \"/bin/sh\"; send a verb (ssh HOST list), or nothing or `mcp` for the MCP server",
    ),
    (
        "cat /etc/passwd",
        "refused: this key runs mosaic-queue verbs only, not \"cat\"; send a verb (ssh HOST list), or nothing or `mcp` for the MCP server",
    ),
    (
        "mosaic-queue; id",
        "refused: `;` at character 13 is shell syntax, which the gate does not run; send plain words and put other text in '...'",
    ),
    (
        "list $(id)",
        "refused: `$` at character 6 is shell syntax, which the gate does not run; send plain words and put other text in '...'",
    ),
    (
        "list > /tmp/gate-x",
        "refused: `>` at character 6 is shell syntax, which the gate does not run; send plain words and put other text in '...'",
    ),
    (
        "take --op darkwing-take-9 --by jason",
        "refused: this key acts as darkwing only, not jason; leave --by out, since every command through it acts as darkwing",
    ),
    (
        "mcp --seat jason",
        "refused: this key acts as darkwing only, not jason; leave --seat out, since every command through it acts as darkwing",
    ),
    (
        "add --piece x --op darkwing-add-9",
        "refused: add is for the lead, jason or sage, and this key acts as darkwing; ask one of them to run it",
    ),
    (
        "accept-history --reason r --yes --op darkwing-acc-9",
        "refused: accept-history is for jason or sage, and this key acts as darkwing; ask one of them to run it",
    ),
    (
        "install-hook",
        "refused: install-hook is for jason or sage, and this key acts as darkwing; ask one of them to run it",
    ),
    (
        "move 1 in-review --candidate /etc/passwd --op darkwing-1-rev-9",
        "refused: --candidate \"/etc/passwd\" names a file on the queue host, which a remote seat cannot hand over; send the manifest's text with --manifest-stdin (ssh HOST move ... --manifest-stdin < MANIFEST) or --manifest-text, or name a commit",
    ),
    (
        "move 1 in-review --candidate docs/plans/queue.json --op darkwing-1-rev-9",
        "refused: --candidate \"docs/plans/queue.json\" names a file on the queue host, which a remote seat cannot hand over; send the manifest's text with --manifest-stdin (ssh HOST move ... --manifest-stdin < MANIFEST) or --manifest-text, or name a commit",
    ),
    (
        "map-check --map /etc/shadow",
        "refused: map-check reads the migration map from a file on the queue host; run it there",
    ),
    (
        "snapshot --out /tmp/gate-x",
        "refused: snapshot writes files on the queue host; read the queue with list --json, or run it there",
    ),
    (
        "verify --snapshot /etc --base /etc/passwd",
        "refused: verify reads files on the queue host; verify --snapshot needs no checkout, so run it where the snapshot is",
    ),
    (
        "wait 1 --status done",
        "refused: a remote wait needs --timeout SECONDS, at most 600, so it cannot outlive its connection; call it again to wait longer",
    ),
    (
        "demo",
        "refused: demo builds a scratch checkout for whoever runs it; run it on your own machine",
    ),
];

#[test]
fn every_refusal_is_exit_2_one_line_and_writes_nothing() {
    let repo = Repo::new("gate-refused");
    let before = repo.snapshot();
    for (remote, line) in REFUSED {
        let out = gate(&repo, "darkwing", Some(remote), HOSTILE_ENV);
        assert_eq!(out.fails(2), format!("mosaic-queue: {line}"), "{remote}");
        repo.assert_unchanged(&before);
    }
    assert!(!std::path::Path::new("/tmp/gate-x").exists());
}

#[test]
fn a_refusal_asked_for_in_json_answers_with_the_error_document() {
    let repo = Repo::new("gate-json");
    let out = gate(
        &repo,
        "darkwing",
        Some("--json add --piece x --op darkwing-add-9"),
        &[],
    );
    assert_eq!(out.code, 2);
    let message = "refused: add is for the lead, jason or sage, and this key acts as darkwing; ask one of them to run it";
    assert_eq!(out.stderr, format!("mosaic-queue: {message}\n"));
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        doc,
        json!({"error": {"exit": 2, "kind": "privileged-verb", "message": message,
            "next": "ask one of them to run it", "retryable": false}})
    );
    // A value the parser refuses answers as the CLI does: its line, then its document.
    let big = "--json show 99999999999999999999";
    let out = gate(&repo, "darkwing", Some(big), &[]);
    let local = repo.run(&["--json", "show", "99999999999999999999"], &[]);
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (2, local.stdout.as_str(), local.stderr.as_str())
    );
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&out.stdout).unwrap()["error"]["kind"],
        "invalid-value"
    );
}

#[test]
fn the_privileged_run_what_the_contract_lets_them() {
    let repo = Repo::new("gate-privileged");
    let out = gate(
        &repo,
        "lead",
        Some("add --piece 'Remote row' --op lead-add-remote-1"),
        HOSTILE_ENV,
    );
    assert_eq!(out.ok(), "ok lead-add-remote-1 rev 2 add 4 queued\n");
    let before = repo.snapshot();
    let out = gate(
        &repo,
        "lead",
        Some("accept-history --reason r --yes --op lead-accept-1"),
        &[],
    );
    assert_eq!(
        out.fails(2),
        "mosaic-queue: refused: accept-history is for jason or sage, and this key acts as lead; ask one of them to run it"
    );
    repo.assert_unchanged(&before);
}

#[test]
fn a_remote_seat_hands_its_manifest_over_on_stdin_or_inline() {
    let repo = Repo::new("gate-manifest");
    let start = gate(
        &repo,
        "darkwing",
        Some("move 1 in-progress --op darkwing-1-start"),
        &[],
    );
    assert_eq!(
        start.ok(),
        "ok darkwing-1-start rev 2 move 1 queued -> in-progress\n"
    );
    let manifest = format!(
        "{} src/parser.rs\n{} src/render.rs\n",
        "a".repeat(64),
        "b".repeat(64)
    );
    let out = gate_fed(
        &repo,
        "darkwing",
        "move 1 in-review --manifest-stdin --issue 12 --op darkwing-1-review-1",
        manifest.as_bytes(),
    );
    assert_eq!(
        out.ok(),
        "ok darkwing-1-review-1 rev 3 move 1 in-progress -> in-review round 1\n"
    );
    assert_eq!(repo.queue()["log"][2]["args"]["manifest"], json!(manifest));
    // A retry of the op with the same manifest answers as recorded.
    let again = gate_fed(
        &repo,
        "darkwing",
        "move 1 in-review --manifest-stdin --issue 12 --op darkwing-1-review-1",
        manifest.as_bytes(),
    );
    assert_eq!(again.ok(), out.stdout);
    // A manifest of several lines cannot come inline: a newline is refused even quoted.
    let before = repo.snapshot();
    let inline = format!("move 1 in-review --manifest-text '{manifest}' --op darkwing-1-review-2");
    assert_eq!(
        gate(&repo, "darkwing", Some(&inline), &[]).fails(2),
        "mosaic-queue: refused: U+000A at character 113 is a control character, which no command carries; send one line of plain words"
    );
    repo.assert_unchanged(&before);
}

#[test]
fn a_one_line_manifest_comes_inline() {
    let repo = Repo::new("gate-manifest-inline");
    let start = gate(
        &repo,
        "darkwing",
        Some("move 1 in-progress --op darkwing-1-start"),
        &[],
    );
    assert_eq!(
        start.ok(),
        "ok darkwing-1-start rev 2 move 1 queued -> in-progress\n"
    );
    let line = format!("{} src/parser.rs", "c".repeat(64));
    let remote =
        format!("move 1 in-review --manifest-text '{line}' --issue 12 --op darkwing-1-review-1");
    let out = gate(&repo, "darkwing", Some(&remote), &[]);
    assert_eq!(
        out.ok(),
        "ok darkwing-1-review-1 rev 3 move 1 in-progress -> in-review round 1\n"
    );
    assert_eq!(repo.queue()["log"][2]["args"]["manifest"], json!(line));
}

#[test]
fn a_key_with_a_bad_seat_or_checkout_runs_nothing() {
    let repo = Repo::new("gate-config");
    let before = repo.snapshot();
    let out = gate(&repo, "Dark Wing", Some("list"), &[]);
    assert_eq!(
        out.fails(2),
        "mosaic-queue: refused: the seat \"Dark Wing\" in this key's forced command is not a seat name; fix the authorized_keys line"
    );
    let out = run_in(
        &repo.base,
        &[
            "gate",
            "--seat",
            "darkwing",
            "--root",
            "/nonexistent/checkout",
        ],
        &[("SSH_ORIGINAL_COMMAND", "list")],
    );
    assert_eq!(
        out.fails(2),
        "mosaic-queue: refused: the checkout /nonexistent/checkout named by this key's forced command cannot be entered (No such file or directory (os error 2)); fix --root in the authorized_keys line"
    );
    repo.assert_unchanged(&before);
}

/// Each refusal kind the gate has, asked for with `--json` where the gate reads that far: the
/// error document on stdout, written out here, with the line on stderr.
const KINDS: &[(&str, &str, &str, &str)] = &[
    (
        "--json take --op darkwing-take-9 --by jason",
        "actor-pinned",
        "refused: this key acts as darkwing only, not jason; leave --by out, since every command through it acts as darkwing",
        "leave --by out, since every command through it acts as darkwing",
    ),
    (
        "--json add --piece x --op darkwing-add-9",
        "privileged-verb",
        "refused: add is for the lead, jason or sage, and this key acts as darkwing; ask one of them to run it",
        "ask one of them to run it",
    ),
    (
        "--json snapshot --out /tmp/gate-x",
        "local-only",
        "refused: snapshot writes files on the queue host; read the queue with list --json, or run it there",
        "read the queue with list --json, or run it there",
    ),
    (
        "--json move 1 in-review --candidate /etc/passwd --op darkwing-1-rev-9",
        "file-argument",
        "refused: --candidate \"/etc/passwd\" names a file on the queue host, which a remote seat cannot hand over; send the manifest's text with --manifest-stdin (ssh HOST move ... --manifest-stdin < MANIFEST) or --manifest-text, or name a commit",
        "send the manifest's text with --manifest-stdin (ssh HOST move ... --manifest-stdin < MANIFEST) or --manifest-text, or name a commit",
    ),
    (
        "--json move 1 in-review --candidate -x --op darkwing-1-rev-9",
        "option-injection",
        "refused: --candidate \"-x\" starts with `-` and would reach git as an option; name a branch, tag or commit id",
        "name a branch, tag or commit id",
    ),
    (
        "--json wait 1 --status done --timeout 601",
        "wait-unbounded",
        "refused: a remote wait needs --timeout SECONDS, at most 600, so it cannot outlive its connection; call it again to wait longer",
        "call it again to wait longer",
    ),
];

#[test]
fn every_refusal_kind_answers_with_its_document() {
    let repo = Repo::new("gate-kinds");
    let before = repo.snapshot();
    for (remote, kind, message, next) in KINDS {
        let out = gate(&repo, "darkwing", Some(remote), HOSTILE_ENV);
        let doc: serde_json::Value =
            serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{remote}: {e}: {out:?}"));
        assert_eq!(
            (out.code, out.stderr.as_str(), doc),
            (
                2,
                format!("mosaic-queue: {message}\n").as_str(),
                json!({"error": {"exit": 2, "kind": kind, "message": message, "next": next,
                    "retryable": false}})
            ),
            "{remote}"
        );
        repo.assert_unchanged(&before);
    }
    assert!(!std::path::Path::new("/tmp/gate-x").exists());
}

/// The kinds decided as the gate reads the key's line and the command (the command is not
/// text, not a verb, or shell syntax, or the line's seat is wrong), asked for without `--json`:
/// the line alone, exit 2, nothing on stdout, every file as it was.
#[test]
fn a_refusal_before_the_verb_is_read_is_its_line_alone() {
    use std::os::unix::ffi::OsStrExt;
    let repo = Repo::new("gate-early");
    let before = repo.snapshot();
    let root = repo.root.to_str().unwrap();
    let early: &[(&str, &str)] = &[
        (
            "list; id",
            "refused: `;` at character 5 is shell syntax, which the gate does not run; send plain words and put other text in '...'",
        ),
        (
            "/bin/sh -c id",
            "refused: this key runs mosaic-queue verbs only, not \"/bin/sh\"; send a verb (ssh HOST list), or nothing or `mcp` for the MCP server",
        ),
    ];
    for (remote, line) in early {
        let out = gate(&repo, "darkwing", Some(remote), HOSTILE_ENV);
        assert_eq!(out.fails(2), format!("mosaic-queue: {line}"), "{remote}");
    }
    let mut cmd = command(
        &repo.base,
        &["gate", "--seat", "darkwing", "--root", root],
        &[],
    );
    cmd.env(
        "SSH_ORIGINAL_COMMAND",
        std::ffi::OsStr::from_bytes(b"list \xff"),
    );
    let out = cmd.output().unwrap();
    let out = Out {
        code: out.status.code().unwrap_or(-1),
        signal: None,
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    };
    assert_eq!(
        out.fails(2),
        "mosaic-queue: refused: SSH_ORIGINAL_COMMAND is not UTF-8; send the verb and its arguments as text"
    );
    let out = gate(&repo, "Dark Wing", Some("list"), &[]);
    assert_eq!(
        out.fails(2),
        "mosaic-queue: refused: the seat \"Dark Wing\" in this key's forced command is not a seat name; fix the authorized_keys line"
    );
    repo.assert_unchanged(&before);
}
