//! The I/O layer: every filesystem call the store makes goes through `Io`, so tests can inject
//! faults. `RealIo` is rustix: files opened with O_CLOEXEC and O_NOFOLLOW, new files created
//! exclusively and fsynced before they are linked or renamed into place. Each call passes a
//! `Hook`, through which the fault-injection build records calls and fails them (`io/seams.rs`).

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

/// One call of the I/O layer, as the recording and faulting layers see it. `create_synced` is
/// three calls (create, write, fsync), since a crash or a fault can fall between them.
#[derive(Debug, Clone, Copy)]
pub enum Call<'a> {
    Read(&'a Path),
    List(&'a Path),
    Stat(&'a Path),
    Statfs(&'a Path),
    Create(&'a Path),
    Write(&'a Path, &'a [u8]),
    Fsync(&'a Path),
    Rename(&'a Path, &'a Path),
    Link(&'a Path, &'a Path),
    Unlink(&'a Path),
    FsyncDir(&'a Path),
}

/// What a hook does to a call before it runs.
#[derive(Debug)]
pub enum Fault {
    /// Fail it with this error; nothing happens.
    Fail(io::Error),
    /// A write: half the bytes land, then it fails with ENOSPC (a disk filling mid-write).
    Short,
}

/// Sees every call of the I/O layer: `before` may inject a fault, `after` sees each call that
/// succeeded (with what it did). The recording and faulting layers (`io/seams.rs`) are hooks.
pub trait Hook: Sync {
    fn before(&self, call: &Call<'_>) -> Option<Fault>;
    fn after(&self, call: &Call<'_>);
}

/// The real filesystem, through rustix. In the fault-injection build it consults the hook the
/// environment sets up (`MOSAIC_IO_TRACE`, `MOSAIC_IO_FAIL`); shipped builds have none.
#[derive(Debug, Default, Clone, Copy)]
pub struct RealIo;

impl RealIo {
    fn sys(&self) -> Sys {
        #[cfg(feature = "fault-injection")]
        return Sys {
            hook: seams::from_env(),
        };
        #[cfg(not(feature = "fault-injection"))]
        Sys { hook: None }
    }
}

impl Io for RealIo {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.sys().read(path)
    }
    fn create_synced(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        self.sys().create_synced(path, bytes)
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.sys().rename(from, to)
    }
    fn link(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.sys().link(from, to)
    }
    fn remove(&self, path: &Path) -> io::Result<()> {
        self.sys().remove(path)
    }
    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        self.sys().sync_dir(dir)
    }
    fn fs_kind(&self, path: &Path) -> io::Result<FsKind> {
        self.sys().fs_kind(path)
    }
    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        self.sys().list(dir)
    }
    fn file_id(&self, path: &Path) -> io::Result<FileId> {
        self.sys().file_id(path)
    }
}

/// The rustix calls, each passed through `hook` when there is one.
#[derive(Clone, Copy)]
pub struct Sys {
    pub hook: Option<&'static dyn Hook>,
}

impl Sys {
    /// Runs `f` as `call`: a fault from the hook replaces it, success is reported after.
    fn call<T>(&self, call: Call<'_>, f: impl FnOnce() -> io::Result<T>) -> io::Result<T> {
        if let Some(hook) = self.hook
            && let Some(Fault::Fail(e)) = hook.before(&call)
        {
            return Err(e);
        }
        let out = f()?;
        if let Some(hook) = self.hook {
            hook.after(&call);
        }
        Ok(out)
    }

    fn write_all(&self, file: &mut std::fs::File, path: &Path, bytes: &[u8]) -> io::Result<()> {
        let short = match self.hook.map(|h| h.before(&Call::Write(path, bytes))) {
            Some(Some(Fault::Fail(e))) => return Err(e),
            Some(Some(Fault::Short)) => true,
            _ => false,
        };
        let landed = if short {
            &bytes[..bytes.len() / 2]
        } else {
            bytes
        };
        io::Write::write_all(file, landed)?;
        if let Some(hook) = self.hook {
            hook.after(&Call::Write(path, landed));
        }
        if short {
            return Err(io::Error::from_raw_os_error(
                rustix::io::Errno::NOSPC.raw_os_error(),
            ));
        }
        Ok(())
    }
}

impl Io for Sys {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.call(Call::Read(path), || {
            let fd = fs::open(
                path,
                OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOFOLLOW,
                Mode::empty(),
            )?;
            let mut file = std::fs::File::from(fd);
            let mut out = Vec::new();
            io::Read::read_to_end(&mut file, &mut out)?;
            Ok(out)
        })
    }

    /// A file this call created and could not fill and fsync is removed again: nothing
    /// half-written is left behind, and a failed fsync's page cache is never trusted later.
    fn create_synced(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::CLOEXEC | OFlags::NOFOLLOW;
        let fd = self.call(Call::Create(path), || {
            Ok(fs::open(path, flags, Mode::from_raw_mode(0o644))?)
        })?;
        let mut file = std::fs::File::from(fd);
        let filled = self
            .write_all(&mut file, path, bytes)
            .and_then(|()| self.call(Call::Fsync(path), || Ok(fs::fsync(&file)?)));
        if filled.is_err() {
            drop(file);
            let _ = self.remove(path);
        }
        filled
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.call(Call::Rename(from, to), || Ok(fs::rename(from, to)?))
    }

    fn link(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.call(Call::Link(from, to), || Ok(fs::link(from, to)?))
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        self.call(Call::Unlink(path), || Ok(fs::unlink(path)?))
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        self.call(Call::FsyncDir(dir), || {
            let fd = fs::open(
                dir,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )?;
            Ok(fs::fsync(&fd)?)
        })
    }

    fn fs_kind(&self, path: &Path) -> io::Result<FsKind> {
        self.call(Call::Statfs(path), || {
            let st = fs::statfs(path)?;
            Ok(FsKind::from_magic(st.f_type as u64))
        })
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        self.call(Call::List(dir), || {
            std::fs::read_dir(dir)?
                .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
                .collect()
        })
    }

    fn file_id(&self, path: &Path) -> io::Result<FileId> {
        self.call(Call::Stat(path), || {
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
        })
    }
}

#[cfg(feature = "fault-injection")]
pub mod seams;
