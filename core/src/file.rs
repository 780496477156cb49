//! `docs/plans/queue.json` as a whole: the document around the rows and the log, its format
//! version, and parsing it from canonical bytes. Field order is the canonical key order, as
//! in `model`; a reordering is a format change and needs a new `version`.

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::canon;
use crate::entry::{Args, Entry};
use crate::epoch::EpochArgs;
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

impl QueueFile {
    /// The revision of the log's first entry: 1 for a log that starts at genesis, C_K for one
    /// that starts with epoch K's entry. Every entry stands at index `rev - first_rev()`.
    pub fn first_rev(&self) -> u64 {
        self.log.first().map_or(1, |e| e.rev)
    }

    /// The entry at revision `rev`, if the log holds it (an epoch entry stands at C_K).
    pub fn entry(&self, rev: u64) -> Option<&Entry> {
        let index = usize::try_from(rev.checked_sub(self.first_rev())?).ok()?;
        self.log.get(index)
    }

    /// The epoch entry's arguments when the log starts with one.
    pub fn epoch(&self) -> Option<&EpochArgs> {
        match &self.log.first()?.args {
            Args::Epoch(e) => Some(e),
            _ => None,
        }
    }

    /// The entries the witness chain covers: every one but a leading epoch entry, whose
    /// `digest` seeds the chain at its revision (the `archive` entry pins it instead).
    pub fn chain_entries(&self) -> &[Entry] {
        match self.epoch() {
            Some(_) => &self.log[1..],
            None => &self.log,
        }
    }

    /// Where the chain starts: the revision before `chain_entries()` and the digest there
    /// (revision 0 and 32 zero bytes from genesis; `None` for a malformed epoch digest).
    pub fn chain_start(&self) -> Option<(u64, [u8; 32])> {
        match self.epoch() {
            Some(e) => Some((self.first_rev(), crate::hex::unhex(&e.digest)?)),
            None => Some((0, [0u8; 32])),
        }
    }
}
