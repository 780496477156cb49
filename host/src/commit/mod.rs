//! `commit -m MSG [--genesis]`: the contract's "Committing the queue", steps 1 to 7, for every
//! face. It commits exactly the snapshot bytes of the two queue files (with the archives their
//! epoch names, a new one added) on top of HEAD through a temporary index and `commit-tree`,
//! publishes with `update-ref` against the recorded HEAD, and never pushes. The plumbing is `git`, the guard's checks `active`, the object and its
//! publication `build`, the shared index before and after `index`.

pub mod active;
mod build;
pub mod git;
mod index;

use std::path::Path;

use mosaic_queue_core::is_lead_or_privileged;

use self::git::QUEUE_PATHS;
use crate::actor::actor;
use crate::reply::{Failure, Replied, Reply};
use crate::snapshot::take::take;
use crate::snapshot::verify::check_bytes;
use crate::store::session::{self, Kind, Session};

/// Commits the queue's snapshot with `message` as `by` (else `$MOSAIC_AGENT_NAME`; the lead,
/// jason or sage); `genesis` for the first queue commit. Gives `ok commit SHA (queue rev N)`.
pub fn commit(message: &str, genesis: bool, by: Option<&str>, reply: &mut dyn Reply) -> Replied {
    message_admitted(message)?;
    let by = actor(by, reply)?;
    if !is_lead_or_privileged(&by) {
        return Err(Failure::refused(format!(
            "refused: commit is for the lead, jason or sage only, not {by}"
        )));
    }
    let paths = session::locate()?;
    crate::checkout::require_git()?;
    let root = paths.root.as_path();

    // 1. H, the branch it is on, and whether it already holds the queue; the guard active,
    // and no queue file staged.
    let Head { head, branch } = head(root, genesis)?;
    active::check(root, &paths.git_dir, &head).map_err(Failure::refused)?;
    index::refuse_staged(root, &head)?;

    // 2. The snapshot, under the lock, which is held to the end so no op lands between what
    // was verified and what is published from this checkout.
    let held = Session::begin(&paths, None, "commit")?;
    let (loaded, md) = take(&held, "commit")?;
    let rev = loaded.queue.revision();
    let archives = crate::snapshot::take::archives(&held, &loaded)?;
    // Only the bytes are checked and published: the parsed queue goes before the sandbox
    // needs its room, so a commit at a long log does not hold it parsed as well.
    let crate::store::Loaded { bytes, queue, .. } = loaded;
    drop(queue);

    // 3 and 4. The base from the object database, and the snapshot verified against it by the
    // code `verify --snapshot --base` runs (docs/commit.md says why not HEAD's archived tests).
    let base = if genesis {
        None
    } else {
        Some(base(root, &head)?)
    };
    let archived: Vec<&[u8]> = archives.iter().map(|(_, b)| b.as_slice()).collect();
    check_bytes(&bytes, &md, base, &archived)?;

    // 5 to 7. Blobs, a tree from a temporary index, the commit object, published only if the
    // guard is still active and the branch still at H; then the shared index reconciled.
    let new = build::build(
        root,
        &paths.git_dir,
        &head,
        [&bytes, &md],
        &archives,
        message,
    )?;
    active::check(root, &paths.git_dir, &head).map_err(|e| {
        Failure::refused(format!(
            "{e} (checked again before publishing; nothing was published)"
        ))
    })?;
    build::publish(root, &branch, &new, &head, rev)?;
    let committed: Vec<&str> = archives.iter().map(|(p, _)| p.as_str()).collect();
    index::reconcile(root, &head, &new, rev, &committed)?;
    reply.line(&format!("ok commit {new} (queue rev {rev})"))?;
    held.release_after_answer();
    Ok(())
}

/// The message is stored in git's history for good, so it meets the rule every stored text of
/// the queue meets: no credential (never repeated back), nothing that displays otherwise than
/// its bytes. Text the tool checks is refused like an empty piece or note (exit 2), before
/// anything is read; only what clap cannot parse is usage.
fn message_admitted(message: &str) -> Result<(), Failure> {
    use mosaic_queue_core::{credential, invisible};
    if message.trim().is_empty() {
        return Err(Failure::refused(
            "refused: commit needs a message: pass -m with some text (it is the commit's message)",
        ));
    }
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

/// H and the branch it is on, as step 1 records them.
struct Head {
    head: String,
    branch: String,
}

/// Step 1: H, its branch, and whether H already holds the queue, as `genesis` says it should.
fn head(root: &Path, genesis: bool) -> Result<Head, Failure> {
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
        (true, true) => Err(Failure::refused(
            "HEAD already holds docs/plans/queue.json: genesis is committed; run commit without --genesis",
        )),
        (false, false) => Err(Failure::refused(
            "HEAD has no docs/plans/queue.json: the first queue commit is `mosaic-queue commit --genesis -m MSG`",
        )),
        _ => Ok(Head { head, branch }),
    }
}

/// Step 3: H's queue.json from the object database, within the cap for queue.json, and how to
/// name it in a refusal.
fn base(root: &Path, head: &str) -> Result<(Vec<u8>, String), Failure> {
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
    Ok((bytes, spec))
}
