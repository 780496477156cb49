//! One error enum per domain: canonical bytes, verb refusals, review rules, replay, the
//! migration map, the table markers, the witness and snapshots; and `Error`, any of them, which
//! the host and the wasm build each turn into their own failure in one place. Each has a
//! stable `kind()` code that fixtures, JSON answers and JavaScript errors carry; the `Display`
//! text is what a person reads.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use thiserror::Error;

use crate::model::Status;

/// Any error of the core: what a caller that does not match on the domain turns into its own
/// failure, once. `Display` is the domain error's own line and `kind()` its own kind.
#[derive(Error, Debug, Clone, PartialEq, Eq)]
pub enum Error {
    #[error(transparent)]
    Canon(#[from] CanonError),
    #[error(transparent)]
    Verb(#[from] VerbError),
    #[error(transparent)]
    Review(#[from] ReviewError),
    #[error(transparent)]
    Replay(#[from] ReplayError),
    #[error(transparent)]
    Queue(#[from] QueueError),
    #[error(transparent)]
    Map(#[from] MapError),
    #[error(transparent)]
    Table(#[from] TableError),
    #[error(transparent)]
    Witness(#[from] WitnessError),
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
}

impl Error {
    /// The stable kind of the error inside.
    pub fn kind(&self) -> &'static str {
        match self {
            Error::Canon(e) => e.kind(),
            Error::Verb(e) => e.kind(),
            Error::Review(e) => e.kind(),
            Error::Replay(e) => e.kind(),
            Error::Queue(e) => e.kind(),
            Error::Map(e) => e.kind(),
            Error::Table(e) => e.kind(),
            Error::Witness(e) => e.kind(),
            Error::Snapshot(e) => e.kind(),
        }
    }

    /// The kind of the verb refusal behind an `entry-refused`: the rule a logged entry broke
    /// when the log replayed (in a queue file, a snapshot or its base). `None` otherwise.
    pub fn refused(&self) -> Option<&'static str> {
        let replay = match self {
            Error::Replay(e) => e,
            Error::Queue(QueueError::Replay(e)) => e,
            Error::Snapshot(SnapshotError::Invalid(QueueError::Replay(e)))
            | Error::Snapshot(SnapshotError::BaseInvalid(QueueError::Replay(e))) => e,
            _ => return None,
        };
        match replay {
            ReplayError::Refused { source, .. } => Some(source.kind()),
            _ => None,
        }
    }
}

/// The bytes of a document are not a canonical queue file.
#[derive(Error, Debug, Clone, PartialEq, Eq)]
pub enum CanonError {
    /// A UTF-8 byte-order mark precedes the JSON.
    #[error("the file starts with a UTF-8 byte-order mark; remove those three bytes")]
    ByteOrderMark,
    /// The bytes are not valid UTF-8.
    #[error("invalid UTF-8 at byte {offset} (line {line}, column {column})")]
    NotUtf8 {
        offset: usize,
        line: usize,
        column: usize,
    },
    /// An integer beyond 2^53-1, which JavaScript would not keep exact.
    #[error(
        "integer too large at line {line}, column {column} (byte {offset}): the limit is 9007199254740991"
    )]
    UnsafeInteger {
        offset: usize,
        line: usize,
        column: usize,
    },
    /// Not JSON at all.
    #[error("not valid JSON at line {line}, column {column} (byte {offset}): {message}")]
    Syntax {
        line: usize,
        column: usize,
        offset: usize,
        message: String,
    },
    /// JSON, but not the queue's schema (a missing, unknown, duplicate or mistyped field).
    #[error("does not match the schema at line {line}, column {column} (byte {offset}): {message}")]
    Schema {
        line: usize,
        column: usize,
        offset: usize,
        message: String,
    },
    /// Valid and in schema, but not byte-identical to its own re-serialization.
    #[error(
        "not in canonical form at line {line}, column {column} (byte {offset}): expected {expected}, found {found}"
    )]
    NotCanonical {
        offset: usize,
        line: usize,
        column: usize,
        expected: String,
        found: String,
    },
}

impl CanonError {
    pub fn kind(&self) -> &'static str {
        match self {
            CanonError::ByteOrderMark => "bom",
            CanonError::NotUtf8 { .. } => "not-utf8",
            CanonError::UnsafeInteger { .. } => "unsafe-integer",
            CanonError::Syntax { .. } => "json-syntax",
            CanonError::Schema { .. } => "schema",
            CanonError::NotCanonical { .. } => "not-canonical",
        }
    }
}

/// A verb refused: the command breaks a rule of the queue. Nothing is written.
#[derive(Error, Debug, Clone, PartialEq, Eq)]
pub enum VerbError {
    #[error(
        "op id {op} is invalid: use 8 to 72 characters of [a-z0-9._-], starting with a letter or digit, not ending in .outcome"
    )]
    /// `op` as `rules::shown` quotes it.
    InvalidOp { op: String },
    #[error(
        "actor {name} is not a seat name: use 1 to 32 characters of [a-z0-9-], starting with a letter"
    )]
    InvalidActor { name: String },
    #[error(
        "seat {name} is not a seat name: use 1 to 32 characters of [a-z0-9-], starting with a letter"
    )]
    InvalidSeat { name: String },
    #[error(
        "op `{op}` was already used at rev {rev} for another command ({verb}); choose a new op id"
    )]
    OpReused {
        op: String,
        rev: u64,
        verb: &'static str,
    },
    #[error(
        "op `{op}` was recorded at rev {rev} by {recorded_by}, not {actor}; choose a new op id"
    )]
    OpOtherActor {
        op: String,
        rev: u64,
        recorded_by: String,
        actor: String,
    },
    #[error("no row {id} in the queue; `mosaic-queue list` shows the rows")]
    NoSuchRow { id: u64 },
    #[error("row {id} is done; a done row accepts no further changes")]
    RowDone { id: u64 },
    #[error("{actor} may not {action}: {who}")]
    NotAllowed {
        actor: String,
        action: String,
        who: &'static str,
    },
    #[error("row {id} cannot move from {from} to {to}; see docs/transitions.md")]
    NoTransition { id: u64, from: Status, to: Status },
    #[error("row {id} is already {status}{}", owner.as_ref().map_or(String::new(), |o| alloc::format!(" (owner {o})")))]
    SameStatus {
        id: u64,
        status: Status,
        owner: Option<String>,
    },
    #[error("moving row {id} to {to} needs --reason TEXT")]
    MissingReason { id: u64, to: Status },
    #[error("moving row {id} to in-review needs --candidate FILE|REV")]
    MissingCandidate { id: u64 },
    #[error("{flag} applies only to a move to in-review; drop it")]
    CandidateNotAllowed { flag: &'static str },
    /// `value` as `rules::shown` quotes it.
    #[error("candidate {value} is not a digest: use sha256:<64 hex> or git:<40 hex>")]
    BadDigest { value: String },
    #[error("{field} {why}")]
    BadText {
        field: &'static str,
        why: &'static str,
    },
    #[error(
        "{field} looks like it holds a credential ({what}); the log is committed to git forever, so leave secrets out"
    )]
    CredentialLike {
        field: &'static str,
        what: &'static str,
    },
    #[error(
        "{field} contains U+{code:04X} ({what}), which shows differently from its bytes; remove it"
    )]
    Invisible {
        field: &'static str,
        code: u32,
        what: &'static str,
    },
    #[error(
        "the op id looks like a credential ({what}); op ids are committed with the log and printed in receipts, so use a plain one such as seat-row-verb-1"
    )]
    OpTokenLike { what: &'static str },
    #[error(
        "{field} lists {count} entries; a row holds at most {max} (split the work over more rows)"
    )]
    ListTooLong {
        field: &'static str,
        count: usize,
        max: usize,
    },
    #[error("issue numbers must be positive integers; got {value}")]
    BadIssue { value: u64 },
    /// A number queue.json could not hold exactly; refused before anything is written.
    #[error(
        "{field} {value} is above 9007199254740991 (2^53-1), the largest number queue.json can hold; give the real number"
    )]
    NumberTooLarge { field: &'static str, value: u64 },
    #[error("issue lists in the log must be ascending without repeats")]
    IssueOrder,
    #[error("seat {name:?} is listed twice")]
    DuplicateSeat { name: String },
    #[error(
        "row {id} round {round} lacks approval from {missing}; each reviewer runs `review record`"
    )]
    NotApproved {
        id: u64,
        round: u32,
        missing: String,
    },
    #[error("closes must be a subset of the row's issues ({issues}); not listed: #{missing}")]
    ClosesNotSubset { issues: String, missing: u64 },
    #[error("narrowing closes on row {id} needs --reason TEXT")]
    NarrowNeedsReason { id: u64 },
    #[error("`set {field}` takes {expected}")]
    SetValueType {
        field: &'static str,
        expected: &'static str,
    },
    #[error("the queue already has a genesis entry; genesis runs once")]
    GenesisExists,
    #[error("the queue has no genesis entry; run `mosaic-queue genesis --map FILE` first")]
    NoGenesis,
    #[error("row {id} has no issues, so it cannot open a review round; `set {id} issues N` first")]
    NoIssues { id: u64 },
    #[error("row {id} has several issues ({issues}); name one with --issue N")]
    IssueRequired { id: u64, issues: String },
    #[error(
        "issue #{issue} is not among row {id}'s issues ({issues}); name one of them with --issue N"
    )]
    IssueNotListed { id: u64, issue: u64, issues: String },
    #[error(
        "moving row {id} to done from a round that posted nothing needs --evidence comment=<id>,round=<n>,candidate=<digest>"
    )]
    EvidenceRequired { id: u64 },
    #[error("--evidence does not match row {id}'s current round: {why}")]
    EvidenceMismatch { id: u64, why: &'static str },
    #[error("--evidence applies only to a move from in-review to done; drop it")]
    EvidenceNotAllowed,
    #[error("timestamp {at:?} is not UTC ISO-8601 with milliseconds (YYYY-MM-DDTHH:MM:SS.mmmZ)")]
    BadTimestamp { at: String },
    #[error("semantics {semantics} is not supported by this build (it writes {current})")]
    UnknownSemantics { semantics: u8, current: u8 },
    #[error("{what} needs --yes to confirm")]
    NeedsConfirmation { what: &'static str },
    #[error("the migration map is invalid: {0}")]
    Map(#[from] MapError),
    #[error(transparent)]
    Review(#[from] ReviewError),
    #[error(transparent)]
    Claim(#[from] ClaimError),
    #[error(transparent)]
    Replication(#[from] ReplicationError),
    #[error(
        "{what} needs semantics 3 (take and dependencies between rows); this entry is under {semantics}"
    )]
    NeedsSemantics3 { what: &'static str, semantics: u8 },
    #[error("nothing for {seat} to take")]
    NothingToTake { seat: String },
    #[error("take names row {id}, but next for {seat} names {next}")]
    NotNext { id: u64, seat: String, next: String },
    #[error("row {id} cannot wait on row {after}: there is no such row")]
    NoSuchDependency { id: u64, after: u64 },
    #[error("row {id} cannot wait on {path}: that makes a cycle")]
    DependencyCycle { id: u64, path: String },
    /// `rows`: the rows the set would add, as `coord` quotes them.
    #[error(
        "row {id} cannot wait on {rows}: more than 1000 rows wait on row {id}, directly or through others, and the rows it would add wait on more than 1000, more than one set may join (docs/coordination.md); make a row that fewer rows wait on wait on them instead, or clear dependencies that are no longer needed first"
    )]
    DependencyReach { id: u64, rows: String },
    #[error(
        "the set … after entries of semantics 3 and 4 up to here make the cycle check search more than {budget} steps (64 per entry plus 1000000), which no tool writes: restore queue.json from git (`git checkout -- docs/plans/queue.json`) or see Manual recovery"
    )]
    DependencyBudget { budget: u64 },
    #[error("a dependency list must name rows in ascending order without repeats")]
    DependencyOrder,
    #[error(
        "row {id} is done and archived in docs/plans/archive/epoch-{epoch:04}.json: `show {id}` reads it; a dependency on it is already met"
    )]
    RowArchived { id: u64, epoch: u32 },
    /// Never an answer by itself: the host reads the archives named and asks again
    /// (`Queue::execute_with_archives`).
    #[error(
        "op `{op}` is not in queue.json but may be in {}; read them to answer the retry",
        epoch_files(epochs)
    )]
    OpMaybeArchived { op: String, epochs: Vec<u32> },
    #[error(
        "archive --before {before} is out of range: give a revision from {low} to {high} (the cut keeps the entries from that revision on)"
    )]
    CutRange { before: u64, low: u64, high: u64 },
    #[error("op id {op} ends in .epoch, which the first entry of a cut log takes; choose another")]
    ReservedOp { op: String },
    #[error(
        "docs/plans/archive/epoch-{epoch:04}.json is not the archive the epoch names (its sha differs); restore it from git"
    )]
    ArchiveMismatch { epoch: u32 },
    /// An `epoch` or `archive` entry that does not hold together.
    #[error("the cut's entry is not as a cut writes it: {why}")]
    EpochEntry { why: &'static str },
}

