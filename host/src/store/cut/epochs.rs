//! The archives of the cuts, `docs/plans/archive/epoch-NNNN.json`: each is written once under
//! the lock before the queue file that names it (so a name on disk never dangles), then never
//! changed; each is read bounded and checked against the SHA-256 the epoch entry names.

use std::io;
use std::path::{Path, PathBuf};

use mosaic_queue_core::sha256_hex;

use crate::checkout::Paths;
use crate::io::{Io, Kind};
use crate::store::{StoreError, io_err};

/// Where every archive lives, relative to the checkout's top.
pub const DIR: &str = "docs/plans/archive/";

/// The file name of a repository-relative archive path: `epoch-NNNN.json` (four digits or
/// more) directly under `docs/plans/archive/`; `None` for anything else, so no name taken
/// from a file ever reaches outside that folder.
pub fn file_name(rel: &str) -> Option<&str> {
    let name = rel.strip_prefix(DIR)?;
    is_archive_name(name).then_some(name)
}

/// Whether `name` is an archive's file name, `epoch-NNNN.json`.
pub fn is_archive_name(name: &str) -> bool {
    name.strip_prefix("epoch-")
        .and_then(|rest| rest.strip_suffix(".json"))
        .is_some_and(|n| n.len() >= 4 && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The archive's path in the checkout at `paths`.
pub fn path(paths: &Paths, rel: &str) -> Option<PathBuf> {
    file_name(rel).map(|name| paths.archive.join(name))
}

/// How `place` left the archive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placed {
    /// Nothing was at the name: the file is new.
    Written,
    /// The same bytes were there (a cut retried after a crash): kept as they are.
    Reused,
    /// Other bytes no epoch names were there (a cut at another revision that never became
    /// visible): replaced.
    Replaced,
}

/// Puts `bytes` at the archive `rel` durably, under the lock, before the queue file that will
/// name it is written. The folder is created if need be and docs/plans fsynced (always: a
/// killed run may have created it without that fsync). The file is written to a temp file
/// beside it and fsynced, then linked into place (or, over an unnamed file with other bytes,
/// renamed), and the folder fsynced. `named` says the loaded queue's epoch names this file:
/// then it is never touched, and only identical bytes are accepted.
pub fn place(
    io: &dyn Io,
    paths: &Paths,
    rel: &str,
    bytes: &[u8],
    named: bool,
) -> Result<Placed, StoreError> {
    let target = path(paths, rel).ok_or_else(|| StoreError::ArchiveName(rel.to_owned()))?;
    ensure_dir(io, paths)?;
    for temp in leftover_temps(io, paths) {
        let _ = io.remove(&temp);
    }
    let found = match io.read(&target, Kind::Archive) {
        Ok(found) => Some(found),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(io_err("read", &target)(e)),
    };
    let placed = match found {
        Some(found) if found == bytes => Placed::Reused,
        Some(_) if named => {
            return Err(StoreError::ArchiveChanged {
                file: rel.to_owned(),
            });
        }
        Some(_) => {
            write_beside(io, &target, bytes, Into::Rename)?;
            Placed::Replaced
        }
        None => {
            write_beside(io, &target, bytes, Into::Link)?;
            Placed::Written
        }
    };
    io.sync_dir(&paths.archive)
        .map_err(io_err("fsync", &paths.archive))?;
    io.step("archive-dir-synced");
    Ok(placed)
}

/// Creates docs/plans/archive/ when it is missing, and fsyncs docs/plans so its entry is
/// durable.
fn ensure_dir(io: &dyn Io, paths: &Paths) -> Result<(), StoreError> {
    match io.create_dir(&paths.archive) {
        Ok(()) => io.step("archive-dir-created"),
        // Something at the name: only a directory itself (never a symlink, which would send
        // the archive outside the checkout) is the folder.
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            if !io
                .is_dir(&paths.archive)
                .map_err(io_err("look at", &paths.archive))?
            {
                return Err(StoreError::ArchiveFolder);
            }
        }
        Err(e) => return Err(io_err("create", &paths.archive)(e)),
    }
    io.sync_dir(&paths.plans)
        .map_err(io_err("fsync", &paths.plans))
}

/// How the temp file takes the name.
enum Into {
    /// Nothing is at the name: a link never replaces what may have appeared.
    Link,
    /// An unnamed file with other bytes is at the name: replaced atomically.
    Rename,
}

