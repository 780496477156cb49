//! A file system in memory (test and fault-injection builds only): directories, regular files by
//! inode, symlinks and named pipes; creates, renames, hard links and removals; and what is
//! durable, each file's bytes as of its last fsync and each directory's entries as of its last
//! fsync, so `power_loss` keeps exactly what a crash certainly keeps. `MemIo` is the `Io` over
//! it: it refuses, fails and passes each call through a hook as `RealIo` does.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use rustix::io::Errno;

use super::hook::{Call, Fault, Hook};
use super::{FileId, FsKind, Io, Kind, Refusal};

/// What a directory entry names.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
    Dir,
    File(u64),
    Symlink(PathBuf),
    Fifo,
}

#[derive(Debug, Clone)]
struct Inode {
    bytes: Vec<u8>,
    /// The bytes as of the last fsync of this file.
    durable: Vec<u8>,
    mtime: u64,
    ctime: u64,
}

#[derive(Debug, Clone, Default)]
struct Fs {
    entries: BTreeMap<PathBuf, Node>,
    /// Each entry as the last fsync of its directory left it.
    durable: BTreeMap<PathBuf, Node>,
    inodes: BTreeMap<u64, Inode>,
    next_ino: u64,
    /// A logical clock for modification and change times: every change ticks it.
    tick: u64,
}

fn errno(e: Errno) -> io::Error {
    io::Error::from_raw_os_error(e.raw_os_error())
}

impl Fs {
    fn tick(&mut self) -> u64 {
        self.tick += 1;
        self.tick
    }

    fn new_inode(&mut self, bytes: Vec<u8>, durable: Vec<u8>) -> u64 {
        self.next_ino += 1;
        let t = self.tick();
        let inode = Inode {
            bytes,
            durable,
            mtime: t,
            ctime: t,
        };
        self.inodes.insert(self.next_ino, inode);
        self.next_ino
    }

    /// The entry at `path`, following symlinks (up to a depth, as the kernel does).
    fn follow(&self, path: &Path) -> io::Result<(PathBuf, &Node)> {
        let mut at = path.to_path_buf();
        for _ in 0..40 {
            match self.entries.get(&at) {
                None => return Err(errno(Errno::NOENT)),
                Some(Node::Symlink(target)) => {
                    at = match at.parent() {
                        Some(dir) => dir.join(target),
                        None => target.clone(),
                    }
                }
                Some(node) => return Ok((at, node)),
            }
        }
        Err(errno(Errno::LOOP))
    }

    /// Checks that the directory `path` would be created in exists.
    fn parent_dir(&self, path: &Path) -> io::Result<()> {
        let parent = path.parent().ok_or_else(|| errno(Errno::INVAL))?;
        match self.follow(parent)?.1 {
            Node::Dir => Ok(()),
            _ => Err(errno(Errno::NOTDIR)),
        }
    }

    fn file_at(&mut self, path: &Path) -> io::Result<&mut Inode> {
        match self.entries.get(path) {
            Some(Node::File(ino)) => {
                let ino = *ino;
                self.inodes.get_mut(&ino).ok_or_else(|| errno(Errno::NOENT))
            }
            Some(_) => Err(errno(Errno::ISDIR)),
            None => Err(errno(Errno::NOENT)),
        }
    }

    /// The whole file, refused as `RealIo::read` refuses what is not a regular file of a sane
    /// size (a symlink only followed where `kind` follows them).
    fn read(&self, path: &Path, kind: Kind) -> io::Result<Vec<u8>> {
        let refused = |r: Refusal| r.into_io();
        let node = match self.entries.get(path) {
            None => return Err(errno(Errno::NOENT)),
            Some(Node::Symlink(_)) if !kind.follows_symlinks() => {
                return Err(refused(Refusal::Symlink {
                    path: path.to_path_buf(),
                    kind,
                }));
            }
            Some(_) => self.follow(path)?.1,
        };
        let what = match node {
            Node::File(ino) => {
                let bytes = &self.inodes[ino].bytes;
                if bytes.len() as u64 > kind.cap() {
                    return Err(refused(Refusal::TooLarge {
                        path: path.to_path_buf(),
                        kind,
                    }));
                }
                return Ok(bytes.clone());
            }
            Node::Dir => "a directory",
            Node::Fifo => "a named pipe (FIFO)",
            Node::Symlink(_) => "a symlink",
        };
        Err(refused(Refusal::NotRegular {
            path: path.to_path_buf(),
            kind,
            what,
        }))
    }

