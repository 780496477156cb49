//! Log entries and the normalized arguments of each verb. An entry's `args` are typed by its
//! `verb`, which canonical order puts first, so the entry deserializer reads `verb` and then
//! parses `args` straight into that verb's struct (no intermediate JSON value).

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::body::Body;
use crate::epoch::{ArchiveArgs, EpochArgs};
use crate::model::{ReplicationMode, Status, VerdictKind, Witness};

/// The newest semantics this build replays and writes: 8, replication. Semantics 7 brought
/// leases, 6 epochs, 5 the reach rule, 4 the hardened table, 3 coordination (`take` and
/// dependencies between rows), 2 review requests (piece D); 1 is the history before them. A
/// log that starts at genesis never holds 6, which only a cut log does (`EPOCH_SEMANTICS`).
pub const CURRENT_SEMANTICS: u8 = REPLICATION_SEMANTICS;

/// Replication: the `replication required|off` entry and the `adopt` entry that moves the
/// queue to a standby's checkout. It includes 7 (and in a cut log 6): every other verb is
/// ruled under 8 exactly as under them. Written from the first entry that needs it; every
/// later entry carries it too, which replay holds (`semantics-dropped`).
pub const REPLICATION_SEMANTICS: u8 = 8;

/// Leases: a claim's lease, the queue's default lease, reclaims and fences, and the table
/// naming a row a row waits on as a row (`waits on row 5`). It includes 5, and in a cut log 6:
/// every other verb is ruled under 7 exactly as under them. Written from the first entry that
/// carries a lease, sets the default or reclaims (`Args::uses_leases`), never for the table's
/// sake; every later entry carries it too, which replay holds (`semantics-dropped`).
pub const LEASE_SEMANTICS: u8 = 7;

/// Epochs: the `epoch` entry that opens a cut log and the `archive` entry after its window.
/// Every other verb is ruled under 6 exactly as under 5; a log that starts at genesis never
/// holds a semantics 6 entry, so a queue that never cuts writes the bytes it always did.
pub const EPOCH_SEMANTICS: u8 = 6;

/// The reach rule: a `set … after` that joins more than `state::REACH` rows on each side is
/// refused, written and replayed alike; older sets replay within a budget of search steps
/// instead. It includes the hardened table.
pub const REACH_SEMANTICS: u8 = 5;

/// The hardened table: `[` and `]` escaped in the render, a manifest's text stored once, and
/// the rules for new entries (`admission`) held on replay. It includes coordination.
pub const HARDENED_SEMANTICS: u8 = 4;

/// What a `take`, or a row that waits on others, needs.
pub const COORDINATION_SEMANTICS: u8 = 3;

/// What an entry is written under until its queue first needs more (coordination, a manifest,
/// a bracket in the table): a queue that never does keeps writing the bytes it always did.
pub const PLAIN_SEMANTICS: u8 = 2;

/// One operation in the append-only log.
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub rev: u64,
    pub op: String,
    pub verb: Verb,
    pub by: String,
    pub at: String,
    pub semantics: u8,
    pub args: Args,
    pub receipt: String,
    pub body: Body,
}

/// The verbs that write a log entry.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum Verb {
    Genesis,
    Add,
    Move,
    Release,
    Assign,
    Note,
    Set,
    AcceptHistory,
    ReviewRequest,
    ReviewOutcome,
    ReviewResolve,
    ReviewAbandon,
    ReviewRecord,
    Take,
    /// The queue's default lease for claims that give none (semantics 7).
    LeaseDefault,
    /// The lead, jason or sage ends a claim at once (semantics 7).
    Reclaim,
    /// The first entry of a log cut at its revision (semantics 6); never a command.
    Epoch,
    /// The cut itself, written after the entries the cut kept (semantics 6).
    Archive,
    /// Whether a change's receipt waits for the follower's push (semantics 8).
    Replication,
    /// A standby's checkout takes the queue over from the replicated ref (semantics 8).
    Adopt,
}

