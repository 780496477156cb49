//! The archives as doctor sees them: the cut it recommends once the active log is long (every
//! write costs the whole active log), and each archive file that no epoch names, or that an
//! epoch names but is missing or holds other bytes.

use std::collections::BTreeSet;

use mosaic_queue_core::{Queue, sha256_hex};

use super::{Finding, Kind};
use crate::checkout::Paths;
use crate::io::{self as fsio, Io};
use crate::store::cut::epochs;

/// The active log's length past which doctor recommends a cut.
pub const DUE_AFTER: usize = 10_000;
/// The entries the recommended cut keeps in queue.json.
pub const WINDOW: u64 = 1_000;

pub(super) fn inspect(io: &dyn Io, paths: &Paths, queue: &Queue, out: &mut Vec<Finding>) {
    due(queue, out);
    let named: Vec<(String, String)> = queue
        .epoch()
        .map(|e| {
            e.archives
                .iter()
                .map(|a| (a.file.clone(), a.sha.clone()))
                .collect()
        })
        .unwrap_or_default();
    for (file, sha) in &named {
        named_archive(io, paths, file, sha, out);
    }
    let named: BTreeSet<&str> = named
        .iter()
        .filter_map(|(f, _)| epochs::file_name(f))
        .collect();
    let Ok(on_disk) = epochs::on_disk(io, paths) else {
        return;
    };
    for name in on_disk.iter().filter(|n| !named.contains(n.as_str())) {
        out.push(Finding::person(
            Kind::ArchiveUnnamed,
            format!(
                "{}{name} is named by no epoch of queue.json: a cut stopped before its queue file was written (its retry with the same op reuses or replaces it), or it was copied in by hand; never edit a named one, and remove this one only if no cut is under way",
                epochs::DIR
            ),
        ));
    }
}

/// The cut, once the active log is past `DUE_AFTER`: keep the last `WINDOW` entries.
fn due(queue: &Queue, out: &mut Vec<Finding>) {
    let active = queue.file().log.len();
    if active <= DUE_AFTER {
        return;
    }
    let before = (queue.revision() + 1).saturating_sub(WINDOW).max(2);
    out.push(Finding::act(
        Kind::ArchiveDue,
        format!(
            "queue.json's log holds {active} entries (more than 10,000), and every write costs all of them; a cut archives the history before rev {before} and the done rows nothing later names, keeping 1,000 entries (the lead, jason or sage)"
        ),
        format!("mosaic-queue archive --before {before} --op OP --by lead --yes"),
    ));
}

/// An archive the epoch names: there, a regular file, with the SHA-256 the epoch records.
fn named_archive(io: &dyn Io, paths: &Paths, file: &str, sha: &str, out: &mut Vec<Finding>) {
    let Some(path) = epochs::path(paths, file) else {
        out.push(Finding::person(
            Kind::ArchiveChanged,
            format!(
                "queue.json's epoch names {file} as an archive, which is not {}epoch-NNNN.json; restore queue.json from git",
                epochs::DIR
            ),
        ));
        return;
    };
    let restore = format!("restore it from git (`git checkout -- {file}`)");
    match io.read(&path, fsio::Kind::Archive) {
        Ok(bytes) if sha256_hex(&bytes) == sha => {}
        Ok(_) => out.push(Finding::person(
            Kind::ArchiveChanged,
            format!(
                "{file} does not hold the bytes queue.json's epoch names (edited or swapped?): {restore}; an archive is never changed"
            ),
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => out.push(Finding::person(
            Kind::ArchiveMissing,
            format!("{file} is missing, and queue.json's epoch names it: {restore}"),
        )),
        Err(e) => out.push(Finding::person(
            Kind::ArchiveChanged,
            format!("{file} cannot be read ({e}): {restore}"),
        )),
    }
}