    fn create(&mut self, path: &Path) -> io::Result<()> {
        self.parent_dir(path)?;
        // O_EXCL | O_NOFOLLOW: anything at the name, a dangling symlink included, is in the way.
        if self.entries.contains_key(path) {
            return Err(errno(Errno::EXIST));
        }
        let ino = self.new_inode(Vec::new(), Vec::new());
        self.entries.insert(path.to_path_buf(), Node::File(ino));
        Ok(())
    }

    fn rename(&mut self, from: &Path, to: &Path) -> io::Result<()> {
        let node = self
            .entries
            .get(from)
            .cloned()
            .ok_or_else(|| errno(Errno::NOENT))?;
        self.parent_dir(to)?;
        if from == to {
            return Ok(());
        }
        if self.entries.get(to) == Some(&Node::Dir) && node != Node::Dir {
            return Err(errno(Errno::ISDIR));
        }
        self.entries.remove(from);
        self.entries.insert(to.to_path_buf(), node.clone());
        if let Node::File(ino) = node {
            let t = self.tick();
            if let Some(inode) = self.inodes.get_mut(&ino) {
                inode.ctime = t;
            }
        }
        Ok(())
    }

    fn link(&mut self, from: &Path, to: &Path) -> io::Result<()> {
        let ino = match self.entries.get(from) {
            Some(Node::File(ino)) => *ino,
            Some(_) => return Err(errno(Errno::PERM)),
            None => return Err(errno(Errno::NOENT)),
        };
        self.parent_dir(to)?;
        if self.entries.contains_key(to) {
            return Err(errno(Errno::EXIST));
        }
        self.entries.insert(to.to_path_buf(), Node::File(ino));
        let t = self.tick();
        if let Some(inode) = self.inodes.get_mut(&ino) {
            inode.ctime = t;
        }
        Ok(())
    }

    fn mkdir(&mut self, dir: &Path) -> io::Result<()> {
        self.parent_dir(dir)?;
        if self.entries.contains_key(dir) {
            return Err(errno(Errno::EXIST));
        }
        self.entries.insert(dir.to_path_buf(), Node::Dir);
        Ok(())
    }

    fn unlink(&mut self, path: &Path) -> io::Result<()> {
        match self.entries.get(path) {
            None => Err(errno(Errno::NOENT)),
            Some(Node::Dir) => Err(errno(Errno::ISDIR)),
            Some(_) => {
                self.entries.remove(path);
                Ok(())
            }
        }
    }

    /// The directory's entries become what a crash keeps of it.
    fn sync_dir(&mut self, dir: &Path) -> io::Result<()> {
        let (dir, node) = self.follow(dir)?;
        if *node != Node::Dir {
            return Err(errno(Errno::NOTDIR));
        }
        let in_dir = |p: &&PathBuf| p.parent() == Some(dir.as_path());
        self.durable.retain(|p, _| !in_dir(&p));
        let now: Vec<(PathBuf, Node)> = self
            .entries
            .iter()
            .filter(|(p, _)| in_dir(p))
            .map(|(p, n)| (p.clone(), n.clone()))
            .collect();
        self.durable.extend(now);
        Ok(())
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        let (dir, node) = self.follow(dir)?;
        if *node != Node::Dir {
            return Err(errno(Errno::NOTDIR));
        }
        Ok(self
            .entries
            .keys()
            .filter(|p| p.parent() == Some(dir.as_path()))
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect())
    }

    fn file_id(&self, path: &Path) -> io::Result<FileId> {
        let (ino, size, mtime, ctime) = match self.entries.get(path) {
            None => return Err(errno(Errno::NOENT)),
            Some(Node::File(ino)) => {
                let inode = &self.inodes[ino];
                (*ino, inode.bytes.len() as u64, inode.mtime, inode.ctime)
            }
            Some(_) => (0, 0, 0, 0),
        };
        Ok(FileId {
            dev: 1,
            ino,
            size,
            mtime_sec: mtime,
            mtime_nsec: 0,
            ctime_sec: ctime,
            ctime_nsec: 0,
        })
    }
}

