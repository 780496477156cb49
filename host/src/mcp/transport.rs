//! The server's stdio: one JSON-RPC message per line, read with a bound. A line over
//! `MAX_MESSAGE` is never held whole: the read stops at the cap, discards the rest up to its
//! newline and answers an Invalid Request error; a line that is not JSON gets a Parse error,
//! and JSON that is no message an Invalid Request error (a notification gets no answer, as
//! JSON-RPC says). End of input ends the server and fires `closing`; `closing` fired by the
//! server (a lock it could not release) ends the reading too.

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{ErrorData, NumberOrString, ServerJsonRpcMessage};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

/// The longest message read (1 MiB); a longer one is refused unread.
pub const MAX_MESSAGE: usize = 1 << 20;

pub struct Lines<R, W> {
    read: BufReader<R>,
    /// The line read so far; kept here because `receive` may be dropped mid-read and resumed.
    line: Vec<u8>,
    /// Discarding the rest of a line already refused as too long.
    discarding: bool,
    write: Arc<Mutex<W>>,
    closing: CancellationToken,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> Lines<R, W> {
    pub fn new(read: R, write: W, closing: CancellationToken) -> Lines<R, W> {
        Lines {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            write: Arc::new(Mutex::new(write)),
            closing,
        }
    }
}

/// What one bounded read found.
enum Read {
    Line,
    TooLong,
    End,
}

impl<R: AsyncRead + Unpin, W> Lines<R, W> {
    /// Reads up to the next newline into `self.line`, never past `MAX_MESSAGE` bytes.
    async fn read_line(&mut self) -> Read {
        loop {
            let Ok(available) = self.read.fill_buf().await else {
                return Read::End;
            };
            if available.is_empty() {
                return Read::End;
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |at| at + 1);
            let found = if self.discarding {
                self.discarding = newline.is_none();
                None
            } else if self.line.len() + take > MAX_MESSAGE {
                self.line.clear();
                self.discarding = newline.is_none();
                Some(Read::TooLong)
            } else {
                self.line.extend_from_slice(&available[..take]);
                newline.map(|_| Read::Line)
            };
            self.read.consume(take);
            if let Some(found) = found {
                return found;
            }
        }
    }
}

/// What a line holds.
enum Parsed {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    Answer(ErrorData, Option<NumberOrString>),
    Nothing,
}

fn parse(line: &[u8]) -> Parsed {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Parsed::Nothing;
    }
    if let Ok(message) = serde_json::from_slice(line) {
        return Parsed::Message(Box::new(message));
    }
    let Ok(value) = serde_json::from_slice::<Value>(line) else {
        return Parsed::Answer(ErrorData::parse_error("Parse error: not JSON", None), None);
    };
    let id = match value.get("id") {
        Some(Value::Number(n)) => n.as_i64().map(NumberOrString::Number),
        Some(Value::String(s)) => Some(NumberOrString::String(s.as_str().into())),
        _ => None,
    };
    if value.get("method").is_some() && value.get("id").is_none() {
        // A notification is never answered, even a malformed one.
        return Parsed::Nothing;
    }
    Parsed::Answer(
        ErrorData::invalid_request("Invalid Request: not a JSON-RPC 2.0 message", None),
        id,
    )
}

/// Writes one message as a line; whole, under the lock, so lines never interleave.
async fn write_line<W: AsyncWrite + Unpin>(
    write: &Mutex<W>,
    message: &TxJsonRpcMessage<RoleServer>,
) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec(message)?;
    bytes.push(b'\n');
    let mut w = write.lock().await;
    w.write_all(&bytes).await?;
    w.flush().await
}

impl<R, W> Transport<RoleServer> for Lines<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = self.write.clone();
        async move { write_line(&write, &item).await }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            let closing = self.closing.clone();
            // A read cut short keeps what it read in `self.line`; nothing more is read.
            let read = tokio::select! {
                read = self.read_line() => read,
                () = closing.cancelled() => return None,
            };
            let answer = match read {
                Read::End => {
                    self.closing.cancel();
                    return None;
                }
                Read::TooLong => ErrorData::invalid_request(
                    format!(
                        "Invalid Request: a message over {MAX_MESSAGE} bytes is refused unread"
                    ),
                    None,
                ),
                Read::Line => {
                    let parsed = parse(&self.line);
                    self.line.clear();
                    match parsed {
                        Parsed::Message(message) => return Some(*message),
                        Parsed::Nothing => continue,
                        Parsed::Answer(error, id) => {
                            self.reply(ServerJsonRpcMessage::error(error, id));
                            continue;
                        }
                    }
                }
            };
            self.reply(ServerJsonRpcMessage::error(answer, None));
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.write.lock().await.flush().await
    }
}

impl<R, W: AsyncWrite + Unpin + Send + 'static> Lines<R, W> {
    /// Answers a line outside `receive`, which may be dropped before a write would finish.
    fn reply(&self, message: TxJsonRpcMessage<RoleServer>) {
        let write = self.write.clone();
        tokio::spawn(async move {
            // A reader gone away loses the answer; the next read ends the server.
            let _ = write_line(&write, &message).await;
        });
    }
}
