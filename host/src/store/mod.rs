//! The durable store: where the queue's files live, reading and verifying them against the
//! witness, and the write protocol with its three points (visible, durable, acknowledged).
//! `session` is the way in: it holds the lock (`lock`) around `load` and `write_durably`.

pub mod adopted;
pub mod cut;
pub mod file_verbs;
pub mod follower;
pub mod guard;
pub mod heartbeat;
pub mod lock;
pub mod replicated;
pub mod session;
pub mod view;
pub mod watch;
pub mod world;
pub(crate) mod write;

use std::io;
use std::path::{Path, PathBuf};

use mosaic_queue_core::{
    Args, BodyStatus, Queue, Witness, WitnessError, parse_canonical, sha256_hex,
};
use thiserror::Error;

use crate::checkout::Paths;
use crate::core_error::{CoreError, Ending};
use crate::exit::Exit;
use crate::io::{self as fsio, FsKind, Io, Kind};

pub use write::{
    confirm_tail, create, install, leftover_temps, sweep_follower_temps, sweep_temps,
    write_durably, write_table, write_whole,
};

/// Why the store could not read or write.
#[derive(Debug, Error)]
pub enum StoreError {
    #[error("cannot {what} {}: {source}", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    /// A queue file that is not a regular file under its cap: what it is and what to do.
    #[error("{}", .0.line())]
    Refused(fsio::Refusal),
    /// queue.json does not verify: the core's error (`core_error`), then the step to take.
    #[error(
        "{}; restore docs/plans/queue.json from git (`git checkout -- docs/plans/queue.json`) or see Manual recovery",
        .0.line()
    )]
    Invalid(CoreError),
    /// queue.json does not extend the witness. The store names this one finding, history lost
    /// or rewritten, with one kind of its own, whichever the core's reason.
    #[error("{0}")]
    Witness(#[from] WitnessError),
    #[error("the witness {} is unreadable: {why}; see Manual recovery", path.display())]
    BadWitness { why: String, path: PathBuf },
    #[error(
        "{} is on an unsupported filesystem ({kind:?}); the queue needs local ext4, xfs or btrfs",
        path.display()
    )]
    Filesystem { path: PathBuf, kind: FsKind },
    #[error(
        "queue.json changed while this command ran (another tool wrote it); nothing was written, retry the same op"
    )]
    Changed,
    #[error(
        "rev {rev} is visible but not confirmed durable ({step}: {source}); run `mosaic-queue sync` and retry the same op"
    )]
    NotDurable {
        rev: u64,
        step: &'static str,
        source: io::Error,
    },
    #[error(
        "the queue's epoch names {0} as an archive, which is not docs/plans/archive/epoch-NNNN.json; restore docs/plans/queue.json from git (`git checkout -- docs/plans/queue.json`) or see Manual recovery"
    )]
    ArchiveName(String),
    #[error(
        "docs/plans/archive is not a directory (a symlink or a file is at its name); put the folder back as a plain directory (`git checkout -- docs/plans/archive/`), then retry the same op"
    )]
    ArchiveFolder,
    #[error(
        "{file} is missing, and the queue's epoch names it; restore it from git (`git checkout -- {file}`)"
    )]
    ArchiveMissing { file: String },
    #[error(
        "{file} does not hold the bytes the queue's epoch names (edited or swapped?); restore it from git (`git checkout -- {file}`): an archive is never changed"
    )]
    ArchiveChanged { file: String },
    #[error(
        "{file} holds the bytes the queue's epoch names but does not parse ({why}); restore docs/plans/queue.json and the archive from git, or see Manual recovery"
    )]
    ArchiveInvalid { file: String, why: String },
    #[error(
        "rev {rev} is durable but QUEUE.md was not rewritten ({source}); retry the same op: it renders the table and prints the receipt"
    )]
    TableNotWritten { rev: u64, source: io::Error },
}

impl StoreError {
    /// Failed (nothing written), refused (invalid data) or uncertain (visible, not durable).
    pub fn exit(&self) -> Exit {
        match self {
            StoreError::Io { .. } | StoreError::Changed => Exit::Failed,
            StoreError::Invalid(e) => e.exit(),
            StoreError::Refused(_)
            | StoreError::Witness(_)
            | StoreError::BadWitness { .. }
            | StoreError::Filesystem { .. }
            | StoreError::ArchiveName(_)
            | StoreError::ArchiveFolder
            | StoreError::ArchiveMissing { .. }
            | StoreError::ArchiveChanged { .. }
            | StoreError::ArchiveInvalid { .. } => Exit::Refused,
            StoreError::NotDurable { .. } | StoreError::TableNotWritten { .. } => Exit::Uncertain,
        }
    }

    /// The stable kind `--json` prints: the core's for invalid data, else the host's.
    pub fn kind(&self) -> &'static str {
        match self {
            StoreError::Io { .. } => "io",
            StoreError::Invalid(e) => e.kind(),
            StoreError::Witness(_) => "witness",
            StoreError::BadWitness { .. } => "bad-witness",
            StoreError::Filesystem { .. } => "unsupported-filesystem",
            StoreError::Changed => "changed-underneath",
            StoreError::NotDurable { .. } => "not-durable",
            StoreError::Refused(r) => r.kind_name(),
            StoreError::TableNotWritten { .. } => "table-not-written",
            StoreError::ArchiveName(_) => "archive-name",
            StoreError::ArchiveFolder => "archive-folder",
            StoreError::ArchiveMissing { .. } => "archive-missing",
            StoreError::ArchiveChanged { .. } => "archive-changed",
            StoreError::ArchiveInvalid { .. } => "archive-invalid",
        }
    }

    /// Nothing was written and the cause passes: the same op may simply be run again.
    pub fn retryable(&self) -> bool {
        matches!(
            self,
            StoreError::Changed
                | StoreError::NotDurable { .. }
                | StoreError::TableNotWritten { .. }
        )
    }
}