/// A file system in memory. Cloning it copies everything, durable state included.
#[derive(Debug, Default)]
pub struct Disk {
    fs: Mutex<Fs>,
}

impl Clone for Disk {
    fn clone(&self) -> Disk {
        Disk {
            fs: Mutex::new(self.fs().clone()),
        }
    }
}

impl Disk {
    /// An empty file system: the root directory alone.
    pub fn new() -> Disk {
        let disk = Disk::default();
        disk.mkdir_all(Path::new("/"));
        disk
    }

    fn fs(&self) -> MutexGuard<'_, Fs> {
        self.fs.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The `Io` over this disk; each call passes `hook` when there is one.
    pub fn io<'a>(&'a self, hook: Option<&'a dyn Hook>) -> MemIo<'a> {
        MemIo { disk: self, hook }
    }

    /// Creates `dir` and its parents, durably (a test's set-up, not a call of the store).
    pub fn mkdir_all(&self, dir: &Path) {
        let mut fs = self.fs();
        for d in dir.ancestors() {
            fs.entries.insert(d.to_path_buf(), Node::Dir);
            fs.durable.insert(d.to_path_buf(), Node::Dir);
        }
    }

    /// Puts a file at `path` with `bytes`, durably, creating its directories: a fresh inode,
    /// as a file copied into place by a test.
    pub fn put(&self, path: &Path, bytes: &[u8]) {
        if let Some(dir) = path.parent() {
            self.mkdir_all(dir);
        }
        let mut fs = self.fs();
        let ino = fs.new_inode(bytes.to_vec(), bytes.to_vec());
        fs.entries.insert(path.to_path_buf(), Node::File(ino));
        fs.durable.insert(path.to_path_buf(), Node::File(ino));
    }

    /// A symlink at `path` to `target`, durably.
    pub fn symlink(&self, path: &Path, target: &Path) {
        self.place(path, Node::Symlink(target.to_path_buf()));
    }

    /// A named pipe at `path`, durably.
    pub fn fifo(&self, path: &Path) {
        self.place(path, Node::Fifo);
    }

    fn place(&self, path: &Path, node: Node) {
        let mut fs = self.fs();
        fs.entries.insert(path.to_path_buf(), node.clone());
        fs.durable.insert(path.to_path_buf(), node);
    }

    /// Removes whatever is at `path` (a file, link or empty directory), durably.
    pub fn remove(&self, path: &Path) {
        let mut fs = self.fs();
        fs.entries.remove(path);
        fs.durable.remove(path);
    }

    /// The regular file at `path` (no symlink followed), if there is one.
    pub fn get(&self, path: &Path) -> Option<Vec<u8>> {
        let fs = self.fs();
        match fs.entries.get(path) {
            Some(Node::File(ino)) => Some(fs.inodes[ino].bytes.clone()),
            _ => None,
        }
    }

    /// The names in `dir`, sorted; none when it is not a directory.
    pub fn names(&self, dir: &Path) -> Vec<String> {
        self.fs().list(dir).unwrap_or_default()
    }

    /// Every regular file at or below `dir`, with its bytes.
    pub fn files(&self, dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
        let fs = self.fs();
        fs.entries
            .iter()
            .filter(|(p, _)| p.starts_with(dir))
            .filter_map(|(p, n)| match n {
                Node::File(ino) => Some((p.clone(), fs.inodes[ino].bytes.clone())),
                _ => None,
            })
            .collect()
    }

    /// A power loss now: every directory keeps the entries its last fsync saw, and every file
    /// the bytes its last fsync saw (nothing, if it never had one).
    pub fn power_loss(&self) {
        let mut fs = self.fs();
        // An entry whose directory's own entry was lost goes with it.
        let kept = fs.durable.clone();
        fs.entries = kept
            .iter()
            .filter(|(p, _)| {
                p.ancestors()
                    .skip(1)
                    .all(|a| a.as_os_str().is_empty() || kept.get(a) == Some(&Node::Dir))
            })
            .map(|(p, n)| (p.clone(), n.clone()))
            .collect();
        for inode in fs.inodes.values_mut() {
            inode.bytes = inode.durable.clone();
        }
    }
}

/// The `Io` over a `Disk`, each call through the hook it was given.
pub struct MemIo<'a> {
    disk: &'a Disk,
    hook: Option<&'a dyn Hook>,
}

