//! A log entry's receipt object, as every face's JSON answer holds it (docs/json.md).

use mosaic_queue_core::{Args, Entry, Row, Verb};
use serde::Serialize;

/// The row a log entry touched: every verb's arguments name it but genesis, accept-history,
/// the default lease and the two entries of a cut.
pub fn entry_row(args: &Args) -> Option<u64> {
    args.row()
}

/// A log entry's receipt as `--json` prints it; `recorded` when the op was already in the log
/// and this is its original receipt. `then`: the entries the same command logged after it (a
/// review request's outcome).
#[derive(Serialize, Debug)]
pub struct ReceiptJson {
    op: String,
    revision: u64,
    verb: Verb,
    row: Option<u64>,
    recorded: bool,
    text: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    then: Vec<ReceiptJson>,
    /// `take` only: the row it took, as it now stands.
    #[serde(skip_serializing_if = "Option::is_none")]
    current: Option<Row>,
}

impl ReceiptJson {
    pub fn new(entry: &Entry, recorded: bool) -> ReceiptJson {
        ReceiptJson {
            op: entry.op.clone(),
            revision: entry.rev,
            verb: entry.verb,
            row: entry_row(&entry.args),
            recorded,
            text: entry.receipt.clone(),
            then: Vec::new(),
            current: None,
        }
    }

    /// The receipts of the entries the same command logged after this one.
    pub(crate) fn then(mut self, then: Vec<ReceiptJson>) -> ReceiptJson {
        self.then = then;
        self
    }

    /// The row a `take` took, as it now stands.
    pub(crate) fn set_current(&mut self, row: &Row) {
        self.current = Some(row.clone());
    }
}