/// `docs/plans/archive/epoch-0001.json and …-0002.json`, as refusals name archives.
pub(crate) fn epoch_files(epochs: &[u32]) -> String {
    let names: Vec<String> = epochs
        .iter()
        .map(|e| alloc::format!("docs/plans/archive/epoch-{e:04}.json"))
        .collect();
    names.join(", ")
}

impl VerbError {
    pub fn kind(&self) -> &'static str {
        match self {
            VerbError::InvalidOp { .. } => "invalid-op",
            VerbError::InvalidActor { .. } => "invalid-actor",
            VerbError::InvalidSeat { .. } => "invalid-seat",
            VerbError::OpReused { .. } => "op-reused",
            VerbError::OpOtherActor { .. } => "op-other-actor",
            VerbError::NoSuchRow { .. } => "no-such-row",
            VerbError::RowDone { .. } => "row-done",
            VerbError::NotAllowed { .. } => "not-allowed",
            VerbError::NoTransition { .. } => "no-transition",
            VerbError::SameStatus { .. } => "same-status",
            VerbError::MissingReason { .. } => "missing-reason",
            VerbError::MissingCandidate { .. } => "missing-candidate",
            VerbError::CandidateNotAllowed { .. } => "candidate-not-allowed",
            VerbError::BadDigest { .. } => "bad-digest",
            VerbError::BadText { .. } => "bad-text",
            VerbError::CredentialLike { .. } => "credential-like",
            VerbError::Invisible { .. } => "invisible-character",
            VerbError::OpTokenLike { .. } => "op-token-like",
            VerbError::ListTooLong { .. } => "list-too-long",
            VerbError::BadIssue { .. } => "bad-issue",
            VerbError::NumberTooLarge { .. } => "number-too-large",
            VerbError::IssueOrder => "issue-order",
            VerbError::DuplicateSeat { .. } => "duplicate-seat",
            VerbError::NotApproved { .. } => "not-approved",
            VerbError::ClosesNotSubset { .. } => "closes-not-subset",
            VerbError::NarrowNeedsReason { .. } => "narrow-needs-reason",
            VerbError::SetValueType { .. } => "set-value-type",
            VerbError::GenesisExists => "genesis-exists",
            VerbError::NoGenesis => "no-genesis",
            VerbError::NoIssues { .. } => "no-issues",
            VerbError::IssueRequired { .. } => "issue-required",
            VerbError::IssueNotListed { .. } => "issue-not-listed",
            VerbError::EvidenceRequired { .. } => "evidence-required",
            VerbError::EvidenceMismatch { .. } => "evidence-mismatch",
            VerbError::EvidenceNotAllowed => "evidence-not-allowed",
            VerbError::BadTimestamp { .. } => "bad-timestamp",
            VerbError::UnknownSemantics { .. } => "unknown-semantics",
            VerbError::NeedsConfirmation { .. } => "needs-confirmation",
            VerbError::Map(_) => "bad-map",
            VerbError::Review(e) => e.kind(),
            VerbError::Claim(e) => e.kind(),
            VerbError::Replication(e) => e.kind(),
            VerbError::NeedsSemantics3 { .. } => "needs-semantics-3",
            VerbError::NothingToTake { .. } => "nothing-to-take",
            VerbError::NotNext { .. } => "not-next",
            VerbError::NoSuchDependency { .. } => "no-such-dependency",
            VerbError::DependencyCycle { .. } => "dependency-cycle",
            VerbError::DependencyReach { .. } => "dependency-reach",
            VerbError::DependencyBudget { .. } => "dependency-budget",
            VerbError::DependencyOrder => "dependency-order",
            VerbError::RowArchived { .. } => "row-archived",
            VerbError::OpMaybeArchived { .. } => "op-maybe-archived",
            VerbError::CutRange { .. } => "cut-range",
            VerbError::ReservedOp { .. } => "reserved-op",
            VerbError::EpochEntry { .. } => "epoch-entry",
            VerbError::ArchiveMismatch { .. } => "archive-mismatch",
        }
    }
}

