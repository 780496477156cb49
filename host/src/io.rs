//! The I/O layer: every filesystem call the store makes goes through `Io`, so tests can inject
//! faults. `RealIo` is rustix: every file is opened non-blocking with O_CLOEXEC (and O_NOFOLLOW
//! for the queue's own files), checked on the open descriptor to be a regular file under its
//! kind's size cap, and read no further than that cap; new files are created exclusively and
//! fsynced before they are linked or renamed into place. docs/limits.md lists the caps. Each
//! call passes a `Hook` (`io/hook.rs`), through which the fault-injection build records calls
//! and fails them (`io/trace.rs`, set up from the environment by `io/seams.rs`); tests run the
//! store over a file system in memory (`io/memory.rs`) with the same hook.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use rustix::fs::{self, FileType, Mode, OFlags};

#[cfg(any(test, feature = "fault-injection"))]
pub mod crash;
pub mod hook;
#[cfg(any(test, feature = "fault-injection"))]
pub mod memory;
pub mod seams;
#[cfg(any(test, feature = "fault-injection"))]
pub mod trace;

pub use hook::{Call, Fault, Hook};

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;

/// The cap on a lock, the unlock gate and the witness: each holds a few hundred bytes.
pub const STATE_CAP: u64 = 64 * KIB;
/// The cap on queue.json (and a snapshot's queue.json, `--base`, the read view): far above the
/// 100k-entry benchmark's 45 MiB, far below what would exhaust a machine's memory.
pub const QUEUE_JSON_CAP: u64 = 256 * MIB;
/// The cap on QUEUE.md (and a snapshot's QUEUE.md, the migration map): the table of every row.
pub const QUEUE_MD_CAP: u64 = 64 * MIB;
/// The cap on a `--candidate` manifest: one `<sha256> <path>` line per file, about 10,000
/// files per MiB. The core's cap on a manifest stored in the log, so that what is read fits.
pub const MANIFEST_CAP: u64 = mosaic_queue_core::manifest::MAX_BYTES as u64;
/// The cap on a git hook the guard installs or inspects.
pub const HOOK_CAP: u64 = MIB;
/// The cap on a seat's heartbeat: one timestamp (24 bytes) and a newline, with room to spare.
pub const HEARTBEAT_CAP: u64 = 64;

/// What a file the tool reads holds. It decides the size cap, whether a symlink at the path
/// is followed, and the next step a refusal names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `.git/mosaic-queue.lock`.
    Lock,
    /// `.git/mosaic-queue.unlock`.
    Gate,
    /// `.git/mosaic-queue.head`.
    Witness,
    /// `.git/mosaic-queue.view`, a cache: any refusal skips it.
    View,
    /// `docs/plans/queue.json`.
    QueueJson,
    /// `docs/plans/QUEUE.md`.
    QueueMd,
    /// An archive, `docs/plans/archive/epoch-NNNN.json` (or a snapshot's copy of one).
    Archive,
    /// queue.json inside a `verify --snapshot` directory.
    SnapshotJson,
    /// QUEUE.md inside a `verify --snapshot` directory.
    SnapshotMd,
    /// `verify --snapshot --base FILE`.
    Base,
    /// A `--candidate` manifest.
    Manifest,
    /// The migration map (`genesis --map`, `map-check --map`).
    Map,
    /// A git hook (`install-hook`'s source, the installed pre-commit hook).
    Hook,
    /// A seat's heartbeat, `.git/mosaic-queue.heartbeats/<seat>`.
    Heartbeat,
}

impl Kind {
    /// The most bytes read from a file of this kind.
    pub fn cap(self) -> u64 {
        match self {
            Kind::Lock | Kind::Gate | Kind::Witness => STATE_CAP,
            Kind::View | Kind::QueueJson | Kind::SnapshotJson | Kind::Base | Kind::Archive => {
                QUEUE_JSON_CAP
            }
            Kind::QueueMd | Kind::SnapshotMd | Kind::Map => QUEUE_MD_CAP,
            Kind::Manifest => MANIFEST_CAP,
            Kind::Hook => HOOK_CAP,
            Kind::Heartbeat => HEARTBEAT_CAP,
        }
    }

