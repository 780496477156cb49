//! The write protocol. Under the lock: the new bytes go to a temp file that is fsynced; the
//! file is checked unchanged since it was read; the rename makes the revision visible; the
//! directory fsync and then the witness make it durable; the table follows. Only then may the
//! caller print the receipt (acknowledged). `docs/durability.md` explains each step.

use std::path::{Path, PathBuf};

use mosaic_queue_core::{
    Queue, Row, Witness, hex,
    layout::{self, Spliced},
    markdown, to_canonical,
};
use sha2::{Digest, Sha256};

use super::view::Written;
use super::{Loaded, StoreError, io_err};
use crate::checkout::Paths;
use crate::io::{FileId, Io, Kind};

/// Removes the temp files a killed writer left (`.<name>.<pid>.tmp` beside queue.json,
/// QUEUE.md, the witness and the read view). Only the lock holder writes these, so under the
/// lock every one of them is a leftover; a plain `git add docs/plans` would otherwise commit
/// them. The lock's own temp files are left alone, as the contract says, and so are the
/// follower's (its record and the fence), which it writes without the lock while writers run:
/// it sweeps those itself (`sweep_follower_temps`). Every locked path that writes calls it
/// once: `write_durably` and `create` themselves, the others before they write.
pub fn sweep_temps(io: &dyn Io, paths: &Paths) {
    for path in temps(io, paths, Whose::Locked) {
        let _ = io.remove(&path);
    }
}

/// Removes what a killed follower left of its own writes; run by the follower once it holds
/// the follower's claim, so no other process writes these meanwhile (adopt, the other writer
/// of the fence, refuses to run beside a follower).
pub fn sweep_follower_temps(io: &dyn Io, paths: &Paths) {
    for path in temps(io, paths, Whose::Follower) {
        let _ = io.remove(&path);
    }
}

/// The writers' and the follower's temp files in the checkout now (the sweeps remove them;
/// `doctor` only names them).
pub fn leftover_temps(io: &dyn Io, paths: &Paths) -> Vec<PathBuf> {
    temps(io, paths, Whose::All)
}

/// Whose temp files: the lock holder's, the follower's, or both.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Whose {
    Locked,
    Follower,
    All,
}

/// Each directory that holds temp files, and the prefixes of their names: those the lock
/// holder writes, then those the follower writes without the lock.
type TempDir = (
    fn(&Paths) -> &Path,
    &'static [&'static str],
    &'static [&'static str],
);

const TEMP_DIRS: [TempDir; 2] = [
    (|p| &p.plans, &[".queue.json.", ".QUEUE.md."], &[]),
    (
        |p| &p.git_dir,
        &[".mosaic-queue.head.", ".mosaic-queue.view."],
        &[".mosaic-queue.replicated.", ".mosaic-queue.adopted."],
    ),
];

/// Temp files `.<prefix><pid>.tmp` of `whose`, each directory listed once, names in order.
fn temps(io: &dyn Io, paths: &Paths, whose: Whose) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for (dir, locked, follower) in TEMP_DIRS {
        let prefixes: Vec<&str> = match whose {
            Whose::Locked => locked.to_vec(),
            Whose::Follower => follower.to_vec(),
            Whose::All => [locked, follower].concat(),
        };
        if prefixes.is_empty() {
            continue;
        }
        let dir = dir(paths);
        let mut names = io.list(dir).unwrap_or_default();
        names.sort();
        for name in names {
            let ours = prefixes.iter().any(|p| {
                name.strip_prefix(p)
                    .and_then(|rest| rest.strip_suffix(".tmp"))
                    .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
            });
            if ours {
                found.push(dir.join(&name));
            }
        }
    }
    found
}

