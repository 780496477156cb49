//! Reading the replicated ref's commits from the object database (after a fetch): each
//! commit's one parent, its message as a `Stamp`, and its tree held to exactly the queue's
//! files (queue.json, QUEUE.md and the archives its epoch names, each a plain file under its
//! cap, measured before a byte of it is read). Every hostile shape a ref may take (a merge, an
//! extra or missing file, a link, a huge object, a message that does not parse) is one line.

use gix::ObjectId;
use gix::objs::tree::EntryKind;
use mosaic_queue_core::{Queue, sha256_hex};

use super::objects::Stamp;
use crate::io::{QUEUE_JSON_CAP, QUEUE_MD_CAP, size_text};

/// The most entries the queue's tree may hold at any level: a few files and an archive each.
const MAX_ENTRIES: usize = 100_000;

/// One commit of the line.
#[derive(Debug, Clone)]
pub struct Link {
    pub id: ObjectId,
    pub parent: Option<ObjectId>,
    pub tree: ObjectId,
    /// What the message says, or why it says nothing a replicated commit says.
    pub stamp: Result<Stamp, String>,
}

/// The queue's files a commit's tree holds, read and checked.
#[derive(Debug, Clone)]
pub struct TreeFiles {
    pub queue_json: Vec<u8>,
    pub queue: Queue,
    pub queue_md: Vec<u8>,
    /// Each archive's path in the repository, with its bytes (SHA-256 checked).
    pub archives: Vec<(String, Vec<u8>)>,
}

fn short(id: &ObjectId) -> String {
    id.to_hex_with_len(12).to_string()
}

/// The commit `id`: refused when it is missing, not a commit, or a merge.
pub fn link(repo: &gix::Repository, id: ObjectId) -> Result<Link, String> {
    let commit = repo
        .find_commit(id)
        .map_err(|e| format!("commit {} cannot be read: {e}", short(&id)))?;
    let parents: Vec<ObjectId> = commit.parent_ids().map(|p| p.detach()).collect();
    if parents.len() > 1 {
        return Err(format!(
            "commit {} is a merge: a replicated ref is one line of commits",
            short(&id)
        ));
    }
    let tree = commit
        .tree_id()
        .map_err(|e| format!("commit {} cannot be read: {e}", short(&id)))?
        .detach();
    let message = commit
        .message_raw()
        .map_err(|e| format!("commit {} cannot be read: {e}", short(&id)))?;
    Ok(Link {
        id,
        parent: parents.first().copied(),
        tree,
        stamp: Stamp::parse(message).map_err(|why| {
            format!(
                "commit {}'s message is not a replicated commit's: {why}",
                short(&id)
            )
        }),
    })
}

/// The line from `head` back to its first commit (or to `stop`, excluded), newest first,
/// at most `max` commits.
pub fn line(
    repo: &gix::Repository,
    head: ObjectId,
    stop: Option<ObjectId>,
    max: usize,
) -> Result<Vec<Link>, String> {
    let mut links = Vec::new();
    let mut next = Some(head);
    while let Some(id) = next {
        if Some(id) == stop {
            break;
        }
        if links.len() >= max {
            return Err(format!(
                "the ref holds more than {max} commits past the last one looked at"
            ));
        }
        let link = link(repo, id)?;
        next = link.parent;
        links.push(link);
    }
    Ok(links)
}

/// Whether `ancestor` is `head` or one of the commits behind it (at most `max` looked at).
pub fn reaches(
    repo: &gix::Repository,
    head: ObjectId,
    ancestor: ObjectId,
    max: usize,
) -> Result<bool, String> {
    let mut next = Some(head);
    for _ in 0..=max {
        match next {
            Some(id) if id == ancestor => return Ok(true),
            Some(id) => next = link(repo, id)?.parent,
            None => return Ok(false),
        }
    }
    Ok(false)
}

/// A blob of the tree, refused over `cap` before any of it is read.
fn blob(repo: &gix::Repository, id: ObjectId, path: &str, cap: u64) -> Result<Vec<u8>, String> {
    let header = repo
        .find_header(id)
        .map_err(|e| format!("{path} cannot be read: {e}"))?;
    if header.size() > cap {
        return Err(format!(
            "{path} is {} bytes, over its {} cap",
            header.size(),
            size_text(cap)
        ));
    }
    let blob = repo
        .find_blob(id)
        .map_err(|e| format!("{path} cannot be read: {e}"))?;
    Ok(blob.data.clone())
}

