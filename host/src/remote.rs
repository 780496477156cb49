//! Whether this process answers a remote seat: set once when a remote seat's policy is
//! committed to (`engine::Policy::commit_process`, which the gate calls), read wherever a
//! reply's words depend on it (a file on the queue host is of no use to a seat elsewhere).

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
