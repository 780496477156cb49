//! One typed request per verb the engine runs: a value naming the verb and its arguments, as
//! typed as the command line's grammar types them (row ids, counts, leases, spans already
//! numbers; statuses, evidence and set values still the text given, which the engine reads
//! after the policy has judged the request). Each face builds one from its own input.

use std::path::PathBuf;

use crate::values::number::Span;

/// A verb and its arguments. The faces' own verbs (`mcp`, `board`, `gate`, `demo`,
/// `completions`, `man`) are not requests: each face serves or prints those itself.
#[derive(Debug, Clone)]
pub enum Request {
    List,
    /// `list --stale SPAN`.
    Stale {
        span: Span,
    },
    Show {
        id: u64,
    },
    Next {
        seat: Option<String>,
        explain: bool,
    },
    Wait {
        id: Option<u64>,
        status: Vec<String>,
        revision_after: Option<u64>,
        /// Seconds as given; the engine reads them (a remote policy needs them bounded).
        timeout: Option<String>,
    },
    Prime {
        seat: Option<String>,
    },
    Log {
        id: Option<u64>,
        limit: Option<u64>,
    },
    Take {
        lease: Option<u32>,
        no_reclaim: bool,
        change: Change,
    },
    Heartbeat {
        by: Option<String>,
    },
    Add {
        row: NewRowText,
        change: Change,
    },
    Move {
        moved: MoveText,
        change: Change,
    },
    Release {
        id: u64,
        change: Change,
    },
    Assign {
        id: u64,
        seat: String,
        change: Change,
    },
    Note {
        id: u64,
        text: String,
        change: Change,
    },
    Set {
        id: u64,
        field: String,
        value: String,
        reason: Option<String>,
        change: Change,
    },
    /// `lease-default LEASE|off`: seconds, or none.
    LeaseDefault {
        lease: Option<u32>,
        change: Change,
    },
    Reclaim {
        id: u64,
        reason: String,
        change: Change,
    },
    /// `replication required|off`.
    Replication {
        mode: mosaic_queue_core::ReplicationMode,
        change: Change,
    },
    /// `adopt --from REMOTE --ref REF`, each remote call within `git_timeout` seconds.
    Adopt {
        from: String,
        reference: String,
        git_timeout: u32,
        change: Change,
    },
    Genesis {
        map: PathBuf,
        change: Change,
    },
    AcceptHistory {
        reason: String,
        yes: bool,
        change: Change,
    },
    /// `archive --before REV`: the cut.
    Archive {
        before: u64,
        yes: bool,
        change: Change,
    },
    Review(Review),
    Verify {
        current: bool,
        full: bool,
    },
    VerifySnapshot {
        dir: PathBuf,
        base: Option<PathBuf>,
    },
    Render {
        check: bool,
    },
    Sync {
        op: Option<String>,
    },
    Unlock {
        check_gate: bool,
    },
    Snapshot {
        out: PathBuf,
    },
    Commit {
        message: String,
        genesis: bool,
        by: Option<String>,
    },
    Doctor,
    Guard,
    InstallHook {
        by: Option<String>,
    },
    MapCheck {
        map: PathBuf,
    },
}

/// The review verbs.
#[derive(Debug, Clone)]
pub enum Review {
    Request {
        id: u64,
        change: Change,
    },
    Resolve {
        id: u64,
        attempt: String,
        comment: u64,
        change: Change,
    },
    Abandon {
        id: u64,
        attempt: String,
        reason: String,
        yes: bool,
        change: Change,
    },
    Record {
        id: u64,
        verdict: String,
        comment: u64,
        candidate: String,
        change: Change,
    },
    VerifyCommit {
        id: u64,
        reference: String,
    },
}

/// `--op ID` and `--by NAME`, as every change takes them; the engine checks the op and
/// resolves the actor in the contract's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub op: String,
    pub by: Option<String>,
    /// `--replication-timeout`: seconds a receipt waits for the follower under
    /// `replication required` (none: the default).
    pub replication_timeout: Option<u32>,
}

/// `add`'s row as given.
#[derive(Debug, Clone)]
pub struct NewRowText {
    pub piece: String,
    pub owner: Option<String>,
    pub issues: Vec<String>,
    pub gate: Option<String>,
    pub reviewers: Vec<String>,
    pub brief: Option<String>,
    pub note: Option<String>,
    pub status: String,
    pub after: Vec<String>,
}

/// `move ID STATUS`'s arguments as given.
#[derive(Debug, Clone)]
pub struct MoveText {
    pub id: u64,
    pub status: String,
    pub reason: Option<String>,
    pub candidate: Option<Candidate>,
    pub issue: Option<u64>,
    pub evidence: Option<String>,
    pub lease: Option<u32>,
}

