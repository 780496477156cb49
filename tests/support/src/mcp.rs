//! A small MCP client for the end-to-end tests: `mosaic-queue mcp --seat SEAT` started in a
//! scratch checkout, spoken to one JSON-RPC line at a time, every answer read with a deadline
//! so a server that hangs fails the test instead of stalling it.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::repo::command;

/// How long any one answer may take.
pub const ANSWER_WITHIN: Duration = Duration::from_secs(60);

pub struct Mcp {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: i64,
}

/// A tool call's answer: whether it is a tool error, and its one text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub is_error: bool,
    pub text: String,
}

impl Answer {
    /// The text as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).expect("a tool's text is JSON")
    }
}

impl Mcp {
    /// Starts the server in `dir` for `seat` (none: `mcp` with no `--seat`) with `env` on a
    /// cleared environment, without the handshake.
    pub fn spawn(dir: &Path, seat: Option<&str>, env: &[(&str, &str)]) -> Mcp {
        let mut args = vec!["mcp"];
        if let Some(seat) = seat {
            args.extend(["--seat", seat]);
        }
        Mcp::spawn_command(command(dir, &args, env))
    }

    /// Starts `bin mcp --seat SEAT` in `dir` as the benchmarks run a binary, with the
    /// handshake done.
    pub fn start_bin(bin: &Path, dir: &Path, seat: &str) -> Mcp {
        let mut cmd = crate::bench::cleared(std::process::Command::new(bin));
        cmd.args(["mcp", "--seat", seat]).current_dir(dir);
        let mut mcp = Mcp::spawn_command(cmd);
        mcp.handshake();
        mcp
    }

    /// Starts the server `cmd` runs (`ssh ... mcp` too), without the handshake.
    pub fn spawn_command(cmd: std::process::Command) -> Mcp {
        Mcp::spawn_with(cmd, Stdio::null())
    }

    /// Starts the server in `dir` for `seat` as `start` does, with its stderr kept for
    /// `ends_within`.
    pub fn start_logged(dir: &Path, seat: &str, env: &[(&str, &str)]) -> Mcp {
        let cmd = command(dir, &["mcp", "--seat", seat], env);
        let mut mcp = Mcp::spawn_with(cmd, Stdio::piped());
        mcp.handshake();
        mcp
    }

    fn spawn_with(mut cmd: std::process::Command, stderr: Stdio) -> Mcp {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("the server starts");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Mcp {
            child,
            stdin,
            lines,
            next_id: 1,
        }
    }

    /// Starts the server and completes the handshake; the `initialize` result is returned.
    pub fn start(dir: &Path, seat: &str, env: &[(&str, &str)]) -> (Mcp, Value) {
        let mut mcp = Mcp::spawn(dir, Some(seat), env);
        let init = mcp.handshake();
        (mcp, init)
    }

    /// `initialize` and `notifications/initialized`; the `initialize` response.
    pub fn handshake(&mut self) -> Value {
        let init = self.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "e2e", "version": "1"}
            }),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        init
    }

    /// Writes `bytes` to the server's stdin as they are.
    pub fn raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).expect("the server reads its stdin");
        stdin.flush().expect("the server reads its stdin");
    }

    /// Writes one message as a line.
    pub fn send(&mut self, message: &Value) {
        let mut line = serde_json::to_vec(message).expect("JSON");
        line.push(b'\n');
        self.raw(&line);
    }

    /// The next line the server writes, as JSON; panics after `ANSWER_WITHIN`.
    pub fn recv(&mut self) -> Value {
        self.recv_within(ANSWER_WITHIN)
            .expect("the server answers in time")
    }

    /// The next line within `limit`, or `None`.
    pub fn recv_within(&mut self, limit: Duration) -> Option<Value> {
        let line = match self.lines.recv_timeout(limit) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => return None,
            Err(RecvTimeoutError::Disconnected) => panic!("the server closed its stdout"),
        };
        Some(serde_json::from_str(&line).expect("each line the server writes is JSON"))
    }

    /// Sends a request with a fresh id; returns the id.
    pub fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// The answer to request `id`, skipping anything else the server says first.
    pub fn response(&mut self, id: i64) -> Value {
        let deadline = Instant::now() + ANSWER_WITHIN;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self.recv_within(left).expect("the server answers in time");
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    /// Sends a request and returns its whole response message.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.response(id)
    }

    /// Calls `tool` with `args`; the answer's text and whether it is a tool error.
    pub fn call(&mut self, tool: &str, args: Value) -> Answer {
        let response = self.request("tools/call", json!({"name": tool, "arguments": args}));
        answer(&response)
    }

    /// `tools/list`'s result.
    pub fn tools(&mut self) -> Value {
        self.request("tools/list", json!({}))["result"].clone()
    }
}

