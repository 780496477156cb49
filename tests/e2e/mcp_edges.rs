//! The MCP server at the protocol's edges, as a corpus: each case is a revision the client
//! negotiates (or none), the exact bytes sent, and the exact lines the server must answer with,
//! written here as documents; after each, the server must still answer a ping (and, when no
//! revision was negotiated, an `initialize`). Every reply is also held to the JSON-RPC
//! envelope of its revision (the few constraints of the official MCP schemas a reply's shape
//! depends on, written by hand below). Then the cases that need a queue: numbers read as the
//! CLI reads them, `limit`, a cut document, the command a refusal names, a refused start.

use std::panic::AssertUnwindSafe;
use std::time::Duration;

use serde_json::{Value, json};
use support::Repo;
use support::mcp::Mcp;

/// One case of the corpus.
struct Case {
    name: &'static str,
    /// The revision `initialize` negotiates before the case; `None`: no `initialize`.
    revision: Option<&'static str>,
    /// The bytes sent, as they are.
    sent: Vec<u8>,
    /// The lines the server answers with, in order, each an exact JSON document.
    replies: Vec<Value>,
}

fn case(name: &'static str, revision: Option<&'static str>, sent: &str, replies: &[Value]) -> Case {
    Case {
        name,
        revision,
        sent: sent.as_bytes().to_vec(),
        replies: replies.to_vec(),
    }
}

/// A ping of exactly `len` bytes (its line's end not counted), padded inside its params.
fn ping_of(len: usize, id: u32) -> Vec<u8> {
    let head =
        format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\",\"params\":{{\"pad\":\"");
    let tail = "\"}}";
    let mut line = head.clone().into_bytes();
    line.resize(len - tail.len(), b'p');
    line.extend_from_slice(tail.as_bytes());
    assert_eq!(line.len(), len);
    line
}

const MIB: usize = 1 << 20;

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// An error whose id could not be read, from 2025-11-25 on: no `id` member.
fn error_no_id(code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "error": {"code": code, "message": message}})
}

fn empty_result(id: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {}})
}

const CALL_BAD_ARGS: &str =
    "Invalid params: tools/call: invalid type: string \"x\", expected a map";
const NOT_JSON: &str = "Parse error: not JSON";
const OVER_CAP: &str = "Invalid Request: a message over 1048576 bytes is refused unread";
const NO_BATCH_BEFORE: &str = "Invalid Request: a batch is read only under MCP 2025-03-26, once initialize has negotiated it; send one message per line";

fn no_batch_in(revision: &str) -> String {
    format!(
        "Invalid Request: MCP {revision} has no batches (2025-03-26 alone had them); send one message per line"
    )
}

#[rustfmt::skip]
fn params_cases() -> Vec<Case> {
    let v0618 = Some("2025-06-18");
    vec![
        // Params that do not fit a method this server serves are invalid params, not an
        // unknown method.
        case("call: arguments a string", v0618,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":"x"}}"#,
            &[error(json!(1), -32602, CALL_BAD_ARGS)]),
        case("call: arguments an array", v0618,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read","arguments":[1]}}"#,
            &[error(json!(2), -32602, "Invalid params: tools/call: invalid type: sequence, expected a map")]),
        case("call: name missing", v0618,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{}}}"#,
            &[error(json!(3), -32602, "Invalid params: tools/call: missing field `name`")]),
        case("call: params missing", v0618,
            r#"{"jsonrpc":"2.0","id":"p","method":"tools/call"}"#,
            &[error(json!("p"), -32602, "Invalid params: tools/call: params are missing")]),
        case("call: name not a string", v0618,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":7}}"#,
            &[error(json!(4), -32602, "Invalid params: tools/call: invalid type: integer `7`, expected a string")]),
        case("call: params not structured", v0618,
            r#"{"jsonrpc":"2.0","id":"s","method":"tools/call","params":"x"}"#,
            &[error(json!("s"), -32600, "Invalid Request: not a JSON-RPC 2.0 message")]),
        case("initialize: version missing", None,
            r#"{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
            &[error(json!(5), -32602, "Invalid params: initialize: missing field `protocolVersion`")]),
        case("unknown method", v0618,
            r#"{"jsonrpc":"2.0","id":6,"method":"no/such","params":{}}"#,
            &[error(json!(6), -32601, "no/such")]),
    ]
}

