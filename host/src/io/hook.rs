//! The seam every call of the I/O layer passes: a `Hook` sees each call before it runs (and may
//! fail it), each call that succeeded, and each named step of a write. The recording and
//! faulting layers are hooks; the shipped binary has none. It depends on nothing in the crate,
//! so `io` and `seam` both build on it without importing each other.

use std::io;
use std::path::Path;

/// One call of the I/O layer, as the recording and faulting layers see it. `create_synced` is
/// three calls (create, write, fsync), since a crash or a fault can fall between them.
#[derive(Debug, Clone, Copy)]
pub enum Call<'a> {
    Read(&'a Path),
    List(&'a Path),
    Stat(&'a Path),
    Statfs(&'a Path),
    Create(&'a Path),
    /// A new directory (`mkdir`), which must not exist.
    Mkdir(&'a Path),
    /// The bytes written: the pieces, one after another.
    Write(&'a Path, &'a [&'a [u8]]),
    Fsync(&'a Path),
    Rename(&'a Path, &'a Path),
    Link(&'a Path, &'a Path),
    Unlink(&'a Path),
    FsyncDir(&'a Path),
}

/// What a hook does to a call before it runs.
#[derive(Debug)]
pub enum Fault {
    /// Fail it with this error; nothing happens.
    Fail(io::Error),
    /// A write: half the bytes land, then it fails with ENOSPC (a disk filling mid-write).
    Short,
}

/// Sees every call of the I/O layer: `before` may inject a fault, `after` sees each call that
/// succeeded (with what it did), `mark` each named point that is not a call (a write step).
pub trait Hook: Sync {
    fn before(&self, call: &Call<'_>) -> Option<Fault>;
    fn after(&self, call: &Call<'_>);
    /// A named point between calls: `what` is `step` for a write step, `text` its name.
    fn mark(&self, what: &str, text: &str) {
        let _ = (what, text);
    }
}