/// The tool names a `tools/list` result offers, in its order.
pub fn tool_names(tools: &Value) -> Vec<&str> {
    tools["tools"]
        .as_array()
        .expect("tools/list holds a list of tools")
        .iter()
        .map(|t| t["name"].as_str().expect("every tool has a name"))
        .collect()
}

impl Mcp {
    /// Closes stdin and waits for the server to end; panics after `ANSWER_WITHIN`.
    pub fn close(mut self) -> ExitStatus {
        drop(self.stdin.take());
        let deadline = Instant::now() + ANSWER_WITHIN;
        loop {
            if let Some(status) = self.child.try_wait().expect("the server can be waited on") {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the server did not end after stdin closed"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Closes stdin and waits for the server to end (panics after `ANSWER_WITHIN`); its status
    /// and every line it wrote that no call read, so a test can hold that a pending call got
    /// no answer.
    pub fn close_unread(mut self) -> (ExitStatus, Vec<String>) {
        drop(self.stdin.take());
        let deadline = Instant::now() + ANSWER_WITHIN;
        let mut unread = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => unread.push(line),
                // stdout closed: the server is ending.
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => {
                    panic!("the server did not end after stdin closed")
                }
            }
        }
        let status = self.child.wait().expect("the server can be waited on");
        (status, unread)
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for the server to end by itself (a kill point); its status.
    pub fn wait(mut self) -> ExitStatus {
        self.child.wait().expect("the server can be waited on")
    }

    /// Waits for the server to end by itself, its stdin still open; its status and what it
    /// wrote to stderr (`start_logged`), or `None` when it still runs after `limit`.
    pub fn ends_within(mut self, limit: Duration) -> Option<(ExitStatus, String)> {
        let deadline = Instant::now() + limit;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("the server can be waited on") {
                break status;
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let mut stderr = String::new();
        if let Some(mut pipe) = self.child.stderr.take() {
            pipe.read_to_string(&mut stderr)
                .expect("the server's stderr is text");
        }
        Some((status, stderr))
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        // A test that failed midway must not leave a server running.
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A `tools/call` response's answer; panics on a JSON-RPC error.
pub fn answer(response: &Value) -> Answer {
    let result = &response["result"];
    assert!(result.is_object(), "a tool result, not {response}");
    let content = result["content"].as_array().expect("content");
    assert_eq!(content.len(), 1, "one content block: {response}");
    assert_eq!(content[0]["type"], "text");
    Answer {
        is_error: result["isError"] == json!(true),
        text: content[0]["text"].as_str().expect("text").to_owned(),
    }
}

/// `text` (JSON) as the server sends a document: whitespace outside strings removed.
pub fn minified(text: &str) -> String {
    serde_json::from_str::<Value>(text).expect("the CLI's --json output is JSON");
    let mut out = String::new();
    let mut in_string = false;
    let mut escaped = false;
    for c in text.chars() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !c.is_ascii_whitespace() {
            out.push(c);
        }
    }
    out
}
