//! The gate's edges a new remote seat meets first, run as sshd runs the gate (without sshd):
//! a refusal by the command reader answers with its `--json` error document when the words
//! read before it asked for one; `prime` and the MCP server's instructions tell a remote seat
//! what works through the gate (the manifest's text, never a file; no `--by`); and `mcp --seat`
//! naming another seat is refused for `--seat`.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

use serde_json::{Value, json};
use support::mcp::Mcp;
use support::{Out, Repo, command, ok, run_in};

/// The gate for `seat` on `repo`, started beside the checkout, `remote` as the command sent.
fn gate(repo: &Repo, seat: &str, remote: &str) -> Out {
    let root = repo.root.to_str().unwrap();
    run_in(
        &repo.base,
        &["gate", "--seat", seat, "--root", root],
        &[("SSH_ORIGINAL_COMMAND", remote)],
    )
}

/// The error document a refusal with `kind` and `message` prints: `next` is the message's
/// last clause, as every error document has it.
fn refusal(kind: &str, message: &str) -> Value {
    let next = message.rsplit_once("; ").unwrap().1;
    json!({"error": {"exit": 2, "kind": kind, "message": message, "next": next,
        "retryable": false}})
}

/// Exit 2, the line on stderr, and the document on stdout.
fn assert_document(out: &Out, kind: &str, message: &str, what: &str) {
    assert_eq!(out.code, 2, "{what}: {out:?}");
    assert_eq!(out.stderr, format!("mosaic-queue: {message}\n"), "{what}");
    let doc: Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("{what}: stdout is no document ({e}): {:?}", out.stdout));
    assert_eq!(doc, refusal(kind, message), "{what}");
}

const NOT_A_VERB: &str = "refused: this key runs mosaic-queue verbs only, not \"cat\"; send a verb (ssh HOST list), or nothing or `mcp` for the MCP server";

#[test]
fn a_refusal_of_the_command_reader_answers_in_json_when_the_words_before_it_asked() {
    let repo = Repo::new("gate-json-reader");
    let before = repo.snapshot();
    let shell = |at: usize, what: &str| {
        format!(
            "refused: {what} at character {at} is shell syntax, which the gate does not run; send plain words and put other text in '...'"
        )
    };
    for (remote, kind, message) in [
        (
            "--json cat /etc/passwd",
            "not-a-verb",
            NOT_A_VERB.to_owned(),
        ),
        ("cat --json", "not-a-verb", NOT_A_VERB.to_owned()),
        ("list --json; id", "shell-syntax", shell(12, "`;`")),
        ("--json list | cat", "shell-syntax", shell(13, "`|`")),
        ("show 1 --json > /tmp/x", "shell-syntax", shell(15, "`>`")),
        (
            "list --json\nid",
            "shell-syntax",
            String::from(
                "refused: U+000A at character 12 is a control character, which no command carries; send one line of plain words",
            ),
        ),
        (
            "--json note 1 'open",
            "shell-syntax",
            String::from("refused: the ' quote at character 15 is never closed; close it"),
        ),
    ] {
        assert_document(&gate(&repo, "darkwing", remote), kind, &message, remote);
        repo.assert_unchanged(&before);
    }
    // `--json` the gate never read as a word: after the stop, inside a quote left open, or
    // after `--`. One line, nothing on stdout.
    for (remote, line) in [
        ("list; id --json", shell(5, "`;`")),
        (
            "note 1 'open --json",
            String::from("refused: the ' quote at character 8 is never closed; close it"),
        ),
        ("cat -- --json", NOT_A_VERB.to_owned()),
    ] {
        let out = gate(&repo, "darkwing", remote);
        assert_eq!(out.fails(2), format!("mosaic-queue: {line}"), "{remote}");
    }
    repo.assert_unchanged(&before);
}

