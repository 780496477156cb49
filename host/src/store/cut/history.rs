//! Every read that reaches into the archives on behalf of a load or a change: a retry of an
//! archived op and a witness older than the epoch read the archives the core names (each
//! bounded, checked against its SHA-256) and ask the core again. It knows nothing of the
//! session, which calls it.

use mosaic_queue_core::{
    Body, Command, Entry, Outcome, Queue, QueueError, QueueFile, VerbError, Witness, WitnessError,
    parse_queue, sha256,
};

use super::epochs;
use crate::checkout::Paths;
use crate::io::Io;
use crate::store::StoreError;

/// The archives of `epochs` as `queue`'s epoch names them: each read bounded and checked
/// against the SHA-256 the epoch records, then parsed (no replay).
pub fn read_archives(
    io: &dyn Io,
    paths: &Paths,
    queue: &Queue,
    epochs: &[u32],
) -> Result<Vec<(u32, QueueFile)>, StoreError> {
    let Some(epoch) = queue.epoch() else {
        return Ok(Vec::new());
    };
    let mut read = Vec::with_capacity(epochs.len());
    for &k in epochs {
        let Some(info) = epoch.archives.iter().find(|a| a.epoch == k) else {
            continue;
        };
        let bytes = epochs::read(io, paths, &info.file, &info.sha)?;
        let file = parse_queue(&bytes).map_err(|e| StoreError::ArchiveInvalid {
            file: info.file.clone(),
            why: e.to_string(),
        })?;
        read.push((k, file));
    }
    Ok(read)
}

/// The pairs the core takes: `(epoch, &file)`.
fn borrowed(files: &[(u32, QueueFile)]) -> Vec<(u32, &QueueFile)> {
    files.iter().map(|(k, f)| (*k, f)).collect()
}

/// `check_extends` of the loaded file against `witness`, reading the archives when the
/// witness is older than the file's epoch.
pub fn check_extends(
    io: &dyn Io,
    paths: &Paths,
    queue: &Queue,
    sha: &str,
    witness: &Witness,
) -> Result<(), StoreError> {
    match queue.check_extends(sha, witness) {
        Err(WitnessError::BeforeEpoch { epochs, .. }) => {
            let files = read_archives(io, paths, queue, &epochs)?;
            Ok(queue.check_extends_archived(sha, witness, &borrowed(&files))?)
        }
        other => Ok(other?),
    }
}

/// The entries past revision `after`, oldest first: those the archives hold when `after` is
/// older than the epoch (a cut over a tail its witness never confirmed moved them there),
/// then queue.json's. An epoch entry, which seeds the chain and is no op of its own, is not
/// one of them. What `sync` confirms and `doctor` names as not yet durable, alike.
pub fn entries_after(
    io: &dyn Io,
    paths: &Paths,
    queue: &Queue,
    after: u64,
) -> Result<Vec<Entry>, StoreError> {
    let epochs: Vec<u32> = queue.epoch().map_or_else(Vec::new, |epoch| {
        epoch
            .archives
            .iter()
            .filter(|a| a.rev > after)
            .map(|a| a.epoch)
            .collect()
    });
    let mut entries = Vec::new();
    for (_, file) in read_archives(io, paths, queue, &epochs)? {
        entries.extend(past(file.chain_entries(), after));
    }
    entries.extend(past(queue.file().chain_entries(), after));
    Ok(entries)
}

fn past(entries: &[Entry], after: u64) -> impl Iterator<Item = Entry> + '_ {
    entries.iter().filter(move |e| e.rev > after).cloned()
}

/// The revision whose entry in one of `queue`'s archives rendered `body`, the newest archive
/// first. An archive that cannot be read or parsed answers nothing here (the table then counts
/// as unknown); the verbs that need the archive refuse it with its own line.
pub fn rendered_at(io: &dyn Io, paths: &Paths, queue: &Queue, body: &str) -> Option<u64> {
    let epoch = queue.epoch()?;
    let hash = Body::Sha256(sha256(body.as_bytes()));
    for info in epoch.archives.iter().rev() {
        let bytes = epochs::read(io, paths, &info.file, &info.sha).ok()?;
        let file = parse_queue(&bytes).ok()?;
        if let Some(e) = file.log.iter().rev().find(|e| e.body == hash) {
            return Some(e.rev);
        }
    }
    None
}

