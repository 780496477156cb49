//! The I/O layer: every filesystem call the store makes goes through `Io`, so tests can inject
//! faults. `RealIo` is rustix: files opened with O_CLOEXEC and O_NOFOLLOW, new files created
//! exclusively and fsynced before they are linked or renamed into place.

use std::io;
use std::path::Path;

use rustix::fs::{self, Mode, OFlags};

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
    /// The whole file; `NotFound` when it does not exist. Refuses to follow a symlink.
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;
    /// Creates `path` (which must not exist), writes `bytes` and fsyncs the file.
    fn create_synced(&self, path: &Path, bytes: &[u8]) -> io::Result<()>;
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// A hard link; fails with `AlreadyExists` when `to` exists (the lock's atomic take).
    fn link(&self, from: &Path, to: &Path) -> io::Result<()>;
    fn remove(&self, path: &Path) -> io::Result<()>;
    /// fsync of a directory, which makes renames and links in it durable.
    fn sync_dir(&self, dir: &Path) -> io::Result<()>;
    fn fs_kind(&self, path: &Path) -> io::Result<FsKind>;
    /// The names in a directory.
    fn list(&self, dir: &Path) -> io::Result<Vec<String>>;
    /// The file's identity (lstat: a symlink is not followed).
    fn file_id(&self, path: &Path) -> io::Result<FileId>;
    /// Whether tmpfs counts as supported: only a test's I/O layer says yes.
    fn allow_tmpfs(&self) -> bool {
        false
    }
}

/// The real filesystem, through rustix.
#[derive(Debug, Default, Clone, Copy)]
pub struct RealIo;

impl Io for RealIo {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        let fd = fs::open(
            path,
            OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOFOLLOW,
            Mode::empty(),
        )?;
        let mut file = std::fs::File::from(fd);
        let mut out = Vec::new();
        io::Read::read_to_end(&mut file, &mut out)?;
        Ok(out)
    }

    fn create_synced(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::CLOEXEC | OFlags::NOFOLLOW;
        let fd = fs::open(path, flags, Mode::from_raw_mode(0o644))?;
        let mut file = std::fs::File::from(fd);
        io::Write::write_all(&mut file, bytes)?;
        fs::fsync(&file)?;
        Ok(())
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        Ok(fs::rename(from, to)?)
    }

    fn link(&self, from: &Path, to: &Path) -> io::Result<()> {
        Ok(fs::link(from, to)?)
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        Ok(fs::unlink(path)?)
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        let fd = fs::open(
            dir,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        Ok(fs::fsync(&fd)?)
    }

    fn fs_kind(&self, path: &Path) -> io::Result<FsKind> {
        let st = fs::statfs(path)?;
        Ok(FsKind::from_magic(st.f_type as u64))
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        std::fs::read_dir(dir)?
            .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect()
    }

    fn file_id(&self, path: &Path) -> io::Result<FileId> {
        let st = fs::lstat(path)?;
        let n = |v: i64| u64::try_from(v).unwrap_or(0);
        Ok(FileId {
            dev: st.st_dev,
            ino: st.st_ino,
            size: n(st.st_size),
            mtime_sec: n(st.st_mtime),
            mtime_nsec: n(st.st_mtime_nsec as i64),
            ctime_sec: n(st.st_ctime),
            ctime_nsec: n(st.st_ctime_nsec as i64),
        })
    }
}