fn temp_beside(path: &Path) -> std::path::PathBuf {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    path.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

/// Writes `bytes` to `path` by temp file, fsync and rename; fsyncs the directory when `durable`.
pub(crate) fn replace(
    io: &dyn Io,
    path: &Path,
    bytes: &[u8],
    step: &str,
) -> Result<(), std::io::Error> {
    let temp = temp_beside(path);
    let _ = io.remove(&temp);
    io.create_synced(&temp, bytes).inspect_err(|_| {
        let _ = io.remove(&temp);
    })?;
    io.step(&format!("{step}-temp-written"));
    if let Err(e) = io.rename(&temp, path) {
        let _ = io.remove(&temp);
        return Err(e);
    }
    io.step(&format!("{step}-renamed"));
    Ok(())
}

/// Writes the witness for the file now on disk and makes it durable. `prev` is a witness the
/// file was checked to extend (by `load`); the hash chain then continues from it instead of
/// hashing the whole log again. Pass `None` when nothing was checked. `written` is what was
/// renamed into place, for the read view.
pub fn write_witness(
    io: &dyn Io,
    paths: &Paths,
    queue: &Queue,
    prev: Option<&Witness>,
    file_sha: &str,
    at: &str,
    written: Option<Written<'_>>,
) -> Result<Witness, StoreError> {
    let witness = queue.witness_after(prev, file_sha.to_owned(), at.to_owned());
    let rev = queue.revision();
    let not_durable = |step| move |source| StoreError::NotDurable { rev, step, source };
    replace(io, &paths.witness, &to_canonical(&witness), "witness")
        .map_err(not_durable("writing the witness"))?;
    io.sync_dir(&paths.git_dir)
        .map_err(not_durable("fsync of .git"))?;
    io.step("witness-dir-synced");
    super::view::record(io, paths, queue, file_sha, written);
    Ok(witness)
}

/// Makes a visible tail durable, then writes its witness: what `sync`, the retry of an op and
/// a finished genesis or accept-history do for a file ahead of its witness. The writer that
/// made the tail visible may have died before its fsync of docs/plans, or seen that fsync
/// fail; a failed fsync is never retried as if it could succeed (the kernel may have dropped
/// what it could not write back and report the next fsync clean). So the file is written again
/// from the bytes this writer read and verified: a fresh temp file and its fsync, the same check
/// that nothing changed since the read, the rename and the fsync of docs/plans. Only then does
/// the witness vouch for it. `prev` is as for `write_witness`.
pub fn confirm_tail(
    io: &dyn Io,
    paths: &Paths,
    loaded: &Loaded,
    prev: Option<&Witness>,
    at: &str,
) -> Result<Witness, StoreError> {
    let rev = loaded.queue.revision();
    let not_durable = |step| move |source| StoreError::NotDurable { rev, step, source };
    sweep_temps(io, paths);
    let temp = temp_beside(&paths.queue_json);
    if let Err(e) = io.create_synced(&temp, &loaded.bytes) {
        let _ = io.remove(&temp);
        return Err(not_durable("rewriting queue.json")(e));
    }
    let written = io.file_id(&temp).ok().map(|id| Written {
        bytes: &loaded.bytes,
        id,
    });
    io.step("confirm-temp-written");
    unchanged_since_load(io, paths, loaded, &temp)?;
    if let Err(e) = io.rename(&temp, &paths.queue_json) {
        let _ = io.remove(&temp);
        return Err(not_durable("rewriting queue.json")(e));
    }
    io.step("confirm-renamed");
    io.sync_dir(&paths.plans)
        .map_err(not_durable("fsync of docs/plans"))?;
    io.step("confirm-dir-synced");
    write_witness(io, paths, &loaded.queue, prev, &loaded.sha, at, written)
}

/// Writes `new` (the loaded queue plus one entry) through every durability point, then the
/// table. `md` is QUEUE.md as read under the lock, already checked to have its markers. The
/// new bytes reuse the log text of the loaded bytes and the text of every row still equal to
/// the one at its place in `loaded_rows`, the rows as loaded (`layout::appended`).
pub fn write_durably(
    io: &dyn Io,
    paths: &Paths,
    loaded: &Loaded,
    new: &Queue,
    loaded_rows: &[Row],
    md: &str,
    at: &str,
) -> Result<(), StoreError> {
    let file = NewFile {
        spliced: layout::appended(new.file(), &loaded.bytes, loaded_rows)
            .unwrap_or_else(|| Spliced::whole(new.to_bytes())),
        prev: &loaded.bytes,
    };
    replace_loaded(io, paths, loaded, new, file, md, at)
}

/// `write_durably` of a file that is no append to the loaded one (a cut: its log starts at
/// the new epoch), so no text is reused: the whole canonical file is written.
pub fn write_whole(
    io: &dyn Io,
    paths: &Paths,
    loaded: &Loaded,
    new: &Queue,
    md: &str,
    at: &str,
) -> Result<(), StoreError> {
    let file = NewFile {
        spliced: Spliced::whole(new.to_bytes()),
        prev: &loaded.bytes,
    };
    replace_loaded(io, paths, loaded, new, file, md, at)
}

/// Stages `file`, checks queue.json unchanged since `loaded`, renames and settles.
fn replace_loaded(
    io: &dyn Io,
    paths: &Paths,
    loaded: &Loaded,
    new: &Queue,
    file: NewFile<'_>,
    md: &str,
    at: &str,
) -> Result<(), StoreError> {
    let staged = stage(io, paths, file)?;
    unchanged_since_load(io, paths, loaded, &staged.temp)?;
    if let Err(e) = io.rename(&staged.temp, &paths.queue_json) {
        let _ = io.remove(&staged.temp);
        return Err(io_err("rename over", &paths.queue_json)(e));
    }
    io.step("queue-renamed");
    settle(io, paths, new, loaded.checked_witness(), &staged, md, at)
}

/// Checks that queue.json still holds the bytes `loaded` read, before `temp` is renamed over
/// it. The temp file goes whatever the re-read finds, a failed read included: a refusal or a
/// failure leaves no file behind.
fn unchanged_since_load(
    io: &dyn Io,
    paths: &Paths,
    loaded: &Loaded,
    temp: &Path,
) -> Result<(), StoreError> {
    match io.read_matches(&paths.queue_json, Kind::QueueJson, &loaded.bytes) {
        Ok(true) => Ok(()),
        on_disk => {
            let _ = io.remove(temp);
            match on_disk {
                Err(e) => Err(io_err("re-read", &paths.queue_json)(e)),
                Ok(_) => Err(StoreError::Changed),
            }
        }
    }
}

/// Writes the first queue.json (genesis). The file is linked into place, never renamed, so a
/// queue.json that appeared meanwhile is not overwritten.
pub fn create(
    io: &dyn Io,
    paths: &Paths,
    queue: &Queue,
    md: &str,
    at: &str,
) -> Result<(), StoreError> {
    let file = NewFile {
        spliced: Spliced::whole(queue.to_bytes()),
        prev: &[],
    };
    let staged = stage(io, paths, file)?;
    let linked = io.link(&staged.temp, &paths.queue_json);
    let _ = io.remove(&staged.temp);
    linked.map_err(io_err("create", &paths.queue_json))?;
    io.step("queue-renamed");
    settle(io, paths, queue, None, &staged, md, at)
}

/// A new queue.json: its pieces, and the loaded bytes the reused piece is borrowed from.
/// The first piece holds the rows whole.
struct NewFile<'a> {
    spliced: Spliced,
    prev: &'a [u8],
}

