//! The MCP server as a long-lived process: malformed and oversized messages get JSON-RPC
//! errors and the server goes on; closing stdin ends it with exit 0, even mid-wait; a
//! cancelled wait stops; a refused start writes nothing; a kill mid-write recovers as a CLI
//! kill does; a server that could not remove its lock ends so the lock is dead; 16 servers
//! racing `take` over 8 rows give each row to one seat.

use std::sync::Barrier;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::Repo;
use support::mcp::{Mcp, answer};

use crate::mcp_tools::{ROW1, ROW2, error_doc, is, receipt_doc};

#[test]
fn malformed_and_oversized_messages_get_errors_and_the_server_goes_on() {
    let repo = Repo::new("mcp-malformed");
    let (mut mcp, _) = Mcp::start(&repo.root, "darkwing", &[]);
    mcp.raw(b"this is not json\n");
    assert_eq!(
        mcp.recv(),
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error: not JSON"}})
    );
    mcp.raw(b"{\"id\": 7, \"method\": 5}\n");
    assert_eq!(
        mcp.recv(),
        json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32600, "message": "Invalid Request: not a JSON-RPC 2.0 message"}})
    );
    mcp.raw(b"[1, 2]\n\xff\xfe\n");
    assert_eq!(mcp.recv()["error"]["code"], -32600);
    assert_eq!(mcp.recv()["error"]["code"], -32700);
    // A notification is never answered, even a malformed one; a blank line is nothing.
    mcp.raw(b"{\"jsonrpc\": \"2.0\", \"method\": \"notifications/whatever\", \"params\": 3}\n\n");
    // An unknown method is the protocol's own error.
    assert_eq!(mcp.request("no/such", json!({}))["error"]["code"], -32601);

    // 128 MiB without a newline, then the rest of the line: refused, and never held whole.
    let chunk = vec![b'x'; 1 << 20];
    for _ in 0..128 {
        mcp.raw(&chunk);
    }
    mcp.raw(b"\"}\n");
    assert_eq!(
        mcp.recv(),
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Invalid Request: a message over 1048576 bytes is refused unread"}})
    );
    let status = std::fs::read_to_string(format!("/proc/{}/status", mcp.pid())).unwrap();
    let rss_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap();
    assert!(
        rss_kib < 64 * 1024,
        "peak RSS {rss_kib} KiB after a 3 MiB line"
    );
    // Just under the cap is read, and the verb refuses what it holds.
    let note = "n".repeat((1 << 20) - 200);
    let big = mcp.call(
        "change",
        json!({"verb": "note", "op": "darkwing-1-note", "id": 1, "text": note}),
    );
    is(
        &big,
        true,
        &error_doc(
            2,
            "bad-text",
            "refused: note is longer than 500 characters",
            "nothing was changed: correct the data or the request the message names",
        ),
    );
    // The server still answers.
    is(
        &mcp.call("read", json!({"what": "show", "id": 1})),
        false,
        &format!("{{\"revision\":1,\"durable\":true,\"row\":{ROW1}}}"),
    );
    assert_eq!(mcp.close().code(), Some(0));
}

/// The inotify watches the server holds: one while a wait runs.
fn watches(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter(|t| t.to_string_lossy() == "anon_inode:inotify")
        .count()
}

fn until(what: &str, check: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !check() {
        assert!(Instant::now() < deadline, "{what} did not happen in time");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_cancelled_wait_stops_and_the_server_goes_on() {
    let repo = Repo::new("mcp-cancel");
    let (mut mcp, _) = Mcp::start(&repo.root, "darkwing", &[]);
    let pid = mcp.pid();
    let id = mcp.send_request(
        "tools/call",
        json!({"name": "wait", "arguments": {"id": 2, "status": "done", "timeout": 600}}),
    );
    until("the wait's watch", || watches(pid) == 1);
    // Other calls are answered while it waits.
    is(
        &mcp.call("read", json!({"what": "show", "id": 2})),
        false,
        &format!("{{\"revision\":1,\"durable\":true,\"row\":{ROW2}}}"),
    );
    mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id, "reason": "enough"}}));
    until("the wait's end", || watches(pid) == 0);
    // No answer comes for the cancelled call; the next call's does.
    let next = mcp.send_request(
        "tools/call",
        json!({"name": "read", "arguments": {"what": "list"}}),
    );
    let message = mcp.recv();
    assert_eq!(message["id"], json!(next), "{message}");
    assert_eq!(mcp.close().code(), Some(0));
}

