//! The cut: `archive --before REV` moves the history before REV into the archive's epochs,
//! `docs/plans/archive/epoch-NNNN.json`. `epochs` places and reads those files, `history` reads
//! behind the cut for a load or a change, and `verbs` runs the cut and `verify --full`.

pub mod epochs;
pub mod history;
mod verbs;