    /// The file as a refusal names its cap ("the 256 MiB cap for queue.json").
    pub fn noun(self) -> &'static str {
        match self {
            Kind::Lock => "a queue lock",
            Kind::Gate => "the unlock gate",
            Kind::Witness => "the witness",
            Kind::View => "the read view",
            Kind::QueueJson | Kind::SnapshotJson => "queue.json",
            Kind::QueueMd | Kind::SnapshotMd => "QUEUE.md",
            Kind::Archive => "an archive",
            Kind::Base => "queue.json",
            Kind::Manifest => "a manifest",
            Kind::Map => "a migration map",
            Kind::Hook => "a git hook",
            Kind::Heartbeat => "a heartbeat",
        }
    }

    /// What a refusal says before the path when the path alone does not say what the file is
    /// for: the witness's name is the tool's own, and `--base` names any file.
    pub fn prefix(self) -> &'static str {
        match self {
            Kind::Witness => "the witness ",
            Kind::Base => "--base ",
            _ => "",
        }
    }

    /// Whether a symlink at the path is followed. The queue's own files never are: the tool
    /// writes them by rename, which would replace the link, so readers refuse it as writers do.
    /// The files a person names on the command line are followed.
    fn follows_symlinks(self) -> bool {
        matches!(self, Kind::Base | Kind::Manifest | Kind::Map)
    }

    /// What a person does about a refused file of this kind.
    pub fn next_step(self) -> &'static str {
        match self {
            Kind::Lock | Kind::Gate => {
                "check that no queue command is running, then remove it by hand"
            }
            Kind::Witness => "see Manual recovery",
            Kind::View => "remove it; it is a cache the next write rebuilds",
            Kind::QueueJson => {
                "restore it from git (`git checkout -- docs/plans/queue.json`) or see Manual recovery"
            }
            Kind::QueueMd => "restore it from git (`git checkout -- docs/plans/QUEUE.md`)",
            Kind::Archive => {
                "restore it from git (`git checkout -- docs/plans/archive/`); archives are never edited"
            }
            Kind::SnapshotJson | Kind::SnapshotMd => {
                "take the snapshot again with `mosaic-queue snapshot --out DIR`"
            }
            Kind::Base => {
                "pass the queue.json the snapshot must extend (`git show HEAD:docs/plans/queue.json > FILE`)"
            }
            Kind::Manifest => {
                "pass a manifest file of `<sha256> <path>` lines under the cap, or a commit"
            }
            Kind::Map => "pass the reviewed migration map file",
            Kind::Hook => "restore the hook from git",
            Kind::Heartbeat => {
                "remove it; the seat's next `mosaic-queue heartbeat` writes it again"
            }
        }
    }
}

/// Why a file was not read: it is not a plain file of a sane size. Carried inside the
/// `io::Error` that `Io::read` returns; `refusal` finds it again.
#[derive(Debug)]
pub enum Refusal {
    Symlink {
        path: PathBuf,
        kind: Kind,
    },
    NotRegular {
        path: PathBuf,
        kind: Kind,
        what: &'static str,
    },
    TooLarge {
        path: PathBuf,
        kind: Kind,
    },
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = match self {
            Refusal::Symlink { path, .. }
            | Refusal::NotRegular { path, .. }
            | Refusal::TooLarge { path, .. } => path,
        };
        write!(
            f,
            "{}{} {}",
            self.kind().prefix(),
            path.display(),
            self.reason()
        )
    }
}

impl std::error::Error for Refusal {}

impl Refusal {
    pub fn kind(&self) -> Kind {
        match self {
            Refusal::Symlink { kind, .. }
            | Refusal::NotRegular { kind, .. }
            | Refusal::TooLarge { kind, .. } => *kind,
        }
    }

    /// What is wrong with the file, without its path: "is a symlink; ...".
    pub fn reason(&self) -> String {
        match self {
            Refusal::Symlink { kind, .. } => {
                format!(
                    "is a symlink; {} must be a regular file, not a link",
                    kind.noun()
                )
            }
            Refusal::NotRegular { what, .. } => format!("is {what}, not a regular file"),
            Refusal::TooLarge { kind, .. } => format!(
                "is larger than the {} cap for {}",
                size_text(kind.cap()),
                kind.noun()
            ),
        }
    }

    /// The stable kind `--json` prints for it.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Refusal::Symlink { .. } => "file-is-symlink",
            Refusal::NotRegular { .. } => "file-not-regular",
            Refusal::TooLarge { .. } => "file-over-cap",
        }
    }

    /// The refusal and what to do, as the one line a command prints.
    pub fn line(&self) -> String {
        match self {
            Refusal::Symlink { .. } => {
                format!("{self}: replace the link with a copy of the file it points to")
            }
            _ => format!("{self}; {}", self.kind().next_step()),
        }
    }

    fn into_io(self) -> io::Error {
        let kind = match self {
            Refusal::TooLarge { .. } => io::ErrorKind::FileTooLarge,
            _ => io::ErrorKind::InvalidInput,
        };
        io::Error::new(kind, self)
    }
}

/// The refusal an `Io::read` error carries, if it is one (and not an I/O failure).
pub fn refusal(e: &io::Error) -> Option<&Refusal> {
    e.get_ref()
        .and_then(|inner| inner.downcast_ref::<Refusal>())
}

/// The `Refusal` an `Io::read` error carries, or the error as it was.
pub fn into_refusal(e: io::Error) -> Result<Refusal, io::Error> {
    if refusal(&e).is_none() {
        return Err(e);
    }
    let kind = e.kind();
    match e.into_inner() {
        Some(inner) => inner
            .downcast::<Refusal>()
            .map(|r| *r)
            .map_err(|inner| io::Error::new(kind, inner)),
        None => Err(io::Error::from(kind)),
    }
}