impl NewFile<'_> {
    fn pieces(&self) -> [&[u8]; 3] {
        self.spliced.pieces(self.prev)
    }

    /// The SHA-256 of the whole file, in hex, as the witness records it.
    fn sha256_hex(&self) -> String {
        let mut hasher = Sha256::new();
        for piece in self.pieces() {
            hasher.update(piece);
        }
        hex(&hasher.finalize())
    }
}

/// What `stage` wrote: the temp file, its bytes, and its identity once written (`None` when
/// it could not be stat'ed, which only costs the read view).
struct Staged<'a> {
    temp: PathBuf,
    file: NewFile<'a>,
    id: Option<FileId>,
}

impl Staged<'_> {
    /// What the read view records once these bytes are renamed into place: it copies the
    /// rows' text from the head.
    fn written(&self) -> Option<Written<'_>> {
        self.id.map(|id| Written {
            bytes: &self.file.spliced.head,
            id,
        })
    }
}

/// Before the new file is visible: sweep leftovers, write and fsync the temp file.
fn stage<'a>(io: &dyn Io, paths: &Paths, file: NewFile<'a>) -> Result<Staged<'a>, StoreError> {
    sweep_temps(io, paths);
    let temp = temp_beside(&paths.queue_json);
    let _ = io.remove(&temp);
    if let Err(e) = io.create_synced_pieces(&temp, &file.pieces()) {
        // A full disk leaves a partial temp file behind; a later `git add` would commit it.
        let _ = io.remove(&temp);
        return Err(io_err("write", &temp)(e));
    }
    io.step("queue-temp-written");
    let id = io.file_id(&temp).ok();
    Ok(Staged { temp, file, id })
}

/// After the new file is visible: the directory fsync and the witness (durable), then the
/// table. A failure from here on leaves the revision visible but unacknowledged (exit 3).
/// `staged` is what is now in queue.json.
fn settle(
    io: &dyn Io,
    paths: &Paths,
    queue: &Queue,
    prev: Option<&Witness>,
    staged: &Staged<'_>,
    md: &str,
    at: &str,
) -> Result<(), StoreError> {
    let rev = queue.revision();
    sync_plans(io, paths, rev)?;
    io.step("queue-dir-synced");
    let sha = staged.file.sha256_hex();
    write_witness(io, paths, queue, prev, &sha, at, staged.written())?;
    write_table(io, paths, queue, md)
        .map_err(|source| StoreError::TableNotWritten { rev, source })?;
    Ok(())
}

