//! How a verb fails, for every face: the one line to show, how the command ends, and the
//! `{"error": {exit, kind, message, next, retryable}}` document a JSON answer holds. Each
//! domain's error becomes one here once, with its own message, exit and kind.

use mosaic_queue_core::{QueueError, ReviewError, VerbError, to_canonical};
use serde::Serialize;

use super::receipt::ReceiptJson;
use crate::checkout::CheckoutError;
use crate::core_error::{CoreError, Ending};
use crate::exit::Exit;
use crate::sandbox::SandboxError;
use crate::store::StoreError;
use crate::store::lock::LockError;
use crate::store::session::SessionError;

/// How a verb ends: `Ok` once its whole answer is given, else the failure.
pub type Replied = Result<(), Failure>;

/// A failed command: the one line to print, how the command ends, and for `--json` its stable
/// kind and whether the same command may simply be run again.
#[derive(Debug)]
pub struct Failure {
    pub exit: Exit,
    pub message: String,
    /// The error type's stable kind (the core's, or the host's); `None`: the exit code's.
    kind: Option<&'static str>,
    /// Set where the same command with the same op id may simply be run again although the
    /// exit is not 3 (a lock wait that ran out, a file changed underneath).
    retry: bool,
}

impl Failure {
    pub fn new(exit: Exit, message: impl Into<String>) -> Failure {
        Failure {
            exit,
            message: message.into(),
            kind: None,
            retry: false,
        }
    }

    pub fn failed(message: impl Into<String>) -> Failure {
        Failure::new(Exit::Failed, message)
    }

    pub fn refused(message: impl Into<String>) -> Failure {
        Failure::new(Exit::Refused, message)
    }

    pub fn uncertain(message: impl Into<String>) -> Failure {
        Failure::new(Exit::Uncertain, message)
    }

    pub fn usage(message: impl Into<String>) -> Failure {
        Failure::new(Exit::Usage, message).kind("usage")
    }

    /// Names the failure's stable kind.
    pub fn kind(mut self, kind: &'static str) -> Failure {
        self.kind = Some(kind);
        self
    }

    /// The stable kind `--json` prints: the error's own, else the exit's.
    pub fn kind_name(&self) -> &'static str {
        self.kind.unwrap_or(match self.exit {
            Exit::Failed => "failed",
            Exit::Refused => "refused",
            Exit::Uncertain => "uncertain",
            Exit::Usage => "usage",
        })
    }

    /// Whether the same command with the same op id may simply be run again: after exit 3
    /// (written or sent, not acknowledged), or when nothing was written for a passing reason.
    pub fn retryable(&self) -> bool {
        self.exit == Exit::Uncertain || self.retry
    }

    /// The step to take next: messages end with it after their last `; ` (the house style);
    /// one that names none gets its exit's general step.
    pub fn next(&self) -> String {
        if let Some((_, step)) = self.message.rsplit_once("; ") {
            return step.to_owned();
        }
        String::from(match self.exit {
            Exit::Failed => "fix what the message names, then run the same command again",
            Exit::Refused => {
                "nothing was changed: correct the data or the request the message names"
            }
            Exit::Uncertain => "run the same command with the same op id again",
            Exit::Usage => "see `mosaic-queue help` and the verb's --help",
        })
    }

    /// The `{"error": ...}` document in canonical bytes; `written`: the receipts of the
    /// entries the command logged before it failed.
    pub fn document(&self, written: Vec<ReceiptJson>) -> Vec<u8> {
        let mut error = ErrorJson::new(self);
        error.written = written;
        to_canonical(&ErrorDoc { error })
    }
}

/// `{"error": {...}}`.
#[derive(Serialize)]
struct ErrorDoc<'a> {
    error: ErrorJson<'a>,
}

/// The failure's members, in the order docs/json.md gives them.
#[derive(Serialize)]
pub struct ErrorJson<'a> {
    exit: i32,
    kind: &'a str,
    message: &'a str,
    next: String,
    retryable: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    written: Vec<ReceiptJson>,
}

impl ErrorJson<'_> {
    pub fn new(f: &Failure) -> ErrorJson<'_> {
        ErrorJson {
            exit: f.exit.code(),
            kind: f.kind_name(),
            message: &f.message,
            next: f.next(),
            retryable: f.retryable(),
            written: Vec::new(),
        }
    }
}

/// Each domain's error becomes a failure with its own message and the exit it names.
impl From<SandboxError> for Failure {
    fn from(e: SandboxError) -> Failure {
        Failure::new(e.exit(), e.to_string())
    }
}

/// The errors that name a stable kind, and say whether a plain retry is safe.
macro_rules! failure_from_kinded {
    ($($error:ty),* $(,)?) => {$(
        impl From<$error> for Failure {
            fn from(e: $error) -> Failure {
                let mut f = Failure::new(e.exit(), e.to_string()).kind(e.kind());
                f.retry = e.retryable();
                f
            }
        }
    )*};
}

failure_from_kinded!(StoreError, LockError);

impl From<CheckoutError> for Failure {
    fn from(e: CheckoutError) -> Failure {
        Failure::new(e.exit(), e.to_string()).kind(e.kind())
    }
}

/// A session error is its inner domain's failure (kind and retry included), or its own line.
impl From<SessionError> for Failure {
    fn from(e: SessionError) -> Failure {
        match e {
            SessionError::Checkout(e) => e.into(),
            SessionError::Lock(e) => e.into(),
            SessionError::Store(e) => e.into(),
            SessionError::Core(e) => e.into(),
            e @ SessionError::AdoptedElsewhere(_) => {
                Failure::new(e.exit(), e.to_string()).kind("adopted-elsewhere")
            }
            e @ SessionError::NotReplicated { .. } => {
                Failure::new(e.exit(), e.to_string()).kind("not-replicated")
            }
            other => Failure::new(other.exit(), other.to_string()),
        }
    }
}

/// The core's one error: its exit and line as `core_error` decides them, under its own kind.
impl From<CoreError> for Failure {
    fn from(e: CoreError) -> Failure {
        Failure::new(e.exit(), e.line()).kind(e.kind())
    }
}

/// The core's domain errors that reach a face directly, each as the core's one error.
macro_rules! failure_through_core_error {
    ($($error:ty),* $(,)?) => {$(
        impl From<$error> for Failure {
            fn from(e: $error) -> Failure {
                CoreError::from(e).into()
            }
        }
    )*};
}

failure_through_core_error!(QueueError, ReviewError, VerbError);