pub(crate) fn io_err(what: &'static str, path: &Path) -> impl FnOnce(io::Error) -> StoreError {
    move |source| match fsio::into_refusal(source) {
        Ok(refused) => StoreError::Refused(refused),
        Err(source) => StoreError::Io {
            what,
            path: path.to_path_buf(),
            source,
        },
    }
}

/// A verified queue with the bytes it came from and the witness beside it.
#[derive(Debug)]
pub struct Loaded {
    pub bytes: Vec<u8>,
    pub sha: String,
    pub queue: Queue,
    pub witness: Option<Witness>,
    /// Whether `load` checked that the file extends `witness`; only then may a new witness
    /// continue the old one's hash chain.
    pub extends_witness: bool,
}

impl Loaded {
    /// The witness a new one may continue the hash chain from: only one `load` checked.
    pub fn checked_witness(&self) -> Option<&Witness> {
        self.witness.as_ref().filter(|_| self.extends_witness)
    }

    /// Whether the file holds revisions the witness has not confirmed durable.
    pub fn ahead_of_witness(&self) -> bool {
        self.witness
            .as_ref()
            .is_none_or(|w| w.revision < self.queue.revision())
    }
}

/// The table body's status against the log, where the legacy table genesis replaces counts
/// as stale (rev 0): a crash between genesis's rename and its table write leaves it, and a
/// render (or the retry of genesis) cures it like any stale table. A body no entry of
/// queue.json rendered is looked up in a cut queue's archives: a table left at an archived
/// revision (a cut killed after its rename, before its table) is stale too, not a hand edit.
pub fn table_status(io: &dyn Io, paths: &Paths, queue: &Queue, body: &str) -> BodyStatus {
    match active_table_status(queue, body) {
        BodyStatus::Unknown => cut::history::rendered_at(io, paths, queue, body)
            .map_or(BodyStatus::Unknown, |rev| BodyStatus::Stale { rev }),
        status => status,
    }
}

/// `table_status` against queue.json's log alone.
fn active_table_status(queue: &Queue, body: &str) -> BodyStatus {
    match queue.body_status(body) {
        BodyStatus::Unknown
            if queue
                .file()
                .log
                .first()
                .is_some_and(|e| matches!(&e.args, Args::Genesis(g) if g.legacy_view == body)) =>
        {
            BodyStatus::Stale { rev: 0 }
        }
        status => status,
    }
}

/// Refuses directories on filesystems the durability claims do not cover.
pub fn check_filesystem(io: &dyn Io, paths: &Paths) -> Result<(), StoreError> {
    for dir in [&paths.plans, &paths.git_dir] {
        let kind = io
            .fs_kind(dir)
            .map_err(io_err("check the filesystem of", dir))?;
        let ok = match kind {
            FsKind::Ext4 | FsKind::Xfs | FsKind::Btrfs => true,
            FsKind::Tmpfs => io.allow_tmpfs(),
            FsKind::Other(_) => false,
        };
        if !ok {
            return Err(StoreError::Filesystem {
                path: dir.clone(),
                kind,
            });
        }
    }
    Ok(())
}

/// Reads the witness, `None` when there is none.
pub fn read_witness(io: &dyn Io, paths: &Paths) -> Result<Option<Witness>, StoreError> {
    match io.read(&paths.witness, Kind::Witness) {
        Ok(bytes) => {
            parse_canonical::<Witness>(&bytes)
                .map(Some)
                .map_err(|e| StoreError::BadWitness {
                    why: e.to_string(),
                    path: paths.witness.clone(),
                })
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_err("read", &paths.witness)(e)),
    }
}

/// Reads the witness, then queue.json; verifies the file and that it extends the witness.
/// A missing witness is allowed here; the caller decides what it means.
pub fn load(io: &dyn Io, paths: &Paths) -> Result<Loaded, StoreError> {
    let mut loaded = load_unchecked(io, paths)?;
    if let Some(w) = &loaded.witness {
        cut::history::check_extends(io, paths, &loaded.queue, &loaded.sha, w)?;
        loaded.extends_witness = true;
    }
    Ok(loaded)
}

/// `load` without the witness check: the file must still verify, but it may not extend the
/// witness. Only for the verbs that run in that state (`accept-history`, `sync`'s diagnosis).
pub fn load_unchecked(io: &dyn Io, paths: &Paths) -> Result<Loaded, StoreError> {
    let witness = read_witness(io, paths)?;
    let bytes = io
        .read(&paths.queue_json, Kind::QueueJson)
        .map_err(io_err("read", &paths.queue_json))?;
    let queue = Queue::verify(&bytes).map_err(|e| StoreError::Invalid(e.into()))?;
    let sha = sha256_hex(&bytes);
    Ok(Loaded {
        bytes,
        sha,
        queue,
        witness,
        extends_witness: false,
    })
}

#[cfg(test)]
mod tests;