/// A claim's lease, a reclaim or a fence refuses (semantics 7, docs/coordination.md).
#[derive(Error, Debug, Clone, PartialEq, Eq)]
pub enum ClaimError {
    #[error(
        "{text} is not a lease: write a whole number of seconds, minutes or hours without spaces, like 90s, 45m or 2h"
    )]
    LeaseForm { text: String },
    #[error(
        "a lease of {seconds} seconds is out of bounds: give one from 1m to 24h (60 to 86400 seconds), or none for a claim that never expires"
    )]
    LeaseRange { seconds: u64 },
    #[error(
        "{what} carries a lease, but a lease binds a claim (a row in progress under a seat): give --lease only to take or to a move into in-progress that leaves the row with an owner"
    )]
    LeaseNotClaim { what: &'static str },
    #[error(
        "{what} needs semantics 7 (leases, reclaims and rows named as rows); this entry is under {semantics}"
    )]
    NeedsSemantics7 { what: &'static str, semantics: u8 },
    #[error(
        "this entry is under semantics {semantics} after an entry under semantics 7; once a queue writes 7, every later entry carries it"
    )]
    SemanticsDropped { semantics: u8 },
    #[error("row {id} is {status}, not in progress under a seat: there is no claim to end")]
    NoClaim { id: u64, status: Status },
    /// `now`: what holds the row instead, as a phrase (`it is queued`, `huey holds it`).
    #[error(
        "row {id} is not claimed by {from}: {now}; a reclaim ends the claim of the seat that holds the row in progress"
    )]
    NotHolder { id: u64, from: String, now: String },
    #[error(
        "the reclaim of row {id} records {recorded}, but {from}'s claim on it has {claim}: a reclaim names the lease of the claim it ends"
    )]
    ReclaimLease {
        id: u64,
        from: String,
        recorded: String,
        claim: String,
    },
    #[error(
        "the reclaim of row {id} cites {from}'s last sign of life at {seen}, before {from}'s last entry on the row at {logged}"
    )]
    ReclaimSign {
        id: u64,
        from: String,
        seen: String,
        logged: String,
    },
    /// `when`: the entry's time against the lease's end, as a phrase.
    #[error(
        "row {id} is reclaimed from {from} {when}: wait until then, or have the lead, jason or sage run `mosaic-queue reclaim {id} --reason TEXT`"
    )]
    ReclaimEarly { id: u64, from: String, when: String },
    /// `held`: who holds the row now and since which revision, as a phrase.
    #[error(
        "row {id} was reclaimed from {seat} at rev {rev} and {held}: {seat}'s changes to it are refused (retries of its earlier ops still answer); `mosaic-queue take` finds other work"
    )]
    Fenced {
        id: u64,
        seat: String,
        rev: u64,
        held: String,
    },
}

