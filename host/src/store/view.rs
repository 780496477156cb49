//! The read view `.git/mosaic-queue.view`: the rows, move reasons, root and branch of the last
//! durable write, with the identity (inode, size, times) of the queue.json it renamed into
//! place and a checksum of the rows' text. An
//! unlocked read that finds the witness and that identity unchanged uses it instead of parsing
//! and replaying the whole log; anything else falls back to the full read. Writes never use it.

use std::path::Path;

use mosaic_queue_core::{Queue, Row, State, Witness, layout, parse_canonical, to_canonical};
use serde::{Deserialize, Serialize};

use crate::checkout::Paths;
use crate::io::{FileId, Io, Kind};

#[derive(Serialize, Deserialize, Debug)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct View {
    revision: u64,
    file_sha: String,
    file: FileId,
    canonical_root: String,
    branch: String,
    /// The last entry's semantics: the style `list` renders the table in, as QUEUE.md holds
    /// it. A view without it (an older build's) is not current, and the read falls back.
    semantics: u8,
    reasons: Vec<Reason>,
    /// After a cut: the archived id ranges `[first, last, epoch]`, so a read refuses an
    /// archived row as archived, and the smallest id never given; empty and 0 for a queue
    /// never cut. Always written: the core's strict reader, the fast path of a canonical
    /// parse, knows no member of this cache that may be left out, and a view without these
    /// two went down the reference path (a parse, then the value written again and
    /// compared), half of what `next` spent. A view an older build wrote without them reads
    /// as not canonical, so the read falls back once, until the next write records a view.
    archived: Vec<(u64, u64, u32)>,
    next_id: u64,
    /// CRC-32 of the text of `rows` as it stands in this file: `list --json` prints that text
    /// without parsing it, so every read checks it whole (a torn or damaged view), and all
    /// reads trust the same. A checksum, not a digest: the view trusts its users as the rest
    /// of the queue does, and SHA-256 of 300 KB of rows took about 0.28 ms on every read.
    rows_crc32: u32,
    /// Last, at the depth queue.json holds its own rows, so the text is the same.
    rows: Vec<Row>,
}

/// `rows` alone: its canonical text when no queue.json text could be copied.
#[derive(Serialize)]
struct RowsOnly<'a> {
    rows: &'a [Row],
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

/// What a writer renamed into place as queue.json: its bytes from the start through the rows
/// at least (a spliced file is written in pieces, and the first holds the rows), and the
/// identity the temp file had once they were written and fsynced.
#[derive(Clone, Copy)]
pub struct Written<'a> {
    pub bytes: &'a [u8],
    pub id: FileId,
}

/// Records the view for `queue`, whose bytes hash to `file_sha`, after its witness is durable.
/// `written` is what this writer renamed into place: queue.json still has the temp file's
/// inode, size and modification time only if nothing wrote to it since (a rename keeps all
/// three and changes only the ctime, recorded as it is now), so the bytes are not read back
/// and hashed again, and the rows' text is copied from them rather than serialized again.
/// Best effort and never fsynced: a view that is missing, torn or stale after a crash fails
/// `load`'s checks and the reader falls back to queue.json.
pub fn record(
    io: &dyn Io,
    paths: &Paths,
    queue: &Queue,
    file_sha: &str,
    written: Option<Written<'_>>,
) {
    if let Some(written) = written {
        let _ = try_record(io, paths, queue, file_sha, written);
    }
}

fn try_record(
    io: &dyn Io,
    paths: &Paths,
    queue: &Queue,
    file_sha: &str,
    written: Written<'_>,
) -> std::io::Result<()> {
    let before = io.file_id(&paths.queue_json)?;
    let same = |a: &FileId| (a.dev, a.ino, a.size, a.mtime_sec, a.mtime_nsec);
    if same(&before) != same(&written.id) {
        return Ok(());
    }
    // The rows' text is copied from queue.json, or serialized when it cannot be found there.
    let serialized;
    let rows = match layout::member_span(written.bytes, "rows") {
        Some(span) => &written.bytes[span],
        None => {
            serialized = to_canonical(&RowsOnly { rows: queue.rows() });
            let span = layout::member_span(&serialized, "rows").ok_or_else(malformed)?;
            &serialized[span]
        }
    };
    let state = queue.state();
    // Serialized with no rows, then completed with their text.
    let view = View {
        revision: queue.revision(),
        file_sha: file_sha.to_owned(),
        file: before,
        canonical_root: queue.file().canonical_root.clone(),
        branch: state.branch.clone().unwrap_or_default(),
        semantics: state.semantics(),
        reasons: state
            .move_reasons()
            .map(|(id, r)| Reason {
                id,
                reason: r.to_owned(),
            })
            .collect(),
        archived: state.archived().to_vec(),
        next_id: if state.archived().is_empty() {
            0
        } else {
            state.next_id()
        },
        rows_crc32: crc32fast::hash(rows),
        rows: Vec::new(),
    };
    let bytes = layout::complete_last(to_canonical(&view), rows).ok_or_else(malformed)?;
    replace(io, &view_path(paths), &bytes)
}

fn replace(io: &dyn Io, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let temp = path.with_file_name(format!(".mosaic-queue.view.{}.tmp", std::process::id()));
    let _ = io.remove(&temp);
    io.create_unsynced(&temp, bytes).inspect_err(|_| {
        let _ = io.remove(&temp);
    })?;
    io.rename(&temp, path).inspect_err(|_| {
        let _ = io.remove(&temp);
    })
}

/// A view that cannot be built (canonical text without its members): never written.
fn malformed() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, "no rows member")
}

