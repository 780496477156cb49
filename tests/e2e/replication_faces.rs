//! `replication required` through the faces that are not the command line: an MCP change
//! tool and a one-verb gate call answer as the CLI does, the `not-replicated` error (exit 3,
//! retryable) while the follower has not pushed the revision, and the receipt once it has.
//! The follower's record is written here by hand, standing for a push that returned.

use serde_json::{Value, json};
use support::Repo;
use support::mcp::Mcp;

/// The record a follower writes after pushing `revision` (docs/replication.md).
fn record(repo: &Repo, revision: u64) {
    let text = format!(
        "{{\n  \"revision\": {revision},\n  \"logDigest\": \"{}\",\n  \"commit\": \"{}\",\n  \"remote\": \"origin\",\n  \"ref\": \"refs/mosaic-queue/live\",\n  \"at\": \"2026-12-01T00:00:00.000Z\"\n}}\n",
        "0".repeat(64),
        "a".repeat(40)
    );
    repo.write(".git/mosaic-queue.replicated", text);
}

/// `Repo::new`'s queue with `replication required` at rev 2, answered (the record names it).
fn required(name: &str) -> Repo {
    let repo = Repo::new(name);
    record(&repo, 2);
    let out = repo.run(
        &[
            "replication",
            "required",
            "--op",
            "lead-replication-1",
            "--by",
            "lead",
        ],
        &[],
    );
    assert_eq!(
        out.ok(),
        "ok lead-replication-1 rev 2 replication required\n"
    );
    repo
}

const NOT_REPLICATED: &str = "rev 3 durable here, not yet replicated: the follower is behind or not running; retry with the same --op";

#[test]
fn an_mcp_change_waits_for_the_push_and_its_retry_answers_once_pushed() {
    let repo = required("repl-mcp");
    let (mut mcp, _) = Mcp::start(&repo.root, "darkwing", &[]);
    let note = json!({"verb": "note", "id": 1, "text": "waits", "op": "darkwing-note-0001"});
    // The tool waits the default 10 s, then answers the CLI's error.
    let answer = mcp.call("change", note.clone());
    assert!(answer.is_error, "{}", answer.text);
    let doc: Value = serde_json::from_str(&answer.text).unwrap();
    assert_eq!(
        doc,
        json!({"error": {"exit": 3, "kind": "not-replicated", "message": NOT_REPLICATED, "next": "retry with the same --op", "retryable": true}})
    );
    assert_eq!(repo.queue()["revision"], 3, "durable here");
    record(&repo, 3);
    let answer = mcp.call("change", note);
    assert!(!answer.is_error, "{}", answer.text);
    assert_eq!(
        answer.text,
        r#"{"op":"darkwing-note-0001","revision":3,"verb":"note","row":1,"recorded":true,"text":"ok darkwing-note-0001 rev 3 note 1"}"#
    );
}

#[test]
fn a_gate_call_waits_as_the_command_line_does() {
    let repo = required("repl-gate");
    let root = repo.root.display().to_string();
    let gate = |line: &str| {
        support::run_in(
            &repo.root,
            &["gate", "--seat", "darkwing", "--root", &root],
            &[("SSH_ORIGINAL_COMMAND", line)],
        )
    };
    let line = "note 1 waits --op darkwing-note-0002 --replication-timeout 0";
    let out = gate(line);
    assert_eq!(out.code, 3, "{out:?}");
    assert_eq!(out.stdout, "");
    assert_eq!(out.stderr, format!("mosaic-queue: {NOT_REPLICATED}\n"));
    record(&repo, 3);
    assert_eq!(gate(line).ok(), "ok darkwing-note-0002 rev 3 note 1\n");
    assert_eq!(repo.ops().len(), 3, "applied once");
}
