//! The replicated commit, written into the checkout's object database in-process: a tree that
//! holds only the queue's files at their paths (queue.json, QUEUE.md, the archives), a parent
//! that is the last replicated commit, and a message that names the revision, the witness's
//! chain digest, the file's SHA-256 and the root that wrote it, which `adopt` holds each
//! commit to. The checkout's branch, index and working tree are never touched.

use std::collections::HashMap;

use gix::ObjectId;
use gix::bstr::BString;
use gix::objs::tree::{Entry, EntryKind};
use gix::objs::{Commit, Tree};

/// The queue's files as one revision holds them.
#[derive(Debug, Clone)]
pub struct QueueFiles {
    pub queue_json: Vec<u8>,
    pub queue_md: Vec<u8>,
    /// Each archive's file name under `docs/plans/archive/`, with its SHA-256 (hex) as the
    /// epoch entry names it; the bytes are read once and kept as a blob (`Blobs`).
    pub archives: Vec<(String, String)>,
}

/// What a replicated commit's message says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    pub revision: u64,
    pub log_digest: String,
    pub file_sha: String,
    pub root: String,
}

const TITLE: &str = "mosaic-queue rev ";

impl Stamp {
    /// The message: a title line, a blank line, then one `key: value` line each.
    pub fn message(&self) -> String {
        format!(
            "{TITLE}{}\n\nrevision: {}\nlog-digest: {}\nfile-sha: {}\nroot: {}\n",
            self.revision, self.revision, self.log_digest, self.file_sha, self.root
        )
    }

    /// Reads a message `message` writes, and nothing else: every line in its place.
    pub fn parse(message: &[u8]) -> Result<Stamp, String> {
        let text = std::str::from_utf8(message).map_err(|_| String::from("not UTF-8"))?;
        let mut lines = text.strip_suffix('\n').unwrap_or(text).split('\n');
        let mut next = |key: &str| -> Result<String, String> {
            let line = lines.next().ok_or_else(|| format!("no `{key}` line"))?;
            match key {
                "" if line.is_empty() => Ok(String::new()),
                "title" => line
                    .strip_prefix(TITLE)
                    .map(str::to_owned)
                    .ok_or_else(|| format!("its title is {line:?}, not `{TITLE}N`")),
                _ => line
                    .strip_prefix(key)
                    .and_then(|rest| rest.strip_prefix(": "))
                    .map(str::to_owned)
                    .ok_or_else(|| format!("{line:?} is not its `{key}` line")),
            }
        };
        let title = next("title")?;
        next("")?;
        let revision = next("revision")?;
        let stamp = Stamp {
            revision: revision
                .parse()
                .ok()
                .filter(|n: &u64| *n > 0 && revision == n.to_string())
                .ok_or_else(|| format!("revision {revision:?} is not a number"))?,
            log_digest: hex64(next("log-digest")?)?,
            file_sha: hex64(next("file-sha")?)?,
            root: next("root")?,
        };
        if title != revision {
            return Err(format!("its title names rev {title}, its body {revision}"));
        }
        if lines.next().is_some() {
            return Err(String::from(
                "it holds more lines than a replicated commit's",
            ));
        }
        if stamp.root.is_empty() || stamp.root.chars().any(char::is_control) {
            return Err(String::from(
                "its root is empty or holds a control character",
            ));
        }
        Ok(stamp)
    }
}

fn hex64(text: String) -> Result<String, String> {
    if text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        Ok(text)
    } else {
        Err(format!("{text:?} is not 64 lowercase hex digits"))
    }
}

/// The archives' blobs already written, by SHA-256: an archive is written once, so its blob
/// is hashed once per follower, not once per push.
#[derive(Debug, Default)]
pub struct Blobs {
    by_sha: HashMap<String, ObjectId>,
}

impl Blobs {
    pub fn known(&self, sha: &str) -> bool {
        self.by_sha.contains_key(sha)
    }

    pub fn keep(&mut self, sha: &str, id: ObjectId) {
        self.by_sha.insert(sha.to_owned(), id);
    }
}

