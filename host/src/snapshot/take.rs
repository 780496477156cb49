//! The pair a snapshot holds, taken under the lock the caller holds: `snapshot` copies it and
//! `commit` publishes it, each only when the witness confirms the revision and the table is a
//! current render of it.

use mosaic_queue_core::{BodyStatus, markdown};

use crate::reply::Failure;
use crate::store::Loaded;
use crate::store::session::{self, Session};

/// The two files a snapshot holds, by the names `verify --snapshot` reads.
pub const FILES: [&str; 2] = ["queue.json", "QUEUE.md"];

/// Under the lock the caller holds: each archive `loaded`'s epoch names, as (repository path,
/// bytes), read bounded and checked against its SHA-256, oldest first.
pub fn archives(held: &Session, loaded: &Loaded) -> Result<Vec<(String, Vec<u8>)>, Failure> {
    let Some(epoch) = loaded.queue.epoch() else {
        return Ok(Vec::new());
    };
    let io = held.world().io;
    let mut read = Vec::with_capacity(epoch.archives.len());
    for info in &epoch.archives {
        let bytes = crate::store::cut::epochs::read(io, held.paths(), &info.file, &info.sha)
            .map_err(session::SessionError::from)?;
        read.push((info.file.clone(), bytes));
    }
    Ok(read)
}

/// Under the lock the caller holds: loads and verifies the queue, and refuses a revision the
/// witness has not confirmed or a table that is not current. Returns the queue as loaded (with
/// its exact bytes) and QUEUE.md's exact bytes. `verb` names the caller in its messages.
pub fn take(held: &Session, verb: &str) -> Result<(Loaded, Vec<u8>), Failure> {
    let loaded = held.load()?;
    let rev = loaded.queue.revision();
    // A snapshot is what gets committed: only a witnessed revision, so a commit never holds
    // ops a crash could still lose, and `sync` gets to tell the seats about a visible tail.
    if loaded.ahead_of_witness() {
        return Err(Failure::refused(format!(
            "rev {rev} is visible, not confirmed durable; run `mosaic-queue sync` first, then {verb}"
        )));
    }
    let md = held.read_table()?;
    let text =
        std::str::from_utf8(&md).map_err(|_| Failure::from(session::SessionError::TableNotUtf8))?;
    let body = markdown::body(text).map_err(|e| Failure::refused(format!("QUEUE.md {e}")))?;
    let (io, paths) = (held.world().io, held.paths());
    match crate::store::table_status(io, paths, &loaded.queue, body) {
        BodyStatus::Current => Ok((loaded, md)),
        BodyStatus::Stale { rev: old } => Err(Failure::refused(format!(
            "QUEUE.md is stale (rendered at rev {old}); look, then run `mosaic-queue render` before a {verb}"
        ))),
        BodyStatus::Unknown => Err(Failure::refused(
            "QUEUE.md's table is not a render of this queue; restore it with git or re-apply the edit as queue ops, then `mosaic-queue render`",
        )),
    }
}
