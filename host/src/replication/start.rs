//! Where the follower starts, and what it learns when the ref moved under it: the ref's head
//! on the remote (one `ls-remote`, then a fetch of its objects when this checkout lacks them),
//! held to the follower's record (a ref rewound or force-pushed past its last push is refused)
//! and to this checkout's queue (it must extend the head's revision), or found adopted: an
//! `adopt` of this checkout's queue on the ref is the fence.

use gix::ObjectId;
use mosaic_queue_core::{Args, Witness};

use super::git::{self, RemoteFailure};
use super::objects::Stamp;
use super::refline;
use super::round::{Pushed, Target};
use crate::checkout::Paths;
use crate::io::Io;
use crate::store::adopted::Adopted;
use crate::store::replicated::{self, Replicated};
use crate::store::{self, Loaded};

/// The most commits looked at behind the ref's head.
pub const MAX_LINE: usize = 1_000_000;

/// What the ref says about this checkout's queue.
#[derive(Debug)]
pub enum Inspected {
    /// Push on top of this (none: the ref does not exist yet).
    Ready(Option<Pushed>),
    /// Another checkout adopted this queue: the fence to write.
    Adopted(Adopted),
}

/// Why the follower cannot start (or go on): a remote that failed, or a ref it must not push to.
#[derive(Debug)]
pub enum Refusal {
    Remote(RemoteFailure),
    Ref(String),
}

/// The ref's head on the remote, `None` when the ref does not exist.
pub fn remote_head(paths: &Paths, target: &Target) -> Result<Option<ObjectId>, RemoteFailure> {
    let args = ["ls-remote", "--", &target.remote, &target.reference];
    let out = git::run(&paths.root, &args, target.deadline).ok("ls-remote")?;
    let out = String::from_utf8_lossy(&out);
    for line in out.lines() {
        if let Some((id, name)) = line.split_once('\t')
            && name == target.reference
        {
            return ObjectId::from_hex(id.as_bytes())
                .map(Some)
                .map_err(|_| RemoteFailure::Refused(format!("git ls-remote answered {line:?}")));
        }
    }
    Ok(None)
}

/// The ref's objects, fetched into this repository (no ref and no FETCH_HEAD written here)
/// unless `head` is present already.
pub fn fetch(
    repo: &gix::Repository,
    paths: &Paths,
    target: &Target,
    head: ObjectId,
) -> Result<(), RemoteFailure> {
    if repo.find_commit(head).is_ok() {
        return Ok(());
    }
    let args = [
        "fetch",
        "--no-tags",
        "--no-write-fetch-head",
        "--",
        &target.remote,
        &target.reference,
    ];
    git::run(&paths.root, &args, target.deadline).ok("fetch")?;
    Ok(())
}

/// Looks at the ref for a follower of `loaded` (this checkout's queue) pushing to `target`.
pub fn inspect(
    io: &dyn Io,
    paths: &Paths,
    target: &Target,
    repo: &gix::Repository,
    loaded: &Loaded,
) -> Result<Inspected, Refusal> {
    let record = replicated::read(io, paths);
    let mine = record
        .read_ok()
        .filter(|r| r.remote == target.remote && r.reference == target.reference);
    let Some(head) = remote_head(paths, target).map_err(Refusal::Remote)? else {
        return match mine {
            Some(r) => Err(Refusal::Ref(format!(
                "{} {} no longer exists, though this follower pushed rev {} there (commit {}); if the ref was deleted on purpose, remove {} and start follow again",
                target.remote,
                target.reference,
                r.revision,
                short_hex(&r.commit),
                replicated::path(paths).display()
            ))),
            None => Ok(Inspected::Ready(None)),
        };
    };
    fetch(repo, paths, target, head).map_err(Refusal::Remote)?;
    let link = refline::link(repo, head).map_err(Refusal::Ref)?;
    // Whether the ref still holds this follower's last push comes first: a commit someone
    // force-pushed is then named as that, with what to do, not by what its message lacks.
    if let Some(r) = mine {
        not_rewound(repo, target, head, r)?;
    }
    let stamp = link.stamp.clone().map_err(Refusal::Ref)?;
    let extends = |stamp: &Stamp| {
        let witness = Witness {
            revision: stamp.revision,
            log_digest: stamp.log_digest.clone(),
            file_sha: stamp.file_sha.clone(),
            at: String::new(),
        };
        store::cut::history::check_extends(io, paths, &loaded.queue, &loaded.sha, &witness).is_ok()
    };
    if extends(&stamp) {
        return Ok(Inspected::Ready(Some(Pushed {
            revision: stamp.revision,
            log_digest: stamp.log_digest,
            commit: head,
        })));
    }
    moved_on(repo, target, head, loaded.queue.revision(), &extends)
}