impl Verb {
    /// Every verb: genesis, then `Command`'s verbs in its order, then the two of a cut.
    pub const ALL: [Verb; 20] = [
        Verb::Genesis,
        Verb::Add,
        Verb::Move,
        Verb::Release,
        Verb::Assign,
        Verb::Note,
        Verb::Set,
        Verb::AcceptHistory,
        Verb::ReviewRequest,
        Verb::ReviewOutcome,
        Verb::ReviewResolve,
        Verb::ReviewAbandon,
        Verb::ReviewRecord,
        Verb::Take,
        Verb::LeaseDefault,
        Verb::Reclaim,
        Verb::Replication,
        Verb::Adopt,
        Verb::Epoch,
        Verb::Archive,
    ];

    /// The verb as the log spells it: the one spelling (serde's derived names agree, which a
    /// test checks; `verbs::COMMAND_VERBS` is built from it).
    pub const fn as_str(self) -> &'static str {
        match self {
            Verb::Genesis => "genesis",
            Verb::Add => "add",
            Verb::Move => "move",
            Verb::Release => "release",
            Verb::Assign => "assign",
            Verb::Note => "note",
            Verb::Set => "set",
            Verb::AcceptHistory => "accept-history",
            Verb::ReviewRequest => "review-request",
            Verb::ReviewOutcome => "review-outcome",
            Verb::ReviewResolve => "review-resolve",
            Verb::ReviewAbandon => "review-abandon",
            Verb::ReviewRecord => "review-record",
            Verb::Take => "take",
            Verb::LeaseDefault => "lease-default",
            Verb::Reclaim => "reclaim",
            Verb::Epoch => "epoch",
            Verb::Archive => "archive",
            Verb::Replication => "replication",
            Verb::Adopt => "adopt",
        }
    }
}

impl Verb {
    /// The verb as typed on the command line: the review verbs are `review`'s subcommands
    /// (`review request`), every other verb is its log name.
    pub fn command_line(self) -> String {
        let name = self.as_str();
        match name.strip_prefix("review-") {
            Some(sub) => alloc::format!("review {sub}"),
            None => String::from(name),
        }
    }
}

impl fmt::Display for Verb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The normalized arguments of an entry, one struct per verb. The larger structs are boxed so
/// that every entry of a long log does not take the room of the largest (an `add`): a `note`
/// or an `assign`, most of a log, stays a third of the size it would be.
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
#[serde(untagged)]
pub enum Args {
    Genesis(Box<GenesisArgs>),
    Add(Box<AddArgs>),
    Move(Box<MoveArgs>),
    Release(IdArgs),
    Assign(AssignArgs),
    Note(NoteArgs),
    Set(Box<SetArgs>),
    AcceptHistory(Box<AcceptHistoryArgs>),
    ReviewRequest(IdArgs),
    ReviewOutcome(Box<OutcomeArgs>),
    ReviewResolve(ResolveArgs),
    ReviewAbandon(Box<AbandonArgs>),
    ReviewRecord(Box<RecordArgs>),
    /// `take`: the row `next` named for the actor, fixed when the entry is written.
    Take(Box<TakeArgs>),
    LeaseDefault(LeaseDefaultArgs),
    Reclaim(Box<ReclaimArgs>),
    Epoch(Box<EpochArgs>),
    Archive(Box<ArchiveArgs>),
    Replication(ReplicationArgs),
    Adopt(Box<AdoptArgs>),
}

impl Args {
    pub fn verb(&self) -> Verb {
        match self {
            Args::Genesis(_) => Verb::Genesis,
            Args::Add(_) => Verb::Add,
            Args::Move(_) => Verb::Move,
            Args::Release(_) => Verb::Release,
            Args::Assign(_) => Verb::Assign,
            Args::Note(_) => Verb::Note,
            Args::Set(_) => Verb::Set,
            Args::AcceptHistory(_) => Verb::AcceptHistory,
            Args::ReviewRequest(_) => Verb::ReviewRequest,
            Args::ReviewOutcome(_) => Verb::ReviewOutcome,
            Args::ReviewResolve(_) => Verb::ReviewResolve,
            Args::ReviewAbandon(_) => Verb::ReviewAbandon,
            Args::ReviewRecord(_) => Verb::ReviewRecord,
            Args::Take(_) => Verb::Take,
            Args::LeaseDefault(_) => Verb::LeaseDefault,
            Args::Reclaim(_) => Verb::Reclaim,
            Args::Epoch(_) => Verb::Epoch,
            Args::Archive(_) => Verb::Archive,
            Args::Replication(_) => Verb::Replication,
            Args::Adopt(_) => Verb::Adopt,
        }
    }

