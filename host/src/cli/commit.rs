//! `commit -m MSG [--genesis]`: the contract's "Committing the queue", steps 1 to 7. It commits
//! exactly the snapshot bytes of the two queue files on top of HEAD through a temporary index
//! and `commit-tree`, publishes with `update-ref` against the recorded HEAD, and never pushes.

use std::path::Path;

use mosaic_queue_core::rules;

use super::snapshot::take;
use super::verify_snapshot::check_bytes;
use super::{CliResult, Failure, actor};
use crate::commit::active;
use crate::commit::git::{self, QUEUE_PATHS, TempIndex};
use crate::store::session::{self, Kind, Session};

/// The message is stored in git's history for good, so it meets the rule every stored text of
/// the queue meets: no credential (never repeated back), nothing that displays otherwise than
/// its bytes.
fn message_admitted(message: &str) -> Result<(), Failure> {
    use mosaic_queue_core::admission::{credential, invisible};
    if let Some(what) = credential(message) {
        return Err(Failure::refused(format!(
            "refused: the commit message looks like it holds a credential ({what}); git keeps it \
             for good, so leave secrets out"
        )));
    }
    if let Some((c, what)) = invisible(message) {
        return Err(Failure::refused(format!(
            "refused: the commit message contains U+{:04X} ({what}), which shows differently \
             from its bytes; remove it",
            u32::from(c)
        )));
    }
    Ok(())
}

/// What the lead runs when the index could not be reconciled safely.
const RESET: &str = "git reset -q -- docs/plans/queue.json docs/plans/QUEUE.md";

/// `commit -m MSG [--genesis] [--by NAME]`.
pub fn commit(message: &str, genesis: bool, by: &Option<String>) -> CliResult {
    // Text the tool checks is refused like an empty piece or note (exit 2), before anything
    // is read; only what clap cannot parse is usage.
    if message.trim().is_empty() {
        return Err(Failure::refused(
            "refused: commit needs a message: pass -m with some text (it is the commit's message)",
        ));
    }
    message_admitted(message)?;
    let by = actor(by)?;
    if !rules::is_lead_or_privileged(&by) {
        return Err(Failure::refused(format!(
            "refused: commit is for the lead, jason or sage only, not {by}"
        )));
    }
    let paths = session::locate()?;
    crate::checkout::require_git()?;
    let root = paths.root.as_path();
    let refused = |e: String| Failure::refused(e);

    // 1. H, the branch it is on, and whether it already holds the queue.
    let head = git::text(
        root,
        &["rev-parse", "--verify", "-q", "HEAD^{commit}"],
        None,
    )
    .map_err(|_| Failure::refused("HEAD names no commit; commit something first"))?;
    let branch = git::text(root, &["symbolic-ref", "-q", "HEAD"], None)
        .map_err(|_| Failure::refused("HEAD is detached; check out the queue's branch"))?;
    let has_queue = git::bytes(
        root,
        &["cat-file", "-e", &format!("{head}:{}", QUEUE_PATHS[0])],
        None,
        None,
    )
    .is_ok();
    match (genesis, has_queue) {
        (true, true) => {
            return Err(Failure::refused(
                "HEAD already holds docs/plans/queue.json: genesis is committed; run commit without --genesis",
            ));
        }
        (false, false) => {
            return Err(Failure::refused(
                "HEAD has no docs/plans/queue.json: the first queue commit is `mosaic-queue commit --genesis -m MSG`",
            ));
        }
        _ => {}
    }
    active::check(root, &paths.git_dir, &head).map_err(refused)?;
    refuse_staged(root, &head)?;

    // 2. The snapshot, under the lock, which is held to the end so no op lands between what
    // was verified and what is published from this checkout.
    let held = Session::begin(&paths, None, "commit")?;
    let (loaded, md) = take(&held, "commit")?;
    let rev = loaded.queue.revision();
    // Only the bytes are checked and published: the parsed queue goes before the sandbox
    // needs its room, so a commit at a long log does not hold it parsed as well.
    let crate::store::Loaded { bytes, queue, .. } = loaded;
    drop(queue);

    // 3 and 4. The base from the object database, and the snapshot verified against it by the
    // code `verify --snapshot --base` runs (docs/commit.md says why not HEAD's archived tests).
    let base = if genesis {
        None
    } else {
        let spec = format!("{head}:{}", QUEUE_PATHS[0]);
        let cap = Kind::QueueJson.cap();
        let bytes = crate::git::blob_within(root, &spec, cap).map_err(|e| match e {
            crate::git::BlobError::TooLarge { size } => Failure::refused(format!(
                "HEAD's {} is {size} bytes, over the {} cap for queue.json, so no snapshot can be checked against it; see Manual recovery",
                QUEUE_PATHS[0],
                session::size_text(cap)
            )),
            crate::git::BlobError::Git(e) => Failure::failed(format!("cannot read {spec}: {e}")),
        })?;
        Some((bytes, spec))
    };
    check_bytes(&bytes, &md, base)?;

    // 5 to 7. Blobs, a tree from a temporary index, the commit object: nothing published yet.
    let new = build(root, &paths.git_dir, &head, [&bytes, &md], message)?;
    active::check(root, &paths.git_dir, &head).map_err(|e| {
        refused(format!(
            "{e} (checked again before publishing; nothing was published)"
        ))
    })?;
    git::bytes(
        root,
        &[
            "update-ref",
            "-m",
            &format!("mosaic-queue commit: queue rev {rev}"),
            &branch,
            &new,
            &head,
        ],
        None,
        None,
    )
    .map_err(|e| {
        Failure::failed(format!(
            "{branch} moved since this commit began at {head} ({e}); nothing was published, retry"
        ))
    })?;

    reconcile(root, &head, &new, rev)?;
    crate::say!("ok commit {new} (queue rev {rev})");
    held.release_after_answer();
    Ok(())
}

