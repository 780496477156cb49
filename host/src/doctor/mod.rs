//! `doctor`: a read-only look at a checkout that names every state a person or seat must act
//! on, each with the one command that cures it. It takes no lock and writes nothing, so it runs
//! while a writer holds the lock and where every other verb refuses.

mod choice;
mod claims;
mod cut;
mod files;
mod guard;
mod locks;
mod queue;
mod replication;
pub mod run;

use std::path::Path;

use serde::Serialize;

use crate::checkout;
use crate::checkout::Paths;
use crate::store::world::World;

pub use choice::Choice;

/// What a finding is about: the stable `kind` strings of `doctor --json` (docs/doctor.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    GitEnv,
    Worktree,
    NotCanonical,
    WrongBranch,
    Filesystem,
    AdoptedElsewhere,
    GateLive,
    GateDead,
    GateMismatch,
    GateUnknown,
    GateInvalid,
    LockLive,
    LockDead,
    LockMismatch,
    LockUnknown,
    LockInvalid,
    Unacknowledged,
    NoQueue,
    QueueUnreadable,
    QueueInvalid,
    WitnessMissing,
    WitnessInvalid,
    HistoryLost,
    TailNotDurable,
    GenesisNotCommitted,
    TableMissing,
    TableMarkers,
    TableStale,
    TableHandEdited,
    ReviewUnresolved,
    ClaimExpired,
    ClaimUnknown,
    FollowerNotRunning,
    FollowerBehind,
    RecordUnreadable,
    ArchiveMissing,
    ArchiveChanged,
    ArchiveUnnamed,
    ArchiveDue,
    Guard,
    GuardUnchecked,
    TempFiles,
    LockTempFiles,
    CommitIndexes,
}

impl Kind {
    /// Every kind, in the order findings are printed (the tests' list of what doctor names).
    #[cfg(any(test, feature = "fault-injection"))]
    pub const ALL: [Kind; 44] = [
        Kind::GitEnv,
        Kind::Worktree,
        Kind::NotCanonical,
        Kind::WrongBranch,
        Kind::Filesystem,
        Kind::AdoptedElsewhere,
        Kind::GateLive,
        Kind::GateDead,
        Kind::GateMismatch,
        Kind::GateUnknown,
        Kind::GateInvalid,
        Kind::LockLive,
        Kind::LockDead,
        Kind::LockMismatch,
        Kind::LockUnknown,
        Kind::LockInvalid,
        Kind::Unacknowledged,
        Kind::NoQueue,
        Kind::QueueUnreadable,
        Kind::QueueInvalid,
        Kind::WitnessMissing,
        Kind::WitnessInvalid,
        Kind::HistoryLost,
        Kind::TailNotDurable,
        Kind::GenesisNotCommitted,
        Kind::TableMissing,
        Kind::TableMarkers,
        Kind::TableStale,
        Kind::TableHandEdited,
        Kind::ReviewUnresolved,
        Kind::ClaimExpired,
        Kind::ClaimUnknown,
        Kind::FollowerNotRunning,
        Kind::FollowerBehind,
        Kind::RecordUnreadable,
        Kind::ArchiveMissing,
        Kind::ArchiveChanged,
        Kind::ArchiveUnnamed,
        Kind::ArchiveDue,
        Kind::Guard,
        Kind::GuardUnchecked,
        Kind::TempFiles,
        Kind::LockTempFiles,
        Kind::CommitIndexes,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::GitEnv => "git-env",
            Kind::Worktree => "worktree",
            Kind::NotCanonical => "not-canonical",
            Kind::WrongBranch => "wrong-branch",
            Kind::Filesystem => "filesystem",
            Kind::AdoptedElsewhere => "adopted-elsewhere",
            Kind::GateLive => "gate-live",
            Kind::GateDead => "gate-dead",
            Kind::GateMismatch => "gate-mismatch",
            Kind::GateUnknown => "gate-unknown",
            Kind::GateInvalid => "gate-invalid",
            Kind::LockLive => "lock-live",
            Kind::LockDead => "lock-dead",
            Kind::LockMismatch => "lock-mismatch",
            Kind::LockUnknown => "lock-unknown",
            Kind::LockInvalid => "lock-invalid",
            Kind::Unacknowledged => "unacknowledged",
            Kind::NoQueue => "no-queue",
            Kind::QueueUnreadable => "queue-unreadable",
            Kind::QueueInvalid => "queue-invalid",
            Kind::WitnessMissing => "witness-missing",
            Kind::WitnessInvalid => "witness-invalid",
            Kind::HistoryLost => "history-lost",
            Kind::TailNotDurable => "tail-not-durable",
            Kind::GenesisNotCommitted => "genesis-not-committed",
            Kind::TableMissing => "table-missing",
            Kind::TableMarkers => "table-markers",
            Kind::TableStale => "table-stale",
            Kind::TableHandEdited => "table-hand-edited",
            Kind::ReviewUnresolved => "review-unresolved",
            Kind::ClaimExpired => "claim-expired",
            Kind::ClaimUnknown => "claim-unknown",
            Kind::FollowerNotRunning => "follower-not-running",
            Kind::FollowerBehind => "follower-behind",
            Kind::RecordUnreadable => "record-unreadable",
            Kind::ArchiveMissing => "archive-missing",
            Kind::ArchiveChanged => "archive-changed",
            Kind::ArchiveUnnamed => "archive-unnamed",
            Kind::ArchiveDue => "archive-due",
            Kind::Guard => "guard",
            Kind::GuardUnchecked => "guard-unchecked",
            Kind::TempFiles => "temp-files",
            Kind::LockTempFiles => "lock-temp-files",
            Kind::CommitIndexes => "commit-indexes",
        }
    }
}

