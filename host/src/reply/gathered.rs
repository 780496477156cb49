//! A reply kept in memory, and the one JSON document it ends as: a read's own document, a
//! change's receipt object, a `{verb, text}` object for the other verbs, or `{"error": ...}`
//! (docs/json.md holds the shapes). The CLI gathers into it under `--json`; a face that
//! answers with one document (MCP) gathers every call into one.

use mosaic_queue_core::{Entry, Row, to_canonical};
use serde::Serialize;

use super::failure::Replied;
use super::receipt::ReceiptJson;
use super::sink::Reply;
use crate::exit::Exit;

/// Everything a verb answered, gathered.
#[derive(Debug, Default)]
pub struct Gathered {
    /// Whether the verb is asked for its document (else for its text).
    documents: bool,
    /// Everything the verb would have printed as text.
    text: String,
    /// The receipt object of each log entry the verb gave, in order.
    receipts: Vec<ReceiptJson>,
    /// A read's own document, as it is.
    document: Option<String>,
    /// The warnings, one line each, in order.
    warnings: Vec<String>,
}

/// The end of a gathered reply: the one document, the exit code and the warnings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finished {
    /// The JSON document, canonical (two-space indent, a final newline).
    pub document: String,
    /// The exit code the command ends with (0 ok, 1 failed, 2 refused, 3 uncertain, 4 usage).
    pub exit: i32,
    /// The warnings the verb gave, one line each, in order (the CLI's stderr lines before the
    /// failure's own).
    pub warnings: Vec<String>,
}

/// What the other verbs answer: their name and the text they print without `--json`.
#[derive(Serialize)]
struct TextDoc<'a> {
    verb: &'a str,
    text: &'a str,
}

impl Gathered {
    /// An empty reply; `documents`: the verb is asked for its document (`--json`).
    pub fn new(documents: bool) -> Gathered {
        Gathered {
            documents,
            ..Gathered::default()
        }
    }

    /// The one document the reply ends as. `verb` is the verb as typed (`review request`),
    /// `change` whether it writes log entries (its receipt object is the document), `result`
    /// how it ended. A report that exits 2 (doctor) still answers with its own document.
    pub fn finish(mut self, verb: &str, change: bool, result: &Replied) -> Finished {
        let warnings = std::mem::take(&mut self.warnings);
        let (document, exit) = self.document_and_exit(verb, change, result);
        Finished {
            document,
            exit,
            warnings,
        }
    }

    fn document_and_exit(mut self, verb: &str, change: bool, result: &Replied) -> (String, i32) {
        let (bytes, exit) = match result {
            Err(f) if self.document.is_some() && f.exit == Exit::Refused => {
                return (self.document.take().unwrap_or_default(), f.exit.code());
            }
            // Entries this command wrote before it failed (a review request's move).
            Err(f) => (
                f.document(std::mem::take(&mut self.receipts)),
                f.exit.code(),
            ),
            Ok(()) => match self.document.take() {
                Some(document) => return (document, 0),
                None if change && !self.receipts.is_empty() => {
                    let mut receipts = std::mem::take(&mut self.receipts);
                    let first = receipts.remove(0);
                    (to_canonical(&first.then(receipts)), 0)
                }
                None => {
                    let text = self.text.strip_suffix('\n').unwrap_or(&self.text);
                    (to_canonical(&TextDoc { verb, text }), 0)
                }
            },
        };
        (String::from_utf8_lossy(&bytes).into_owned(), exit)
    }
}

impl Reply for Gathered {
    fn documents(&self) -> bool {
        self.documents
    }

    fn text(&mut self, text: &str) -> Replied {
        self.text.push_str(text);
        Ok(())
    }

    fn document(&mut self, bytes: Vec<u8>) -> Replied {
        // Canonical JSON is UTF-8; the lossy pass (a scan of every byte) only runs if it is not.
        let text = String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        self.document = Some(text);
        Ok(())
    }

    fn receipt(&mut self, entry: &Entry, recorded: bool) -> Replied {
        self.text.push_str(&entry.receipt);
        self.text.push('\n');
        self.receipts.push(ReceiptJson::new(entry, recorded));
        Ok(())
    }

    fn taken(&mut self, row: &Row) {
        if let Some(first) = self.receipts.first_mut() {
            first.set_current(row);
        }
    }

    fn warn(&mut self, line: &str) {
        self.warnings.push(mosaic_queue_core::one_line(line));
    }
}

#[cfg(test)]
mod tests {
    use mosaic_queue_core::Queue;

    use super::*;
    use crate::reply::Failure;

    fn queue() -> Queue {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/golden/basic/queue.json"
        );
        Queue::verify(&std::fs::read(path).unwrap()).unwrap()
    }

    #[test]
    fn a_change_answers_with_its_receipt_and_the_entries_after_it() {
        let q = queue();
        let mut g = Gathered::new(true);
        g.warn("rev 3 visible,\nnot confirmed durable");
        g.receipt(&q.file().log[2], false).unwrap();
        g.receipt(&q.file().log[3], true).unwrap();
        let done = g.finish("move", true, &Ok(()));
        assert_eq!(done.exit, 0);
        assert_eq!(done.warnings, ["rev 3 visible,\\nnot confirmed durable"]);
        let doc: serde_json::Value = serde_json::from_str(&done.document).unwrap();
        assert_eq!(doc["op"], "darkwing-2-start-1");
        assert_eq!(doc["revision"], 3);
        assert_eq!(doc["row"], 2);
        assert_eq!(doc["recorded"], false);
        assert_eq!(doc["then"][0]["op"], "darkwing-1-block-2");
        assert_eq!(doc["then"][0]["recorded"], true);
        assert!(done.document.ends_with("}\n"));
    }

    #[test]
    fn a_failure_carries_what_was_written_and_a_report_keeps_its_document() {
        let q = queue();
        let mut g = Gathered::new(true);
        g.receipt(&q.file().log[2], false).unwrap();
        let failed = Err(Failure::uncertain("posted; look on issue #1"));
        let done = g.finish("move", true, &failed);
        assert_eq!(done.exit, 3);
        let doc: serde_json::Value = serde_json::from_str(&done.document).unwrap();
        assert_eq!(doc["error"]["kind"], "uncertain");
        assert_eq!(doc["error"]["next"], "look on issue #1");
        assert_eq!(doc["error"]["retryable"], true);
        assert_eq!(doc["error"]["written"][0]["op"], "darkwing-2-start-1");

        let mut g = Gathered::new(true);
        g.document(b"{\"healthy\": false}\n".to_vec()).unwrap();
        let done = g.finish("doctor", false, &Err(Failure::refused("doctor: 1 finding")));
        assert_eq!(
            (done.document.as_str(), done.exit),
            ("{\"healthy\": false}\n", 2)
        );
    }

    #[test]
    fn other_verbs_answer_with_their_name_and_text() {
        let mut g = Gathered::new(true);
        g.text("ok verify rev 5\n").unwrap();
        let done = g.finish("verify", false, &Ok(()));
        assert_eq!(
            done.document,
            "{\n  \"verb\": \"verify\",\n  \"text\": \"ok verify rev 5\"\n}\n"
        );
    }
}
