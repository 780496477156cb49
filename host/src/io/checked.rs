//! The checked open every real read goes through: never blocking, never through a symlink
//! the file's kind does not follow, refusing what is not a regular file within its cap; then
//! the file read whole, or compared with the bytes expected a block at a time.

use std::io::{self, Read};
use std::path::Path;

use rustix::fs::{self, FileType, Mode, OFlags};

use super::kind::Kind;
use super::refusal::Refusal;

/// `RealIo::read`: open without blocking (a FIFO's open would wait for a writer), refuse what
/// fstat says is not a regular file or is over the cap, then read at most cap + 1 bytes, since
/// the file may grow after the fstat.
pub fn read_checked(path: &Path, kind: Kind) -> io::Result<Vec<u8>> {
    let (file, size, cap) = open_checked(path, kind)?;
    let mut out = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(cap + 1).read_to_end(&mut out)?;
    if out.len() as u64 > cap {
        return Err(Refusal::TooLarge {
            path: path.to_path_buf(),
            kind,
        }
        .into_io());
    }
    Ok(out)
}

/// `read_checked` compared with `expected` a block at a time instead of read whole.
pub fn matches_checked(path: &Path, kind: Kind, expected: &[u8]) -> io::Result<bool> {
    let (file, size, _) = open_checked(path, kind)?;
    if size != expected.len() as u64 {
        return Ok(false);
    }
    let mut file = file;
    let mut block = vec![0u8; 64 * 1024];
    let mut seen = 0;
    loop {
        let n = match file.read(&mut block) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if n == 0 {
            return Ok(seen == expected.len());
        }
        // The file grew since the fstat: more bytes than expected.
        if expected.get(seen..seen + n) != Some(&block[..n]) {
            return Ok(false);
        }
        seen += n;
    }
}

/// The file at `path` opened for reading as `read_checked` opens it (never blocking, never
/// through a symlink unless `kind` follows them), checked to be a regular file within
/// `kind`'s cap: the file, its size, and the cap.
fn open_checked(path: &Path, kind: Kind) -> io::Result<(std::fs::File, u64, u64)> {
    let mut flags = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NONBLOCK | OFlags::NOCTTY;
    if !kind.follows_symlinks() {
        flags |= OFlags::NOFOLLOW;
    }
    let fd = match fs::open(path, flags, Mode::empty()) {
        Ok(fd) => fd,
        // ELOOP is also a loop of links on the way; only a link at the path itself is named.
        Err(rustix::io::Errno::LOOP)
            if fs::lstat(path)
                .is_ok_and(|st| FileType::from_raw_mode(st.st_mode) == FileType::Symlink) =>
        {
            return Err(Refusal::Symlink {
                path: path.to_path_buf(),
                kind,
            }
            .into_io());
        }
        Err(e) => return Err(e.into()),
    };
    let st = fs::fstat(&fd)?;
    let ty = FileType::from_raw_mode(st.st_mode);
    if ty != FileType::RegularFile {
        return Err(Refusal::NotRegular {
            path: path.to_path_buf(),
            kind,
            what: type_name(ty),
        }
        .into_io());
    }
    let cap = kind.cap();
    let too_large = || {
        Refusal::TooLarge {
            path: path.to_path_buf(),
            kind,
        }
        .into_io()
    };
    let size = u64::try_from(st.st_size).unwrap_or(0);
    if size > cap {
        return Err(too_large());
    }
    Ok((std::fs::File::from(fd), size, cap))
}

fn type_name(ty: FileType) -> &'static str {
    match ty {
        FileType::Directory => "a directory",
        FileType::Fifo => "a named pipe (FIFO)",
        FileType::Socket => "a socket",
        FileType::CharacterDevice => "a character device",
        FileType::BlockDevice => "a block device",
        FileType::Symlink => "a symlink",
        _ => "not a plain file",
    }
}