/// A cap as a refusal prints it: "256 MiB", "64 KiB".
pub fn size_text(bytes: u64) -> String {
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} bytes")
    }
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

    fn write_all(&self, file: &mut std::fs::File, path: &Path, pieces: &[&[u8]]) -> io::Result<()> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("mosaic-io-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_match_compares_every_byte_and_refuses_as_a_read_does() {
        let dir = scratch("matches");
        let file = dir.join("queue.json");
        // More than one block, so a difference in a later block counts.
        let bytes: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&file, &bytes).unwrap();
        assert!(matches_checked(&file, Kind::QueueJson, &bytes).unwrap());
        let mut late = bytes.clone();
        late[150_000] ^= 1;
        assert!(!matches_checked(&file, Kind::QueueJson, &late).unwrap());
        assert!(!matches_checked(&file, Kind::QueueJson, &bytes[..199_999]).unwrap());
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(!matches_checked(&file, Kind::QueueJson, &longer).unwrap());
        let e = matches_checked(&dir, Kind::QueueJson, &bytes).unwrap_err();
        assert!(matches!(refusal(&e), Some(Refusal::NotRegular { .. })));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Cuts every write short and keeps what each write call said it landed.
    struct ShortWrites(std::sync::Mutex<Vec<Vec<u8>>>);

    impl Hook for ShortWrites {
        fn before(&self, call: &Call<'_>) -> Option<Fault> {
            matches!(call, Call::Write(..)).then_some(Fault::Short)
        }
        fn after(&self, call: &Call<'_>) {
            if let Call::Write(_, pieces) = call {
                self.0.lock().unwrap().push(pieces.concat());
            }
        }
    }

    #[test]
    fn pieces_are_one_write_and_a_short_one_lands_half_the_whole() {
        let dir = scratch("pieces");
        let whole = dir.join("whole");
        RealIo
            .create_synced_pieces(&whole, &[b"head,", b"", b"reused log,", b"tail"])
            .unwrap();
        assert_eq!(std::fs::read(&whole).unwrap(), b"head,reused log,tail");
        let hook: &'static ShortWrites = Box::leak(Box::new(ShortWrites(Default::default())));
        let sys = Sys { hook: Some(hook) };
        let cut = dir.join("cut");
        let mut file = std::fs::File::create(&cut).unwrap();
        // 20 bytes: the first 10 land, all of the first piece and half of the second.
        let e = sys
            .write_all(&mut file, &cut, &[b"head,", b"reused log,", b"tail"])
            .unwrap_err();
        assert_eq!(
            e.raw_os_error(),
            Some(rustix::io::Errno::NOSPC.raw_os_error())
        );
        assert_eq!(std::fs::read(&cut).unwrap(), b"head,reuse");
        assert_eq!(*hook.0.lock().unwrap(), [b"head,reuse".to_vec()]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn caps_print_in_binary_units() {
        assert_eq!(size_text(QUEUE_JSON_CAP), "256 MiB");
        assert_eq!(size_text(STATE_CAP), "64 KiB");
        assert_eq!(size_text(1000), "1000 bytes");
    }

    #[test]
    fn refuses_what_is_not_a_plain_file_of_a_sane_size() {
        let dir = scratch("refuse");
        let fifo = dir.join("fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            FileType::Fifo,
            Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        // No writer: a blocking open would never return.
        let e = read_checked(&fifo, Kind::QueueJson).unwrap_err();
        assert_eq!(
            refusal(&e).unwrap().to_string(),
            format!(
                "{} is a named pipe (FIFO), not a regular file",
                fifo.display()
            )
        );
        let e = read_checked(&dir, Kind::Witness).unwrap_err();
        assert!(matches!(
            refusal(&e),
            Some(Refusal::NotRegular {
                what: "a directory",
                ..
            })
        ));
        let e = read_checked(Path::new("/dev/zero"), Kind::Manifest).unwrap_err();
        assert!(matches!(refusal(&e), Some(Refusal::NotRegular { .. })));

        let big = dir.join("big");
        let f = std::fs::File::create(&big).unwrap();
        f.set_len(STATE_CAP + 1).unwrap();
        let e = read_checked(&big, Kind::Lock).unwrap_err();
        assert_eq!(
            refusal(&e).unwrap().line(),
            format!(
                "{} is larger than the 64 KiB cap for a queue lock; check that no queue command is running, then remove it by hand",
                big.display()
            )
        );
        f.set_len(STATE_CAP).unwrap();
        assert_eq!(
            read_checked(&big, Kind::Lock).unwrap().len() as u64,
            STATE_CAP
        );

        let link = dir.join("link");
        std::os::unix::fs::symlink(&big, &link).unwrap();
        let e = read_checked(&link, Kind::QueueMd).unwrap_err();
        assert!(matches!(refusal(&e), Some(Refusal::Symlink { .. })));
        assert_eq!(
            read_checked(&link, Kind::Base).unwrap().len() as u64,
            STATE_CAP
        );

        let e = read_checked(&dir.join("absent"), Kind::Lock).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
        assert!(refusal(&e).is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