/// Refuses when the shared index's entries for the queue paths differ from H's: a later plain
/// commit would publish them, and reconciling afterwards would discard someone's staging.
fn refuse_staged(root: &Path, head: &str) -> CliResult {
    let ours = git::queue_entries(root, None).map_err(Failure::failed)?;
    let theirs = git::queue_entries(root, Some(head)).map_err(Failure::failed)?;
    if ours != theirs {
        return Err(Failure::refused(format!(
            "a queue file is staged (the index's docs/plans/queue.json or QUEUE.md differs from HEAD's); unstage it with `{RESET}`, then retry"
        )));
    }
    Ok(())
}

/// Steps 5 to 7 up to the commit object: both files' exact bytes as blobs, a tree from a
/// temporary index that starts as H's tree, and a commit with H as its only parent.
fn build(
    root: &Path,
    git_dir: &Path,
    head: &str,
    files: [&[u8]; 2],
    message: &str,
) -> Result<String, Failure> {
    let failed = |what: &str| {
        let what = what.to_owned();
        move |e: String| Failure::failed(format!("cannot {what}: {e}; nothing was published"))
    };
    let index =
        TempIndex::of_tree(root, git_dir, head).map_err(failed("build the temporary index"))?;
    for (path, bytes) in QUEUE_PATHS.iter().zip(files) {
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

/// Points the shared index's queue entries at the new commit, but only when HEAD is that
/// commit and the entries are still H's: anything else is someone's work, so the lead decides.
fn reconcile(root: &Path, head: &str, new: &str, rev: u64) -> CliResult {
    let uncertain = |why: String| {
        Failure::uncertain(format!(
            "committed {new} (queue rev {rev}) but {why}; check, then run `{RESET}`"
        ))
    };
    let now = git::text(root, &["rev-parse", "-q", "--verify", "HEAD"], None).unwrap_or_default();
    if now != new {
        return Err(uncertain(format!(
            "HEAD is now {now}, not the new commit, so the index was left alone"
        )));
    }
    let index = git::queue_entries(root, None).map_err(&uncertain)?;
    let at_head = git::queue_entries(root, Some(head)).map_err(&uncertain)?;
    if index != at_head {
        return Err(uncertain(String::from(
            "a queue file was staged meanwhile, so the index was left alone",
        )));
    }
    let mut args = vec!["reset", "-q", "--"];
    args.extend(QUEUE_PATHS);
    git::bytes(root, &args, None, None)
        .map(drop)
        .map_err(|e| uncertain(format!("the index reset failed ({e})")))
}
