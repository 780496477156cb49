//! The I/O layer: every file system call the store makes goes through `Io`, so tests can
//! inject faults. `RealIo` (`real.rs`) is rustix; its reads open a file as `checked.rs` does,
//! under its kind's cap (`kind.rs`), refusing what is no plain file (`refusal.rs`). Each call
//! passes a `Hook` (`hook.rs`) through which the fault-injection build records calls and fails
//! them (`trace.rs`, set up from the environment by `seams.rs`, the binary's test seams);
//! tests run the store over a file system in memory (`memory.rs`) with the same hook.

use std::io;
use std::path::Path;

#[cfg(any(test, feature = "fault-injection"))]
pub mod crash;
pub mod hook;
#[cfg(any(test, feature = "fault-injection"))]
pub mod memory;
pub mod seams;
#[cfg(any(test, feature = "fault-injection"))]
pub mod trace;

mod checked;
mod kind;
mod real;
mod refusal;
#[cfg(test)]
mod tests;

pub use checked::{matches_checked, read_checked};
pub use hook::{Call, Fault, Hook};
pub use kind::{
    HEARTBEAT_CAP, HOOK_CAP, Kind, MANIFEST_CAP, QUEUE_JSON_CAP, QUEUE_MD_CAP, STATE_CAP, size_text,
};
pub use real::{RealIo, Sys};
pub use refusal::{Refusal, into_refusal, refusal};

/// Filesystems the durability claims hold on (statfs magic numbers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsKind {
    /// ext4; ext2 and ext3 report the same magic, so they cannot be told apart.
    Ext4,
    Xfs,
    Btrfs,
    Tmpfs,
    Other(u64),
}

impl FsKind {
    fn from_magic(magic: u64) -> FsKind {
        match magic {
            0xEF53 => FsKind::Ext4,
            0x5846_5342 => FsKind::Xfs,
            0x9123_683E => FsKind::Btrfs,
            0x0102_1994 => FsKind::Tmpfs,
            other => FsKind::Other(other),
        }
    }
}

/// What identifies one version of a file without reading it: any write to it, or a rename
/// over it, changes the inode or the change time (which no user can set back).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FileId {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mtime_sec: u64,
    pub mtime_nsec: u64,
    pub ctime_sec: u64,
    pub ctime_nsec: u64,
}

/// The filesystem calls of the store.
pub trait Io {
    /// The whole file; `NotFound` when it does not exist. The open never blocks; anything but
    /// a regular file within `kind`'s cap is refused with an error that carries a `Refusal`,
    /// and so is a symlink unless `kind` names a file a person passed on the command line.
    fn read(&self, path: &Path, kind: Kind) -> io::Result<Vec<u8>>;
    /// Whether the file holds exactly `expected`, opened and refused as `read` does it (and
    /// recorded as a read): the write's check that queue.json did not change since it was
    /// loaded, which need not hold a second copy of the file.
    fn read_matches(&self, path: &Path, kind: Kind, expected: &[u8]) -> io::Result<bool> {
        Ok(self.read(path, kind)? == expected)
    }
    /// Creates `path` (which must not exist), writes `bytes` and fsyncs the file.
    fn create_synced(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        self.create_synced_pieces(path, &[bytes])
    }
    /// `create_synced` of the pieces' bytes one after another, as one write call: a file
    /// spliced from text already in memory (the log a change loaded) is written without first
    /// copying it whole.
    fn create_synced_pieces(&self, path: &Path, pieces: &[&[u8]]) -> io::Result<()>;
    /// `create_synced` without the fsync: only for the read view, a cache whose reader falls
    /// back to queue.json when a crash left it missing, torn or stale.
    fn create_unsynced(&self, path: &Path, bytes: &[u8]) -> io::Result<()>;
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// A hard link; fails with `AlreadyExists` when `to` exists (the lock's atomic take).
    fn link(&self, from: &Path, to: &Path) -> io::Result<()>;
    fn remove(&self, path: &Path) -> io::Result<()>;
    /// Creates the directory `dir` (mode 0755); fails with `AlreadyExists` when anything is
    /// at the name. Durable only once its parent is fsynced.
    fn create_dir(&self, dir: &Path) -> io::Result<()>;
    /// fsync of a directory, which makes renames and links in it durable.
    fn sync_dir(&self, dir: &Path) -> io::Result<()>;
    fn fs_kind(&self, path: &Path) -> io::Result<FsKind>;
    /// The names in a directory.
    fn list(&self, dir: &Path) -> io::Result<Vec<String>>;
    /// The file's identity (lstat: a symlink is not followed).
    fn file_id(&self, path: &Path) -> io::Result<FileId>;
    /// Whether `path` is a directory itself (lstat: a symlink to one is not).
    fn is_dir(&self, path: &Path) -> io::Result<bool>;
    /// Whether tmpfs counts as supported: only a test's I/O layer says yes.
    fn allow_tmpfs(&self) -> bool {
        false
    }
    /// A named step of a write, between two calls: the recording layer marks it, and the
    /// fault-injection build's kill point may stop the process there (`seams::step`).
    fn step(&self, name: &str) {
        let _ = name;
    }
}