#[test]
fn a_line_that_is_no_text_or_a_bad_seat_answers_in_json_too() {
    let repo = Repo::new("gate-json-config");
    let before = repo.snapshot();
    let root = repo.root.to_str().unwrap();
    let mut bytes = b"--json list ".to_vec();
    bytes.push(0xff);
    let out = command(
        &repo.base,
        &["gate", "--seat", "darkwing", "--root", root],
        &[],
    )
    .env("SSH_ORIGINAL_COMMAND", OsStr::from_bytes(&bytes))
    .output()
    .unwrap();
    let out = Out {
        code: out.status.code().unwrap_or(-1),
        signal: None,
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    };
    assert_document(
        &out,
        "shell-syntax",
        "refused: SSH_ORIGINAL_COMMAND is not UTF-8; send the verb and its arguments as text",
        "not UTF-8",
    );
    assert_document(
        &gate(&repo, "Dark Wing", "--json list"),
        "gate-config",
        "refused: the seat \"Dark Wing\" in this key's forced command is not a seat name; fix the authorized_keys line",
        "a bad seat",
    );
    repo.assert_unchanged(&before);
}

/// `prime darkwing` after the lead added row 4 after row 1, as a remote seat reads it: the
/// rules and commands are those that work through the gate.
const PRIME_REMOTE: &str = "\
mosaic-queue prime: you are darkwing, a seat. Queue at rev 2.

Your open rows:
  row 1 Parser: queued

Next: row 1 Parser (queued, yours): `mosaic-queue take --op OP` claims it.
Passed over:
  row 3: parked
  row 4: waiting on #1

Rules:
- Every change takes --op ID (8-72 of [a-z0-9._-], first a letter or digit): a new id for each new change.
- Only a printed receipt `ok OP rev N ...` means done. After exit 3, a kill or no output, retry the SAME op id with the SAME arguments: a recorded op answers with its original receipt and changes nothing.
- Exit codes: 0 ok; 1 failed (retry may help); 2 invalid or refused (change what you ask); 3 uncertain (retry the same op); 4 usage.
- Never edit docs/plans/queue.json or QUEUE.md by hand, and never checkout, stash, restore or reset them; commit with plain `git commit`, never --no-verify.
- You may take or start an unowned queued row (you become its owner) and move your own rows: in-progress -> in-review needs the manifest's text (--manifest-stdin, or --manifest-text for one line; never a file, which the queue host cannot read) or a commit the queue host has (--candidate REV), -> blocked needs --reason; in-review -> in-progress when changes are asked.
- You may release your in-progress row, note rows you own or review, and set piece, gate, issues, closes, reviewers, brief or after on rows you own.
- The lead, jason or sage add and assign rows; jason alone moves waiting-on-jason to done.

Commands (through the gate: send each as `ssh HOST COMMAND`, text with spaces in '...' inside one quoted argument; every command acts as darkwing, so no --by):
  mosaic-queue take --op OP                    claim what next names and start it
  mosaic-queue next darkwing --explain         what next gives and why
  mosaic-queue show ID                         one row
  mosaic-queue move ID in-review --manifest-stdin --op OP < MANIFEST
  mosaic-queue move ID in-review --candidate REV --op OP
  mosaic-queue move ID blocked --reason TEXT --op OP
  mosaic-queue release ID --op OP
  mosaic-queue note ID TEXT --op OP
  mosaic-queue wait ID --status in-review,done --timeout 600
  mosaic-queue sync --op OP                    is that op in the log and durable?
";

#[test]
fn prime_through_the_gate_gives_what_works_for_a_remote_seat() {
    let repo = Repo::new("gate-prime");
    ok(
        &repo,
        &["add", "--piece", "Docs", "--after", "1"],
        "lead-add-0001",
        "lead",
        "ok lead-add-0001 rev 2 add 4 queued",
    );
    assert_eq!(gate(&repo, "darkwing", "prime").ok(), PRIME_REMOTE);
    let doc: Value = serde_json::from_str(gate(&repo, "darkwing", "prime --json").ok()).unwrap();
    let listed: Vec<&str> = PRIME_REMOTE
        .split_once("no --by):\n")
        .unwrap()
        .1
        .lines()
        .map(|l| l.trim_start())
        .collect();
    assert_eq!(doc["commands"], json!(listed));
    let rules: Vec<&str> = PRIME_REMOTE
        .split_once("Rules:\n")
        .unwrap()
        .1
        .split_once("\n\n")
        .unwrap()
        .0
        .lines()
        .map(|l| l.strip_prefix("- ").unwrap())
        .collect();
    assert_eq!(doc["rules"], json!(rules));
    // What it names runs through the gate as printed, with no --by.
    let start = gate(&repo, "darkwing", "mosaic-queue take --op darkwing-take-1");
    assert_eq!(
        start.ok(),
        "ok darkwing-take-1 rev 3 take 1 queued -> in-progress\n"
    );
    // On the host, the rules still name a file (the CLI there can read one).
    let local = repo.run(&["prime", "darkwing"], &[]);
    assert!(local.ok().contains("needs --candidate FILE|REV"));
}