    /// The rows these arguments name: the row they change, and the rows an `add` or a
    /// `set … after` makes it wait on. Genesis, accept-history and the entries of a cut name
    /// none (genesis makes rows; it changes none that exist).
    pub fn rows_named(&self) -> Vec<u64> {
        let mut out: Vec<u64> = self.row().into_iter().collect();
        match self {
            Args::Add(a) => out.extend_from_slice(&a.after),
            Args::Set(a) => {
                if let (SetField::After, SetValue::Numbers(n)) = (a.field, &a.value) {
                    out.extend_from_slice(n);
                }
            }
            _ => {}
        }
        out
    }

    /// The row these arguments change (an `add`'s new row); none for genesis, accept-history,
    /// the default lease and the entries of a cut.
    pub fn row(&self) -> Option<u64> {
        match self {
            Args::Genesis(_)
            | Args::AcceptHistory(_)
            | Args::LeaseDefault(_)
            | Args::Epoch(_)
            | Args::Archive(_)
            | Args::Replication(_)
            | Args::Adopt(_) => None,
            Args::Add(a) => Some(a.id),
            Args::Move(a) => Some(a.id),
            Args::Release(a) | Args::ReviewRequest(a) => Some(a.id),
            Args::Take(a) => Some(a.id),
            Args::Reclaim(a) => Some(a.id),
            Args::Assign(a) => Some(a.id),
            Args::Note(a) => Some(a.id),
            Args::Set(a) => Some(a.id),
            Args::ReviewOutcome(a) => Some(a.id),
            Args::ReviewResolve(a) => Some(a.id),
            Args::ReviewAbandon(a) => Some(a.id),
            Args::ReviewRecord(a) => Some(a.id),
        }
    }

    /// What in these arguments needs semantics 7: a claim's lease, the default lease, a
    /// reclaim; `None` when nothing does.
    pub fn uses_leases(&self) -> Option<&'static str> {
        match self {
            Args::Take(t) if t.reclaim.is_some() => Some("a take that reclaims a row"),
            Args::Take(t) if t.lease.is_some() => Some("a take with a lease"),
            Args::Move(m) if m.lease.is_some() => Some("a move with a lease"),
            Args::LeaseDefault(_) => Some("lease-default"),
            Args::Reclaim(_) => Some("reclaim"),
            _ => None,
        }
    }

    /// What in these arguments needs semantics 8: the replication setting or an adopt;
    /// `None` when nothing does.
    pub fn uses_replication(&self) -> Option<&'static str> {
        match self {
            Args::Replication(_) => Some("replication"),
            Args::Adopt(_) => Some("adopt"),
            _ => None,
        }
    }

    /// Whether these arguments carry a manifest's text, which semantics 4 stores only here.
    pub fn carries_manifest(&self) -> bool {
        matches!(self, Args::Move(m) if m.manifest.is_some())
    }

    /// Whether these arguments are a `set … after` that names rows, which semantics 5 holds
    /// to the reach rule (clearing a row's dependencies needs no rule).
    pub fn sets_dependencies(&self) -> bool {
        matches!(self, Args::Set(a) if a.field == SetField::After
            && matches!(&a.value, SetValue::Numbers(n) if !n.is_empty()))
    }

    /// Whether these arguments need semantics 3: a `take`, or dependencies between rows.
    pub fn uses_coordination(&self) -> bool {
        match self {
            Args::Take(_) => true,
            Args::Add(a) => !a.after.is_empty(),
            Args::Set(a) => a.field == SetField::After,
            _ => false,
        }
    }
}

/// `genesis`: the reviewed migration map and the table text it replaces.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GenesisArgs {
    pub branch: String,
    /// The canonical checkout's top-level path; the file's `canonicalRoot` must stay equal.
    pub root: String,
    pub source: String,
    pub rows: Vec<MapRow>,
    pub legacy_view: String,
}