#[rustfmt::skip]
fn unread_id_cases() -> Vec<Case> {
    let v0305 = Some("2025-03-26");
    let v0618 = Some("2025-06-18");
    let v1125 = Some("2025-11-25");
    vec![
        // An id that could not be read: null under JSON-RPC 2.0 and the revisions before
        // 2025-11-25, left out from 2025-11-25 on.
        case("not JSON, before initialize", None, "this is not json",
            &[error(Value::Null, -32700, NOT_JSON)]),
        case("not JSON, 2025-06-18", v0618, "{\"jsonrpc\":",
            &[error(Value::Null, -32700, NOT_JSON)]),
        case("not JSON, 2025-03-26", v0305, "\u{7f}",
            &[error(Value::Null, -32700, NOT_JSON)]),
        case("not JSON, 2025-11-25", v1125, "nope",
            &[error_no_id(-32700, NOT_JSON)]),
        case("no message, no id, 2025-06-18", v0618, r#"{"x":1}"#,
            &[error(Value::Null, -32600, "Invalid Request: not a JSON-RPC 2.0 message")]),
        case("no message, its id kept", v1125, r#"{"id":"k","method":7}"#,
            &[error(json!("k"), -32600, "Invalid Request: not a JSON-RPC 2.0 message")]),
    ]
}

