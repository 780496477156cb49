//! `verify --snapshot DIR [--base FILE]`: checks a snapshot's pair of files with no lock and no
//! repository, reading only DIR/queue.json, DIR/QUEUE.md and the base. It certifies the pair
//! and that its log extends the base; witness continuity is canonical verify's job.

use std::path::Path;

use mosaic_queue_core::{BodyStatus, Queue, table};

use super::snapshot::FILES;
use super::{CliResult, Failure};
use crate::io::{Io, RealIo};

/// `verify --snapshot DIR [--base FILE]`: prints the verdict line.
pub fn verify_snapshot(dir: &Path, base: Option<&Path>) -> CliResult {
    crate::say!("{}", check(&RealIo, dir, base)?);
    Ok(())
}

/// The verdict on a snapshot, as the line `verify --snapshot` prints. Runs the native core.
// The wasm sandbox (the core compiled to wasm, run in wasmtime with no WASI and fuel and memory
// caps) plugs in here in a later issue: the same three byte strings go in, the same verdict
// comes out, and this function picks the runner.
pub fn check(io: &dyn Io, dir: &Path, base: Option<&Path>) -> Result<String, Failure> {
    let [json_name, md_name] = FILES;
    let json = read(io, &dir.join(json_name))?;
    let md = read(io, &dir.join(md_name))?;
    let base = match base {
        Some(path) => Some((read(io, path)?, path.display().to_string())),
        None => None,
    };
    check_bytes(
        &json,
        &md,
        base.as_ref().map(|(b, s)| (b.as_slice(), s.as_str())),
    )
}

/// The same verdict on bytes already in hand: `base` is the base's bytes and how to name it.
/// `commit` verifies its snapshot through here, so both paths give one verdict.
pub fn check_bytes(json: &[u8], md: &[u8], base: Option<(&[u8], &str)>) -> Result<String, Failure> {
    let queue = Queue::verify(json).map_err(|e| Failure::new(2, format!("snapshot {e}")))?;
    let rev = queue.revision();
    let text =
        std::str::from_utf8(md).map_err(|_| Failure::new(2, "snapshot QUEUE.md is not UTF-8"))?;
    let body = table::body(text).map_err(|e| Failure::new(2, format!("snapshot QUEUE.md {e}")))?;
    match queue.body_status(body) {
        BodyStatus::Current => {}
        BodyStatus::Stale { rev: old } => {
            return Err(Failure::new(
                2,
                format!(
                    "snapshot QUEUE.md is stale: rendered at rev {old}, queue.json is at rev {rev}"
                ),
            ));
        }
        BodyStatus::Unknown => {
            return Err(Failure::new(
                2,
                "snapshot QUEUE.md's table is not a render of its queue.json",
            ));
        }
    }
    let Some((base_bytes, shown)) = base else {
        return Ok(format!("ok verify --snapshot rev {rev}"));
    };
    let base = Queue::verify(base_bytes)
        .map_err(|e| Failure::new(2, format!("the base {shown} is invalid: {e}")))?;
    let base_rev = base.revision();
    if base_rev > rev {
        return Err(Failure::new(
            2,
            format!(
                "the snapshot (rev {rev}) is behind the base {shown} (rev {base_rev}): history was lost"
            ),
        ));
    }
    // Both files re-serialize byte for byte, so equal entries are equal canonical bytes, which
    // is what the witness's digest chain hashes. Walking names the first difference.
    let (ours, theirs) = (&queue.file().log, &base.file().log);
    if let Some(i) = (0..theirs.len()).find(|&i| ours[i] != theirs[i]) {
        return Err(Failure::new(
            2,
            format!(
                "the snapshot's log differs from the base {shown} at rev {}: history was rewritten",
                theirs[i].rev
            ),
        ));
    }
    Ok(format!(
        "ok verify --snapshot rev {rev} (extends base rev {base_rev})"
    ))
}

fn read(io: &dyn Io, path: &Path) -> Result<Vec<u8>, Failure> {
    io.read(path)
        .map_err(|e| Failure::new(1, format!("cannot read {}: {e}", path.display())))
}