impl ClaimError {
    pub fn kind(&self) -> &'static str {
        match self {
            ClaimError::LeaseForm { .. } => "lease-form",
            ClaimError::LeaseRange { .. } => "lease-range",
            ClaimError::LeaseNotClaim { .. } => "lease-not-claim",
            ClaimError::NeedsSemantics7 { .. } => "needs-semantics-7",
            ClaimError::SemanticsDropped { .. } => "semantics-dropped",
            ClaimError::NoClaim { .. } => "no-claim",
            ClaimError::NotHolder { .. } => "reclaim-not-holder",
            ClaimError::ReclaimLease { .. } => "reclaim-lease",
            ClaimError::ReclaimSign { .. } => "reclaim-sign",
            ClaimError::ReclaimEarly { .. } => "reclaim-early",
            ClaimError::Fenced { .. } => "fenced",
        }
    }
}

/// A lease the duration parser refused is a verb refusal like any other: one `Error` for the
/// host and the wasm build to turn into theirs.
impl From<ClaimError> for Error {
    fn from(e: ClaimError) -> Error {
        Error::Verb(VerbError::Claim(e))
    }
}

/// The replication setting or an adopt refuses (semantics 8, docs/replication.md).
#[derive(Error, Debug, Clone, PartialEq, Eq)]
pub enum ReplicationError {
    #[error("{what} needs semantics 8 (replication and adopt); this entry is under {semantics}")]
    NeedsSemantics8 { what: &'static str, semantics: u8 },
    #[error(
        "this entry is under semantics {semantics} after an entry under semantics 8; once a queue writes 8, every later entry carries it"
    )]
    SemanticsDropped { semantics: u8 },
    #[error(
        "adopt names revision {named}, but it stands at revision {rev}: an adopt is the entry right after the revision it adopts"
    )]
    Revision { named: u64, rev: u64 },
    #[error(
        "adopt says the queue came from {from}, but its canonical root was {root}: an adopt names the root it takes over from"
    )]
    From { from: String, root: String },
    #[error("adopt's new root {root:?} is not an absolute path without a control character")]
    Root { root: String },
    #[error(
        "adopt's host {host:?} is not a machine's name (1 to 255 characters, no space or control character)"
    )]
    Host { host: String },
    #[error("adopt's commit {commit:?} is not 40 or 64 lowercase hex")]
    Commit { commit: String },
}

