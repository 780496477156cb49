//! `docs/plans/queue.json` as a whole: the document around the rows and the log, its format
//! version, and parsing it from canonical bytes. Field order is the canonical key order, as
//! in `model`; a reordering is a format change and needs a new `version`.

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::canon;
use crate::entry::Entry;
use crate::error::CanonError;
use crate::model::Row;

/// The format version this core writes and accepts.
pub const FORMAT_VERSION: u32 = 1;

/// `docs/plans/queue.json` as a whole.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct QueueFile {
    pub version: u32,
    pub canonical_root: String,
    pub revision: u64,
    pub rows: Vec<Row>,
    pub log: Vec<Entry>,
}

/// Parses `queue.json` and checks that its bytes are canonical (not yet that its log replays:
/// `replay` does that).
pub fn parse_queue(bytes: &[u8]) -> Result<QueueFile, CanonError> {
    canon::parse_canonical(bytes)
}