/// What `execute` decided, and for an op an archive holds, that archive's queue: the entry
/// whose receipt is printed again is there, not in queue.json.
pub struct Decided {
    pub outcome: Outcome,
    pub archived: Option<Queue>,
}

impl Decided {
    /// The queue that holds the op's entry: the archive's for an archived op.
    pub fn holder<'q>(&'q self, active: &'q Queue) -> &'q Queue {
        self.archived.as_ref().unwrap_or(active)
    }
}

/// `Queue::execute`, and when the core says the op may be archived, the same again with the
/// archives it named read: the op's original receipt when one holds it (never applied
/// twice), else the command applied as new.
pub fn execute<E: From<StoreError> + From<VerbError> + From<QueueError>>(
    io: &dyn Io,
    paths: &Paths,
    queue: &mut Queue,
    (command, op, by, at): (&Command, &str, &str, &str),
) -> Result<Decided, E> {
    let epochs = match queue.execute(command, op, by, at) {
        Err(VerbError::OpMaybeArchived { epochs, .. }) => epochs,
        other => {
            return Ok(Decided {
                outcome: other?,
                archived: None,
            });
        }
    };
    let files = read_archives(io, paths, queue, &epochs)?;
    let outcome = queue.execute_with_archives(command, op, by, at, &borrowed(&files))?;
    let archived = match &outcome {
        Outcome::Recorded { .. } => holding::<E>(io, paths, queue, op, &files)?,
        _ => None,
    };
    Ok(Decided { outcome, archived })
}

/// The archive whose log holds `op`, verified as the queue file it is, among those `queue`'s
/// epoch says may hold it; `None` when none does (the filter's false maybe).
pub fn holder<E: From<StoreError> + From<QueueError>>(
    io: &dyn Io,
    paths: &Paths,
    queue: &Queue,
    op: &str,
) -> Result<Option<Queue>, E> {
    let files = read_archives(io, paths, queue, &queue.maybe_archived(op))?;
    holding(io, paths, queue, op, &files)
}

/// The archive among `files` whose log holds `op`, verified as the queue file it is.
fn holding<E: From<StoreError> + From<QueueError>>(
    io: &dyn Io,
    paths: &Paths,
    queue: &Queue,
    op: &str,
    files: &[(u32, QueueFile)],
) -> Result<Option<Queue>, E> {
    let Some((k, _)) = files
        .iter()
        .find(|(_, f)| f.chain_entries().iter().any(|e| e.op == op))
    else {
        return Ok(None);
    };
    let Some(info) = queue
        .epoch()
        .and_then(|e| e.archives.iter().find(|a| a.epoch == *k))
    else {
        return Ok(None);
    };
    let bytes = epochs::read(io, paths, &info.file, &info.sha)?;
    Ok(Some(Queue::verify(&bytes)?))
}

/// The entry of `op` in the archives `queue`'s epoch names, when one holds it, with the
/// archive's path (for `sync --op` on an archived op).
pub fn archived_entry(
    io: &dyn Io,
    paths: &Paths,
    queue: &Queue,
    op: &str,
) -> Result<Option<(Entry, String)>, StoreError> {
    let epochs = queue.maybe_archived(op);
    for (k, file) in read_archives(io, paths, queue, &epochs)? {
        if let Some(e) = file.chain_entries().iter().find(|e| e.op == op) {
            let path = queue
                .epoch()
                .and_then(|ep| ep.archives.iter().find(|a| a.epoch == k))
                .map(|a| a.file.clone())
                .unwrap_or_default();
            return Ok(Some((e.clone(), path)));
        }
    }
    Ok(None)
}