fn write_beside(io: &dyn Io, target: &Path, bytes: &[u8], into: Into) -> Result<(), StoreError> {
    let temp = temp_for(target);
    let _ = io.remove(&temp);
    if let Err(e) = io.create_synced(&temp, bytes) {
        let _ = io.remove(&temp);
        return Err(io_err("write", &temp)(e));
    }
    io.step("archive-temp-written");
    let placed = match into {
        Into::Link => {
            let linked = io.link(&temp, target);
            let _ = io.remove(&temp);
            linked.map_err(io_err("create", target))
        }
        Into::Rename => io.rename(&temp, target).map_err(|e| {
            let _ = io.remove(&temp);
            io_err("rename over", target)(e)
        }),
    };
    placed?;
    io.step("archive-placed");
    Ok(())
}

/// `.epoch-NNNN.json.<pid>.tmp` beside the archive.
fn temp_for(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("epoch");
    target.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

/// Whether `name` in docs/plans/archive/ is a temp file a killed cut left.
pub fn is_leftover_temp(name: &str) -> bool {
    name.strip_prefix('.')
        .and_then(|rest| rest.strip_suffix(".tmp"))
        .and_then(|rest| rest.rsplit_once('.'))
        .is_some_and(|(file, pid)| {
            is_archive_name(file) && !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit())
        })
}

/// The temp files killed cuts left in docs/plans/archive/ (the next cut removes them under
/// the lock; `doctor` names them). Only a cut writes there, so a write of the queue files
/// does not look.
pub fn leftover_temps(io: &dyn Io, paths: &Paths) -> Vec<PathBuf> {
    let mut names = io.list(&paths.archive).unwrap_or_default();
    names.retain(|n| is_leftover_temp(n));
    names.sort();
    names.into_iter().map(|n| paths.archive.join(n)).collect()
}

/// The archive `rel` as the epoch names it, read bounded as every queue file is (a regular
/// file within the cap, never through a symlink) and checked against `sha`.
pub fn read(io: &dyn Io, paths: &Paths, rel: &str, sha: &str) -> Result<Vec<u8>, StoreError> {
    let target = path(paths, rel).ok_or_else(|| StoreError::ArchiveName(rel.to_owned()))?;
    let bytes = io
        .read(&target, Kind::Archive)
        .map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => StoreError::ArchiveMissing {
                file: rel.to_owned(),
            },
            _ => io_err("read", &target)(e),
        })?;
    if sha256_hex(&bytes) != sha {
        return Err(StoreError::ArchiveChanged {
            file: rel.to_owned(),
        });
    }
    Ok(bytes)
}