/// The ref's head is not a revision of this queue: walk back to the newest commit this queue
/// extends (the last one both share). The entry right after it, in the commit after it, says
/// what happened since: an `adopt` of this queue (the fence), or revisions of another writer.
fn moved_on(
    repo: &gix::Repository,
    target: &Target,
    head: ObjectId,
    here: u64,
    extends: &dyn Fn(&Stamp) -> bool,
) -> Result<Inspected, Refusal> {
    let line = refline::line(repo, head, None, MAX_LINE).map_err(Refusal::Ref)?;
    let shared = line
        .iter()
        .position(|l| l.stamp.as_ref().is_ok_and(extends));
    let Some(i) = shared.filter(|i| *i > 0) else {
        return Err(Refusal::Ref(format!(
            "{} {} holds another queue's history (no commit of it is a revision of this queue); push elsewhere with --ref",
            target.remote, target.reference
        )));
    };
    let common: &Stamp = line[i]
        .stamp
        .as_ref()
        .map_err(|e| Refusal::Ref(e.clone()))?;
    let after = &line[i - 1];
    let (_, queue) = refline::queue_of(repo, after.tree).map_err(Refusal::Ref)?;
    let next = queue
        .file()
        .log
        .iter()
        .find(|e| e.rev == common.revision + 1);
    if let Some(entry) = next
        && let Args::Adopt(a) = &entry.args
    {
        return Ok(Inspected::Adopted(Adopted {
            root: a.root.clone(),
            host: a.host.clone(),
            revision: entry.rev,
            commit: after.id.to_string(),
            by: entry.by.clone(),
            at: entry.at.clone(),
            remote: target.remote.clone(),
            reference: target.reference.clone(),
            last_pushed: common.revision,
        }));
    }
    Err(Refusal::Ref(if here == common.revision {
        format!(
            "{} {} holds revisions past this queue's rev {here}: this checkout lost revisions the ref keeps; adopt them back with `mosaic-queue adopt --from {} --ref {}` (docs/replication.md)",
            target.remote, target.reference, target.remote, target.reference
        )
    } else {
        format!(
            "{} {} holds revisions after rev {} that this queue does not: another writer pushed there; see docs/replication.md",
            target.remote, target.reference, common.revision
        )
    }))
}

/// A record of this target whose commit the ref no longer reaches: the ref was rewound.
fn not_rewound(
    repo: &gix::Repository,
    target: &Target,
    head: ObjectId,
    record: &Replicated,
) -> Result<(), Refusal> {
    let Ok(pushed) = ObjectId::from_hex(record.commit.as_bytes()) else {
        return Ok(());
    };
    if refline::reaches(repo, head, pushed, MAX_LINE).map_err(Refusal::Ref)? {
        return Ok(());
    }
    Err(Refusal::Ref(format!(
        "{} {} was rewound or force-pushed: it no longer holds commit {} (rev {}) that this follower pushed; find out who moved it before pushing again (docs/replication.md)",
        target.remote,
        target.reference,
        short_hex(&record.commit),
        record.revision
    )))
}

fn short_hex(hex: &str) -> &str {
    hex.get(..12).unwrap_or(hex)
}
