//! Why a session stops: `SessionError`, one variant per refusal or failure a verb meets on its
//! way to the queue's files, each with its line and the exit the command ends with.

use std::io;

use mosaic_queue_core::{QueueError, VerbError};
use thiserror::Error;

use crate::checkout::CheckoutError;
use crate::core_error::{CoreError, Ending};
use crate::exit::Exit;
use crate::io::Kind;
use crate::store::StoreError;
use crate::store::lock::LockError;
use crate::store::replicated::Reached;

/// Why a session stopped. Each knows how the command ends.
#[derive(Debug, Error)]
pub enum SessionError {
    #[error("cannot read the working directory: {0}")]
    WorkingDir(io::Error),
    #[error(transparent)]
    Checkout(#[from] CheckoutError),
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(
        "there is no witness .git/mosaic-queue.head: if queue.json holds genesis alone run `mosaic-queue sync`, otherwise see Manual recovery"
    )]
    NoWitness,
    #[error(
        "there is no witness .git/mosaic-queue.head, so nothing is confirmed durable: run `mosaic-queue sync` or see Manual recovery"
    )]
    NothingDurable,
    #[error("QUEUE.md is not UTF-8; {}", Kind::QueueMd.next_step())]
    TableNotUtf8,
    #[error("docs/plans/QUEUE.md does not exist; {}", Kind::QueueMd.next_step())]
    TableMissing,
    #[error("{0}")]
    TableMarkers(String),
    /// `then` is the step once the table is restored (`render` refuses where accept-history
    /// has yet to run, so that verb names itself).
    #[error(
        "QUEUE.md's table is not a render of this queue (a hand edit?); restore it with git or re-apply the edit as queue ops, then {then}"
    )]
    HandEdit { then: &'static str },
    #[error(
        "the op is recorded but QUEUE.md could not be rendered ({0}); run `mosaic-queue render`"
    )]
    Rerender(io::Error),
    #[error("cannot write QUEUE.md: {0}")]
    WriteTable(io::Error),
    #[error(
        "docs/plans/queue.json exists already; genesis runs once (see Manual recovery for a broken file)"
    )]
    GenesisTwice,
    #[error("{0}; add both markers before genesis")]
    GenesisMarkers(String),
    /// The core refused the command or the data: its line and exit (`core_error`).
    #[error("{}", .0.line())]
    Core(CoreError),
    #[error(
        "op {op} recorded accept-history at rev {rev}, and history was lost again since; run accept-history with a new op id"
    )]
    LostAgain { op: String, rev: u64 },
    #[error(
        "nothing to accept: queue.json extends the witness (rev {witness_rev}){}; accept-history is only for Manual recovery",
        if *.ahead { " (`mosaic-queue sync` confirms its visible tail)" } else { "" }
    )]
    NothingToAccept { witness_rev: u64, ahead: bool },
    /// `then` is what to do once the table is looked at (`render --check`, `verify --current`).
    #[error("QUEUE.md is stale (rendered at rev {rev}); {then}")]
    TableStale { rev: u64, then: &'static str },
    #[error("QUEUE.md's table is not a render of this queue; {0}")]
    NotARender(&'static str),
    #[error(
        "op {op} is not in the log (rev {rev}): it never became visible; retry it with the same op id and arguments"
    )]
    NotInLog { op: String, rev: u64 },
    #[error(
        "there is no witness .git/mosaic-queue.head and queue.json is at rev {rev}, past genesis: sync cannot tell what was lost; see Manual recovery (accept-history)"
    )]
    SyncWithoutWitness { rev: u64 },
    #[error("sync confirms only a file that extends the witness: {0}")]
    SyncLost(String),
    /// Under `replication required`, the follower had not pushed `rev` within the wait.
    #[error("{}", not_replicated(*.rev, .reached))]
    NotReplicated { rev: u64, reached: Reached },
    /// The fence stands: this host's queue was adopted in another checkout.
    #[error("{0}")]
    AdoptedElsewhere(String),
    #[error(
        "op {op} is new, but the archives' op filter cannot tell it from an archived op; run the cut again with another op id"
    )]
    CutOpMaybeArchived { op: String },
}

/// What a change under `replication required` says when its revision was not pushed in time.
fn not_replicated(rev: u64, reached: &Reached) -> String {
    match reached {
        Reached::Adopted(line) => format!("rev {rev} durable here, not replicated: {line}"),
        Reached::Unwatched(why) => format!(
            "rev {rev} durable here, not known to be replicated ({why}); retry with the same --op"
        ),
        Reached::Yes | Reached::Timeout => format!(
            "rev {rev} durable here, not yet replicated: the follower is behind or not running; retry with the same --op"
        ),
    }
}

/// A core error, and the domain errors a session meets, become `SessionError::Core`.
macro_rules! session_through_core_error {
    ($($error:ty),* $(,)?) => {$(
        impl From<$error> for SessionError {
            fn from(e: $error) -> SessionError {
                SessionError::Core(e.into())
            }
        }
    )*};
}

session_through_core_error!(CoreError, QueueError, VerbError);

impl SessionError {
    pub fn exit(&self) -> Exit {
        match self {
            SessionError::Checkout(e) => e.exit(),
            SessionError::Lock(e) => e.exit(),
            SessionError::Store(e) => e.exit(),
            SessionError::Core(e) => e.exit(),
            SessionError::WorkingDir(_) | SessionError::WriteTable(_) => Exit::Failed,
            SessionError::Rerender(_) | SessionError::NotReplicated { .. } => Exit::Uncertain,
            SessionError::NoWitness
            | SessionError::NothingDurable
            | SessionError::TableNotUtf8
            | SessionError::TableMissing
            | SessionError::TableMarkers(_)
            | SessionError::HandEdit { .. }
            | SessionError::GenesisTwice
            | SessionError::GenesisMarkers(_)
            | SessionError::LostAgain { .. }
            | SessionError::NothingToAccept { .. }
            | SessionError::TableStale { .. }
            | SessionError::NotARender(_)
            | SessionError::NotInLog { .. }
            | SessionError::SyncWithoutWitness { .. }
            | SessionError::SyncLost(_)
            | SessionError::CutOpMaybeArchived { .. }
            | SessionError::AdoptedElsewhere(_) => Exit::Refused,
        }
    }
}