impl ReplicationError {
    pub fn kind(&self) -> &'static str {
        match self {
            ReplicationError::NeedsSemantics8 { .. } => "needs-semantics-8",
            ReplicationError::SemanticsDropped { .. } => "semantics-dropped",
            ReplicationError::Revision { .. } => "adopt-revision",
            ReplicationError::From { .. } => "adopt-from",
            ReplicationError::Root { .. } => "adopt-root",
            ReplicationError::Host { .. } => "adopt-host",
            ReplicationError::Commit { .. } => "adopt-commit",
        }
    }
}

/// A review step breaks the review rules: rounds, request attempts, outcomes, verdicts,
/// manifests, or the comment a resolve names.
#[derive(Error, Debug, Clone, PartialEq, Eq)]
pub enum ReviewError {
    #[error(
        "{verb} entries need semantics 2 (review requests); semantics {semantics} predates them"
    )]
    NeedsSemantics2 { verb: &'static str, semantics: u8 },
    #[error("row {id} is {status}; review {what} needs it in-review")]
    NotInReview {
        id: u64,
        status: Status,
        what: &'static str,
    },
    #[error("row {id} has no review round; `move {id} in-review --candidate …` opens one")]
    NoRound { id: u64 },
    #[error(
        "row {id} round {round} posts no request (the row had no reviewers when it opened); nothing to request"
    )]
    NotRequestRound { id: u64, round: u32 },
    #[error(
        "row {id} has an unresolved request: {attempt} is {state} on issue #{issue}; look there for a comment carrying <!-- mosaic-queue-op: {attempt} -->, then run `review resolve {id} {attempt} --comment N`, or have jason or sage run `review abandon {id} {attempt} --reason TEXT --yes`"
    )]
    Unresolved {
        id: u64,
        attempt: String,
        state: &'static str,
        issue: u64,
    },
    #[error(
        "row {id} round {round} already has request {attempt} ({state}); `review request` makes a new attempt only after a failed or abandoned one"
    )]
    NotRetryable {
        id: u64,
        round: u32,
        attempt: String,
        state: &'static str,
    },
    #[error("row {id} has no request attempt {attempt}; `mosaic-queue show {id}` lists its rounds")]
    NoSuchAttempt { id: u64, attempt: String },
    #[error(
        "the outcome of attempt {attempt} must be logged as op `{attempt}.outcome`, not {op:?}"
    )]
    OutcomeOp { op: String, attempt: String },
    #[error("the outcome of attempt {attempt} is logged by its requester {requester}, not {actor}")]
    OutcomeActor {
        attempt: String,
        requester: String,
        actor: String,
    },
    #[error("an outcome {result} {why}")]
    OutcomeShape {
        result: &'static str,
        why: &'static str,
    },
    #[error("attempt {attempt} already has its outcome ({state})")]
    OutcomeTwice {
        attempt: String,
        state: &'static str,
    },
    #[error(
        "attempt {attempt} is {state}; resolve records a comment for a requesting, uncertain, conflicting or abandoned attempt"
    )]
    CannotResolve {
        attempt: String,
        state: &'static str,
    },
    #[error(
        "attempt {attempt} is {state}; abandon applies to a requesting or uncertain attempt (a conflict has a comment: resolve it)"
    )]
    CannotAbandon {
        attempt: String,
        state: &'static str,
    },
    #[error(
        "{by} already recorded a verdict on row {id} round {round}; one per reviewer per round"
    )]
    VerdictTwice { id: u64, round: u32, by: String },
    #[error("--candidate {given} is not row {id} round {round}'s candidate {expected}")]
    CandidateMismatch {
        id: u64,
        round: u32,
        given: String,
        expected: String,
    },
    #[error("comment ids are positive integers; got {value}")]
    BadComment { value: u64 },
    #[error("the manifest is invalid at line {line}: {why}")]
    Manifest { line: usize, why: &'static str },
    #[error(
        "the manifest is {bytes} bytes; a manifest holds at most 4 MiB (4194304 bytes): list fewer files, or name a commit as the candidate"
    )]
    ManifestTooLarge { bytes: usize },
    #[error(
        "the manifest's path at line {line} contains U+{code:04X} ({what}), which shows differently from its bytes; rename the file or leave it out"
    )]
    ManifestInvisible {
        line: usize,
        code: u32,
        what: &'static str,
    },
    #[error(
        "the manifest's path at line {line} looks like it holds a credential ({what}); the log is committed to git forever, so leave secrets out"
    )]
    ManifestCredential { line: usize, what: &'static str },
    #[error("the manifest hashes to {found}, not the candidate {expected}")]
    ManifestDigest { expected: String, found: String },
    #[error("candidate {candidate}: {why}")]
    ManifestPresence {
        candidate: String,
        why: &'static str,
    },
    #[error("comment {comment} does not answer attempt {attempt}: {why}")]
    WrongComment {
        comment: u64,
        attempt: String,
        why: String,
    },
}