/// A move's candidate as given; the engine reads it only once the policy has let the request
/// through (a remote seat never gets a file on the queue host read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Candidate {
    /// `--candidate FILE|REV`: a manifest file or a commit, from the working directory.
    Named(String),
    /// A manifest's text and where it came from (`--manifest-text`, MCP's `manifest`).
    Text { from: &'static str, text: String },
    /// `--manifest-stdin`: the manifest's text, read from this process's stdin.
    Stdin,
}

impl Request {
    /// The verb as typed (`review request`), which `--json` names in its text documents.
    pub fn name(&self) -> &'static str {
        match self {
            Request::List | Request::Stale { .. } => "list",
            Request::Show { .. } => "show",
            Request::Next { .. } => "next",
            Request::Wait { .. } => "wait",
            Request::Prime { .. } => "prime",
            Request::Log { .. } => "log",
            Request::Take { .. } => "take",
            Request::Heartbeat { .. } => "heartbeat",
            Request::Add { .. } => "add",
            Request::Move { .. } => "move",
            Request::Release { .. } => "release",
            Request::Assign { .. } => "assign",
            Request::Note { .. } => "note",
            Request::Set { .. } => "set",
            Request::LeaseDefault { .. } => "lease-default",
            Request::Reclaim { .. } => "reclaim",
            Request::Replication { .. } => "replication",
            Request::Adopt { .. } => "adopt",
            Request::Genesis { .. } => "genesis",
            Request::AcceptHistory { .. } => "accept-history",
            Request::Archive { .. } => "archive",
            Request::Review(review) => match review {
                Review::Request { .. } => "review request",
                Review::Resolve { .. } => "review resolve",
                Review::Abandon { .. } => "review abandon",
                Review::Record { .. } => "review record",
                Review::VerifyCommit { .. } => "review verify-commit",
            },
            Request::Verify { .. } | Request::VerifySnapshot { .. } => "verify",
            Request::Render { .. } => "render",
            Request::Sync { .. } => "sync",
            Request::Unlock { .. } => "unlock",
            Request::Snapshot { .. } => "snapshot",
            Request::Commit { .. } => "commit",
            Request::Doctor => "doctor",
            Request::Guard => "guard",
            Request::InstallHook { .. } => "install-hook",
            Request::MapCheck { .. } => "map-check",
        }
    }

    /// Whether the verb writes log entries, whose receipt is its `--json` document.
    pub fn is_change(&self) -> bool {
        match self {
            Request::Review(review) => !matches!(review, Review::VerifyCommit { .. }),
            _ => self.change().is_some(),
        }
    }

    /// Whether the engine runs this request in the world it is given (`engine::run_in`): the
    /// reads of rows and the changes; the rest reach the real checkout themselves.
    pub fn runs_in_any_world(&self) -> bool {
        match self {
            Request::List
            | Request::Show { .. }
            | Request::Next { .. }
            | Request::Take { .. }
            | Request::Heartbeat { .. }
            | Request::Add { .. }
            | Request::Move { .. }
            | Request::Release { .. }
            | Request::Assign { .. }
            | Request::Note { .. }
            | Request::Set { .. }
            | Request::LeaseDefault { .. }
            | Request::Reclaim { .. }
            | Request::Replication { .. } => true,
            Request::Review(review) => matches!(
                review,
                Review::Request { .. } | Review::Abandon { .. } | Review::Record { .. }
            ),
            _ => false,
        }
    }

    /// The `--op`/`--by` of a change.
    pub fn change(&self) -> Option<&Change> {
        match self {
            Request::Take { change, .. }
            | Request::Add { change, .. }
            | Request::Move { change, .. }
            | Request::Release { change, .. }
            | Request::Assign { change, .. }
            | Request::Note { change, .. }
            | Request::Set { change, .. }
            | Request::LeaseDefault { change, .. }
            | Request::Reclaim { change, .. }
            | Request::Replication { change, .. }
            | Request::Adopt { change, .. }
            | Request::Genesis { change, .. }
            | Request::AcceptHistory { change, .. }
            | Request::Archive { change, .. } => Some(change),
            Request::Review(review) => match review {
                Review::Request { change, .. }
                | Review::Resolve { change, .. }
                | Review::Abandon { change, .. }
                | Review::Record { change, .. } => Some(change),
                Review::VerifyCommit { .. } => None,
            },
            _ => None,
        }
    }

    /// The actor a request names, with the flag that named it: a change's `--by`, or the
    /// `--by` of commit, install-hook and heartbeat.
    pub fn named_actor(&self) -> Option<(&str, &'static str)> {
        let by = match self {
            Request::Commit { by, .. }
            | Request::InstallHook { by }
            | Request::Heartbeat { by } => by,
            _ => &self.change()?.by,
        };
        by.as_deref().map(|by| (by, "--by"))
    }
}