#[rustfmt::skip]
fn lifecycle_cases() -> Vec<Case> {
    let v0618 = Some("2025-06-18");
    vec![
        // No message ends the server; a request before initialize is told to initialize.
        case("notification before initialize", None,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, &[]),
        case("cancel before initialize", None,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}"#, &[]),
        case("a response before initialize", None,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#, &[]),
        case("an error before initialize", None,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}"#, &[]),
        case("a request before initialize", None,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#,
            &[error(json!(7), -32600, "Invalid Request: initialize first; this server answers a request once it has answered initialize")]),
        case("a ping before initialize", None,
            r#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#, &[empty_result(json!(8))]),
        case("cancel of no request", v0618,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}"#, &[]),
    ]
}

#[rustfmt::skip]
fn batch_and_cap_cases() -> Vec<Case> {
    let v0305 = Some("2025-03-26");
    let v0618 = Some("2025-06-18");
    let v1125 = Some("2025-11-25");
    let mut cases = vec![
        // Batches: read under 2025-03-26 as JSON-RPC reads them, refused whole elsewhere.
        case("batch: two requests", v0305,
            r#"[{"jsonrpc":"2.0","id":10,"method":"ping"},{"jsonrpc":"2.0","id":11,"method":"ping"}]"#,
            &[json!([empty_result(json!(10)), empty_result(json!(11))])]),
        case("batch: notifications only", v0305,
            r#"[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}]"#,
            &[]),
        case("batch: empty", v0305, "[]",
            &[error(Value::Null, -32600, "Invalid Request: the batch is empty")]),
        case("batch: mixed", v0305,
            r#"[{"jsonrpc":"2.0","id":12,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},1,{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"read","arguments":"x"}}]"#,
            &[json!([
                empty_result(json!(12)),
                error(json!(13), -32602, CALL_BAD_ARGS),
                error(Value::Null, -32600, "Invalid Request: not a JSON-RPC 2.0 message"),
            ])]),
        case("batch: invalid members only", v0305, "[1,2]",
            &[json!([
                error(Value::Null, -32600, "Invalid Request: not a JSON-RPC 2.0 message"),
                error(Value::Null, -32600, "Invalid Request: not a JSON-RPC 2.0 message"),
            ])]),
        case("batch: one id twice", v0305,
            r#"[{"jsonrpc":"2.0","id":14,"method":"ping"},{"jsonrpc":"2.0","id":14,"method":"ping"}]"#,
            &[json!([
                error(json!(14), -32600, "Invalid Request: id 14 is already a request's that has no answer yet; give each request its own id"),
                empty_result(json!(14)),
            ])]),
        case("batch: a tool call", v0305,
            r#"[{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"read","arguments":{"what":"show","id":99}}},{"jsonrpc":"2.0","id":16,"method":"ping"}]"#,
            &[json!([
                json!({"jsonrpc": "2.0", "id": 15, "result": {"content": [{"type": "text", "text": "{\"error\":{\"exit\":2,\"kind\":\"no-such-row\",\"message\":\"refused: no row 99 in the queue; `mosaic-queue list` shows the rows\",\"next\":\"`mosaic-queue list` shows the rows\",\"retryable\":false}}"}], "isError": true}}),
                empty_result(json!(16)),
            ])]),
        case("batch: not JSON", v0305, r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},"#,
            &[error(Value::Null, -32700, NOT_JSON)]),
        case("batch: before initialize", None, r#"[{"jsonrpc":"2.0","id":17,"method":"ping"}]"#,
            &[error(Value::Null, -32600, NO_BATCH_BEFORE)]),
        case("batch: 2024-11-05", Some("2024-11-05"), r#"[{"jsonrpc":"2.0","id":18,"method":"ping"}]"#,
            &[error(Value::Null, -32600, &no_batch_in("2024-11-05"))]),
        case("batch: 2025-06-18", v0618, r#"[{"jsonrpc":"2.0","id":19,"method":"ping"}]"#,
            &[error(Value::Null, -32600, &no_batch_in("2025-06-18"))]),
        case("batch: 2025-11-25", v1125, r#"[{"jsonrpc":"2.0","id":20,"method":"ping"}]"#,
            &[error_no_id(-32600, &no_batch_in("2025-11-25"))]),
    ];
    let many: Vec<String> = (0..65).map(|i| format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"ping"}}"#)).collect();
    cases.push(Case {
        name: "batch: over 64 messages",
        revision: v0305,
        sent: format!("[{}]", many.join(",")).into_bytes(),
        replies: vec![error(Value::Null, -32600, "Invalid Request: a batch of 65 messages is over the 64 this server reads at once; send fewer")],
    });
    // The cap is on the message; its line's end is not counted.
    cases.push(Case { name: "exactly 1 MiB", revision: v0618, sent: ping_of(MIB, 21), replies: vec![empty_result(json!(21))] });
    let mut crlf = ping_of(MIB, 22);
    crlf.push(b'\r');
    cases.push(Case { name: "exactly 1 MiB, CRLF", revision: v0618, sent: crlf, replies: vec![empty_result(json!(22))] });
    cases.push(Case { name: "1 MiB and a byte", revision: v0618, sent: ping_of(MIB + 1, 23), replies: vec![error(Value::Null, -32600, OVER_CAP)] });
    cases.push(Case { name: "1 MiB and a byte, 2025-11-25", revision: v1125, sent: ping_of(MIB + 1, 24), replies: vec![error_no_id(-32600, OVER_CAP)] });
    cases
}

