//! The queue's rows: statuses, review rounds, attempts and verdicts, and the witness a write
//! leaves. Field order here is the canonical key order of `queue.json`; `canon` relies on it,
//! so a reordering is a format change and needs a new `version`. The file around the rows is
//! `file::QueueFile`.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use serde::{Deserialize, Serialize};

/// One queue row. Every field is always present; absent values are `null` or `[]`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Row {
    pub id: u64,
    pub piece: String,
    pub owner: Option<String>,
    pub status: Status,
    pub gate: Option<String>,
    pub issues: Vec<u64>,
    pub closes: Vec<u64>,
    pub closes_narrowed: bool,
    pub reviewers: Vec<String>,
    pub brief: Option<String>,
    pub note: Option<String>,
    pub blocked_reason: Option<String>,
    pub review: Option<Review>,
    /// The rows this one waits on: `next` names it only once they are all done (semantics 3).
    /// The key is written only when the list is not empty, so a queue that never uses
    /// dependencies keeps the bytes it had; an empty list written out is not canonical. Last,
    /// so that a row written as an array of the other fields still parses (and is refused as
    /// not canonical, as before).
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "some_rows"
    )]
    pub after: Vec<u64>,
    /// The lease of the claim on the row (semantics 7): written only while the row is in
    /// progress under a seat whose claim carries one, so a queue that never uses leases keeps
    /// the bytes it had.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub lease: Option<Lease>,
    /// The seats whose claim on the row was reclaimed and who have not been given it since
    /// (semantics 7), in the order of their reclaims: their changes to the row are refused.
    /// Written only when there is one.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "some_fences"
    )]
    pub fenced: Vec<Fence>,
}

/// A claim's lease as its row keeps it (semantics 7).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Lease {
    /// How long the claim may stay silent, in seconds (`lease::MIN_LEASE` to `MAX_LEASE`).
    pub seconds: u32,
    /// The revision of the entry that gave the holder this claim (a take, a move into
    /// in-progress, an assign of the row in progress).
    pub since: u64,
    /// The latest `at` among that entry and the holder's later entries on the row: the last
    /// sign of life the log proves, from which replay counts the lease.
    pub seen: String,
}

/// A seat fenced off a row: its claim was reclaimed at `rev`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Fence {
    pub seat: String,
    pub rev: u64,
}

/// Reads a value that the canonical form writes only when there is one: `null` in its place
/// would not re-serialize to the same bytes.
pub(crate) fn present<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(d).map(Some)
}

/// Reads an epoch state's replication setting, which the canonical form writes only when
/// receipts wait for the follower: `off` in its place would not re-serialize to the same bytes.
pub(crate) fn required_only<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<ReplicationMode, D::Error> {
    match ReplicationMode::deserialize(d)? {
        ReplicationMode::Off => Err(serde::de::Error::custom(
            "`replication` is written only when it is `required`; drop `off`",
        )),
        mode => Ok(mode),
    }
}

/// Reads a row's fences, which the canonical form writes only when there is one.
fn some_fences<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Fence>, D::Error> {
    let fences = Vec::<Fence>::deserialize(d)?;
    if fences.is_empty() {
        return Err(serde::de::Error::custom(
            "`fenced` is written only when a seat is fenced off the row; drop the empty list",
        ));
    }
    Ok(fences)
}

/// Reads a dependency list that the canonical form writes only when it holds something: an
/// empty one would not re-serialize to the same bytes.
pub(crate) fn some_rows<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<u64>, D::Error> {
    let rows = Vec::<u64>::deserialize(d)?;
    if rows.is_empty() {
        return Err(serde::de::Error::custom(
            "`after` is written only when the row waits on some row; drop the empty list",
        ));
    }
    Ok(rows)
}

/// The seven row statuses.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Queued,
    InProgress,
    InReview,
    WaitingOnJason,
    Blocked,
    Parked,
    Done,
}

impl Status {
    pub const ALL: [Status; 7] = [
        Status::Queued,
        Status::InProgress,
        Status::InReview,
        Status::WaitingOnJason,
        Status::Blocked,
        Status::Parked,
        Status::Done,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Queued => "queued",
            Status::InProgress => "in-progress",
            Status::InReview => "in-review",
            Status::WaitingOnJason => "waiting-on-jason",
            Status::Blocked => "blocked",
            Status::Parked => "parked",
            Status::Done => "done",
        }
    }

    pub fn parse(s: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|st| st.as_str() == s)
    }

    /// Every status but `done` is open: rows in it can still move.
    pub fn is_open(self) -> bool {
        self != Status::Done
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A row's review history: one round per move into `in-review`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Review {
    pub rounds: Vec<Round>,
}

/// One review round. `requested` is false for a round that posts nothing (a row with no
/// reviewers, or any round opened under semantics 1).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Round {
    pub round: u32,
    pub issue: Option<u64>,
    pub candidate: Option<String>,
    /// The manifest's text for a `sha256:` candidate, else `null`.
    pub manifest: Option<String>,
    pub requested: bool,
    pub opened_by: String,
    pub opened_rev: u64,
    pub attempts: Vec<Attempt>,
    pub verdicts: Vec<Verdict>,
    pub duplicate_risk: bool,
}

/// One attempt to post a round's review request comment.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Attempt {
    pub op: String,
    pub by: String,
    pub state: AttemptState,
    pub status: Option<u16>,
    pub detail: Option<String>,
    pub comment: Option<u64>,
}

/// Where a request attempt stands. Requesting, uncertain and conflict are unresolved: they
/// block a new attempt, a new round and leaving in-review for done or waiting-on-jason.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum AttemptState {
    Requesting,
    Posted,
    Failed,
    Uncertain,
    Abandoned,
    Conflict,
}

impl AttemptState {
    pub fn as_str(self) -> &'static str {
        match self {
            AttemptState::Requesting => "requesting",
            AttemptState::Posted => "posted",
            AttemptState::Failed => "failed",
            AttemptState::Uncertain => "uncertain",
            AttemptState::Abandoned => "abandoned",
            AttemptState::Conflict => "conflict",
        }
    }

    pub fn is_unresolved(self) -> bool {
        matches!(
            self,
            AttemptState::Requesting | AttemptState::Uncertain | AttemptState::Conflict
        )
    }
}

/// A reviewer's recorded verdict for one round.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Verdict {
    pub by: String,
    pub verdict: VerdictKind,
    pub comment: u64,
    pub candidate: String,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum VerdictKind {
    Approve,
    Changes,
}

impl VerdictKind {
    pub fn as_str(self) -> &'static str {
        match self {
            VerdictKind::Approve => "approve",
            VerdictKind::Changes => "changes",
        }
    }
}

/// The witness `.git/mosaic-queue.head`: what the last durable write produced.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Witness {
    pub revision: u64,
    pub log_digest: String,
    pub file_sha: String,
    pub at: String,
}

/// Whether a change's receipt waits for the follower to push its revision.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ReplicationMode {
    /// A receipt waits until a revision at or past it is pushed.
    Required,
    /// A receipt prints once the change is durable on this host (every queue's start).
    #[default]
    Off,
}

impl ReplicationMode {
    pub fn as_str(self) -> &'static str {
        match self {
            ReplicationMode::Required => "required",
            ReplicationMode::Off => "off",
        }
    }

    /// For serde's `skip_serializing_if`: `off` is what a field left out means.
    pub fn is_off(&self) -> bool {
        *self == ReplicationMode::Off
    }

    pub fn parse(s: &str) -> Option<ReplicationMode> {
        [ReplicationMode::Required, ReplicationMode::Off]
            .into_iter()
            .find(|m| m.as_str() == s)
    }
}