/// One row of the migration map as genesis recorded it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct MapRow {
    pub id: u64,
    pub piece: String,
    pub owner: Option<String>,
    pub status: Status,
    pub gate: Option<String>,
    pub issues: Vec<u64>,
    pub note: Option<String>,
}

/// `add`: the new row's id is assigned when the entry is written and kept here.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AddArgs {
    pub id: u64,
    pub piece: String,
    pub owner: Option<String>,
    pub status: Status,
    pub gate: Option<String>,
    pub issues: Vec<u64>,
    pub reviewers: Vec<String>,
    pub brief: Option<String>,
    pub note: Option<String>,
    /// The rows this one waits on (semantics 3). Written only when there are some, so an add
    /// without dependencies keeps the bytes it had under semantics 2.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "crate::model::some_rows"
    )]
    pub after: Vec<u64>,
}

/// `move ID STATUS`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct MoveArgs {
    pub id: u64,
    pub to: Status,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub candidate: Option<String>,
    /// The manifest's text when the candidate is `sha256:`: the queue keeps it so that
    /// `review verify-commit` can check a tree against it later.
    #[serde(default)]
    pub manifest: Option<String>,
    #[serde(default)]
    pub issue: Option<u64>,
    #[serde(default)]
    pub evidence: Option<Evidence>,
    /// The claim's lease in seconds, on a move into in-progress (semantics 7): the one given,
    /// else the queue's default. Written only when there is one.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::model::present"
    )]
    pub lease: Option<u32>,
}

/// `--evidence comment=<id>,round=<n>,candidate=<digest>` for closing a round that posted nothing.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Evidence {
    pub comment: u64,
    pub round: u32,
    pub candidate: String,
}

/// `take`: the row `next` named for the actor, the claim's lease (semantics 7: the one given,
/// else the queue's default; written only when there is one) and, when the row was another
/// seat's expired claim, what ended it (written only then).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TakeArgs {
    pub id: u64,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::model::present"
    )]
    pub lease: Option<u32>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::model::present"
    )]
    pub reclaim: Option<Reclaimed>,
}

/// The claim a take ended: its holder, the holder's last sign of life as the host judged it
/// (the later of its heartbeat and its last entry on the row; the heartbeat is trusted as
/// `--by` is), and the claim's lease in seconds.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Reclaimed {
    pub from: String,
    pub seen: String,
    pub lease: u32,
}

/// `lease-default 2h` (seconds) or `lease-default off` (`null`).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LeaseDefaultArgs {
    pub lease: Option<u32>,
}

/// `reclaim ID --reason TEXT` by the lead, jason or sage: the claim it ends (holder, last sign
/// of life known, or `null`, and lease, or `null` for a claim without one) and why.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReclaimArgs {
    pub id: u64,
    pub from: String,
    pub seen: Option<String>,
    pub lease: Option<u32>,
    pub reason: String,
}

/// `replication required` or `replication off` (semantics 8).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReplicationArgs {
    pub mode: ReplicationMode,
}

/// `adopt`: the standby's checkout takes the queue over at `revision`, the newest revision of
/// the replicated ref (its commit `commit`), from the checkout at `from`. `root` is the new
/// canonical root, which the file's `canonicalRoot` follows, and `host` the name of the machine
/// it is on (as the host reports it, for people: two machines may use the same path).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AdoptArgs {
    pub root: String,
    pub host: String,
    pub from: String,
    pub revision: u64,
    pub commit: String,
}

/// Verbs that only name a row (`release`).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct IdArgs {
    pub id: u64,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AssignArgs {
    pub id: u64,
    pub owner: String,
}

/// `note ID TEXT`; an empty TEXT clears the note and is recorded as `null`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NoteArgs {
    pub id: u64,
    pub text: Option<String>,
}

