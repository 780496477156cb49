//! The server's stdio: one JSON-RPC message per line, read with a bound. A line whose message
//! is over `MAX_MESSAGE` is never held whole: the read stops at the cap, discards the rest up
//! to its newline and answers an Invalid Request error. What a line holds is judged in
//! `message.rs`, a batch in `batch.rs`; the errors this transport answers itself are written
//! here, with the `id` their revision's rules give. End of input ends the server and fires
//! `closing`; `closing` fired by the server (a lock it could not release) ends the reading too.
//! Every line is written in the order it was decided (`output.rs`). The transport is a
//! handle: clones share one input, one output and one session, so the server can begin again
//! over the same stream when a message ends the SDK's handshake.

use std::collections::VecDeque;
use std::io;
use std::sync::{Arc, Mutex as StdMutex, MutexGuard};

use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ErrorData, JsonRpcMessage, RequestId, ServerResult};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::value::RawValue;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};
use tokio::sync::{Mutex, oneshot};
use tokio_util::sync::CancellationToken;

use super::batch::{self, Batches, Held};
use super::message::{self, Parsed};
use super::output::Output;

/// The longest message read (1 MiB), its line's end (`\n` or `\r\n`) not counted; a longer
/// one is refused unread.
pub const MAX_MESSAGE: usize = 1 << 20;

/// What the transport knows of the session, shared by every clone of it.
#[derive(Default)]
pub struct Session {
    /// The revision `initialize` negotiated; before one, the last a request's `_meta` named.
    pub revision: Option<String>,
    /// Whether an `initialize` has been answered.
    pub initialized: bool,
    /// Batches whose requests are still running.
    pub batches: Batches,
}

impl Session {
    /// An error the transport answers itself, as one JSON text (`message::error_text`).
    pub fn error_text(&self, error: &ErrorData, id: Option<&RequestId>) -> String {
        message::error_text(self.revision.as_deref(), error, id)
    }
}

/// The input side: the reader, the line read so far, and the messages of a batch not yet
/// handed on. Kept across calls because `receive` may be dropped mid-read and resumed.
struct Input<R> {
    read: BufReader<R>,
    line: Vec<u8>,
    /// Discarding the rest of a line already refused as too long.
    discarding: bool,
    queued: VecDeque<RxJsonRpcMessage<RoleServer>>,
}

pub struct Lines<R> {
    input: Arc<Mutex<Input<R>>>,
    output: Arc<Output>,
    session: Arc<StdMutex<Session>>,
    closing: CancellationToken,
}

impl<R> Clone for Lines<R> {
    fn clone(&self) -> Lines<R> {
        Lines {
            input: self.input.clone(),
            output: self.output.clone(),
            session: self.session.clone(),
            closing: self.closing.clone(),
        }
    }
}

impl<R: AsyncRead + Unpin> Lines<R> {
    /// The transport over `read` and `write`; its writer task runs on the current runtime.
    pub fn new<W>(read: R, write: W, closing: CancellationToken) -> Lines<R>
    where
        W: AsyncWrite + Unpin + Send + 'static,
    {
        Lines {
            input: Arc::new(Mutex::new(Input {
                read: BufReader::new(read),
                line: Vec::new(),
                discarding: false,
                queued: VecDeque::new(),
            })),
            output: Arc::new(Output::start(write)),
            session: Arc::new(StdMutex::new(Session::default())),
            closing,
        }
    }
}

impl<R> Lines<R> {
    fn session(&self) -> MutexGuard<'_, Session> {
        // Every update of the session is whole; a panicked holder left nothing half-done.
        self.session.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn too_long() -> ErrorData {
    ErrorData::invalid_request(
        format!("Invalid Request: a message over {MAX_MESSAGE} bytes is refused unread"),
        None,
    )
}

/// What one bounded read found.
enum Read {
    Line,
    TooLong,
    End,
}

/// The bytes a line may hold besides its message: its `\r\n`.
const LINE_END: usize = 2;

impl<R: AsyncRead + Unpin> Input<R> {
    /// Reads up to the next newline into `self.line`, never past `MAX_MESSAGE` bytes and the
    /// line's end.
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
            } else if self.line.len() + take > MAX_MESSAGE + LINE_END {
                self.line.clear();
                self.discarding = newline.is_none();
                Some(Read::TooLong)
            } else {
                self.line.extend_from_slice(&available[..take]);
                newline.map(|_| self.judge_length())
            };
            self.read.consume(take);
            if let Some(found) = found {
                return found;
            }
        }
    }

    /// A whole line: its message, the line's end left out, within the cap.
    fn judge_length(&mut self) -> Read {
        let message = message::strip_line_end(&self.line);
        if message.len() > MAX_MESSAGE {
            self.line.clear();
            return Read::TooLong;
        }
        Read::Line
    }
}

