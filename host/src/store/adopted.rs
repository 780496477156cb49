//! The fence: `.git/mosaic-queue.adopted`, written on a host whose queue another checkout
//! adopted (the follower found an `adopt` entry past this host's last push on the ref). While
//! it is there every change here is refused (`adopted-elsewhere`), and `doctor` names it with
//! the ops this host wrote after its last push. `adopt` run here again (a failback) removes it.

use std::io;
use std::path::PathBuf;

use mosaic_queue_core::{parse_canonical, to_canonical};
use serde::{Deserialize, Serialize};

use crate::checkout::Paths;
use crate::io::{Io, Kind};

/// The fence's file name under `.git`.
pub const NAME: &str = "mosaic-queue.adopted";

/// `.git/mosaic-queue.adopted`.
pub fn path(paths: &Paths) -> PathBuf {
    paths.git_dir.join(NAME)
}

/// Who took the queue over: its new root and machine, the revision of the `adopt` entry and the commit
/// on the ref that holds it, by whom and when (the entry's), the remote and ref where it was
/// seen, and the last revision this host had pushed there.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Adopted {
    pub root: String,
    pub host: String,
    pub revision: u64,
    pub commit: String,
    pub by: String,
    pub at: String,
    pub remote: String,
    #[serde(rename = "ref")]
    pub reference: String,
    pub last_pushed: u64,
}

/// What reading the fence found.
#[derive(Debug)]
pub enum Fence {
    None,
    Adopted(Adopted),
    /// Something stands at the fence's name that is not a fence this tool writes: the host is
    /// fenced all the same (a fence is never ignored for being odd), and doctor says so.
    Unreadable(String),
    /// The read failed (an I/O error): nothing is known, so a change fails (exit 1) rather
    /// than be refused or let through.
    Failed(io::Error),
}

impl Fence {
    /// The line a change here is refused with while the fence stands; `None` without one.
    pub fn refusal(&self) -> Option<String> {
        match self {
            Fence::None | Fence::Failed(_) => None,
            Fence::Adopted(a) => Some(format!(
                "this queue was adopted at {}:{} (rev {}, commit {} on {} {}): no change is made here; run it in that checkout (`mosaic-queue doctor` here lists the ops this host wrote after its last push, rev {})",
                a.host,
                a.root,
                a.revision,
                short(&a.commit),
                a.remote,
                a.reference,
                a.last_pushed
            )),
            Fence::Unreadable(why) => Some(format!(
                "{why}: this host stays fenced as if its queue were adopted elsewhere; see docs/replication.md before removing it"
            )),
        }
    }
}

/// A commit id as lines show it: its first 12 digits.
pub fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

/// Reads the fence.
pub fn read(io: &dyn Io, paths: &Paths) -> Fence {
    let file = path(paths);
    match io.read(&file, Kind::Adopted) {
        Ok(bytes) => match parse_canonical::<Adopted>(&bytes) {
            Ok(a) => Fence::Adopted(a),
            Err(e) => Fence::Unreadable(format!("{} is not a fence: {e}", file.display())),
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => Fence::None,
        Err(e) => match crate::io::into_refusal(e) {
            Ok(refused) => Fence::Unreadable(refused.to_string()),
            Err(e) => Fence::Failed(e),
        },
    }
}

/// Writes the fence durably (temp file, fsync, rename, fsync of `.git`).
pub fn write(io: &dyn Io, paths: &Paths, fence: &Adopted) -> io::Result<()> {
    crate::store::write::replace(io, &path(paths), &to_canonical(fence), "fence")?;
    io.sync_dir(&paths.git_dir)
}

/// Removes the fence (the queue was adopted back here) and makes the removal durable.
pub fn remove(io: &dyn Io, paths: &Paths) -> io::Result<()> {
    match io.remove(&path(paths)) {
        Ok(()) => io.sync_dir(&paths.git_dir),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}