impl ReviewError {
    pub fn kind(&self) -> &'static str {
        match self {
            ReviewError::NeedsSemantics2 { .. } => "review-needs-semantics-2",
            ReviewError::NotInReview { .. } => "not-in-review",
            ReviewError::NoRound { .. } => "no-round",
            ReviewError::NotRequestRound { .. } => "not-request-round",
            ReviewError::Unresolved { .. } => "unresolved-request",
            ReviewError::NotRetryable { .. } => "not-retryable",
            ReviewError::NoSuchAttempt { .. } => "no-such-attempt",
            ReviewError::OutcomeOp { .. } => "outcome-op",
            ReviewError::OutcomeActor { .. } => "outcome-actor",
            ReviewError::OutcomeShape { .. } => "outcome-shape",
            ReviewError::OutcomeTwice { .. } => "outcome-twice",
            ReviewError::CannotResolve { .. } => "cannot-resolve",
            ReviewError::CannotAbandon { .. } => "cannot-abandon",
            ReviewError::VerdictTwice { .. } => "verdict-twice",
            ReviewError::CandidateMismatch { .. } => "candidate-mismatch",
            ReviewError::BadComment { .. } => "bad-comment",
            ReviewError::Manifest { .. } => "bad-manifest",
            ReviewError::ManifestTooLarge { .. } => "manifest-too-large",
            ReviewError::ManifestInvisible { .. } => "manifest-invisible-character",
            ReviewError::ManifestCredential { .. } => "manifest-credential",
            ReviewError::ManifestDigest { .. } => "manifest-digest",
            ReviewError::ManifestPresence { .. } => "manifest-presence",
            ReviewError::WrongComment { .. } => "wrong-comment",
        }
    }
}