/// The commit of `files` with message `stamp` on `parent` (none for the first), written with
/// `blobs` for the archives (each must be known to it).
pub fn commit(
    repo: &gix::Repository,
    files: &QueueFiles,
    blobs: &Blobs,
    stamp: &Stamp,
    parent: Option<ObjectId>,
) -> Result<ObjectId, String> {
    let fail = |e: &dyn std::fmt::Display| format!("cannot write the commit's objects: {e}");
    let blob = |bytes: &[u8]| {
        repo.write_blob(bytes)
            .map(|id| id.detach())
            .map_err(|e| fail(&e))
    };
    let mut plans = vec![
        file_entry("QUEUE.md", blob(&files.queue_md)?),
        file_entry("queue.json", blob(&files.queue_json)?),
    ];
    if !files.archives.is_empty() {
        let mut archive = Vec::with_capacity(files.archives.len());
        for (name, sha) in &files.archives {
            let id = blobs
                .by_sha
                .get(sha)
                .ok_or_else(|| format!("archive {name}'s blob was not written"))?;
            archive.push(file_entry(name, *id));
        }
        plans.push(tree_entry("archive", write_tree(repo, archive)?));
    }
    let plans = write_tree(repo, plans)?;
    let docs = write_tree(repo, vec![tree_entry("plans", plans)])?;
    let root = write_tree(repo, vec![tree_entry("docs", docs)])?;
    let now = crate::clock::now_millis().div_euclid(1000);
    let signature = gix::actor::Signature {
        name: BString::from("mosaic-queue follow"),
        email: BString::from("follow@mosaic-queue.invalid"),
        time: gix::date::Time {
            seconds: now,
            offset: 0,
        },
    };
    let commit = Commit {
        tree: root,
        parents: parent.into_iter().collect(),
        author: signature.clone(),
        committer: signature,
        encoding: None,
        message: BString::from(stamp.message()),
        extra_headers: Vec::new(),
    };
    repo.write_object(&commit)
        .map(|id| id.detach())
        .map_err(|e| fail(&e))
}

/// Writes an archive's bytes as a blob and keeps its id.
pub fn keep_archive(
    repo: &gix::Repository,
    blobs: &mut Blobs,
    sha: &str,
    bytes: &[u8],
) -> Result<(), String> {
    let id = repo
        .write_blob(bytes)
        .map_err(|e| format!("cannot write an archive's blob: {e}"))?;
    blobs.keep(sha, id.detach());
    Ok(())
}

fn file_entry(name: &str, oid: ObjectId) -> Entry {
    Entry {
        mode: EntryKind::Blob.into(),
        filename: BString::from(name),
        oid,
    }
}

fn tree_entry(name: &str, oid: ObjectId) -> Entry {
    Entry {
        mode: EntryKind::Tree.into(),
        filename: BString::from(name),
        oid,
    }
}

fn write_tree(repo: &gix::Repository, mut entries: Vec<Entry>) -> Result<ObjectId, String> {
    // git's order, which a tree must be written in.
    entries.sort();
    repo.write_object(&Tree { entries })
        .map(|id| id.detach())
        .map_err(|e| format!("cannot write a tree: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp() -> Stamp {
        Stamp {
            revision: 42,
            log_digest: "a".repeat(64),
            file_sha: "b".repeat(64),
            root: String::from("/srv/mosaic"),
        }
    }

    #[test]
    fn a_message_reads_back_as_the_stamp_it_was_written_from() {
        let text = stamp().message();
        assert_eq!(
            text,
            format!(
                "mosaic-queue rev 42\n\nrevision: 42\nlog-digest: {}\nfile-sha: {}\nroot: /srv/mosaic\n",
                "a".repeat(64),
                "b".repeat(64)
            )
        );
        assert_eq!(Stamp::parse(text.as_bytes()), Ok(stamp()));
    }

    #[test]
    fn a_message_that_differs_anywhere_is_refused() {
        let good = stamp().message();
        let cases = [
            (
                good.replace("rev 42", "rev 41"),
                "its title names rev 41, its body 42",
            ),
            (
                good.replace("revision: 42", "revision: 042"),
                "revision \"042\" is not a number",
            ),
            (
                good.replacen("\n\n", "\n", 1),
                "\"revision: 42\" is not its `` line",
            ),
            (
                format!("{good}extra: 1\n"),
                "it holds more lines than a replicated commit's",
            ),
            (
                good.replace(&"a".repeat(64), &"A".repeat(64)),
                "is not 64 lowercase hex digits",
            ),
            (
                good.replace("root: /srv/mosaic", "root: "),
                "its root is empty or holds a control character",
            ),
            (
                good.replace("file-sha", "file-sum"),
                "is not its `file-sha` line",
            ),
        ];
        for (text, why) in cases {
            let got = Stamp::parse(text.as_bytes()).unwrap_err();
            assert!(got.contains(why), "{text:?}: {got}");
        }
    }
}
