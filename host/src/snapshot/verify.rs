//! `verify --snapshot DIR [--base FILE]`: checks a snapshot's pair of files with no lock and no
//! repository, reading only DIR/queue.json, DIR/QUEUE.md and the base. It certifies the pair
//! and that its log extends the base; witness continuity is canonical verify's job.

use std::borrow::Cow;
use std::path::Path;

use super::take::FILES;
use crate::named_files::read_file;
use crate::reply::{Failure, Replied, Reply};
use crate::sandbox::{self, Answer, Inputs, SandboxError};
use crate::store::session::Kind;

/// `verify --snapshot DIR [--base FILE]`: the verdict line.
pub fn verify_snapshot(dir: &Path, base: Option<&Path>, reply: &mut dyn Reply) -> Replied {
    reply.line(&check(dir, base)?)
}

/// The verdict on a snapshot, as the line `verify --snapshot` prints, decided by the core run
/// in the wasmtime sandbox (crate::sandbox): no WASI, capped memory and fuel.
pub fn check(dir: &Path, base: Option<&Path>) -> Result<String, Failure> {
    let [json_name, md_name] = FILES;
    let json = read_file(&dir.join(json_name), Kind::SnapshotJson)?;
    let md = read_file(&dir.join(md_name), Kind::SnapshotMd)?;
    let shown = base.map(|path| path.display().to_string());
    let base = match base {
        Some(path) => Some(read_file(path, Kind::Base)?),
        None => None,
    };
    // Only a base older than the snapshot's cut needs them; the sandbox checks each one's sha.
    let archives = match base {
        Some(_) => snapshot_archives(dir)?,
        None => Vec::new(),
    };
    let archives: Vec<&[u8]> = archives.iter().map(Vec::as_slice).collect();
    // The files' bytes are handed over, so each is freed once the sandbox holds its copy.
    let answer = sandbox::verify(Inputs {
        json: Cow::Owned(json),
        md: Cow::Owned(md),
        base: base.map(Cow::Owned),
        archives: Cow::Owned(mosaic_queue_core::sandbox::pack_archives(&archives)),
    });
    verdict_line(answer, shown.as_deref())
}

/// The same verdict on a snapshot already in hand: `base` is the base's bytes, handed over
/// (freed once the sandbox holds its copy), and how to name it. `commit` verifies its snapshot
/// through here, so both paths run the same sandboxed check.
pub fn check_bytes(
    json: &[u8],
    md: &[u8],
    base: Option<(Vec<u8>, String)>,
    archives: &[&[u8]],
) -> Result<String, Failure> {
    let (base, shown) = base.unzip();
    let answer = sandbox::verify(Inputs {
        json: Cow::Borrowed(json),
        md: Cow::Borrowed(md),
        base: base.map(Cow::Owned),
        archives: Cow::Owned(mosaic_queue_core::sandbox::pack_archives(archives)),
    });
    verdict_line(answer, shown.as_deref())
}

/// The archives a snapshot holds (`DIR/archive/epoch-NNNN.json`, as `snapshot --out` copies
/// them), oldest first, each read as the snapshot's queue.json is; none without the folder.
fn snapshot_archives(dir: &Path) -> Result<Vec<Vec<u8>>, Failure> {
    let folder = dir.join("archive");
    let mut names: Vec<String> = match std::fs::read_dir(&folder) {
        Ok(entries) => entries
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| crate::store::cut::epochs::is_archive_name(n))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(Failure::failed(format!(
                "cannot list {}: {e}",
                folder.display()
            )));
        }
    };
    names.sort();
    names
        .iter()
        .map(|n| read_file(&folder.join(n), Kind::SnapshotJson))
        .collect()
}

/// The line for the sandbox's answer; `shown` names the base in a refusal.
fn verdict_line(
    answer: Result<Answer, SandboxError>,
    shown: Option<&str>,
) -> Result<String, Failure> {
    let verdict =
        answer?.map_err(|refusal| Failure::refused(refusal.message(shown.unwrap_or(""))))?;
    Ok(match verdict.base_revision {
        Some(base_rev) => format!(
            "ok verify --snapshot rev {} (extends base rev {base_rev})",
            verdict.revision
        ),
        None => format!("ok verify --snapshot rev {}", verdict.revision),
    })
}
