//! The read view `.git/mosaic-queue.view`: the rows, move reasons, root and branch of the last
//! durable write, with the identity (inode, size, times) of the queue.json it verified. An
//! unlocked read that finds the witness and that identity unchanged uses it instead of parsing
//! and replaying the whole log; anything else falls back to the full read. Writes never use it.

use std::path::Path;

use mosaic_queue_core::canon::{parse_canonical, to_canonical};
use mosaic_queue_core::digest::sha256_hex;
use mosaic_queue_core::state::State;
use mosaic_queue_core::{Queue, Row, Witness};
use serde::{Deserialize, Serialize};

use super::Paths;
use crate::io::{FileId, Io, Kind};

#[derive(Serialize, Deserialize, Debug)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct View {
    revision: u64,
    file_sha: String,
    file: FileId,
    canonical_root: String,
    branch: String,
    reasons: Vec<Reason>,
    rows: Vec<Row>,
}

#[derive(Serialize, Deserialize, Debug)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Reason {
    id: u64,
    reason: String,
}

fn view_path(paths: &Paths) -> std::path::PathBuf {
    paths.git_dir.join("mosaic-queue.view")
}

/// Records the view for `queue`, whose bytes hash to `file_sha`, after its witness is durable.
/// The file is read back and hashed between two identity checks, so the identity recorded is
/// that of exactly these bytes. Best effort: a cache that fails to write is simply not used.
pub fn record(io: &dyn Io, paths: &Paths, queue: &Queue, file_sha: &str) {
    let _ = try_record(io, paths, queue, file_sha);
}

fn try_record(io: &dyn Io, paths: &Paths, queue: &Queue, file_sha: &str) -> std::io::Result<()> {
    let before = io.file_id(&paths.queue_json)?;
    let bytes = io.read(&paths.queue_json, Kind::QueueJson)?;
    if sha256_hex(&bytes) != file_sha || io.file_id(&paths.queue_json)? != before {
        return Ok(());
    }
    let state = queue.state();
    let view = View {
        revision: queue.revision(),
        file_sha: file_sha.to_owned(),
        file: before,
        canonical_root: queue.file().canonical_root.clone(),
        branch: state.branch.clone().unwrap_or_default(),
        reasons: state
            .move_reasons()
            .map(|(id, r)| Reason {
                id,
                reason: r.to_owned(),
            })
            .collect(),
        rows: queue.rows().to_vec(),
    };
    replace(io, &view_path(paths), &to_canonical(&view))
}

fn replace(io: &dyn Io, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let temp = path.with_file_name(format!(".mosaic-queue.view.{}.tmp", std::process::id()));
    let _ = io.remove(&temp);
    io.create_synced(&temp, bytes).inspect_err(|_| {
        let _ = io.remove(&temp);
    })?;
    io.rename(&temp, path).inspect_err(|_| {
        let _ = io.remove(&temp);
    })
}

/// The state the view holds, when it describes exactly the queue.json on disk and the
/// witness beside it; `None` sends the caller to the full read.
pub fn load(io: &dyn Io, paths: &Paths, witness: &Witness) -> Option<State> {
    let current = io.file_id(&paths.queue_json).ok()?;
    let view: View = parse_canonical(&io.read(&view_path(paths), Kind::View).ok()?).ok()?;
    let same = view.revision == witness.revision
        && view.file_sha == witness.file_sha
        && view.file == current;
    same.then(|| {
        let reasons = view.reasons.into_iter().map(|r| (r.id, r.reason)).collect();
        State::from_parts(
            view.revision,
            view.rows,
            reasons,
            view.branch,
            view.canonical_root,
        )
    })
}