impl MemIo<'_> {
    /// Runs `f` as `call`: a fault from the hook replaces it, success is reported after.
    fn call<T>(&self, call: Call<'_>, f: impl FnOnce(&mut Fs) -> io::Result<T>) -> io::Result<T> {
        if let Some(hook) = self.hook
            && let Some(Fault::Fail(e)) = hook.before(&call)
        {
            return Err(e);
        }
        let out = f(&mut self.disk.fs())?;
        if let Some(hook) = self.hook {
            hook.after(&call);
        }
        Ok(out)
    }

    /// The pieces written to the file just created at `path`; a short write lands the first
    /// half of the whole, then fails with ENOSPC.
    fn write(&self, path: &Path, pieces: &[&[u8]]) -> io::Result<()> {
        let short = match self.hook.map(|h| h.before(&Call::Write(path, pieces))) {
            Some(Some(Fault::Fail(e))) => return Err(e),
            Some(Some(Fault::Short)) => true,
            _ => false,
        };
        let mut bytes = pieces.concat();
        if short {
            bytes.truncate(bytes.len() / 2);
        }
        {
            let mut fs = self.disk.fs();
            let t = fs.tick();
            let inode = fs.file_at(path)?;
            inode.bytes.clone_from(&bytes);
            inode.mtime = t;
            inode.ctime = t;
        }
        if let Some(hook) = self.hook {
            hook.after(&Call::Write(path, &[&bytes]));
        }
        if short {
            return Err(errno(Errno::NOSPC));
        }
        Ok(())
    }

    /// As `RealIo`: create exclusively, write, fsync when `sync`; a file this call created
    /// and could not fill (and fsync) is removed again.
    fn create_file(&self, path: &Path, pieces: &[&[u8]], sync: bool) -> io::Result<()> {
        self.call(Call::Create(path), |fs| fs.create(path))?;
        let filled = self.write(path, pieces).and_then(|()| {
            if !sync {
                return Ok(());
            }
            self.call(Call::Fsync(path), |fs| {
                let inode = fs.file_at(path)?;
                inode.durable.clone_from(&inode.bytes);
                Ok(())
            })
        });
        if filled.is_err() {
            let _ = self.remove(path);
        }
        filled
    }
}

impl Io for MemIo<'_> {
    fn read(&self, path: &Path, kind: Kind) -> io::Result<Vec<u8>> {
        self.call(Call::Read(path), |fs| fs.read(path, kind))
    }

    fn read_matches(&self, path: &Path, kind: Kind, expected: &[u8]) -> io::Result<bool> {
        self.call(Call::Read(path), |fs| Ok(fs.read(path, kind)? == expected))
    }

    fn create_synced_pieces(&self, path: &Path, pieces: &[&[u8]]) -> io::Result<()> {
        self.create_file(path, pieces, true)
    }

    fn create_unsynced(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        self.create_file(path, &[bytes], false)
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.call(Call::Rename(from, to), |fs| fs.rename(from, to))
    }

    fn link(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.call(Call::Link(from, to), |fs| fs.link(from, to))
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        self.call(Call::Unlink(path), |fs| fs.unlink(path))
    }

    fn create_dir(&self, dir: &Path) -> io::Result<()> {
        self.call(Call::Mkdir(dir), |fs| fs.mkdir(dir))
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        self.call(Call::FsyncDir(dir), |fs| fs.sync_dir(dir))
    }

    fn fs_kind(&self, path: &Path) -> io::Result<FsKind> {
        self.call(Call::Statfs(path), |fs| {
            fs.follow(path).map(|_| FsKind::Ext4)
        })
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        self.call(Call::List(dir), |fs| fs.list(dir))
    }

    fn file_id(&self, path: &Path) -> io::Result<FileId> {
        self.call(Call::Stat(path), |fs| fs.file_id(path))
    }

    fn is_dir(&self, path: &Path) -> io::Result<bool> {
        self.call(Call::Stat(path), |fs| match fs.entries.get(path) {
            None => Err(errno(Errno::NOENT)),
            Some(node) => Ok(*node == Node::Dir),
        })
    }

    fn step(&self, name: &str) {
        if let Some(hook) = self.hook {
            hook.mark("step", name);
        }
    }
}

#[cfg(test)]
mod tests;