/// `set ID FIELD VALUE`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase", try_from = "RawSetArgs")]
pub struct SetArgs {
    pub id: u64,
    pub field: SetField,
    pub value: SetValue,
    pub reason: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawSetArgs {
    id: u64,
    field: SetField,
    value: serde_json::Value,
    #[serde(default)]
    reason: Option<String>,
}

impl TryFrom<RawSetArgs> for SetArgs {
    type Error = serde_json::Error;
    fn try_from(raw: RawSetArgs) -> Result<Self, Self::Error> {
        let value = match raw.field {
            SetField::Piece | SetField::Gate | SetField::Brief => {
                SetValue::Text(serde_json::from_value(raw.value)?)
            }
            SetField::Issues | SetField::Closes => {
                SetValue::Numbers(serde_json::from_value(raw.value)?)
            }
            SetField::Reviewers => SetValue::Seats(serde_json::from_value(raw.value)?),
            SetField::After => SetValue::Numbers(serde_json::from_value(raw.value)?),
        };
        Ok(SetArgs {
            id: raw.id,
            field: raw.field,
            value,
            reason: raw.reason,
        })
    }
}

/// The fields `set` may change.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum SetField {
    Piece,
    Gate,
    Issues,
    Closes,
    Reviewers,
    Brief,
    /// The rows this one waits on (semantics 3); an empty list clears them.
    After,
}

impl SetField {
    pub const ALL: [SetField; 7] = [
        SetField::Piece,
        SetField::Gate,
        SetField::Issues,
        SetField::Closes,
        SetField::Reviewers,
        SetField::Brief,
        SetField::After,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SetField::Piece => "piece",
            SetField::Gate => "gate",
            SetField::Issues => "issues",
            SetField::Closes => "closes",
            SetField::Reviewers => "reviewers",
            SetField::Brief => "brief",
            SetField::After => "after",
        }
    }

    pub fn parse(s: &str) -> Option<SetField> {
        SetField::ALL.into_iter().find(|f| f.as_str() == s)
    }
}

/// A `set` value, typed by its field.
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
#[serde(untagged)]
pub enum SetValue {
    Text(Option<String>),
    Numbers(Vec<u64>),
    Seats(Vec<String>),
}

/// `accept-history`: the witness it replaced (or none) and why.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AcceptHistoryArgs {
    pub reason: String,
    pub old_witness: Option<Witness>,
    pub new_revision: u64,
    pub notice: String,
}

/// What the transport said about one request attempt: the entry `<op>.outcome`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct OutcomeArgs {
    pub id: u64,
    /// The op of the attempt this outcome answers.
    pub attempt: String,
    pub result: Delivery,
    /// The HTTP status, when one came back.
    pub status: Option<u16>,
    /// A fixed description chosen by the host; never a response body.
    pub detail: String,
    pub comment: Option<u64>,
}

/// The three things a transport can report about a POST.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Delivery {
    Posted,
    Failed,
    Uncertain,
}

impl Delivery {
    pub fn as_str(self) -> &'static str {
        match self {
            Delivery::Posted => "posted",
            Delivery::Failed => "failed",
            Delivery::Uncertain => "uncertain",
        }
    }
}

/// `review resolve ID OP --comment N`: the comment a person found for attempt `attempt`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ResolveArgs {
    pub id: u64,
    pub attempt: String,
    pub comment: u64,
}

/// `review abandon ID OP --reason TEXT --yes`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AbandonArgs {
    pub id: u64,
    pub attempt: String,
    pub reason: String,
}

/// `review record ID --verdict approve|changes --comment N --candidate DIGEST`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RecordArgs {
    pub id: u64,
    pub verdict: VerdictKind,
    pub comment: u64,
    pub candidate: String,
}

// ---- deserialization of Entry: `args` is typed by the `verb` read before it ----

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum EntryField {
    Rev,
    Op,
    Verb,
    By,
    At,
    Semantics,
    Args,
    Receipt,
    Body,
}

const ENTRY_FIELDS: &[&str] = &[
    "rev",
    "op",
    "verb",
    "by",
    "at",
    "semantics",
    "args",
    "receipt",
    "body",
];

struct ArgsSeed(Verb);