/// A wait's answer once the server cancelled it (its `result`).
const CANCELLED: &str = r#"{"content":[{"type":"text","text":"{\"error\":{\"exit\":1,\"kind\":\"failed\",\"message\":\"cannot wait on the witness: the wait was cancelled\",\"next\":\"fix what the message names, then run the same command again\",\"retryable\":false}}"}],"isError":true}"#;

#[test]
fn closing_stdin_ends_the_server_at_once_even_mid_wait() {
    let repo = Repo::new("mcp-close");
    let (mut mcp, _) = Mcp::start(&repo.root, "darkwing", &[]);
    let pid = mcp.pid();
    let id = mcp.send_request(
        "tools/call",
        json!({"name": "wait", "arguments": {"revision": 99, "timeout": 600}}),
    );
    until("the wait's watch", || watches(pid) == 1);
    // The wait would run 600 s, ten times what `close_unread` waits before it fails: a server
    // that ends there ended because stdin closed, and what it may still say of the wait is
    // that it was cancelled, never that it timed out (no time window decides this).
    let (status, unread) = mcp.close_unread();
    let cancelled = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{CANCELLED}}}");
    assert_eq!(status.code(), Some(0));
    assert!(
        unread.len() <= 1 && unread.iter().all(|line| *line == cancelled),
        "{unread:?}"
    );

    // Input that ends before the handshake is a client gone: exit 0 too.
    let early = Mcp::spawn(&repo.root, Some("darkwing"), &[]);
    assert_eq!(early.close().code(), Some(0));
}

#[test]
fn a_refused_start_says_why_and_writes_nothing() {
    let repo = Repo::new("mcp-start");
    let before = repo.snapshot();
    let no_seat = repo.run(&["mcp"], &[]);
    assert_eq!(
        (no_seat.code, no_seat.stderr.as_str()),
        (
            2,
            "mosaic-queue: refused: mcp needs a seat: pass --seat SEAT or set MOSAIC_AGENT_NAME\n"
        )
    );
    let bad = repo.run(&["mcp", "--seat", "Not A Seat"], &[]);
    let shown = repo.run(&["next", "Not A Seat"], &[]);
    assert_eq!((bad.code, bad.stderr.as_str()), (2, shown.stderr.as_str()));
    // The seat from the environment, as every verb takes it.
    let env = repo.run(&["mcp"], &[("MOSAIC_AGENT_NAME", "Bad!")]);
    assert_eq!(env.code, 2);
    let outside = support::run_in(&repo.base, &["mcp", "--seat", "darkwing"], &[]);
    let list = support::run_in(&repo.base, &["list"], &[]);
    assert_eq!(
        (outside.code, outside.stderr.as_str()),
        (2, list.stderr.as_str())
    );
    repo.assert_unchanged(&before);
    // The environment's seat serves.
    let mut mcp = Mcp::spawn(&repo.root, None, &[("MOSAIC_AGENT_NAME", "huey")]);
    let init = mcp.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}}),
    );
    assert!(
        init["result"]["instructions"]
            .as_str()
            .unwrap()
            .starts_with("The team's work queue, for seat huey:")
    );
    assert_eq!(mcp.close().code(), Some(0));
}

#[test]
fn a_server_killed_mid_write_recovers_as_the_cli_does() {
    let repo = Repo::new("mcp-kill");
    let (mut mcp, _) = Mcp::start(
        &repo.root,
        "darkwing",
        &[("MOSAIC_KILL_AT", "queue-renamed")],
    );
    mcp.send_request(
        "tools/call",
        json!({"name": "take", "arguments": {"op": "darkwing-take-1"}}),
    );
    let status = mcp.wait();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(9));
    // What a CLI killed at the same step leaves: the file ahead of the witness, the lock.
    assert_eq!(repo.queue()["revision"], 2);
    assert_eq!(repo.witness().unwrap()["revision"], 1);
    let (mut mcp, _) = Mcp::start(&repo.root, "darkwing", &[]);
    let retry = mcp.call("take", json!({"op": "darkwing-take-1"}));
    let error = retry.json()["error"].clone();
    assert_eq!(error["exit"], 1, "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .ends_with("run `mosaic-queue unlock`, then retry the same op"),
        "{error}"
    );
    assert!(
        repo.run(&["unlock"], &[])
            .ok()
            .starts_with("ok unlock: removed the dead queue lock")
    );
    let retry = mcp.call("take", json!({"op": "darkwing-take-1"}));
    let receipt = retry.json();
    assert_eq!(
        (&receipt["op"], &receipt["revision"], &receipt["text"]),
        (
            &json!("darkwing-take-1"),
            &json!(2),
            &json!("ok darkwing-take-1 rev 2 take 1 queued -> in-progress")
        )
    );
    assert_eq!(repo.ops(), ["genesis-0001", "darkwing-take-1"]);
    assert_eq!(
        repo.run(&["verify", "--current"], &[]).ok(),
        "ok verify rev 2 (2 entries, witness rev 2), table current\n"
    );
    assert_eq!(mcp.close().code(), Some(0));
}