/// Every path of `tree` with its object, each checked to be a plain file.
fn paths(repo: &gix::Repository, tree: ObjectId) -> Result<Vec<(String, ObjectId)>, String> {
    let mut out = Vec::new();
    let mut dirs = vec![(String::new(), tree, 0usize)];
    while let Some((prefix, id, depth)) = dirs.pop() {
        if depth > 3 {
            return Err(format!("{prefix} is deeper than the queue's files are"));
        }
        let tree = repo
            .find_tree(id)
            .map_err(|e| format!("tree {prefix:?} cannot be read: {e}"))?;
        let decoded = tree
            .decode()
            .map_err(|e| format!("tree {prefix:?} cannot be read: {e}"))?;
        if decoded.entries.len() > MAX_ENTRIES {
            return Err(format!("tree {prefix:?} holds too many entries"));
        }
        for entry in &decoded.entries {
            let name = String::from_utf8(entry.filename.to_vec())
                .map_err(|_| format!("{prefix}: a file name is not UTF-8"))?;
            let path = format!("{prefix}{name}");
            match entry.mode.kind() {
                EntryKind::Tree => dirs.push((format!("{path}/"), entry.oid.to_owned(), depth + 1)),
                EntryKind::Blob => out.push((path, entry.oid.to_owned())),
                EntryKind::BlobExecutable => {
                    return Err(format!("{path} is executable; the queue's files are not"));
                }
                EntryKind::Link => return Err(format!("{path} is a symlink")),
                EntryKind::Commit => return Err(format!("{path} is a submodule")),
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The queue's files in `tree`: exactly queue.json, QUEUE.md and the archives queue.json's
/// epoch names, each under its cap; queue.json verifies, every archive has the SHA-256 its
/// epoch names. Nothing else may be there.
pub fn files(repo: &gix::Repository, tree: ObjectId) -> Result<TreeFiles, String> {
    let mut listed = paths(repo, tree)?;
    let mut take = |path: &str| {
        listed
            .iter()
            .position(|(p, _)| p == path)
            .map(|i| listed.remove(i).1)
    };
    let json = take("docs/plans/queue.json").ok_or("it holds no docs/plans/queue.json")?;
    let md = take("docs/plans/QUEUE.md").ok_or("it holds no docs/plans/QUEUE.md")?;
    let queue_json = blob(repo, json, "docs/plans/queue.json", QUEUE_JSON_CAP)?;
    let queue = Queue::verify(&queue_json)
        .map_err(|e| format!("its docs/plans/queue.json does not verify: {e}"))?;
    let queue_md = blob(repo, md, "docs/plans/QUEUE.md", QUEUE_MD_CAP)?;
    let mut archives = Vec::new();
    for info in queue.epoch().map_or(&[][..], |e| &e.archives[..]) {
        let id = take(&info.file).ok_or_else(|| format!("it holds no {}", info.file))?;
        let bytes = blob(repo, id, &info.file, QUEUE_JSON_CAP)?;
        if sha256_hex(&bytes) != info.sha {
            return Err(format!(
                "its {} does not hold the bytes its epoch names",
                info.file
            ));
        }
        archives.push((info.file.clone(), bytes));
    }
    if let Some((extra, _)) = listed.first() {
        return Err(format!(
            "it holds {extra}, which is none of the queue's files"
        ));
    }
    Ok(TreeFiles {
        queue_json,
        queue,
        queue_md,
        archives,
    })
}

/// Just queue.json of `tree`, verified (the follower's look at the ref's head).
pub fn queue_of(repo: &gix::Repository, tree: ObjectId) -> Result<(Vec<u8>, Queue), String> {
    let listed = paths(repo, tree)?;
    let json = listed
        .iter()
        .find(|(p, _)| p == "docs/plans/queue.json")
        .map(|(_, id)| *id)
        .ok_or("it holds no docs/plans/queue.json")?;
    let bytes = blob(repo, json, "docs/plans/queue.json", QUEUE_JSON_CAP)?;
    let queue = Queue::verify(&bytes)
        .map_err(|e| format!("its docs/plans/queue.json does not verify: {e}"))?;
    Ok((bytes, queue))
}