/// One thing doctor saw. `command` is the one command that cures it, when one does; `action`
/// says whether someone must act (false: informational, or it goes away by itself);
/// `choices` are the commands a person picks among where none cures it alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    #[serde(serialize_with = "kind_str")]
    pub kind: Kind,
    pub detail: String,
    pub command: Option<String>,
    pub action: bool,
    pub choices: Vec<Choice>,
}

fn kind_str<S: serde::Serializer>(kind: &Kind, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(kind.as_str())
}

impl Finding {
    /// Something to act on, cured by `command`.
    fn act(kind: Kind, detail: impl Into<String>, command: impl Into<String>) -> Finding {
        Finding {
            kind,
            detail: detail.into(),
            command: Some(command.into()),
            action: true,
            choices: Vec::new(),
        }
    }

    /// Something only a person can decide; `detail` says what and where.
    fn person(kind: Kind, detail: impl Into<String>) -> Finding {
        Finding {
            kind,
            detail: detail.into(),
            command: None,
            action: true,
            choices: Vec::new(),
        }
    }

    /// Something a person decides, then takes one of `choices`.
    fn choose(kind: Kind, detail: impl Into<String>, choices: Vec<Choice>) -> Finding {
        Finding {
            choices,
            ..Finding::person(kind, detail)
        }
    }

    /// Worth knowing, nothing to do.
    fn note(kind: Kind, detail: impl Into<String>) -> Finding {
        Finding {
            kind,
            detail: detail.into(),
            command: None,
            action: false,
            choices: Vec::new(),
        }
    }

    /// The finding as one line: kind, what, and the command in backticks.
    pub fn line(&self) -> String {
        match &self.command {
            Some(c) => format!("{}: {}: run `{c}`", self.kind.as_str(), self.detail),
            None => format!("{}: {}", self.kind.as_str(), self.detail),
        }
    }
}

/// What doctor found: the revision of a queue.json that verifies, and the findings in the
/// order they should be handled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    pub healthy: bool,
    pub revision: Option<u64>,
    pub findings: Vec<Finding>,
}

/// Why doctor could not look at all.
#[derive(Debug, thiserror::Error)]
pub enum DoctorError {
    /// No checkout around it (not a worktree, which is a finding): refused as every verb
    /// refuses there, in the same words.
    #[error(transparent)]
    Checkout(checkout::CheckoutError),
    #[error("cannot list {path}: {source}; check the checkout's permissions")]
    Unlistable {
        path: String,
        source: std::io::Error,
    },
}

/// Looks at the checkout around `cwd` in the real world (what the `doctor` verb runs).
pub fn inspect_checkout(cwd: &Path) -> Result<Report, DoctorError> {
    inspect(World::real(), cwd)
}

/// Looks at the checkout around `cwd`, located in-process with gitoxide; then `look`.
pub fn inspect(world: World<'_>, cwd: &Path) -> Result<Report, DoctorError> {
    let mut findings = Vec::new();
    if let Some(var) = checkout::git_env() {
        findings.push(Finding::act(
            Kind::GitEnv,
            format!("{var} is set; the queue runs only from its canonical checkout's own .git"),
            format!("unset {var}"),
        ));
    }
    let paths = match checkout::locate_ignoring_env(cwd) {
        Ok(paths) => paths,
        Err(checkout::CheckoutError::Worktree(root)) => {
            findings.push(Finding::person(
                Kind::Worktree,
                format!(
                    "{} is a linked worktree or uses a separate git dir: the queue and its lock live in the canonical checkout; run doctor there",
                    root.display()
                ),
            ));
            return Ok(finish(None, findings));
        }
        Err(e) => return Err(DoctorError::Checkout(e)),
    };
    look(world, &paths, findings)
}

/// Looks at the checkout at `paths`, with `findings` already made: everything goes through
/// `world` (its files, the lock's probe, the repository's facts), and nothing is written.
pub fn look(
    world: World<'_>,
    paths: &Paths,
    mut findings: Vec<Finding>,
) -> Result<Report, DoctorError> {
    let io = world.io;
    for dir in [&paths.git_dir, &paths.plans] {
        if let Err(source) = io.list(dir)
            && !(dir == &paths.plans && source.kind() == std::io::ErrorKind::NotFound)
        {
            return Err(DoctorError::Unlistable {
                path: dir.display().to_string(),
                source,
            });
        }
    }
    let seen = locks::inspect(world, paths, &mut findings);
    let revision = queue::inspect(world, paths, &seen, &mut findings);
    files::inspect(io, paths, &mut findings);
    findings.sort_by_key(|f| f.kind);
    Ok(finish(revision, findings))
}

fn finish(revision: Option<u64>, findings: Vec<Finding>) -> Report {
    Report {
        healthy: !findings.iter().any(|f| f.action),
        revision,
        findings,
    }
}

/// The paths as the person types them, relative to the checkout's root.
fn rel(paths: &Paths, path: &Path) -> String {
    path.strip_prefix(&paths.root)
        .unwrap_or(path)
        .display()
        .to_string()
}