/// The corpus, in its groups.
fn corpus() -> Vec<Case> {
    [
        params_cases(),
        unread_id_cases(),
        lifecycle_cases(),
        batch_and_cap_cases(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The JSON-RPC envelope `reply` must have under `revision` (the official schemas'
/// `JSONRPCResponse`/`JSONRPCError`, 2025-03-26's `JSONRPCBatchResponse`; an id that could
/// not be read is JSON-RPC 2.0's `null` before 2025-11-25, absent from it on).
fn envelope(reply: &Value, revision: Option<&str>) -> Result<(), String> {
    if let Value::Array(items) = reply {
        if revision != Some("2025-03-26") || items.is_empty() {
            return Err(format!("a batch answer under {revision:?}"));
        }
        return items.iter().try_for_each(|i| envelope(i, revision));
    }
    let Value::Object(m) = reply else {
        return Err(String::from("not an object"));
    };
    if m.get("jsonrpc") != Some(&json!("2.0")) {
        return Err(String::from("jsonrpc is not \"2.0\""));
    }
    let id_ok = match m.get("id") {
        Some(Value::String(_)) => true,
        Some(Value::Number(n)) => n.is_i64(),
        Some(Value::Null) => revision < Some("2025-11-25") && m.contains_key("error"),
        None => revision >= Some("2025-11-25") && m.contains_key("error"),
        Some(_) => false,
    };
    if !id_ok {
        return Err(format!("id {:?} under {revision:?}", m.get("id")));
    }
    match (m.get("result"), m.get("error")) {
        (Some(Value::Object(_)), None) => Ok(()),
        (None, Some(Value::Object(e)))
            if e.get("code").is_some_and(Value::is_i64)
                && e.get("message").is_some_and(Value::is_string) =>
        {
            Ok(())
        }
        _ => Err(String::from(
            "neither a result object nor an error {code, message}",
        )),
    }
}

/// A batch's answers in id order, which JSON-RPC leaves to the server (an unread id last).
fn in_id_order(reply: Value) -> Value {
    match reply {
        Value::Array(mut items) => {
            items.sort_by_key(|i| match &i["id"] {
                Value::Null => String::from("~"),
                id => format!("{id:>12}"),
            });
            Value::Array(items)
        }
        other => other,
    }
}

fn initialize(revision: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
        "protocolVersion": revision, "capabilities": {}, "clientInfo": {"name": "corpus", "version": "1"}}})
}

/// Runs one case on a fresh server; what went wrong, if anything.
fn run(repo: &Repo, case: &Case) -> Result<(), String> {
    let mut mcp = Mcp::spawn(&repo.root, Some("darkwing"), &[]);
    if let Some(revision) = case.revision {
        mcp.send(&initialize(revision));
        let init = mcp.recv();
        if init["result"]["protocolVersion"] != json!(revision) {
            return Err(format!("initialize answered {init}"));
        }
        mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    }
    let mut sent = case.sent.clone();
    sent.push(b'\n');
    mcp.raw(&sent);
    let mut got = Vec::new();
    for _ in &case.replies {
        let Some(line) = mcp.recv_within(Duration::from_secs(60)) else {
            return Err(format!("answered only {got:?}"));
        };
        envelope(&line, case.revision).map_err(|e| format!("{e}: {line}"))?;
        got.push(in_id_order(line));
    }
    if got != case.replies {
        return Err(format!("answered {got:?}\n  expected {:?}", case.replies));
    }
    // Lines go out in the order they are decided: an answer the case should not have had
    // would come before the ping's.
    mcp.send(&json!({"jsonrpc": "2.0", "id": "after", "method": "ping"}));
    let after = mcp.recv();
    if after != empty_result(json!("after")) {
        return Err(format!("then answered {after} before the ping"));
    }
    if case.revision.is_none() {
        mcp.send(&initialize("2025-06-18"));
        let init = mcp.recv();
        if init["result"]["protocolVersion"] != json!("2025-06-18") {
            return Err(format!("initialize after the case answered {init}"));
        }
    }
    match mcp.close().code() {
        Some(0) => Ok(()),
        code => Err(format!("the server ended with {code:?}")),
    }
}

#[test]
fn the_protocol_corpus() {
    let repo = Repo::new("mcp-edges");
    let cases = corpus();
    assert_eq!(
        cases.len(),
        38,
        "the corpus's count, held as the table changes"
    );
    // A server that ends (the client's reader then panics) fails its case, not the corpus.
    let failed: Vec<String> = cases
        .iter()
        .filter_map(|c| {
            let ran = std::panic::catch_unwind(AssertUnwindSafe(|| run(&repo, c)));
            let why = match ran {
                Ok(Ok(())) => return None,
                Ok(Err(e)) => e,
                Err(_) => String::from("the client's read failed: the server ended or hung"),
            };
            Some(format!("{}: {why}", c.name))
        })
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {} cases failed:\n{}",
        failed.len(),
        cases.len(),
        failed.join("\n")
    );
}
