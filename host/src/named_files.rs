//! Files a person names on the command line or in a call (a migration map, a hook, a
//! snapshot's pair, a base), and QUEUE.md read without the lock: read as the store reads its
//! own (docs/limits.md), each refusal or failure one line with the next step.

use std::path::Path;

use crate::checkout::Paths;
use crate::reply::Failure;
use crate::store::session::{self, Kind, SessionError};

/// Reads `path` as a file of `kind` (docs/limits.md). A refused file (a symlink, not a regular
/// file, over its cap) is exit 2 and an I/O failure exit 1, each one line with the next step.
pub fn read_file(path: &Path, kind: Kind) -> Result<Vec<u8>, Failure> {
    session::read_file(path, kind).map_err(|e| read_failure(path, kind, e))
}

/// The failure `read_file` reports for an error from the read. A file that is not there (or a
/// path through something that is not a directory) is refused like a wrong one: retrying
/// cannot help, the next step is another path.
fn read_failure(path: &Path, kind: Kind, e: std::io::Error) -> Failure {
    use std::io::ErrorKind::{NotADirectory, NotFound};
    match session::into_refusal(e) {
        Ok(refused) => Failure::refused(refused.line()).kind(refused.kind_name()),
        Err(e) if matches!(e.kind(), NotFound | NotADirectory) => Failure::refused(format!(
            "{}{} does not exist; {}",
            kind.prefix(),
            path.display(),
            kind.next_step()
        ))
        .kind("file-missing"),
        Err(e) => Failure::failed(format!(
            "cannot read {}: {e}; {}",
            path.display(),
            kind.next_step()
        )),
    }
}

/// The migration map's text (`genesis`, `map-check`), read under its cap (docs/limits.md).
pub fn read_map(map_path: &Path) -> Result<String, Failure> {
    let bytes = read_file(map_path, Kind::Map)?;
    String::from_utf8(bytes).map_err(|_| {
        Failure::refused(format!(
            "the map {} is not UTF-8; {}",
            map_path.display(),
            Kind::Map.next_step()
        ))
    })
}

/// QUEUE.md's text read without the lock (`map-check`, the demo's show), refused as every
/// verb that reads it refuses it.
pub fn read_queue_md(paths: &Paths) -> Result<String, Failure> {
    let bytes = read_file(&paths.queue_md, Kind::QueueMd)?;
    String::from_utf8(bytes).map_err(|_| SessionError::TableNotUtf8.into())
}
