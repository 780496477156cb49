//! `snapshot --out DIR`: under the lock, copies queue.json and QUEUE.md byte for byte into an
//! empty directory outside the repository, after checking the queue, so the commit procedure
//! can verify and commit exactly those bytes while seats go on writing.

use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

use mosaic_queue_core::BodyStatus;
use mosaic_queue_core::table;

use super::{CliResult, Failure};
use crate::store::Loaded;
use crate::store::session::{self, Session};

/// The two files a snapshot holds, by the names `verify --snapshot` reads.
pub const FILES: [&str; 2] = ["queue.json", "QUEUE.md"];

/// `snapshot --out DIR`.
pub fn snapshot(out: &Path) -> CliResult {
    let paths = session::locate()?;
    let held = Session::begin(&paths, None, "snapshot")?;
    let (loaded, md) = take(&held, "snapshot")?;
    let rev = loaded.queue.revision();
    let target = resolve_out(out, &paths.root)?;
    let [json_name, md_name] = FILES;
    session::write_copies(
        &target.dir,
        target.create,
        &[(json_name, &loaded.bytes), (md_name, &md)],
    )
    .map_err(Failure::failed)?;
    crate::say!("ok snapshot rev {rev} -> {}", target.dir.display());
    held.release_after_answer();
    Ok(())
}

/// Under the lock the caller holds: loads and verifies the queue, and refuses a revision the
/// witness has not confirmed or a table that is not current. Returns the queue as loaded (with
/// its exact bytes) and QUEUE.md's exact bytes. `verb` names the caller in its messages.
pub(super) fn take(held: &Session, verb: &str) -> Result<(Loaded, Vec<u8>), Failure> {
    let loaded = held.load()?;
    let rev = loaded.queue.revision();
    // A snapshot is what gets committed: only a witnessed revision, so a commit never holds
    // ops a crash could still lose, and `sync` gets to tell the seats about a visible tail.
    if loaded.ahead_of_witness() {
        return Err(Failure::refused(format!(
            "rev {rev} is visible, not confirmed durable; run `mosaic-queue sync` first, then {verb}"
        )));
    }
    let md = held.read_table()?;
    let text =
        std::str::from_utf8(&md).map_err(|_| Failure::from(session::SessionError::TableNotUtf8))?;
    let body = table::body(text).map_err(|e| Failure::refused(format!("QUEUE.md {e}")))?;
    match crate::store::table_status(&loaded.queue, body) {
        BodyStatus::Current => Ok((loaded, md)),
        BodyStatus::Stale { rev: old } => Err(Failure::refused(format!(
            "QUEUE.md is stale (rendered at rev {old}); look, then run `mosaic-queue render` before a {verb}"
        ))),
        BodyStatus::Unknown => Err(Failure::refused(
            "QUEUE.md's table is not a render of this queue; restore it with git or re-apply the edit as queue ops, then `mosaic-queue render`",
        )),
    }
}

/// Where the copies go: the real path of DIR, and whether this command must create it.
struct Target {
    dir: PathBuf,
    create: bool,
}

/// Resolves `--out` (symlinks included) and refuses a path inside the repository, something
/// that is not a directory, or a directory that is not empty. Creates nothing.
fn resolve_out(out: &Path, root: &Path) -> Result<Target, Failure> {
    let shown = out.display();
    let absolute = if out.is_absolute() {
        out.to_path_buf()
    } else {
        std::env::current_dir()
            .map_err(|e| Failure::failed(format!("cannot read the working directory: {e}")))?
            .join(out)
    };
    let target = match std::fs::symlink_metadata(&absolute) {
        Ok(_) => {
            let dir = absolute
                .canonicalize()
                .map_err(|e| Failure::failed(format!("cannot resolve --out {shown}: {e}")))?;
            if !dir.is_dir() {
                return Err(Failure::refused(format!(
                    "--out {shown} is not a directory; name an empty directory"
                )));
            }
            Target { dir, create: false }
        }
        Err(e) if e.kind() == ErrorKind::NotFound => {
            // A last component of `..` or `.` would resolve to a directory that exists.
            let name = match absolute.components().next_back() {
                Some(Component::Normal(name)) => name.to_owned(),
                _ => {
                    return Err(Failure::refused(format!(
                        "--out {shown} does not name a directory; name an empty directory"
                    )));
                }
            };
            let parent = absolute.parent().unwrap_or(Path::new("/"));
            let parent = parent.canonicalize().map_err(|e| {
                Failure::failed(format!("cannot resolve the parent of --out {shown}: {e}"))
            })?;
            Target {
                dir: parent.join(name),
                create: true,
            }
        }
        Err(e) => {
            return Err(Failure::failed(format!(
                "cannot look at --out {shown}: {e}"
            )));
        }
    };
    let root = root
        .canonicalize()
        .map_err(|e| Failure::failed(format!("cannot resolve {}: {e}", root.display())))?;
    if target.dir.starts_with(&root) {
        return Err(Failure::refused(format!(
            "--out {shown} lies inside the repository {}; snapshot into a directory outside it",
            root.display()
        )));
    }
    if !target.create {
        let mut entries = std::fs::read_dir(&target.dir)
            .map_err(|e| Failure::failed(format!("cannot list --out {shown}: {e}")))?;
        if entries.next().is_some() {
            return Err(Failure::refused(format!(
                "--out {shown} is not empty; snapshot writes only into an empty directory"
            )));
        }
    }
    Ok(target)
}