/// Whether `view` describes exactly the queue.json on disk and the witness beside it.
fn current(io: &dyn Io, paths: &Paths, witness: &Witness, view: &View) -> bool {
    io.file_id(&paths.queue_json).is_ok_and(|id| {
        view.revision == witness.revision && view.file_sha == witness.file_sha && view.file == id
    })
}

/// The rows' text as the view holds it, checked against its checksum, with the state the rest
/// of the view holds (its rows left empty): what `list --json` prints without parsing the
/// rows and serializing them again. `None` sends the caller to `load`.
pub struct Listing {
    pub state: State,
    bytes: Vec<u8>,
    rows: std::ops::Range<usize>,
}

impl Listing {
    /// The canonical text of the rows array, at the depth of a top-level member.
    pub fn rows_text(&self) -> &[u8] {
        &self.bytes[self.rows.clone()]
    }
}

/// The view as a `Listing`, when it describes exactly the queue.json on disk and the witness
/// beside it and its rows' text matches the checksum it recorded.
pub fn load_listing(io: &dyn Io, paths: &Paths, witness: &Witness) -> Option<Listing> {
    let bytes = io.read(&view_path(paths), Kind::View).ok()?;
    let rows = layout::member_span(&bytes, "rows")?;
    // The rest of the view, parsed as a view with no rows.
    let mut head = Vec::with_capacity(bytes.len() - rows.len() + 2);
    head.extend_from_slice(&bytes[..rows.start]);
    head.extend_from_slice(b"[]");
    head.extend_from_slice(&bytes[rows.end..]);
    let view: View = parse_canonical(&head).ok()?;
    if !current(io, paths, witness, &view)
        || crc32fast::hash(&bytes[rows.clone()]) != view.rows_crc32
    {
        return None;
    }
    Some(Listing {
        state: state_of(view),
        bytes,
        rows,
    })
}

/// The state the view holds, when it describes exactly the queue.json on disk and the
/// witness beside it; `None` sends the caller to the full read.
pub fn load(io: &dyn Io, paths: &Paths, witness: &Witness) -> Option<State> {
    let bytes = io.read(&view_path(paths), Kind::View).ok()?;
    let rows = layout::member_span(&bytes, "rows")?;
    let view: View = parse_canonical(&bytes).ok()?;
    let whole = crc32fast::hash(&bytes[rows]) == view.rows_crc32;
    (whole && current(io, paths, witness, &view)).then(|| state_of(view))
}

fn state_of(view: View) -> State {
    let reasons = view.reasons.into_iter().map(|r| (r.id, r.reason)).collect();
    let state = State::from_parts(
        view.revision,
        view.rows,
        reasons,
        view.branch,
        view.canonical_root,
        view.semantics,
    );
    match view.archived.is_empty() {
        true => state,
        false => state.with_archived(view.archived, view.next_id),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::RealIo;
    use mosaic_queue_core::sha256_hex;

    const GOLDEN: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/golden/basic/queue.json"
    );

    /// A checkout with the golden queue.json renamed into place from a temp file, as a write
    /// leaves it, and the identity that temp file had.
    fn written(name: &str) -> (Paths, Vec<u8>, FileId) {
        let root = std::env::temp_dir().join(format!("mosaic-view-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("docs/plans")).unwrap();
        let paths = Paths::new(&root);
        let bytes = std::fs::read(GOLDEN).unwrap();
        let temp = paths.plans.join(".queue.json.1.tmp");
        RealIo.create_synced(&temp, &bytes).unwrap();
        let staged = RealIo.file_id(&temp).unwrap();
        RealIo.rename(&temp, &paths.queue_json).unwrap();
        (paths, bytes, staged)
    }

    fn witness(queue: &Queue, sha: &str) -> Witness {
        queue.witness_after(None, sha.to_owned(), "2026-01-02T03:04:05.678Z".to_owned())
    }

    #[test]
    fn the_renamed_file_is_recorded_without_reading_it_back() {
        let (paths, bytes, staged) = written("recorded");
        let queue = Queue::verify(&bytes).unwrap();
        let sha = sha256_hex(&bytes);
        let written = Written {
            bytes: &bytes,
            id: staged,
        };
        record(&RealIo, &paths, &queue, &sha, Some(written));
        let view = std::fs::read(view_path(&paths)).unwrap();
        let state = load(&RealIo, &paths, &witness(&queue, &sha)).expect("the view is used");
        assert_eq!(state.rows, queue.state().rows);
        assert_eq!(state.revision, queue.revision());
        // The rows' text copied from queue.json is what serializing the view would give.
        let whole: View = parse_canonical(&view).unwrap();
        assert_eq!(to_canonical(&whole), view);
        // And the core's strict reader takes it, the fast path of that parse, for a queue
        // never cut as for any other.
        let text = String::from_utf8(view).unwrap();
        let strict: Result<View, _> = mosaic_queue_core::internal::read(&text);
        assert!(
            strict.is_ok(),
            "the strict reader refused the view:\n{text}"
        );
        let _ = std::fs::remove_dir_all(&paths.root);
    }

    #[test]
    fn a_file_written_since_the_rename_gets_no_view() {
        let (paths, bytes, staged) = written("rewritten");
        let queue = Queue::verify(&bytes).unwrap();
        let sha = sha256_hex(&bytes);
        // Another tool rewrites queue.json in place between the rename and the record.
        std::fs::write(&paths.queue_json, b"{}\n").unwrap();
        let written = Written {
            bytes: &bytes,
            id: staged,
        };
        record(&RealIo, &paths, &queue, &sha, Some(written));
        assert!(!view_path(&paths).exists());
        // And no identity at all (the temp could not be read back) records nothing either.
        std::fs::write(&paths.queue_json, &bytes).unwrap();
        record(&RealIo, &paths, &queue, &sha, None);
        assert!(!view_path(&paths).exists());
        let _ = std::fs::remove_dir_all(&paths.root);
    }
}
