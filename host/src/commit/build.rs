//! Steps 5 to 7 of the commit procedure: the commit object built from the snapshot's exact
//! bytes through a temporary index (nothing published yet), then published with `update-ref`
//! only if the branch still points at H.

use std::path::Path;

use super::git::{self, QUEUE_PATHS, TempIndex};
use crate::reply::Failure;

/// Both files' exact bytes as blobs, with the archives the queue's epoch names (repository
/// path, bytes: a new one is added, one H holds is the same blob), a tree from a temporary
/// index that starts as H's tree, and a commit with H as its only parent; returns its id. A
/// tree equal to H's is refused: there is nothing to commit.
pub fn build(
    root: &Path,
    git_dir: &Path,
    head: &str,
    files: [&[u8]; 2],
    archives: &[(String, Vec<u8>)],
    message: &str,
) -> Result<String, Failure> {
    let failed = |what: &str| {
        let what = what.to_owned();
        move |e: String| Failure::failed(format!("cannot {what}: {e}; nothing was published"))
    };
    let index =
        TempIndex::of_tree(root, git_dir, head).map_err(failed("build the temporary index"))?;
    let named = archives.iter().map(|(p, b)| (p.as_str(), b.as_slice()));
    for (path, bytes) in QUEUE_PATHS.iter().copied().zip(files).chain(named) {
        let blob = git::blob(root, bytes).map_err(failed("write the blob"))?;
        index
            .stage(root, path, &blob)
            .map_err(failed("stage the blob"))?;
    }
    let tree =
        git::text(root, &["write-tree"], Some(index.path())).map_err(failed("write the tree"))?;
    let head_tree = git::text(root, &["rev-parse", &format!("{head}^{{tree}}")], None)
        .map_err(failed("read HEAD's tree"))?;
    if tree == head_tree {
        return Err(Failure::refused(
            "nothing to commit: HEAD already holds these bytes of docs/plans/queue.json and QUEUE.md; nothing was published",
        ));
    }
    git::text(
        root,
        &["commit-tree", &tree, "-p", head, "-m", message],
        None,
    )
    .map_err(failed("create the commit"))
}

/// Points `branch` at `new` only if it still points at `head` (the queue at revision `rev`).
pub fn publish(root: &Path, branch: &str, new: &str, head: &str, rev: u64) -> Result<(), Failure> {
    git::bytes(
        root,
        &[
            "update-ref",
            "-m",
            &format!("mosaic-queue commit: queue rev {rev}"),
            branch,
            new,
            head,
        ],
        None,
        None,
    )
    .map(drop)
    .map_err(|e| {
        Failure::failed(format!(
            "{branch} moved since this commit began at {head} ({e}); nothing was published, retry"
        ))
    })
}