#[test]
fn the_mcp_server_the_gate_starts_gives_a_remote_seats_rules() {
    let repo = Repo::new("gate-mcp-rules");
    let root = repo.root.to_str().unwrap();
    let mut mcp = Mcp::spawn_command(command(
        &repo.base,
        &["gate", "--seat", "darkwing", "--root", root],
        &[],
    ));
    let init = mcp.handshake();
    let instructions = init["result"]["instructions"].as_str().unwrap().to_owned();
    assert!(mcp.close().success());
    let rules: Vec<&str> = PRIME_REMOTE
        .split_once("Rules:\n")
        .unwrap()
        .1
        .split_once("\n\n")
        .unwrap()
        .0
        .lines()
        .collect();
    let given: Vec<&str> = instructions
        .split_once("Rules:\n")
        .unwrap()
        .1
        .lines()
        .collect();
    assert_eq!(given, rules);
    assert!(!instructions.contains("FILE"), "{instructions}");
    // The server on the host itself names a file, which it can read there.
    let (local, init) = Mcp::start(&repo.root, "darkwing", &[]);
    assert!(
        init["result"]["instructions"]
            .as_str()
            .unwrap()
            .contains("needs --candidate FILE|REV")
    );
    assert!(local.close().success());
}

/// A move into review without a candidate, through the gate, names what a remote seat can give
/// (the manifest's text or a commit the host has), never a file; on the host it names a file.
/// The MCP server the gate starts describes `candidate` the same way.
#[test]
fn a_missing_candidate_through_the_gate_names_what_a_remote_seat_can_give() {
    let repo = Repo::new("gate-candidate");
    let take = gate(&repo, "darkwing", "take --op darkwing-take-1");
    assert_eq!(
        take.ok(),
        "ok darkwing-take-1 rev 2 take 1 queued -> in-progress\n"
    );
    let remote = gate(&repo, "darkwing", "move 1 in-review --op darkwing-review-1");
    assert_eq!(remote.code, 2, "{remote:?}");
    assert_eq!(
        remote.stderr,
        "mosaic-queue: refused: moving row 1 to in-review needs the manifest's text (--manifest-stdin) or a commit the queue host has (--candidate REV)\n"
    );
    assert_eq!(remote.stdout, "");
    let local = repo.run(
        &[
            "move",
            "1",
            "in-review",
            "--op",
            "darkwing-review-1",
            "--by",
            "darkwing",
        ],
        &[],
    );
    assert_eq!(local.code, 2, "{local:?}");
    assert_eq!(
        local.stderr,
        "mosaic-queue: refused: moving row 1 to in-review needs --candidate FILE|REV\n"
    );
    let candidate = |mcp: &mut Mcp| {
        let tools = mcp.tools();
        tools["tools"][3]["inputSchema"]["properties"]["candidate"]["description"].clone()
    };
    let root = repo.root.to_str().unwrap();
    let mut mcp = Mcp::spawn_command(command(
        &repo.base,
        &["gate", "--seat", "darkwing", "--root", root],
        &[],
    ));
    mcp.handshake();
    assert_eq!(
        candidate(&mut mcp),
        json!("to in-review: a commit the queue host has (or give manifest)")
    );
    assert!(mcp.close().success());
    let (mut local, _) = Mcp::start(&repo.root, "darkwing", &[]);
    assert_eq!(
        candidate(&mut local),
        json!("to in-review: commit or manifest file")
    );
    assert!(local.close().success());
}
