//! What a file the tool reads holds (`Kind`): its size cap, whether a symlink at its path is
//! followed, and what a person does when it is refused. docs/limits.md lists the caps.

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;

/// The cap on a lock, the unlock gate and the witness: each holds a few hundred bytes.
pub const STATE_CAP: u64 = 64 * KIB;
/// The cap on queue.json (and a snapshot's queue.json, `--base`, the read view): far above the
/// 100k-entry benchmark's 45 MiB, far below what would exhaust a machine's memory.
pub const QUEUE_JSON_CAP: u64 = 256 * MIB;
/// The cap on QUEUE.md (and a snapshot's QUEUE.md, the migration map): the table of every row.
pub const QUEUE_MD_CAP: u64 = 64 * MIB;
/// The cap on a `--candidate` manifest: one `<sha256> <path>` line per file, about 10,000
/// files per MiB. The core's cap on a manifest stored in the log, so that what is read fits.
pub const MANIFEST_CAP: u64 = mosaic_queue_core::manifest::MAX_BYTES as u64;
/// The cap on a git hook the guard installs or inspects.
pub const HOOK_CAP: u64 = MIB;
/// The cap on a seat's heartbeat: one timestamp (24 bytes) and a newline, with room to spare.
pub const HEARTBEAT_CAP: u64 = 64;

/// What a file the tool reads holds. It decides the size cap, whether a symlink at the path
/// is followed, and the next step a refusal names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `.git/mosaic-queue.lock`.
    Lock,
    /// `.git/mosaic-queue.unlock`.
    Gate,
    /// `.git/mosaic-queue.head`.
    Witness,
    /// `.git/mosaic-queue.view`, a cache: any refusal skips it.
    View,
    /// `docs/plans/queue.json`.
    QueueJson,
    /// `docs/plans/QUEUE.md`.
    QueueMd,
    /// An archive, `docs/plans/archive/epoch-NNNN.json` (or a snapshot's copy of one).
    Archive,
    /// queue.json inside a `verify --snapshot` directory.
    SnapshotJson,
    /// QUEUE.md inside a `verify --snapshot` directory.
    SnapshotMd,
    /// `verify --snapshot --base FILE`.
    Base,
    /// A `--candidate` manifest.
    Manifest,
    /// The migration map (`genesis --map`, `map-check --map`).
    Map,
    /// A git hook (`install-hook`'s source, the installed pre-commit hook).
    Hook,
    /// A seat's heartbeat, `.git/mosaic-queue.heartbeats/<seat>`.
    Heartbeat,
    /// What the follower pushed last, `.git/mosaic-queue.replicated`.
    Replicated,
    /// The fence of a host whose queue was adopted elsewhere, `.git/mosaic-queue.adopted`.
    Adopted,
}

impl Kind {
    /// The most bytes read from a file of this kind.
    pub fn cap(self) -> u64 {
        match self {
            Kind::Lock | Kind::Gate | Kind::Witness | Kind::Replicated | Kind::Adopted => STATE_CAP,
            Kind::View | Kind::QueueJson | Kind::SnapshotJson | Kind::Base | Kind::Archive => {
                QUEUE_JSON_CAP
            }
            Kind::QueueMd | Kind::SnapshotMd | Kind::Map => QUEUE_MD_CAP,
            Kind::Manifest => MANIFEST_CAP,
            Kind::Hook => HOOK_CAP,
            Kind::Heartbeat => HEARTBEAT_CAP,
        }
    }

    /// The file as a refusal names its cap ("the 256 MiB cap for queue.json").
    pub fn noun(self) -> &'static str {
        match self {
            Kind::Lock => "a queue lock",
            Kind::Gate => "the unlock gate",
            Kind::Witness => "the witness",
            Kind::View => "the read view",
            Kind::QueueJson | Kind::SnapshotJson => "queue.json",
            Kind::QueueMd | Kind::SnapshotMd => "QUEUE.md",
            Kind::Archive => "an archive",
            Kind::Base => "queue.json",
            Kind::Manifest => "a manifest",
            Kind::Map => "a migration map",
            Kind::Hook => "a git hook",
            Kind::Heartbeat => "a heartbeat",
            Kind::Replicated => "the follower's record",
            Kind::Adopted => "the fence",
        }
    }

    /// What a refusal says before the path when the path alone does not say what the file is
    /// for: the witness's name is the tool's own, and `--base` names any file.
    pub fn prefix(self) -> &'static str {
        match self {
            Kind::Witness => "the witness ",
            Kind::Base => "--base ",
            _ => "",
        }
    }

    /// Whether a symlink at the path is followed. The queue's own files never are: the tool
    /// writes them by rename, which would replace the link, so readers refuse it as writers do.
    /// The files a person names on the command line are followed.
    pub(super) fn follows_symlinks(self) -> bool {
        matches!(self, Kind::Base | Kind::Manifest | Kind::Map)
    }

    /// What a person does about a refused file of this kind.
    pub fn next_step(self) -> &'static str {
        match self {
            Kind::Lock | Kind::Gate => {
                "check that no queue command is running, then remove it by hand"
            }
            Kind::Witness => "see Manual recovery",
            Kind::View => "remove it; it is a cache the next write rebuilds",
            Kind::QueueJson => {
                "restore it from git (`git checkout -- docs/plans/queue.json`) or see Manual recovery"
            }
            Kind::QueueMd => "restore it from git (`git checkout -- docs/plans/QUEUE.md`)",
            Kind::Archive => {
                "restore it from git (`git checkout -- docs/plans/archive/`); archives are never edited"
            }
            Kind::SnapshotJson | Kind::SnapshotMd => {
                "take the snapshot again with `mosaic-queue snapshot --out DIR`"
            }
            Kind::Base => {
                "pass the queue.json the snapshot must extend (`git show HEAD:docs/plans/queue.json > FILE`)"
            }
            Kind::Manifest => {
                "pass a manifest file of `<sha256> <path>` lines under the cap, or a commit"
            }
            Kind::Map => "pass the reviewed migration map file",
            Kind::Hook => "restore the hook from git",
            Kind::Heartbeat => {
                "remove it; the seat's next `mosaic-queue heartbeat` writes it again"
            }
            Kind::Replicated => {
                "remove it; `mosaic-queue follow` reads what was pushed from the ref and writes it again"
            }
            Kind::Adopted => {
                "see docs/replication.md: the queue was adopted elsewhere, or the file was put there by hand"
            }
        }
    }
}

/// A cap as a refusal prints it: "256 MiB", "64 KiB".
pub fn size_text(bytes: u64) -> String {
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} bytes")
    }
}