/// The log does not replay from genesis to the file's rows and revision.
#[derive(Error, Debug, Clone, PartialEq, Eq)]
pub enum ReplayError {
    #[error("format version {found} is not supported (this build reads {supported})")]
    Version { found: u32, supported: u32 },
    #[error("the log is empty; a queue file starts with its genesis entry")]
    EmptyLog,
    #[error(
        "log entry {index} has rev {found}; expected {expected} (the log skips or repeats a revision)"
    )]
    RevSequence {
        index: usize,
        expected: u64,
        found: u64,
    },
    #[error("log entry rev {rev} is refused by the rules it was written under: {source}")]
    Refused { rev: u64, source: Box<VerbError> },
    #[error("log entry rev {rev} records receipt {found:?}, but replay gives {expected:?}")]
    Receipt {
        rev: u64,
        expected: String,
        found: String,
    },
    #[error("log entry rev {rev} repeats op `{op}` first used at rev {first}")]
    DuplicateOp { rev: u64, op: String, first: u64 },
    #[error("log entry rev {rev} has a malformed body hash; expected 64 lowercase hex digits")]
    BodyHash { rev: u64 },
    #[error("canonicalRoot is {found:?}, but genesis recorded {recorded:?}")]
    Root { recorded: String, found: String },
    #[error("revision is {found}, but the log replays to {expected}")]
    Revision { expected: u64, found: u64 },
    #[error("rows differ from the replayed log: {detail}")]
    Rows { detail: String },
    #[error("the epoch entry at rev {rev} is malformed: {why}")]
    Epoch { rev: u64, why: &'static str },
    #[error(
        "the log starts with epoch {epoch} but holds no `archive` entry for it; restore queue.json from git"
    )]
    NoArchiveEntry { epoch: u32 },
}

impl ReplayError {
    pub fn kind(&self) -> &'static str {
        match self {
            ReplayError::Version { .. } => "version",
            ReplayError::EmptyLog => "empty-log",
            ReplayError::RevSequence { .. } => "rev-sequence",
            ReplayError::Refused { .. } => "entry-refused",
            ReplayError::Receipt { .. } => "receipt-mismatch",
            ReplayError::DuplicateOp { .. } => "duplicate-op",
            ReplayError::BodyHash { .. } => "body-hash",
            ReplayError::Root { .. } => "root-mismatch",
            ReplayError::Revision { .. } => "revision-mismatch",
            ReplayError::Rows { .. } => "rows-mismatch",
            ReplayError::Epoch { .. } => "epoch-malformed",
            ReplayError::NoArchiveEntry { .. } => "no-archive-entry",
        }
    }
}

/// Any reason a queue file is invalid: its bytes or its history.
#[derive(Error, Debug, Clone, PartialEq, Eq)]
pub enum QueueError {
    #[error("queue.json {0}")]
    Canon(#[from] CanonError),
    #[error("queue.json is invalid: {0}")]
    Replay(#[from] ReplayError),
    /// `verify --full`: an archive, or the epoch entry made from it, is not what the cut wrote.
    #[error("epoch {epoch} does not hold: {detail}")]
    Epoch { epoch: u32, detail: String },
}

impl QueueError {
    pub fn kind(&self) -> &'static str {
        match self {
            QueueError::Canon(e) => e.kind(),
            QueueError::Replay(e) => e.kind(),
            QueueError::Epoch { .. } => "epoch-mismatch",
        }
    }
}

/// The migration map cannot be read.
#[derive(Error, Debug, Clone, PartialEq, Eq)]
pub enum MapError {
    #[error("no `source: docs/plans/QUEUE.md blob <40 hex>` line")]
    NoSource,
    #[error("no table with the columns # | Piece | Owner | Status | Gate | Issues | Note")]
    NoTable,
    #[error("line {line}: {why}")]
    BadRow { line: usize, why: String },
    #[error("row {id} appears twice (line {line})")]
    DuplicateId { id: u64, line: usize },
    #[error("the map has no rows")]
    Empty,
}

impl MapError {
    pub fn kind(&self) -> &'static str {
        match self {
            MapError::NoSource => "map-no-source",
            MapError::NoTable => "map-no-table",
            MapError::BadRow { .. } => "map-bad-row",
            MapError::DuplicateId { .. } => "map-duplicate-id",
            MapError::Empty => "map-empty",
        }
    }
}

/// QUEUE.md does not have exactly one pair of markers in order.
#[derive(Error, Debug, Clone, PartialEq, Eq)]
pub enum TableError {
    #[error(
        "QUEUE.md {why}; it needs one `<!-- mosaic-queue:begin -->` line and, after it, one `<!-- mosaic-queue:end -->` line"
    )]
    Markers { why: &'static str },
}

impl TableError {
    pub fn kind(&self) -> &'static str {
        "table-markers"
    }
}

