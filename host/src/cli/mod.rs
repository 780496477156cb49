//! The command line: clap definitions, the actor rule, and the mapping of every failure to
//! one line on stderr with the contract's exit code (0 ok, 1 failed, 2 invalid or refused,
//! 3 uncertain, 4 usage). Each verb family lives in its own file.

mod args;
mod commit;
mod demo;
mod guard;
mod map_check;
mod read;
mod recovery;
mod review;
mod review_commit;
mod snapshot;
mod sync;
mod unlock;
mod verify_snapshot;
mod write;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use mosaic_queue_core::{QueueError, VerbError};

use self::review_commit::VerifyCommitError;
use crate::checkout::CheckoutError;
use crate::exit::Exit;
use crate::sandbox::SandboxError;
use crate::store::StoreError;
use crate::store::lock::LockError;

/// A failed command: the one line to print and how the command ends.
#[derive(Debug)]
pub struct Failure {
    pub exit: Exit,
    pub message: String,
}

impl Failure {
    pub fn new(exit: Exit, message: impl Into<String>) -> Failure {
        Failure {
            exit,
            message: message.into(),
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
        Failure::new(Exit::Usage, message)
    }
}

/// Each domain's error becomes a failure with its own message and the exit it names.
macro_rules! failure_from {
    ($($error:ty),* $(,)?) => {$(
        impl From<$error> for Failure {
            fn from(e: $error) -> Failure {
                Failure::new(e.exit(), e.to_string())
            }
        }
    )*};
}

failure_from!(
    StoreError,
    CheckoutError,
    LockError,
    SandboxError,
    VerifyCommitError
);

impl From<VerbError> for Failure {
    fn from(e: VerbError) -> Failure {
        Failure::refused(format!("refused: {e}"))
    }
}

impl From<mosaic_queue_core::ReviewError> for Failure {
    fn from(e: mosaic_queue_core::ReviewError) -> Failure {
        Failure::refused(format!("refused: {e}"))
    }
}

impl From<QueueError> for Failure {
    fn from(e: QueueError) -> Failure {
        Failure::refused(e.to_string())
    }
}

pub type CliResult = Result<(), Failure>;

/// Writes `text` to stdout. A closed stdout (`mosaic-queue list | head`) must not panic:
/// the command fails with exit 1 and one line on stderr instead.
pub fn out(text: &str) -> CliResult {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| Failure::failed(format!("cannot write to stdout: {e}")))
}

/// Prints a receipt. One that cannot be printed leaves its op durable but unacknowledged,
/// which is exit 3: the caller retries the same op and gets the receipt from the log.
pub fn out_receipt(receipt: &str) -> CliResult {
    out(&format!("{receipt}\n")).map_err(|f| {
        Failure::uncertain(format!(
            "{}; the op is written but its receipt did not print: retry the same op",
            f.message
        ))
    })
}

/// `println!` that returns a `Failure` instead of panicking on a closed stdout.
#[macro_export]
macro_rules! say {
    () => {
        $crate::cli::out("\n")?
    };
    ($($arg:tt)*) => {
        $crate::cli::out(&format!("{}\n", format_args!($($arg)*)))?
    };
}

#[derive(Parser, Debug)]
#[command(
    name = "mosaic-queue",
    version,
    about = "The team's git-native work queue"
)]
pub struct Cli {
    #[command(subcommand)]
    pub verb: Verb,
}

/// `--op ID` and `--by NAME` (or `$MOSAIC_AGENT_NAME`), taken by every change.
#[derive(Args, Debug)]
pub struct Change {
    /// The operation id: 8 to 72 characters of [a-z0-9._-]; retry with the same id.
    #[arg(long)]
    pub op: String,
    /// The acting seat; defaults to $MOSAIC_AGENT_NAME.
    #[arg(long)]
    pub by: Option<String>,
}

