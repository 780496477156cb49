//! How a command ends when it does not succeed, in the contract's four kinds. Every error type
//! names its kind with an `exit()` method; only `main.rs` exits the process with it.

/// The contract's non-zero endings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// The operation failed; nothing was written (exit 1).
    Failed,
    /// Invalid data, or a change the rules refuse (exit 2).
    Refused,
    /// The outcome is not known: the op may be written, or a comment posted (exit 3).
    Uncertain,
    /// The command line itself is wrong (exit 4).
    Usage,
}

impl Exit {
    /// The process exit code: what `main.rs` exits with, and what `demo`'s transcript shows
    /// beside each failure it replays.
    pub fn code(self) -> i32 {
        match self {
            Exit::Failed => 1,
            Exit::Refused => 2,
            Exit::Uncertain => 3,
            Exit::Usage => 4,
        }
    }
}