/// The number of the call that removes the queue lock after `note` through a server in
/// `repo`, counted over the server's whole life (its calls run the same in a checkout made
/// the same way).
fn lock_removal(repo: &Repo, note: &Value) -> String {
    let trace = repo.base.join("lock-removal.jsonl");
    let (mut mcp, _) = Mcp::start(
        &repo.root,
        "darkwing",
        &[("MOSAIC_IO_TRACE", trace.to_str().unwrap())],
    );
    is(
        &mcp.call("change", note.clone()),
        false,
        &receipt_doc(
            "darkwing-1-note-1",
            2,
            "note",
            1,
            false,
            "ok darkwing-1-note-1 rev 2 note 1",
        ),
    );
    assert_eq!(mcp.close().code(), Some(0));
    let lock = repo.path(".git/mosaic-queue.lock").display().to_string();
    let n = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["ev"] == "call" && v["op"] == "unlink" && v["path"] == lock.as_str())
        .expect("the lock is removed")["n"]
        .as_u64()
        .unwrap();
    format!("{n}:eio")
}

#[test]
fn a_server_that_cannot_remove_its_lock_answers_then_ends_so_the_lock_is_dead() {
    let note = json!({"verb": "note", "op": "darkwing-1-note-1", "id": 1, "text": "left"});
    let fail = lock_removal(&Repo::new("mcp-lock-count"), &note);
    let repo = Repo::new("mcp-lock-left");
    // A verb still running would be let finish for an hour: an end that waited on anything
    // the server runs (the thread reading its stdin included) would come after the test's
    // own deadline, which only fails it and decides nothing by its length.
    let env = [
        ("MOSAIC_IO_FAIL", fail.as_str()),
        ("MOSAIC_MCP_FINISH_MS", "3600000"),
    ];
    let mut mcp = Mcp::start_logged(&repo.root, "darkwing", &env);
    // The note is written and answered: the failed removal comes after the receipt.
    let noted = mcp.call("change", note);
    assert_eq!(
        (noted.is_error, &noted.json()["text"]),
        (false, &json!("ok darkwing-1-note-1 rev 2 note 1"))
    );
    // Then the server ends by itself, its stdin still open, saying why and what to run.
    let (status, stderr) = mcp
        .ends_within(Duration::from_secs(120))
        .expect("the server ends once it has answered");
    let lock = repo.path(".git/mosaic-queue.lock");
    assert_eq!(status.code(), Some(1));
    assert_eq!(
        stderr,
        format!(
            "warning: done, but the queue lock may not be released (cannot remove {}: Input/output error (os error 5); check the repository's .git and retry); if `mosaic-queue doctor` names a dead lock, run `mosaic-queue unlock`\n\
             mosaic-queue: the MCP server ended because it could not remove a queue lock it took, which would have held off every writer while it ran; run `mosaic-queue unlock` (the lock is dead now), then start the server again\n",
            lock.display()
        )
    );
    // The lock it left names a process that is gone: unlock removes it, writers go on.
    assert!(lock.exists());
    assert!(
        repo.run(&["unlock"], &[])
            .ok()
            .starts_with("ok unlock: removed the dead queue lock")
    );
    let (mut mcp, _) = Mcp::start(&repo.root, "darkwing", &[]);
    let again = mcp.call(
        "change",
        json!({"verb": "note", "op": "darkwing-1-note-2", "id": 1, "text": "next"}),
    );
    assert_eq!(
        again.json()["text"],
        json!("ok darkwing-1-note-2 rev 3 note 1")
    );
    assert_eq!(mcp.close().code(), Some(0));
}

