//! The real file system (`RealIo`), through rustix: new files created exclusively and fsynced
//! before they are linked or renamed into place, each call passed through the hook the
//! fault-injection build sets up from the environment (`Sys`).

use std::io;
use std::path::Path;

use rustix::fs::{self, FileType, Mode, OFlags};

use super::checked::{matches_checked, read_checked};
use super::hook::{Call, Fault, Hook};
use super::kind::Kind;
use super::seams;
use super::{FileId, FsKind, Io};

/// The real filesystem, through rustix. In the fault-injection build it consults the hook the
/// environment sets up (`MOSAIC_IO_TRACE`, `MOSAIC_IO_FAIL`); shipped builds have none.
#[derive(Debug, Default, Clone, Copy)]
pub struct RealIo;

impl RealIo {
    fn sys(&self) -> Sys {
        Sys {
            hook: seams::io_hook(),
        }
    }
}

impl Io for RealIo {
    fn read(&self, path: &Path, kind: Kind) -> io::Result<Vec<u8>> {
        self.sys().read(path, kind)
    }
    fn read_matches(&self, path: &Path, kind: Kind, expected: &[u8]) -> io::Result<bool> {
        self.sys().read_matches(path, kind, expected)
    }
    fn create_synced_pieces(&self, path: &Path, pieces: &[&[u8]]) -> io::Result<()> {
        self.sys().create_synced_pieces(path, pieces)
    }
    fn create_unsynced(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        self.sys().create_unsynced(path, bytes)
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
    fn create_dir(&self, dir: &Path) -> io::Result<()> {
        self.sys().create_dir(dir)
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
    fn is_dir(&self, path: &Path) -> io::Result<bool> {
        self.sys().is_dir(path)
    }
    fn step(&self, name: &str) {
        seams::step(name);
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

    /// Creates `path` exclusively (never through a symlink), writes the pieces and, when
    /// `sync`, fsyncs the file.
    fn create_file(&self, path: &Path, pieces: &[&[u8]], sync: bool) -> io::Result<()> {
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::CLOEXEC | OFlags::NOFOLLOW;
        let fd = self.call(Call::Create(path), || {
            Ok(fs::open(path, flags, Mode::from_raw_mode(0o644))?)
        })?;
        let mut file = std::fs::File::from(fd);
        let filled = self.write_all(&mut file, path, pieces).and_then(|()| {
            if sync {
                self.call(Call::Fsync(path), || Ok(fs::fsync(&file)?))
            } else {
                Ok(())
            }
        });
        if filled.is_err() {
            drop(file);
            let _ = self.remove(path);
        }
        filled
    }

    pub(super) fn write_all(
        &self,
        file: &mut std::fs::File,
        path: &Path,
        pieces: &[&[u8]],
    ) -> io::Result<()> {
        let short = match self.hook.map(|h| h.before(&Call::Write(path, pieces))) {
            Some(Some(Fault::Fail(e))) => return Err(e),
            Some(Some(Fault::Short)) => true,
            _ => false,
        };
        // A short write lands the first half of the whole, wherever the pieces split it.
        let total: usize = pieces.iter().map(|p| p.len()).sum();
        let mut left = if short { total / 2 } else { total };
        let mut landed = Vec::with_capacity(pieces.len());
        for piece in pieces {
            let piece = &piece[..piece.len().min(left)];
            left -= piece.len();
            io::Write::write_all(file, piece)?;
            landed.push(piece);
        }
        if let Some(hook) = self.hook {
            hook.after(&Call::Write(path, &landed));
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
    fn read(&self, path: &Path, kind: Kind) -> io::Result<Vec<u8>> {
        self.call(Call::Read(path), || read_checked(path, kind))
    }

    fn read_matches(&self, path: &Path, kind: Kind, expected: &[u8]) -> io::Result<bool> {
        self.call(Call::Read(path), || matches_checked(path, kind, expected))
    }

    /// A file this call created and could not fill and fsync is removed again: nothing
    /// half-written is left behind, and a failed fsync's page cache is never trusted later.
    fn create_synced_pieces(&self, path: &Path, pieces: &[&[u8]]) -> io::Result<()> {
        self.create_file(path, pieces, true)
    }

    fn create_unsynced(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        self.create_file(path, &[bytes], false)
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

    fn create_dir(&self, dir: &Path) -> io::Result<()> {
        self.call(Call::Mkdir(dir), || {
            Ok(fs::mkdir(dir, Mode::from_raw_mode(0o755))?)
        })
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

    fn is_dir(&self, path: &Path) -> io::Result<bool> {
        self.call(Call::Stat(path), || {
            let st = fs::lstat(path)?;
            Ok(FileType::from_raw_mode(st.st_mode) == FileType::Directory)
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
