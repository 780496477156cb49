//! Running `git`: the one place the host starts it, with the environment cleared of the
//! variables that would point it at another repository or index. The queue only reads through
//! it, except `demo`, which builds its own scratch checkout, and `commit`, whose plumbing
//! (`crate::commit::git`) writes objects through it.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Runs `git ARGS` in `dir`; `Ok(stdout)` without its trailing newlines on exit 0,
/// `Err(stderr)` on one line otherwise.
pub fn run(dir: &Path, args: &[&str]) -> Result<String, String> {
    text(dir, args, None)
}

/// `bytes` as text, without the trailing newlines.
pub fn text(dir: &Path, args: &[&str], index: Option<&Path>) -> Result<String, String> {
    let out = bytes(dir, args, index, None)?;
    Ok(String::from_utf8_lossy(&out)
        .trim_end_matches('\n')
        .to_owned())
}

/// Runs `git ARGS` in `dir` against the index file `index` when given (a hook runs with
/// GIT_INDEX_FILE naming the index being committed, and the guard must judge that one; the
/// commit procedure builds its own), else the repository's own, with `stdin` fed in when given.
/// `Ok(stdout)` as bytes on exit 0 (for output that is binary or NUL-delimited), else
/// `Err(stderr)` on one line: empty when git said nothing, which some callers read as an
/// answer (`git config --get` exits 1 silently for "not set").
pub fn bytes(
    dir: &Path,
    args: &[&str],
    index: Option<&Path>,
    stdin: Option<&[u8]>,
) -> Result<Vec<u8>, String> {
    let mut cmd = reading(dir, args);
    if let Some(index) = index {
        cmd.env("GIT_INDEX_FILE", index);
    }
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = cmd.spawn().map_err(|e| format!("{CANNOT_RUN}{e}"))?;
    let pipe = child.stdin.take();
    // A writer thread: git may fill its stdout pipe before it has read all its input.
    let out = std::thread::scope(|s| {
        if let (Some(input), Some(mut pipe)) = (stdin, pipe) {
            s.spawn(move || pipe.write_all(input));
        }
        child.wait_with_output()
    })
    .map_err(|e| format!("{CANNOT_RUN}{e}"))?;
    if out.status.success() {
        return Ok(out.stdout);
    }
    Err(String::from_utf8_lossy(&out.stderr)
        .trim()
        .replace('\n', "; "))
}

/// What an error from `bytes` starts with when git itself could not be started (not on PATH,
/// not executable), as opposed to git answering with a failure.
const CANNOT_RUN: &str = "cannot run git: ";

/// Whether an error from `bytes` (or `text`, `run`) means git could not be started at all.
pub fn could_not_run(err: &str) -> bool {
    err.starts_with(CANNOT_RUN)
}

/// `git ARGS` in `dir` against the repository's own index, not yet started: for callers that
/// stream git's output themselves.
pub fn reading(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new("git");
    cmd.args(args)
        .current_dir(dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_COMMON_DIR")
        .env_remove("GIT_INDEX_FILE");
    cmd
}

/// Why `blob_within` returned no bytes.
#[derive(Debug)]
pub enum BlobError {
    /// git's answer on one line: no such object, or git could not run.
    Git(String),
    /// The blob is larger than the cap; nothing of it was read.
    TooLarge { size: u64 },
}

/// The bytes of the blob `spec` names (`REV:path` or a blob id), refused before any of it is
/// read when it is larger than `cap`: a committed file is held to the cap of its kind, as the
/// file on disk is (docs/limits.md). The size is asked of the blob's id, so what is read is
/// the blob that was measured.
pub fn blob_within(dir: &Path, spec: &str, cap: u64) -> Result<Vec<u8>, BlobError> {
    // No `^{blob}` peel: after `REV:` the rest is a path, and the peel would join it.
    let oid = run(dir, &["rev-parse", "--verify", "-q", spec]).map_err(BlobError::Git)?;
    let size = run(dir, &["cat-file", "-s", &oid]).map_err(BlobError::Git)?;
    let size: u64 = size
        .trim()
        .parse()
        .map_err(|_| BlobError::Git(format!("git cat-file -s answered {size:?}")))?;
    if size > cap {
        return Err(BlobError::TooLarge { size });
    }
    bytes(dir, &["cat-file", "blob", &oid], None, None).map_err(BlobError::Git)
}