#[derive(Subcommand, Debug)]
pub enum Verb {
    /// Every row (unlocked read).
    List {
        #[arg(long)]
        json: bool,
    },
    /// One row (unlocked read).
    Show {
        id: u64,
        #[arg(long)]
        json: bool,
    },
    /// The row a seat should take up next (unlocked read).
    Next {
        seat: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Add a row (the lead, jason or sage).
    Add {
        #[arg(long)]
        piece: String,
        #[arg(long)]
        owner: Option<String>,
        #[arg(long, value_delimiter = ',')]
        issues: Vec<String>,
        #[arg(long)]
        gate: Option<String>,
        #[arg(long, value_delimiter = ',')]
        reviewers: Vec<String>,
        #[arg(long)]
        brief: Option<String>,
        #[arg(long)]
        note: Option<String>,
        #[arg(long, default_value = "queued")]
        status: String,
        #[command(flatten)]
        change: Change,
    },
    /// Move a row to another status.
    Move {
        id: u64,
        status: String,
        #[arg(long)]
        reason: Option<String>,
        #[arg(long)]
        candidate: Option<String>,
        #[arg(long)]
        issue: Option<u64>,
        #[arg(long)]
        evidence: Option<String>,
        #[command(flatten)]
        change: Change,
    },
    /// Hand an in-progress row back to the queue (clears the owner).
    Release {
        id: u64,
        #[command(flatten)]
        change: Change,
    },
    /// Give a row an owner (the lead, jason or sage).
    Assign {
        id: u64,
        seat: String,
        #[command(flatten)]
        change: Change,
    },
    /// Set a row's note; an empty TEXT clears it.
    Note {
        id: u64,
        text: String,
        #[command(flatten)]
        change: Change,
    },
    /// Set piece, gate, issues, closes, reviewers or brief.
    Set {
        id: u64,
        field: String,
        value: String,
        #[arg(long)]
        reason: Option<String>,
        #[command(flatten)]
        change: Change,
    },
    /// Start the queue from the reviewed migration map (jason or sage).
    Genesis {
        #[arg(long)]
        map: PathBuf,
        #[command(flatten)]
        change: Change,
    },
    /// Check queue.json (and with --current, that the table is current); with --snapshot, check
    /// a snapshot's two files anywhere, with no repository and no lock.
    Verify {
        #[arg(long, conflicts_with = "snapshot")]
        current: bool,
        /// A directory holding queue.json and QUEUE.md (what `snapshot --out` writes).
        #[arg(long, value_name = "DIR")]
        snapshot: Option<PathBuf>,
        /// A queue.json whose log the snapshot's log must extend.
        #[arg(long, value_name = "FILE", requires = "snapshot")]
        base: Option<PathBuf>,
    },
    /// Rewrite the table when it is stale; --check only reports.
    Render {
        #[arg(long)]
        check: bool,
    },
    /// Confirm a visible tail durable and name each op that became durable unacknowledged;
    /// with --op, say whether that op is in the log and durable.
    Sync {
        #[arg(long)]
        op: Option<String>,
    },
    /// Copy queue.json and QUEUE.md into an empty directory outside the repository.
    Snapshot {
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
    /// Commit exactly the snapshot bytes of the two queue files on top of HEAD (the lead,
    /// jason or sage); --genesis for the first. Never pushes.
    Commit {
        #[arg(short, long)]
        message: String,
        #[arg(long)]
        genesis: bool,
        /// The acting seat; defaults to $MOSAIC_AGENT_NAME.
        #[arg(long)]
        by: Option<String>,
    },
    /// Remove a dead or mismatched queue lock; --check-gate classifies a stale unlock gate.
    Unlock {
        #[arg(long)]
        check_gate: bool,
    },
    /// Accept the file as it is after lost history or a missing witness (jason or sage; see
    /// Manual recovery).
    AcceptHistory {
        #[arg(long)]
        reason: String,
        /// Confirms that ops lost before this entry are no longer deduplicated.
        #[arg(long)]
        yes: bool,
        #[command(flatten)]
        change: Change,
    },
    /// Build a scratch canonical checkout with a sample queue under the system temp dir.
    Demo,
    /// The pre-commit guard: refuse a commit whose index entry for a queue file differs from
    /// HEAD's.
    Guard,
    /// Install scripts/git-hooks/pre-commit as .git/hooks/pre-commit (jason or sage).
    InstallHook {
        #[arg(long)]
        by: Option<String>,
    },
    /// Report drift between the migration map and the current QUEUE.md (read-only).
    MapCheck {
        #[arg(long)]
        map: PathBuf,
    },
    /// Review requests, their resolution, verdicts, and checking a commit against a candidate.
    Review {
        #[command(subcommand)]
        verb: ReviewVerb,
    },
}

#[derive(Subcommand, Debug)]
pub enum ReviewVerb {
    /// Post a new request in the current round after a failed or abandoned one.
    Request {
        id: u64,
        #[command(flatten)]
        change: Change,
    },
    /// Record the comment a person found for a requesting, uncertain or conflicting attempt
    /// (the owner, jason or sage); the comment is fetched and checked first.
    Resolve {
        id: u64,
        /// The op of the request attempt.
        attempt: String,
        #[arg(long)]
        comment: u64,
        #[command(flatten)]
        change: Change,
    },
    /// Give up on an attempt whose comment is not on the issue (jason or sage).
    Abandon {
        id: u64,
        /// The op of the request attempt.
        attempt: String,
        #[arg(long)]
        reason: String,
        #[arg(long)]
        yes: bool,
        #[command(flatten)]
        change: Change,
    },
    /// Record your verdict on the current round's candidate (a listed reviewer).
    Record {
        id: u64,
        #[arg(long)]
        verdict: String,
        #[arg(long)]
        comment: u64,
        #[arg(long)]
        candidate: String,
        #[command(flatten)]
        change: Change,
    },
    /// Check a prospective commit or tree against the current round's candidate (no lock).
    VerifyCommit {
        id: u64,
        #[arg(value_name = "REF")]
        reference: String,
    },
}

/// Runs a parsed command.
pub fn run(cli: Cli) -> CliResult {
    match cli.verb {
        Verb::List { json } => read::list(json),
        Verb::Show { id, json } => read::show(id, json),
        Verb::Next { seat, json } => read::next(seat, json),
        Verb::Genesis { map, change } => write::genesis(&map, &change),
        Verb::Verify {
            snapshot: Some(dir),
            base,
            ..
        } => verify_snapshot::verify_snapshot(&dir, base.as_deref()),
        Verb::Verify { current, .. } => write::verify(current),
        Verb::Sync { op } => sync::sync(op.as_deref()),
        Verb::Snapshot { out } => snapshot::snapshot(&out),
        Verb::Commit {
            message,
            genesis,
            by,
        } => commit::commit(&message, genesis, &by),
        Verb::Unlock { check_gate } => unlock::unlock(check_gate),
        Verb::AcceptHistory {
            reason,
            yes,
            change,
        } => recovery::accept_history(&reason, yes, &change),
        Verb::Demo => demo::demo(),
        Verb::Guard => guard::guard(),
        Verb::InstallHook { by } => guard::install_hook(&by),
        Verb::MapCheck { map } => map_check::map_check(&map),
        Verb::Render { check } => write::render(check),
        Verb::Review {
            verb: ReviewVerb::VerifyCommit { id, reference },
        } => review_commit::verify_commit(id, &reference),
        Verb::Review { verb } => review::run(verb),
        change_verb => {
            let (command, change) = args::command(change_verb)?;
            write::change(&command, &change)
        }
    }
}

/// The actor: `--by`, else `$MOSAIC_AGENT_NAME`; a warning when both are set and differ.
pub fn actor(by: &Option<String>) -> Result<String, Failure> {
    let env = std::env::var("MOSAIC_AGENT_NAME")
        .ok()
        .filter(|s| !s.is_empty());
    match (by, env) {
        (Some(b), Some(e)) if *b != e => {
            eprintln!("warning: --by {b} differs from MOSAIC_AGENT_NAME={e}; acting as {b}");
            Ok(b.clone())
        }
        (Some(b), _) => Ok(b.clone()),
        (None, Some(e)) => Ok(e),
        (None, None) => Err(Failure::usage(
            "no actor: pass --by NAME or set MOSAIC_AGENT_NAME",
        )),
    }
}