impl<'de> DeserializeSeed<'de> for ArgsSeed {
    type Value = Args;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Args, D::Error> {
        Ok(match self.0 {
            Verb::Genesis => Args::Genesis(Box::new(GenesisArgs::deserialize(d)?)),
            Verb::Add => Args::Add(Box::new(AddArgs::deserialize(d)?)),
            Verb::Move => Args::Move(Box::new(MoveArgs::deserialize(d)?)),
            Verb::Release => Args::Release(IdArgs::deserialize(d)?),
            Verb::Assign => Args::Assign(AssignArgs::deserialize(d)?),
            Verb::Note => Args::Note(NoteArgs::deserialize(d)?),
            Verb::Set => Args::Set(Box::new(SetArgs::deserialize(d)?)),
            Verb::AcceptHistory => {
                Args::AcceptHistory(Box::new(AcceptHistoryArgs::deserialize(d)?))
            }
            Verb::ReviewRequest => Args::ReviewRequest(IdArgs::deserialize(d)?),
            Verb::ReviewOutcome => Args::ReviewOutcome(Box::new(OutcomeArgs::deserialize(d)?)),
            Verb::ReviewResolve => Args::ReviewResolve(ResolveArgs::deserialize(d)?),
            Verb::ReviewAbandon => Args::ReviewAbandon(Box::new(AbandonArgs::deserialize(d)?)),
            Verb::ReviewRecord => Args::ReviewRecord(Box::new(RecordArgs::deserialize(d)?)),
            Verb::Take => Args::Take(Box::new(TakeArgs::deserialize(d)?)),
            Verb::LeaseDefault => Args::LeaseDefault(LeaseDefaultArgs::deserialize(d)?),
            Verb::Reclaim => Args::Reclaim(Box::new(ReclaimArgs::deserialize(d)?)),
            Verb::Epoch => Args::Epoch(Box::new(EpochArgs::deserialize(d)?)),
            Verb::Archive => Args::Archive(Box::new(ArchiveArgs::deserialize(d)?)),
            Verb::Replication => Args::Replication(ReplicationArgs::deserialize(d)?),
            Verb::Adopt => Args::Adopt(Box::new(AdoptArgs::deserialize(d)?)),
        })
    }
}

struct EntryVisitor;

fn put<T, E: de::Error>(slot: &mut Option<T>, name: &'static str, v: T) -> Result<(), E> {
    if slot.is_some() {
        return Err(E::duplicate_field(name));
    }
    *slot = Some(v);
    Ok(())
}

impl<'de> Visitor<'de> for EntryVisitor {
    type Value = Entry;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a log entry object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entry, A::Error> {
        let (mut rev, mut op, mut verb, mut by, mut at) = (None, None, None, None, None);
        let (mut semantics, mut args, mut receipt, mut body) = (None, None, None, None);
        while let Some(key) = map.next_key::<EntryField>()? {
            match key {
                EntryField::Rev => put(&mut rev, "rev", map.next_value()?)?,
                EntryField::Op => put(&mut op, "op", map.next_value()?)?,
                EntryField::Verb => put(&mut verb, "verb", map.next_value()?)?,
                EntryField::By => put(&mut by, "by", map.next_value()?)?,
                EntryField::At => put(&mut at, "at", map.next_value()?)?,
                EntryField::Semantics => put(&mut semantics, "semantics", map.next_value()?)?,
                EntryField::Args => {
                    let v = verb.ok_or_else(|| {
                        de::Error::custom("`args` comes before `verb`; the key order is fixed")
                    })?;
                    put(&mut args, "args", map.next_value_seed(ArgsSeed(v))?)?
                }
                EntryField::Receipt => put(&mut receipt, "receipt", map.next_value()?)?,
                EntryField::Body => put(&mut body, "body", map.next_value()?)?,
            }
        }
        Ok(Entry {
            rev: rev.ok_or_else(|| de::Error::missing_field("rev"))?,
            op: op.ok_or_else(|| de::Error::missing_field("op"))?,
            verb: verb.ok_or_else(|| de::Error::missing_field("verb"))?,
            by: by.ok_or_else(|| de::Error::missing_field("by"))?,
            at: at.ok_or_else(|| de::Error::missing_field("at"))?,
            semantics: semantics.ok_or_else(|| de::Error::missing_field("semantics"))?,
            args: args.ok_or_else(|| de::Error::missing_field("args"))?,
            receipt: receipt.ok_or_else(|| de::Error::missing_field("receipt"))?,
            body: body.ok_or_else(|| de::Error::missing_field("body"))?,
        })
    }
}

impl<'de> Deserialize<'de> for Entry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Entry, D::Error> {
        d.deserialize_struct("Entry", ENTRY_FIELDS, EntryVisitor)
    }
}