/// The queue file does not extend the witness: history was lost or rewritten.
#[derive(Error, Debug, Clone, PartialEq, Eq)]
pub enum WitnessError {
    #[error(
        "queue.json is at rev {file} but the witness saw rev {witness}: history was lost (see Manual recovery)"
    )]
    Behind { witness: u64, file: u64 },
    #[error(
        "queue.json's log up to rev {revision} differs from what the witness saw: history was rewritten (see Manual recovery)"
    )]
    Diverged { revision: u64 },
    #[error(
        "queue.json at rev {revision} is not the file the witness saw; it was changed after its write"
    )]
    FileChanged { revision: u64 },
    /// Not an answer by itself: the host reads the archives named and asks again
    /// (`Queue::check_extends_archived`).
    #[error(
        "the witness saw rev {witness}, before the cut at rev {epoch_rev}; {} must be read to check it",
        epoch_files(epochs)
    )]
    BeforeEpoch {
        witness: u64,
        epoch_rev: u64,
        epochs: Vec<u32>,
    },
    /// An archive handed in is not the one the epoch names.
    #[error(
        "docs/plans/archive/epoch-{epoch:04}.json is not the archive the epoch names: {why} (see Manual recovery)"
    )]
    Archive { epoch: u32, why: &'static str },
}

impl WitnessError {
    pub fn kind(&self) -> &'static str {
        match self {
            WitnessError::Behind { .. } => "witness-behind",
            WitnessError::Diverged { .. } => "witness-diverged",
            WitnessError::FileChanged { .. } => "witness-file-changed",
            WitnessError::BeforeEpoch { .. } => "witness-before-epoch",
            WitnessError::Archive { .. } => "archive-mismatch",
        }
    }
}

/// Why a snapshot fails.
#[derive(Error, Debug, Clone, PartialEq, Eq)]
pub enum SnapshotError {
    #[error("snapshot {0}")]
    Invalid(QueueError),
    #[error("snapshot QUEUE.md is not UTF-8")]
    TableNotUtf8,
    #[error("snapshot {0}")]
    Markers(TableError),
    #[error(
        "snapshot QUEUE.md is stale: rendered at rev {rendered}, queue.json is at rev {revision}"
    )]
    Stale { rendered: u64, revision: u64 },
    #[error("snapshot QUEUE.md's table is not a render of its queue.json")]
    UnknownTable,
    #[error("the base is invalid: {0}")]
    BaseInvalid(QueueError),
    #[error("the snapshot (rev {revision}) is behind the base (rev {base}): history was lost")]
    Behind { revision: u64, base: u64 },
    #[error("the snapshot's log differs from the base at rev {rev}: history was rewritten")]
    Diverged { rev: u64 },
    /// The base is older than the snapshot's epoch and the archive that holds its history is
    /// not among those given, or is not the one the epoch names.
    #[error(
        "the base (rev {base}) is older than the snapshot's cut, and docs/plans/archive/epoch-{epoch:04}.json {why}"
    )]
    Archive {
        base: u64,
        epoch: u32,
        why: &'static str,
    },
}

impl SnapshotError {
    pub fn kind(&self) -> &'static str {
        match self {
            SnapshotError::Invalid(e) => e.kind(),
            SnapshotError::TableNotUtf8 => "table-not-utf8",
            SnapshotError::Markers(e) => e.kind(),
            SnapshotError::Stale { .. } => "table-stale",
            SnapshotError::UnknownTable => "table-unknown",
            SnapshotError::BaseInvalid(_) => "base-invalid",
            SnapshotError::Behind { .. } => "snapshot-behind",
            SnapshotError::Diverged { .. } => "snapshot-diverged",
            SnapshotError::Archive { .. } => "snapshot-archive",
        }
    }
}

/// Joins issue numbers as the table shows them: `#12, #14`.
pub(crate) fn issue_list(issues: &[u64]) -> String {
    let parts: Vec<String> = issues.iter().map(|i| alloc::format!("#{i}")).collect();
    if parts.is_empty() {
        String::from("none")
    } else {
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    /// `Error` shows and names what it holds, and finds the verb refusal behind a replay
    /// wherever it sits.
    #[test]
    fn the_one_error_is_its_domain_error() {
        let refused = || ReplayError::Refused {
            rev: 3,
            source: Box::new(VerbError::RowDone { id: 2 }),
        };
        let in_file = QueueError::Replay(refused());
        for (error, shown) in [
            (Error::from(refused()), refused().to_string()),
            (Error::from(in_file.clone()), in_file.to_string()),
            (
                Error::from(SnapshotError::BaseInvalid(in_file.clone())),
                SnapshotError::BaseInvalid(in_file.clone()).to_string(),
            ),
        ] {
            assert_eq!(error.to_string(), shown);
            assert_eq!(error.refused(), Some("row-done"));
        }
        assert_eq!(Error::from(in_file).kind(), "entry-refused");
        let verb = Error::from(VerbError::RowDone { id: 2 });
        assert_eq!((verb.kind(), verb.refused()), ("row-done", None));
        assert_eq!(
            verb.to_string(),
            "row 2 is done; a done row accepts no further changes"
        );
        let stale = Error::from(SnapshotError::Stale {
            rendered: 1,
            revision: 2,
        });
        assert_eq!((stale.kind(), stale.refused()), ("table-stale", None));
    }
}
