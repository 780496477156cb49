//! The sink a verb answers into, part by part, in the order its answer is made: a receipt goes
//! in once its op is durable (under the lock, before the session releases it), so a face that
//! prints as it goes (the CLI without `--json`) shows each line when it is true.

use mosaic_queue_core::{Entry, Queue, Row, to_canonical};
use serde::Serialize;

use super::failure::{Failure, Replied};

/// Where a verb's answer goes. A verb builds only the form the face asks for (`documents`):
/// its text (the lines the CLI prints without `--json`) or its document.
pub trait Reply {
    /// Whether the face answers with documents (`--json`, MCP) rather than text.
    fn documents(&self) -> bool;
    /// Text the verb says, as printed without `--json` (whole lines, each ending in `\n`).
    fn text(&mut self, text: &str) -> Replied;
    /// A read's document, in canonical bytes: the whole answer with `documents`.
    fn document(&mut self, bytes: Vec<u8>) -> Replied;
    /// A log entry's receipt, given once its op is durable; `recorded` when the op was
    /// already in the log and this is its original receipt. One that cannot be given leaves
    /// the op durable but unacknowledged (exit 3).
    fn receipt(&mut self, entry: &Entry, recorded: bool) -> Replied;
    /// The row a `take` took, as it now stands: the first receipt object's `current`.
    fn taken(&mut self, row: &Row);
    /// A warning: one line that is no part of the answer (the CLI writes it to stderr).
    fn warn(&mut self, line: &str);
}

impl dyn Reply + '_ {
    /// One line of text.
    pub fn line(&mut self, line: &str) -> Replied {
        self.text(&format!("{line}\n"))
    }

    /// A read's document from a value, in canonical form.
    pub fn serialized<T: Serialize>(&mut self, value: &T) -> Replied {
        self.document(to_canonical(value))
    }

    /// The receipt of `op`'s entry in `queue`: the newest entry after a write, or the entry
    /// recorded earlier for a retried op.
    pub fn receipt_of(&mut self, queue: &Queue, op: &str, recorded: bool) -> Replied {
        let entry = match queue.file().log.last() {
            Some(last) if last.op == op => Some(last),
            _ => queue.entry_for_op(op),
        };
        match entry {
            Some(e) => self.receipt(e, recorded),
            None => Err(Failure::failed(format!(
                "op {op} has no entry in the log to print; run `mosaic-queue verify`"
            ))),
        }
    }
}

/// What a store session calls once `op` is durable (or found recorded): gives its receipt.
pub fn acknowledge<'a>(
    reply: &'a mut dyn Reply,
    op: &'a str,
) -> impl FnOnce(&Queue, bool) -> Replied + 'a {
    move |queue, recorded| reply.receipt_of(queue, op, recorded)
}
