//! A server that cannot start says why where its client looks: the client's first request
//! (`initialize`) is answered with a JSON-RPC error carrying the refusal's line and the CLI's
//! error document, the line goes to stderr too, and the process exits 2, as `mcp` refused on
//! the command line does.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::Stdio;

use serde_json::{Value, json};
use support::Repo;

/// Starts `mcp ARGS` in `dir`, sends `lines`, and returns its first line of output, its exit
/// code and its stderr.
fn refused_start(dir: &Path, args: &[&str], lines: &[Value]) -> (Value, i32, String) {
    let mut child = support::command(dir, args, &[])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for line in lines {
        writeln!(stdin, "{line}").unwrap();
    }
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (
        serde_json::from_str(&first).unwrap(),
        status.code().unwrap(),
        stderr,
    )
}

/// What the command line says for the same start, its input closed: the line and the
/// `--json` error document.
fn refused_at_the_command_line(dir: &Path, args: &[&str]) -> (String, Value) {
    let mut argv = args.to_vec();
    argv.push("--json");
    let out = support::run_in(dir, &argv, &[]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    let line = out
        .stderr
        .strip_prefix("mosaic-queue: ")
        .unwrap()
        .trim_end()
        .to_owned();
    (line, serde_json::from_str(&out.stdout).unwrap())
}

fn initialize(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}}})
}

#[test]
fn a_refused_start_answers_the_first_request_with_its_line() {
    let repo = Repo::new("mcp-refused-start");
    let before = repo.snapshot();
    let starts: &[(&Path, &[&str])] = &[
        // Outside a checkout (a `cd` that did not happen, say).
        (&repo.base, &["mcp", "--seat", "darkwing"]),
        // A seat that is not a seat name.
        (&repo.root, &["mcp", "--seat", "Not A Seat"]),
        // No seat at all.
        (&repo.root, &["mcp"]),
    ];
    for (dir, args) in starts {
        let (line, document) = refused_at_the_command_line(dir, args);
        // A notification first is no request: the initialize after it is answered.
        let sent = [
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            initialize(7),
        ];
        let (reply, code, stderr) = refused_start(dir, args, &sent);
        assert_eq!(
            reply,
            json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32603, "message": line, "data": document}}),
            "{args:?}"
        );
        assert_eq!(
            (code, stderr),
            (2, format!("mosaic-queue: {line}\n")),
            "{args:?}"
        );
    }
    repo.assert_unchanged(&before);
}
