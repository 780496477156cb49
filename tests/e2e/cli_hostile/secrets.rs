//! The secret check every case runs. Beside each checkout is a token file per Gitea login, and
//! every case's environment names one the binary could read: each login's token, and the
//! case's own secret if it has one, must appear in no output and in no file the run leaves
//! (everything under the scratch directory, git's logs and index included, and each loose
//! object the run added, read back through git), save the token files and what the case put
//! there itself.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::cases::Case;
use super::runner::{LOGINS, token, token_file};

/// Larger files are not read whole; none but the sparse ones a case plants is this large.
const SCAN_LIMIT: u64 = 64 << 20;

/// The texts no output or file may hold.
fn marked(case: &Case) -> Vec<String> {
    let mut out: Vec<String> = LOGINS.iter().map(|l| token(l)).collect();
    out.extend(case.secret.clone());
    out
}

/// The loose objects in the repository now (`xx/yyyy…` under `.git/objects`).
pub fn loose_objects(base: &Path) -> BTreeSet<String> {
    let objects = base.join("repo/.git/objects");
    let mut out = BTreeSet::new();
    let Ok(dirs) = std::fs::read_dir(&objects) else {
        return out;
    };
    for dir in dirs.flatten() {
        let name = dir.file_name().to_string_lossy().into_owned();
        if name.len() != 2 {
            continue;
        }
        for file in std::fs::read_dir(dir.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            out.insert(format!("{name}{}", file.file_name().to_string_lossy()));
        }
    }
    out
}

/// Each marked text that `text` holds, named with `place`.
pub fn in_text(case: &Case, place: &str, text: &str) -> Vec<String> {
    marked(case)
        .into_iter()
        .filter(|s| text.contains(s.as_str()))
        .map(|s| format!("the secret {s:?} is in {place}"))
        .collect()
}

/// Every place a marked text turned up, named.
pub fn leaks(
    case: &Case,
    stdout: &str,
    stderr: &str,
    base: &Path,
    planted: &[PathBuf],
    objects_before: &BTreeSet<String>,
) -> Vec<String> {
    let secrets = marked(case);
    let mut wrong = Vec::new();
    let mut too_large = Vec::new();
    let mut look = |place: &str, bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        for s in &secrets {
            if text.contains(s.as_str()) {
                wrong.push(format!("the secret {s:?} is in {place}"));
            }
        }
    };
    look("stdout", stdout.as_bytes());
    look("stderr", stderr.as_bytes());
    let mut skip: Vec<PathBuf> = LOGINS
        .iter()
        .map(|l| token_file(Path::new(""), l))
        .collect();
    skip.extend(planted.iter().cloned());
    skip.push(PathBuf::from("repo/.git/objects"));
    let mut files = Vec::new();
    walk(base, base, &skip, &mut files);
    for (shown, path, len) in files {
        if len > SCAN_LIMIT {
            too_large.push(shown);
        } else if let Ok(bytes) = std::fs::read(&path) {
            look(&shown, &bytes);
        }
    }
    for oid in loose_objects(base).difference(objects_before) {
        let shown = std::process::Command::new("git")
            .args(["cat-file", "-p", oid])
            .current_dir(base.join("repo"))
            .output()
            .unwrap();
        look(&format!("git object {oid}"), &shown.stdout);
    }
    wrong.extend(
        too_large
            .into_iter()
            .map(|f| format!("{f} is too large to scan")),
    );
    wrong
}

/// Every regular file under `path` but those in `skip` (relative to `base`), with its size;
/// FIFOs, sockets and devices are never opened, symlinks never followed.
fn walk(base: &Path, path: &Path, skip: &[PathBuf], out: &mut Vec<(String, PathBuf, u64)>) {
    let rel = path.strip_prefix(base).unwrap();
    if skip.iter().any(|s| s == rel) {
        return;
    }
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return;
    };
    if meta.is_dir() {
        for entry in std::fs::read_dir(path).into_iter().flatten().flatten() {
            walk(base, &entry.path(), skip, out);
        }
    } else if meta.is_file() {
        out.push((rel.display().to_string(), path.to_path_buf(), meta.len()));
    }
}
