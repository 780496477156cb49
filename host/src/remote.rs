//! Whether this process answers a remote seat: set once by the gate when it confines the
//! process, read wherever a reply's words depend on it (a file on the queue host is of no use
//! to a seat on another machine). Kept apart from the gate so that what words a reply need
//! not import the gate.

use std::sync::atomic::{AtomicBool, Ordering};

static REMOTE: AtomicBool = AtomicBool::new(false);

/// From now on this process answers a remote seat.
pub fn set() {
    REMOTE.store(true, Ordering::Relaxed);
}

/// Whether this process answers a remote seat.
pub fn is() -> bool {
    REMOTE.load(Ordering::Relaxed)
}
