//! JSON-RPC batches, read as MCP 2025-03-26 requires of a server (the one revision with
//! batches: 2025-06-18 dropped them): each member is handed to the server on its own, the
//! answers to a batch's requests are held until every one has its answer (or was
//! cancelled) and then written as one array; a batch of notifications alone is answered
//! with nothing; a member that is no message gets its error in the array; an empty batch is
//! one Invalid Request. Under the other revisions, and before one is negotiated, a batch is
//! refused whole, in one Invalid Request.

use std::collections::VecDeque;

use rmcp::model::{ClientJsonRpcMessage, ErrorData, JsonRpcMessage, RequestId};
use serde_json::value::RawValue;

use super::message::{self, Parsed};

/// The revision whose servers must read batches.
const BATCHES: &str = "2025-03-26";

/// The most messages one batch holds. Its answers are held until the last is ready (up to
/// 16 KiB each), so the bound keeps that memory near the cap on one message.
pub const MAX_BATCH: usize = 64;

/// Batches whose requests are still running.
#[derive(Default)]
pub struct Batches(Vec<Batch>);

#[derive(Default)]
struct Batch {
    /// The ids of its requests not yet answered.
    waiting: Vec<RequestId>,
    /// Its answers so far, each one JSON text.
    replies: Vec<String>,
}

impl Batch {
    /// The batch's answer: its replies as one array, or nothing when it has none.
    fn line(self) -> Option<Vec<u8>> {
        (!self.replies.is_empty()).then(|| format!("[{}]", self.replies.join(",")).into_bytes())
    }
}

/// What becomes of an answer the server sends.
pub enum Held {
    /// It answers a batch's request, and the batch waits for others.
    Waiting,
    /// It completed its batch: the batch's line.
    Whole(Vec<u8>),
    /// It answers no batch's request: the answer, to write as it is.
    NotInBatch(String),
}

/// Whether a batch of `len` messages is read under `revision`, or the error refusing it.
pub fn admit(revision: Option<&str>, len: usize) -> Result<(), ErrorData> {
    let why = match revision {
        Some(BATCHES) if len == 0 => String::from("Invalid Request: the batch is empty"),
        Some(BATCHES) if len > MAX_BATCH => format!(
            "Invalid Request: a batch of {len} messages is over the {MAX_BATCH} this server reads at once; send fewer"
        ),
        Some(BATCHES) => return Ok(()),
        Some(other) => format!(
            "Invalid Request: MCP {other} has no batches (2025-03-26 alone had them); send one message per line"
        ),
        None => format!(
            "Invalid Request: a batch is read only under MCP {BATCHES}, once initialize has negotiated it; send one message per line"
        ),
    };
    Err(ErrorData::invalid_request(why, None))
}

/// Queues a batch's messages for the server and waits in `batches` for its requests'
/// answers; the batch's line at once when none is to come. `revision` and `initialized` are
/// the session's.
pub fn open(
    batches: &mut Batches,
    revision: Option<&str>,
    initialized: bool,
    items: &[&RawValue],
    queued: &mut VecDeque<ClientJsonRpcMessage>,
) -> Option<Vec<u8>> {
    let mut batch = Batch::default();
    for item in items {
        match message::parse(item.get().as_bytes(), initialized) {
            Parsed::Message(m) => {
                if let JsonRpcMessage::Request(r) = &*m {
                    // The server keeps one answer per id in flight: a second would be lost.
                    if batch.waiting.contains(&r.id) || batches.awaits(&r.id) {
                        let text = message::error_text(revision, &in_use(&r.id), Some(&r.id));
                        batch.replies.push(text);
                        continue;
                    }
                    batch.waiting.push(r.id.clone());
                }
                queued.push_back(*m);
            }
            Parsed::Answer(error, id) => {
                batch
                    .replies
                    .push(message::error_text(revision, &error, id.as_ref()));
            }
            Parsed::Nothing => {}
        }
    }
    if batch.waiting.is_empty() {
        return batch.line();
    }
    batches.0.push(batch);
    None
}

fn in_use(id: &RequestId) -> ErrorData {
    ErrorData::invalid_request(
        format!(
            "Invalid Request: id {id} is already a request's that has no answer yet; give each request its own id"
        ),
        None,
    )
}

impl Batches {
    fn awaits(&self, id: &RequestId) -> bool {
        self.0.iter().any(|b| b.waiting.contains(id))
    }

    /// Takes the server's answer `text` to request `id`.
    pub fn answer(&mut self, id: &RequestId, text: String) -> Held {
        let Some(at) = self.0.iter().position(|b| b.waiting.contains(id)) else {
            return Held::NotInBatch(text);
        };
        let batch = &mut self.0[at];
        batch.waiting.retain(|w| w != id);
        batch.replies.push(text);
        if !batch.waiting.is_empty() {
            return Held::Waiting;
        }
        match self.0.remove(at).line() {
            Some(line) => Held::Whole(line),
            None => Held::Waiting,
        }
    }

    /// A request the client cancelled gets no answer: its batch waits no more for it; the
    /// batch's line if that was the last.
    pub fn cancel(&mut self, id: &RequestId) -> Option<Vec<u8>> {
        let at = self.0.iter().position(|b| b.waiting.contains(id))?;
        let batch = &mut self.0[at];
        batch.waiting.retain(|w| w != id);
        if !batch.waiting.is_empty() {
            return None;
        }
        self.0.remove(at).line()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::NumberOrString;

    #[test]
    fn a_batch_is_written_once_every_request_is_answered_or_cancelled() {
        let mut batches = Batches::default();
        let (one, two) = (NumberOrString::Number(1), NumberOrString::Number(2));
        batches.0.push(Batch {
            waiting: vec![one.clone(), two.clone()],
            replies: vec![String::from("{\"e\":0}")],
        });
        assert!(matches!(
            batches.answer(&two, "{\"r\":2}".into()),
            Held::Waiting
        ));
        assert!(matches!(
            batches.answer(&NumberOrString::Number(3), String::from("x")),
            Held::NotInBatch(text) if text == "x"
        ));
        assert_eq!(
            batches.cancel(&one).as_deref(),
            Some(&b"[{\"e\":0},{\"r\":2}]"[..])
        );
        assert!(batches.0.is_empty());
        // A batch all of whose requests were cancelled is answered with nothing.
        batches.0.push(Batch {
            waiting: vec![one.clone()],
            replies: Vec::new(),
        });
        assert_eq!(batches.cancel(&one), None);
        assert!(batches.0.is_empty());
    }
}
