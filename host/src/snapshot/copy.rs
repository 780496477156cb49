//! `snapshot --out DIR`: under the lock, copies queue.json and QUEUE.md byte for byte into an
//! empty directory outside the repository, after checking the queue, and each archive its
//! epoch names (checked against its SHA-256) into DIR/archive/, so the commit procedure can
//! verify and commit exactly those bytes while seats go on writing.

use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

use super::take::{FILES, take};
use crate::reply::{Failure, Replied, Reply};
use crate::store::cut::epochs;
use crate::store::session::{self, Session};

/// `snapshot --out DIR`: the pair copied into `out`, new or empty, outside the repository.
pub fn snapshot(out: &Path, reply: &mut dyn Reply) -> Replied {
    let paths = session::locate()?;
    let held = Session::begin(&paths, None, "snapshot")?;
    let (loaded, md) = take(&held, "snapshot")?;
    let rev = loaded.queue.revision();
    let target = resolve_out(out, &paths.root)?;
    let archives = super::take::archives(&held, &loaded)?;
    let archives: Vec<(&str, &[u8])> = archives
        .iter()
        .filter_map(|(rel, bytes)| Some((epochs::file_name(rel)?, bytes.as_slice())))
        .collect();
    let [json_name, md_name] = FILES;
    session::write_copies(
        &target.dir,
        target.create,
        &[(json_name, &loaded.bytes), (md_name, &md)],
        &archives,
    )
    .map_err(Failure::failed)?;
    reply.line(&format!(
        "ok snapshot rev {rev} -> {}",
        target.dir.display()
    ))?;
    held.release_after_answer();
    Ok(())
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