#[test]
fn sixteen_servers_race_take_over_eight_rows() {
    const SEATS: usize = 16;
    let repo = Repo::new("mcp-race");
    for n in 0..7 {
        let op = format!("lead-add-{n:04}");
        let out = repo.run(
            &support::change(&["add", "--piece", &format!("Free work {n}")], &op, "lead"),
            &[],
        );
        assert_eq!(out.code, 0, "{out:?}");
    }
    let seats: Vec<String> = (0..SEATS).map(|s| format!("racer{s:02}")).collect();
    let barrier = Barrier::new(SEATS);
    let answers: Vec<Value> = std::thread::scope(|s| {
        let handles: Vec<_> = seats
            .iter()
            .map(|seat| {
                let (repo, barrier) = (&repo, &barrier);
                s.spawn(move || {
                    let (mut mcp, _) = Mcp::start(&repo.root, seat, &[]);
                    let op = format!("{seat}-take");
                    barrier.wait();
                    // A writer that runs out of lock wait fails retryably: the op is retried,
                    // a bounded number of times (support::retry::TRIES in all, as the CLI's).
                    let mut refused = Vec::new();
                    for _ in 0..support::retry::TRIES {
                        let r = mcp.request(
                            "tools/call",
                            json!({"name": "take", "arguments": {"op": op}}),
                        );
                        let a = answer(&r);
                        if a.is_error && a.json()["error"]["retryable"] == json!(true) {
                            refused.push(a.text);
                            continue;
                        }
                        assert_eq!(mcp.close().code(), Some(0));
                        return a.json();
                    }
                    panic!("{seat}: the lock wait ran out every time: {refused:?}");
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut winners = Vec::new();
    let mut empty = 0;
    for (seat, a) in seats.iter().zip(&answers) {
        if a["verb"] == "take" && a["row"].is_null() {
            assert_eq!(a["text"], "nothing to take");
            empty += 1;
            continue;
        }
        assert_eq!(a["op"], json!(format!("{seat}-take")), "{a}");
        winners.push((
            a["revision"].as_u64().unwrap(),
            a["row"].as_u64().unwrap(),
            seat.clone(),
        ));
    }
    assert_eq!((winners.len(), empty), (8, 8), "{answers:?}");
    winners.sort();
    let ids: Vec<u64> = winners.iter().map(|w| w.1).collect();
    assert_eq!(ids, [2, 4, 5, 6, 7, 8, 9, 10]);
    let revs: Vec<u64> = winners.iter().map(|w| w.0).collect();
    assert_eq!(revs, (9..=16).collect::<Vec<u64>>());
    for (_, id, seat) in &winners {
        assert_eq!(repo.row(*id)["owner"], json!(seat));
    }
    let log = repo.queue()["log"].as_array().unwrap().clone();
    for (i, e) in log.iter().enumerate() {
        assert_eq!(e["rev"], i as u64 + 1);
    }
    assert_eq!(log.len(), 16);
    assert_eq!(
        repo.run(&["verify", "--current"], &[]).ok(),
        "ok verify rev 16 (16 entries, witness rev 16), table current\n"
    );
}

#[test]
fn waits_are_capped_at_eight_per_server() {
    let repo = Repo::new("mcp-waits");
    let (mut mcp, _) = Mcp::start(&repo.root, "darkwing", &[]);
    let pid = mcp.pid();
    for _ in 0..8 {
        mcp.send_request(
            "tools/call",
            json!({"name": "wait", "arguments": {"revision": 99, "timeout": 600}}),
        );
    }
    until("eight watches", || watches(pid) == 8);
    let ninth = mcp.call("wait", json!({"revision": 99, "timeout": 600}));
    assert_eq!(
        ninth.json(),
        json!({"error": {"exit": 1, "kind": "failed", "message": "8 waits are already running in this server; cancel one or let it end, then call again", "next": "cancel one or let it end, then call again", "retryable": false}})
    );
    // The other tools still answer.
    is(
        &mcp.call("read", json!({"what": "show", "id": 1})),
        false,
        &format!("{{\"revision\":1,\"durable\":true,\"row\":{ROW1}}}"),
    );
    assert_eq!(mcp.close().code(), Some(0));
}