/// The archive files in docs/plans/archive/ now, sorted (temp files and other names left out).
pub fn on_disk(io: &dyn Io, paths: &Paths) -> io::Result<Vec<String>> {
    let mut names = match io.list(&paths.archive) {
        Ok(names) => names,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    names.retain(|n| is_archive_name(n));
    names.sort();
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::crash::Trace;
    use crate::io::memory::Disk;
    use crate::io::trace::{Event, Tracer};

    const REL: &str = "docs/plans/archive/epoch-0001.json";

    fn checkout() -> (Disk, Paths) {
        let disk = Disk::new();
        let paths = Paths::new(Path::new("/repo"));
        disk.mkdir_all(&paths.plans);
        disk.mkdir_all(&paths.git_dir);
        (disk, paths)
    }

    #[test]
    fn an_archive_is_written_once_reused_and_never_changed_once_named() {
        let (disk, paths) = checkout();
        let io = disk.io(None);
        let file = paths.archive.join("epoch-0001.json");
        assert_eq!(
            place(&io, &paths, REL, b"cut", false).unwrap(),
            Placed::Written
        );
        assert_eq!(disk.get(&file).unwrap(), b"cut");
        let id = io.file_id(&file).unwrap();
        assert_eq!(
            place(&io, &paths, REL, b"cut", true).unwrap(),
            Placed::Reused
        );
        assert_eq!(io.file_id(&file).unwrap(), id, "reused, not written again");
        let e = place(&io, &paths, REL, b"other", true).unwrap_err();
        assert_eq!(
            e.to_string(),
            "docs/plans/archive/epoch-0001.json does not hold the bytes the queue's epoch names (edited or swapped?); restore it from git (`git checkout -- docs/plans/archive/epoch-0001.json`): an archive is never changed"
        );
        assert_eq!(disk.get(&file).unwrap(), b"cut");
        assert_eq!(
            place(&io, &paths, REL, b"other", false).unwrap(),
            Placed::Replaced
        );
        assert_eq!(disk.get(&file).unwrap(), b"other");
        assert_eq!(disk.names(&paths.archive), ["epoch-0001.json"]);
        disk.power_loss();
        assert_eq!(disk.get(&file).unwrap(), b"other", "durable once placed");
        assert_eq!(
            read(&io, &paths, REL, &sha256_hex(b"other")).unwrap(),
            b"other"
        );
        assert_eq!(
            read(&io, &paths, REL, &sha256_hex(b"cut"))
                .unwrap_err()
                .kind(),
            "archive-changed"
        );
        let missing = "docs/plans/archive/epoch-0002.json";
        assert_eq!(
            read(&io, &paths, missing, "00").unwrap_err().to_string(),
            "docs/plans/archive/epoch-0002.json is missing, and the queue's epoch names it; restore it from git (`git checkout -- docs/plans/archive/epoch-0002.json`)"
        );
        let e = place(&io, &paths, "docs/plans/queue.json", b"x", false).unwrap_err();
        assert_eq!(e.kind(), "archive-name");
    }

    #[test]
    fn a_folder_that_is_a_symlink_or_a_file_is_refused_and_nothing_written() {
        let (disk, paths) = checkout();
        disk.mkdir_all(Path::new("/elsewhere"));
        disk.symlink(&paths.archive, Path::new("/elsewhere"));
        let io = disk.io(None);
        let e = place(&io, &paths, REL, b"cut", false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "docs/plans/archive is not a directory (a symlink or a file is at its name); put the folder back as a plain directory (`git checkout -- docs/plans/archive/`), then retry the same op"
        );
        assert!(disk.names(Path::new("/elsewhere")).is_empty());
        disk.remove(&paths.archive);
        disk.put(&paths.archive, b"a file");
        assert_eq!(
            place(&io, &paths, REL, b"cut", false).unwrap_err().kind(),
            "archive-folder"
        );
        assert_eq!(disk.get(&paths.archive).unwrap(), b"a file");
    }

    #[test]
    fn a_symlink_at_an_archive_is_refused_and_left() {
        let (disk, paths) = checkout();
        disk.mkdir_all(&paths.archive);
        let file = paths.archive.join("epoch-0001.json");
        disk.symlink(&file, Path::new("/etc/passwd"));
        let io = disk.io(None);
        let e = read(&io, &paths, REL, "00").unwrap_err();
        assert_eq!(e.kind(), "file-is-symlink");
        let e = place(&io, &paths, REL, b"cut", false).unwrap_err();
        assert_eq!(e.kind(), "file-is-symlink");
        assert_eq!(disk.get(&file), None);
    }

    /// A power loss anywhere in a first placement leaves the archive absent or whole, never
    /// torn, under both crash models; once `place` returned it is there.
    #[test]
    fn a_power_loss_leaves_the_archive_absent_or_whole() {
        let (disk, paths) = checkout();
        let tracer = Tracer::memory();
        let bytes = vec![b'x'; 10_000];
        place(&disk.io(Some(&tracer)), &paths, REL, &bytes, false).unwrap();
        let events: Vec<Event> = tracer.events();
        let trace = Trace::new(&events, |_| None);
        let file = paths.archive.join("epoch-0001.json");
        for (model, states, count) in [
            ("ext4", trace.ext4_states(), 7),
            ("weak", trace.weak_states(), 7),
        ] {
            let mut whole = 0;
            for state in &states {
                if let Some(b) = state.files.get(&file).cloned().flatten() {
                    assert_eq!(b, bytes, "{model}: torn");
                    whole += 1;
                }
            }
            assert_eq!((states.len(), whole), (count, 2), "{model}");
        }
    }

    #[test]
    fn only_epoch_files_directly_in_the_folder_are_archives() {
        assert_eq!(
            file_name("docs/plans/archive/epoch-0001.json"),
            Some("epoch-0001.json")
        );
        assert_eq!(
            file_name("docs/plans/archive/epoch-12345.json"),
            Some("epoch-12345.json")
        );
        for bad in [
            "docs/plans/archive/epoch-001.json",
            "docs/plans/archive/../queue.json",
            "docs/plans/archive/x/epoch-0001.json",
            "docs/plans/archive/epoch-0001.json.tmp",
            "docs/plans/archive/epoch-00a1.json",
            "/docs/plans/archive/epoch-0001.json",
            "docs/plans/queue.json",
        ] {
            assert_eq!(file_name(bad), None, "{bad}");
        }
        assert!(is_leftover_temp(".epoch-0001.json.4242.tmp"));
        assert!(!is_leftover_temp(".epoch-0001.json..tmp"));
        assert!(!is_leftover_temp("epoch-0001.json"));
        assert!(!is_leftover_temp(".queue.json.12.tmp"));
    }
}
