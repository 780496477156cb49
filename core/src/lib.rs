//! mosaic-queue-core: the work queue as data, with no I/O. Bytes, the actor, the time and
//! facts about the world come in as arguments; decisions, new bytes and receipts come out.
//! The native CLI, the wasm build and the Node package all call this crate.
//!
//! The face is this file: the types and functions callers name are re-exported at the root,
//! and a few families whose names only read well qualified have a small module of re-exports
//! each (`markdown::body`, `migration::parse`) or are a public module of their own
//! (`pick::next`, `layout::appended`, `sandbox::decode`); every other module is private. No
//! module of the crate imports from this file.
#![no_std]
#![forbid(unsafe_code)]
#![deny(unreachable_pub)]

extern crate alloc;

// The house, bottom-up: each group of modules imports only from its own group and the groups
// above it.
//
// Bytes: hex, SHA-256, the JavaScript integer bound, the strict canonical reader.
mod digest;
mod hex;
mod limits;
mod reader;

// The model: rows and statuses, every refusal, canonical JSON, entries and their arguments,
// the file around them and the witness's hash chain over its log.
mod body;
mod canon;
mod chain;
mod entry;
mod epoch;
mod error;
mod file;
mod model;

// The rules on inputs (secrets, text and seat names, a lease's length, times as
// milliseconds) and the transition matrix.
mod lease;
mod matrix;
mod rules;
mod secret;
mod time;

// The state the verbs change: the dependency order, a claim's signs of life, `next` (public
// as `pick`), the replayed state, its render.
mod liveness;
mod order;
pub mod pick;
mod render;
mod state;
mod waits;

// The verbs (the review verbs among them), the rules for new entries, and replay.
mod admission;
mod ctx;
mod replay;
mod review;
mod verbs;

// The queue and what is built over it: cuts into epochs, QUEUE.md, snapshots, splices (public
// as `layout`), the migration map, the stale rows, the sandbox's wire format (public as
// `sandbox`).
mod cut;
pub mod layout;
mod map;
mod queue;
pub mod sandbox;
mod snapshot;
mod stale;
mod table;

pub use admission::{check_new_op, invisible, manifest_text, map_rows};
pub use body::Body;
pub use canon::{one_line, parse_canonical, parse_lenient, parse_reference, to_canonical};
pub use chain::log_digest;
pub use cut::{Cut, CutOutcome, verify_full};
pub use digest::{sha256, sha256_hex};
pub use entry::{
    AbandonArgs, AcceptHistoryArgs, AddArgs, AdoptArgs, Args, AssignArgs, COORDINATION_SEMANTICS,
    CURRENT_SEMANTICS, Delivery, EPOCH_SEMANTICS, Entry, Evidence, GenesisArgs, HARDENED_SEMANTICS,
    IdArgs, LEASE_SEMANTICS, LeaseDefaultArgs, MapRow, MoveArgs, NoteArgs, OutcomeArgs,
    PLAIN_SEMANTICS, REACH_SEMANTICS, REPLICATION_SEMANTICS, ReclaimArgs, Reclaimed, RecordArgs,
    ReplicationArgs, ResolveArgs, SetArgs, SetField, SetValue, TakeArgs, Verb,
};
pub use epoch::{
    ArchiveArgs, ArchiveInfo, EPOCH_OP_SUFFIX, EpochArgs, EpochState, OpFilter, archive_path,
};
pub use error::{
    CanonError, ClaimError, Error, MapError, QueueError, ReplayError, ReplicationError,
    ReviewError, SnapshotError, TableError, VerbError, WitnessError,
};
pub use file::{FORMAT_VERSION, QueueFile, parse_queue};
pub use hex::hex;
pub use lease::{MAX_LEASE, MIN_LEASE, RECOMMENDED_LEASE, check_lease, lease_text, parse_lease};
pub use limits::MAX_SAFE_INTEGER;
pub use model::{
    Attempt, AttemptState, Fence, Lease, ReplicationMode, Review, Round, Row, Status, Verdict,
    VerdictKind, Witness,
};
pub use queue::{NOTHING_TO_TAKE, Outcome, Queue, ReviewRequest};
pub use replay::replay;
pub use review::{current_round, locate};
pub use rules::{
    LEAD, PRIVILEGED, SHOWN_CHARS, check_op, check_seat, check_timestamp, gitea_login,
    is_lead_or_privileged, is_privileged, shown,
};
pub use secret::credential;
pub use snapshot::{Certified, verify_snapshot, verify_snapshot_archived};
pub use stale::{Stale, stale};
pub use state::State;
pub use table::BodyStatus;
pub use verbs::{
    AbandonCmd, AcceptHistoryCmd, COMMAND_VERBS, Command, NewRow, ReclaimCmd, TakeCmd,
};

/// A claim's signs of life: the heartbeats a host read, a claim as the row records it, and
/// its state at a time (`judge`), which `next_with` and `take` use.
pub mod signs {
    pub use crate::liveness::{
        Claim, Heartbeat, Judged, Liveness, MAX_AHEAD, Signs, judge, turns_at,
    };
}

/// `QUEUE.md` around its generated table: the marker lines, the body between them, a new
/// body spliced in, and the body a state renders.
pub mod markdown {
    pub use crate::render::{render_body, render_body_under, render_table};
    pub use crate::table::{BEGIN, END, body, body_range, splice};
}

/// The migration map genesis reads (the old table's rows and the blob it came from), and its
/// drift from the table as it stands now.
pub mod migration {
    pub use crate::map::{Drift, LineChange, Map, RowDrift, drift, parse};
}

/// A review request's comment: the marker that names its attempt, and the check of a comment
/// that a resolve names.
pub mod comment {
    pub use crate::review::comment::{Fetched, check, op_marker, request_body, round_marker};
}

/// A `sha256:` candidate's manifest: its lines and its digest.
pub mod manifest {
    pub use crate::review::manifest::{Listed, MAX_BYTES, digest, parse};
}

/// Gitea's answers, read: a posted comment's id, a login, a fetched comment.
pub mod gitea {
    pub use crate::review::gitea::{
        CommentError, FetchedComment, IdSeen, fetched_comment, issue_of, posted_comment_id, quoted,
        user_login,
    };
}

/// What the crate's own tests, fuzz targets and benchmarks reach below the face: the strict
/// reader alone, the transition matrix, a verb applied to a state. Not for the host.
#[doc(hidden)]
pub mod internal {
    pub use crate::ctx::Ctx;
    pub use crate::reader::{Reject, read};
    pub use crate::verbs::apply;

    /// The transition matrix as data, and as docs/transitions.md prints it.
    pub mod matrix {
        pub use crate::matrix::{Needs, RULES, Rule, Via, Who, markdown, rule};
    }
}