impl<R> Transport<RoleServer> for Lines<R>
where
    R: AsyncRead + Unpin + Send + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        // Queued now, so it goes out in the order the server decided it.
        let written = self.outgoing(&item).map(|line| {
            let (done, written) = oneshot::channel();
            self.output.push(line, Some(done));
            written
        });
        async move {
            match written {
                Some(written) => written
                    .await
                    .unwrap_or(Err(io::ErrorKind::BrokenPipe.into())),
                None => Ok(()),
            }
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        let input = self.input.clone();
        let mut input = input.lock().await;
        loop {
            if let Some(message) = input.queued.pop_front() {
                self.handing_on(&message);
                return Some(message);
            }
            let closing = self.closing.clone();
            // A client that reads none of its answers is not read from meanwhile.
            tokio::select! {
                () = self.output.room() => {}
                () = closing.cancelled() => return None,
            }
            // A read cut short keeps what it read in `input.line`; nothing more is read.
            let read = tokio::select! {
                read = input.read_line() => read,
                () = closing.cancelled() => return None,
            };
            match read {
                Read::End => {
                    self.closing.cancel();
                    return None;
                }
                Read::TooLong => self.refuse(&too_long(), None),
                Read::Line => {
                    let line = std::mem::take(&mut input.line);
                    self.take_line(&line, &mut input.queued);
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // Each line is flushed as it is written.
        Ok(())
    }
}

impl<R> Lines<R> {
    /// Queues what `line` holds for the server, or answers it here.
    fn take_line(&self, line: &[u8], queued: &mut VecDeque<ClientJsonRpcMessage>) {
        let initialized = self.session().initialized;
        match message::split(line) {
            message::Line::Batch(items) => self.take_batch(&items, queued),
            message::Line::One(text) => match message::parse(text, initialized) {
                Parsed::Message(m) => queued.push_back(*m),
                Parsed::Answer(error, id) => self.refuse(&error, id.as_ref()),
                Parsed::Nothing => {}
            },
            message::Line::NotJson => self.refuse(&message::not_json(), None),
        }
    }

    /// A batch: answered as one under 2025-03-26 (`batch.rs`), refused under the others.
    fn take_batch(&self, items: &[&RawValue], queued: &mut VecDeque<ClientJsonRpcMessage>) {
        let mut session = self.session();
        let opened = match batch::admit(session.revision.as_deref(), items.len()) {
            Err(error) => {
                let text = session.error_text(&error, None);
                drop(session);
                return self.output.push(text.into_bytes(), None);
            }
            Ok(()) => {
                let revision = session.revision.clone();
                let initialized = session.initialized;
                batch::open(
                    &mut session.batches,
                    revision.as_deref(),
                    initialized,
                    items,
                    queued,
                )
            }
        };
        drop(session);
        if let Some(line) = opened {
            self.output.push(line, None);
        }
    }

    /// Notes what the server is handed: a cancelled request no batch waits for any more.
    fn handing_on(&self, message: &ClientJsonRpcMessage) {
        let mut session = self.session();
        if !session.initialized
            && let Some(revision) = message::named_revision(message)
        {
            session.revision = Some(revision);
        }
        let done = message::cancelled(message).and_then(|id| session.batches.cancel(&id));
        drop(session);
        if let Some(line) = done {
            self.output.push(line, None);
        }
    }

    /// The line to write for what the server sends, if any: a batch's member is held until
    /// the batch is whole. The negotiated revision is noted on its way out.
    fn outgoing(&self, item: &TxJsonRpcMessage<RoleServer>) -> Option<Vec<u8>> {
        let mut session = self.session();
        if let JsonRpcMessage::Response(r) = item
            && let ServerResult::InitializeResult(init) = &r.result
        {
            session.revision = Some(init.protocol_version.to_string());
            session.initialized = true;
        }
        // Every message the server sends is a serializable value.
        let text = serde_json::to_string(item).unwrap_or_default();
        let id = match item {
            JsonRpcMessage::Response(r) => Some(&r.id),
            JsonRpcMessage::Error(e) => e.id.as_ref(),
            _ => None,
        };
        let Some(id) = id else {
            return Some(text.into_bytes());
        };
        match session.batches.answer(id, text) {
            Held::Waiting => None,
            Held::Whole(line) => Some(line),
            Held::NotInBatch(text) => Some(text.into_bytes()),
        }
    }

    /// Answers an error outside the server. Queued, not awaited: `receive` may be dropped
    /// before a write would finish.
    fn refuse(&self, error: &ErrorData, id: Option<&RequestId>) {
        let text = self.session().error_text(error, id);
        self.output.push(text.into_bytes(), None);
    }
}
