//! `verify --snapshot DIR [--base FILE]`: checks a snapshot's pair of files with no lock and no
//! repository, reading only DIR/queue.json, DIR/QUEUE.md and the base. It certifies the pair
//! and that its log extends the base; witness continuity is canonical verify's job.

use std::borrow::Cow;
use std::path::Path;

use super::take::FILES;
use crate::input::read_file;
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
    // The files' bytes are handed over, so each is freed once the sandbox holds its copy.
    let answer = sandbox::verify(Inputs {
        json: Cow::Owned(json),
        md: Cow::Owned(md),
        base: base.map(Cow::Owned),
        archives: Cow::Borrowed(&[]),
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
) -> Result<String, Failure> {
    let (base, shown) = base.unzip();
    let answer = sandbox::verify(Inputs {
        json: Cow::Borrowed(json),
        md: Cow::Borrowed(md),
        base: base.map(Cow::Owned),
        archives: Cow::Borrowed(&[]),
    });
    verdict_line(answer, shown.as_deref())
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