/// `adopt`'s write: the queue's files as the replicated ref holds them, installed whatever the
/// checkout held before (adopt checked that it held a prefix of them). The archives first
/// (each placed durably, an existing one kept only when it holds the same bytes), then
/// queue.json by temp file, fsync, rename and the fsync of docs/plans, then the witness for
/// it (the hash chain computed whole: no earlier witness of this checkout vouches for it),
/// then QUEUE.md (`md` is whole, its table current). Returns the witness.
pub fn install(
    io: &dyn Io,
    paths: &Paths,
    queue: &Queue,
    bytes: &[u8],
    md: &[u8],
    archives: &[(String, Vec<u8>)],
    at: &str,
) -> Result<Witness, StoreError> {
    for (rel, archive) in archives {
        super::cut::epochs::place(io, paths, rel, archive, true)?;
    }
    sweep_temps(io, paths);
    replace(io, &paths.queue_json, bytes, "adopt-queue")
        .map_err(io_err("write", &paths.queue_json))?;
    let rev = queue.revision();
    sync_plans(io, paths, rev)?;
    let witness = write_witness(
        io,
        paths,
        queue,
        None,
        &mosaic_queue_core::sha256_hex(bytes),
        at,
        None,
    )?;
    replace(io, &paths.queue_md, md, "adopt-table")
        .map_err(|source| StoreError::TableNotWritten { rev, source })?;
    io.sync_dir(&paths.plans)
        .map_err(|source| StoreError::TableNotWritten { rev, source })?;
    Ok(witness)
}

/// Replaces the body between QUEUE.md's markers with the current render.
pub fn write_table(
    io: &dyn Io,
    paths: &Paths,
    queue: &Queue,
    md: &str,
) -> Result<(), std::io::Error> {
    let text = markdown::splice(md, &queue.render_body())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))?;
    replace(io, &paths.queue_md, text.as_bytes(), "table")?;
    io.sync_dir(&paths.plans)
}

/// The fsync of docs/plans that makes a renamed queue.json durable at `rev`.
fn sync_plans(io: &dyn Io, paths: &Paths, rev: u64) -> Result<(), StoreError> {
    io.sync_dir(&paths.plans)
        .map_err(|source| StoreError::NotDurable {
            rev,
            step: "fsync of docs/plans",
            source,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::{FileId, FsKind, RealIo};
    use std::io;

    /// A disk that fills up part-way through every new file: the file exists, half written.
    struct FullDisk;

    impl Io for FullDisk {
        fn read(&self, path: &Path, kind: Kind) -> io::Result<Vec<u8>> {
            RealIo.read(path, kind)
        }
        fn create_synced_pieces(&self, path: &Path, pieces: &[&[u8]]) -> io::Result<()> {
            let bytes = pieces.concat();
            RealIo.create_synced(path, &bytes[..bytes.len() / 2])?;
            Err(io::Error::from(io::ErrorKind::StorageFull))
        }
        fn create_unsynced(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
            self.create_synced(path, bytes)
        }
        fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
            RealIo.rename(from, to)
        }
        fn link(&self, from: &Path, to: &Path) -> io::Result<()> {
            RealIo.link(from, to)
        }
        fn remove(&self, path: &Path) -> io::Result<()> {
            RealIo.remove(path)
        }
        fn create_dir(&self, dir: &Path) -> io::Result<()> {
            RealIo.create_dir(dir)
        }
        fn sync_dir(&self, dir: &Path) -> io::Result<()> {
            RealIo.sync_dir(dir)
        }
        fn fs_kind(&self, path: &Path) -> io::Result<FsKind> {
            RealIo.fs_kind(path)
        }
        fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
            RealIo.list(dir)
        }
        fn file_id(&self, path: &Path) -> io::Result<FileId> {
            RealIo.file_id(path)
        }
        fn is_dir(&self, path: &Path) -> io::Result<bool> {
            RealIo.is_dir(path)
        }
    }

    #[test]
    fn a_full_disk_leaves_no_temp_file_behind() {
        let dir = std::env::temp_dir().join(format!("mosaic-full-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let target = dir.join("QUEUE.md");
        std::fs::write(&target, b"old").unwrap();
        let err = replace(&FullDisk, &target, b"new table bytes", "table").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::StorageFull);
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["QUEUE.md"]);
        assert_eq!(std::fs::read(&target).unwrap(), b"old");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
