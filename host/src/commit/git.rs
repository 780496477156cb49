//! The git plumbing the commit procedure needs, on top of the host's one git runner
//! (`crate::git`): blobs written byte for byte, the queue's entries in an index or tree, and a
//! temporary index under `.git` that no other command sees and that is removed on every path,
//! so the shared index is never the one a commit is built from.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

pub use crate::git::{bytes, text};

/// The two paths the procedure commits, as git names them.
pub const QUEUE_PATHS: [&str; 2] = ["docs/plans/queue.json", "docs/plans/QUEUE.md"];

/// Writes `content` into the object database as a blob, byte for byte (no filters: stdin
/// without `--path` applies none), and returns its id.
pub fn blob(root: &Path, content: &[u8]) -> Result<String, String> {
    let out = bytes(root, &["hash-object", "-w", "--stdin"], None, Some(content))?;
    Ok(String::from_utf8_lossy(&out).trim().to_owned())
}

/// Each index entry for the queue's two paths (`mode blob stage path` lines), in the shared
/// index or, with `tree`, in that tree.
pub fn queue_entries(root: &Path, tree: Option<&str>) -> Result<String, String> {
    let mut args = match tree {
        Some(t) => vec!["ls-tree", t, "--"],
        None => vec!["ls-files", "-s", "--"],
    };
    args.extend(QUEUE_PATHS);
    let listing = text(root, &args, None)?;
    // ls-tree says `mode type blob\tpath`, ls-files `mode blob stage\tpath`: keep mode, blob
    // and path so the two compare.
    let mut lines: Vec<String> = listing
        .lines()
        .map(|line| {
            let (meta, path) = line.split_once('\t').unwrap_or((line, ""));
            let f: Vec<&str> = meta.split_whitespace().collect();
            let (mode, blob) = match (tree, f.as_slice()) {
                (Some(_), [mode, _, blob]) => (*mode, *blob),
                (None, [mode, blob, "0"]) => (*mode, *blob),
                // A conflict stage or an unexpected shape never equals a tree's entry.
                _ => ("?", meta),
            };
            format!("{mode} {blob} {path}")
        })
        .collect();
    lines.sort();
    Ok(lines.join("\n"))
}

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A temporary index file under `.git`, removed (with git's `.lock` beside it) when dropped.
pub struct TempIndex {
    path: PathBuf,
}

impl TempIndex {
    /// A fresh index holding `tree`'s entries.
    pub fn of_tree(root: &Path, git_dir: &Path, tree: &str) -> Result<TempIndex, String> {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let index = TempIndex {
            path: git_dir.join(format!(
                "mosaic-queue-commit.{}.{n}.index",
                std::process::id()
            )),
        };
        index.remove();
        bytes(root, &["read-tree", tree], Some(&index.path), None)?;
        Ok(index)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Stages `blob` at `path` (a regular file) in this index.
    pub fn stage(&self, root: &Path, path: &str, blob: &str) -> Result<(), String> {
        let info = format!("100644,{blob},{path}");
        bytes(
            root,
            &["update-index", "--add", "--cacheinfo", &info],
            Some(&self.path),
            None,
        )
        .map(drop)
    }

    fn remove(&self) {
        let _ = std::fs::remove_file(&self.path);
        let mut lock = self.path.clone().into_os_string();
        lock.push(".lock");
        let _ = std::fs::remove_file(lock);
    }
}

impl Drop for TempIndex {
    fn drop(&mut self) {
        self.remove();
    }
}
