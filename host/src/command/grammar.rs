//! The command line's grammar: the clap definitions of every verb, flag and argument, from
//! which the parser, the help, the completions and the man pages are all built. Values that
//! clap checks go through the same parsers every face uses (`values::number`).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::values::number;

/// Where the board listens when `--listen` is not given: loopback, on a port of its own.
pub const BOARD_LISTEN: &str = "127.0.0.1:7461";

/// The shells `completions` writes a script for.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
    Powershell,
}

/// `--version`: the package version and the sandbox this binary carries.
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("MOSAIC_SANDBOX_SUMMARY"),
    ")"
);

#[derive(Parser, Debug)]
#[command(
    name = "mosaic-queue",
    version = VERSION,
    about = "The team's git-native work queue: docs/plans/queue.json and its QUEUE.md table"
)]
pub struct Cli {
    /// Print exactly one JSON document on stdout: a read's document, a change's receipt
    /// object, {"verb", "text"} for the other verbs, or {"error": {...}} on failure (the error
    /// line still goes to stderr)
    #[arg(long, global = true)]
    pub json: bool,
    #[command(subcommand)]
    pub verb: Verb,
}

/// `--ref REF` and `--git-timeout S`, taken by `follow` and `adopt`: the ref replication
/// pushes to and adopts from, and the bound on each call to the remote.
#[derive(Args, Debug)]
pub struct Replica {
    /// The ref the follower pushes to and adopt reads; hosts that refuse refs outside heads
    /// and tags take refs/heads/...
    #[arg(
        long = "ref",
        value_name = "REF",
        default_value = "refs/mosaic-queue/live",
        allow_hyphen_values = true
    )]
    pub reference: String,
    /// How long one call to the remote (ls-remote, fetch, push) may take, in seconds
    #[arg(long, value_name = "SECONDS", default_value = "60", value_parser = git_timeout)]
    pub git_timeout: u32,
}

/// `--op ID` and `--by NAME` (or `$MOSAIC_AGENT_NAME`), taken by every change.
#[derive(Args, Debug)]
pub struct Change {
    /// The operation id, 8 to 72 characters of [a-z0-9._-] (e.g. darkwing-3-start-1); run the
    /// same command with the same id again to retry it safely
    #[arg(long, value_name = "ID", allow_hyphen_values = true)]
    pub op: String,
    /// The acting seat (e.g. darkwing, lead, jason); defaults to $MOSAIC_AGENT_NAME
    #[arg(long, value_name = "NAME", allow_hyphen_values = true)]
    pub by: Option<String>,
    /// Under `replication required`: how long the receipt waits for the follower's push, in
    /// whole seconds (0 to 600, default 10); past it the change is durable here and the command
    /// exits 3, and the same command again answers once it is replicated
    #[arg(long, value_name = "SECONDS", allow_hyphen_values = true, value_parser = replication_timeout)]
    pub replication_timeout: Option<u32>,
}

/// The most seconds a change waits for the follower (`--replication-timeout`).
pub const MAX_REPLICATION_WAIT: u32 = 600;

/// `--replication-timeout`: a whole number of seconds from 0 to 600.
fn replication_timeout(text: &str) -> Result<u32, String> {
    match number::parse(text) {
        Ok(n) if n <= u64::from(MAX_REPLICATION_WAIT) => Ok(n as u32),
        _ => Err(format!(
            "--replication-timeout takes whole seconds from 0 to {MAX_REPLICATION_WAIT}, not {text:?}"
        )),
    }
}

/// `follow` and `adopt`'s remote call deadline: whole seconds from 1 to 3600.
fn git_timeout(text: &str) -> Result<u32, String> {
    match number::parse(text) {
        Ok(n) if (1..=3600).contains(&n) => Ok(n as u32),
        _ => Err(format!(
            "--git-timeout takes whole seconds from 1 to 3600, not {text:?}"
        )),
    }
}

/// `replication`'s value.
fn replication_mode(text: &str) -> Result<mosaic_queue_core::ReplicationMode, String> {
    mosaic_queue_core::ReplicationMode::parse(text)
        .ok_or_else(|| format!("replication is required or off, not {text:?}"))
}

#[derive(Subcommand, Debug)]
pub enum Verb {
    /// Every row as the table shows it (unlocked read); with --stale DAYS, the rows in
    /// progress or in review that no log entry has touched for DAYS days (or hours: 2h, or
    /// minutes: 90m).
    #[command(
        after_help = "Examples:\n  mosaic-queue list\n  mosaic-queue list --json\n  mosaic-queue list --stale 3\n  mosaic-queue list --stale 90m"
    )]
    List {
        /// Only rows in progress or in review with no log entry for DAYS days (or 2h, 90m),
        /// oldest first, with their owners
        #[arg(long, value_name = "DAYS", allow_hyphen_values = true, value_parser = number::span)]
        stale: Option<number::Span>,
    },
    /// One row with its status, owner, review round and move reason (unlocked read).
    #[command(after_help = "Examples:\n  mosaic-queue show 3\n  mosaic-queue show 3 --json")]
    Show {
        /// The row's number (the table's # column)
        #[arg(value_name = "ID", value_parser = number::id, allow_negative_numbers = true)]
        id: u64,
    },
    /// The row a seat should take up next (unlocked read; docs/next.md says how it picks).
    #[command(
        after_help = "Examples:\n  mosaic-queue next darkwing\n  MOSAIC_AGENT_NAME=darkwing mosaic-queue next --json"
    )]
    Next {
        /// The seat to pick for (e.g. darkwing); defaults to $MOSAIC_AGENT_NAME
        seat: Option<String>,
        /// Also list every open row passed over and why (owned, gated, waiting on #3, ...)
        #[arg(long)]
        explain: bool,
    },
    /// Block until row ID reaches one of --status S[,S...], or the queue passes
    /// --revision-after N, as the witness confirms durable (no lock, no polling).
    #[command(
        after_help = "Examples:\n  mosaic-queue wait 3 --status in-review,done --timeout 600\n  mosaic-queue wait --revision-after 41 --timeout 60\n\nExit 0 once the condition holds (prints the row, or the new revision), 1 when --timeout runs out."
    )]
    Wait {
        /// The row to wait on (with --status)
        #[arg(value_name = "ID", value_parser = number::id, allow_negative_numbers = true)]
        id: Option<u64>,
        /// The statuses that end the wait, comma-separated
        #[arg(
            long,
            value_delimiter = ',',
            value_name = "S,...",
            allow_hyphen_values = true
        )]
        status: Vec<String>,
        /// End the wait once a durable revision above N exists
        #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = number::parse)]
        revision_after: Option<u64>,
        /// Give up after SECONDS (fractions allowed); without it, wait as long as it takes
        #[arg(long, value_name = "SECONDS", allow_hyphen_values = true)]
        timeout: Option<String>,
    },
    /// A short orientation for an agent starting a session: who the seat is, its rows, what
    /// next gives and why, the rules and the commands (unlocked read).
    #[command(
        after_help = "Examples:\n  mosaic-queue prime darkwing\n  MOSAIC_AGENT_NAME=darkwing mosaic-queue prime --json"
    )]
    Prime {
        /// The seat (e.g. darkwing); defaults to $MOSAIC_AGENT_NAME
        seat: Option<String>,
    },
    /// The operation log, newest first: revision, time, actor, verb, receipt and op id,
    /// tab-separated (unlocked read).
    #[command(
        after_help = "Examples:\n  mosaic-queue log 3 --limit 5\n  mosaic-queue log --json --limit 1"
    )]
    Log {
        /// Only the entries that touched this row (its genesis, moves, edits and review
        /// entries, outcomes included)
        #[arg(value_name = "ID", value_parser = number::id, allow_negative_numbers = true)]
        id: Option<u64>,
        /// At most N entries, the newest (N >= 1)
        #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = number::count)]
        limit: Option<u64>,
    },
    /// Add a row (the lead, jason or sage).
    #[command(
        after_help = "Examples:\n  mosaic-queue add --piece 'Node shim' --issues 1520,1521 --reviewers flicker --op lead-add-node-shim --by lead\n  mosaic-queue add --piece 'Old dashboard' --status parked --op sage-add-dashboard --by sage"
    )]
    Add {
        /// The piece of work, one line of text (the table's Piece column; no \ or <)
        #[arg(long, value_name = "TEXT")]
        piece: String,
        /// The seat that owns the row (1 to 32 characters of [a-z0-9-], starting with a letter)
        #[arg(long, value_name = "SEAT", allow_hyphen_values = true)]
        owner: Option<String>,
        /// The row's issue numbers: 12 or #12, comma-separated or repeated
        #[arg(
            long,
            value_name = "N,...",
            value_delimiter = ',',
            allow_hyphen_values = true
        )]
        issues: Vec<String>,
        /// Who or what gates the row (free text, e.g. jason; the table's Gate column)
        #[arg(long, value_name = "TEXT")]
        gate: Option<String>,
        /// Seats that review the row, comma-separated: its move to in-review then posts a review
        /// request on Gitea
        #[arg(
            long,
            value_name = "SEAT,...",
            value_delimiter = ',',
            allow_hyphen_values = true
        )]
        reviewers: Vec<String>,
        /// Where the row's brief lives: a path or link target, no spaces or parentheses
        #[arg(long, value_name = "TEXT")]
        brief: Option<String>,
        /// A note for the table's Note column (one line; no \ or <)
        #[arg(long, value_name = "TEXT")]
        note: Option<String>,
        /// The new row's status: queued or parked
        #[arg(
            long,
            value_name = "STATUS",
            default_value = "queued",
            allow_hyphen_values = true
        )]
        status: String,
        /// Rows the new row waits on, comma-separated: next names it only once they are done
        #[arg(
            long,
            value_name = "ID,...",
            value_delimiter = ',',
            allow_hyphen_values = true
        )]
        after: Vec<String>,
        #[command(flatten)]
        change: Change,
    },
    /// Move a row to another status (docs/transitions.md lists who may make which move).
    #[command(
        after_help = "Examples:\n  mosaic-queue move 3 in-progress --op darkwing-3-start-1 --by darkwing\n  mosaic-queue move 3 in-review --candidate HEAD --issue 1510 --op darkwing-3-review-1 --by darkwing"
    )]
    Move {
        /// The row's number
        #[arg(value_name = "ID", value_parser = number::id, allow_negative_numbers = true)]
        id: u64,
        /// The new status: queued, in-progress, in-review, waiting-on-jason, blocked, parked or
        /// done
        status: String,
        /// Why: required for a move to blocked (the table shows it as the blocked reason);
        /// shown with the status after any other move
        #[arg(long, value_name = "TEXT")]
        reason: Option<String>,
        /// For in-review, what is reviewed: a manifest file (one `<sha256> <path>` line per
        /// file) or a commit (sha, branch, tag or HEAD) reachable from a branch or tag
        #[arg(long, value_name = "FILE|REV", allow_hyphen_values = true)]
        candidate: Option<String>,
        /// For in-review, the manifest's text itself instead of a file (what a seat on another
        /// machine sends: docs/remote.md)
        #[arg(
            long,
            value_name = "TEXT",
            allow_hyphen_values = true,
            conflicts_with_all = ["candidate", "manifest_stdin"]
        )]
        manifest_text: Option<String>,
        /// For in-review, the manifest's text read from stdin (at most 4 MiB)
        #[arg(long, conflicts_with = "candidate")]
        manifest_stdin: bool,
        /// For in-review, the issue the review runs on: one of the row's issues (needed when
        /// it has several)
        #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = number::id)]
        issue: Option<u64>,
        /// For done from a round that posted nothing (no reviewers): the approving comment, as
        /// comment=<id>,round=<n>,candidate=<digest>
        #[arg(
            long,
            value_name = "comment=ID,round=N,candidate=DIGEST",
            allow_hyphen_values = true
        )]
        evidence: Option<String>,
        /// For in-progress, the claim's lease (`90s`, `45m`, `2h`; 1m to 24h); default: the
        /// queue's
        #[arg(long, value_name = "DURATION", allow_hyphen_values = true, value_parser = mosaic_queue_core::parse_lease)]
        lease: Option<u32>,
        #[command(flatten)]
        change: Change,
    },
    /// Claim the row `next` names for the acting seat and start it, as one entry; a retry of
    /// the op answers with its original receipt; "nothing to take" writes nothing (exit 0).
    #[command(
        after_help = "Examples:\n  mosaic-queue take --op darkwing-take-1 --by darkwing\n  mosaic-queue take --lease 2h --op darkwing-take-2 --by darkwing"
    )]
    Take {
        /// The claim's lease: how long it may go without a sign of life (`90s`, `45m`, `2h`;
        /// 1m to 24h) before another seat's take reclaims it; default: the queue's
        #[arg(long, value_name = "DURATION", allow_hyphen_values = true, value_parser = mosaic_queue_core::parse_lease)]
        lease: Option<u32>,
        /// Take queued rows only, never another seat's expired claim
        #[arg(long)]
        no_reclaim: bool,
        #[command(flatten)]
        change: Change,
    },
    /// Set the queue's default lease for claims that give none (`2h`), or `off` (the lead,
    /// jason or sage).
    #[command(
        after_help = "Examples:\n  mosaic-queue lease-default 2h --op lead-lease-1 --by lead\n  mosaic-queue lease-default off --op lead-lease-2 --by lead"
    )]
    LeaseDefault {
        /// The default lease (`90s`, `45m`, `2h`; 1m to 24h), or `off` for none
        #[arg(value_name = "LEASE", allow_hyphen_values = true, value_parser = lease_or_off)]
        lease: LeaseSetting,
        #[command(flatten)]
        change: Change,
    },
    /// End a seat's claim at once: the row goes back to queued and its holder is fenced off it
    /// (the lead, jason or sage).
    #[command(
        after_help = "Example:\n  mosaic-queue reclaim 3 --reason 'darkwing stopped mid-row' --op lead-3-reclaim-1 --by lead"
    )]
    Reclaim {
        /// The row's number
        #[arg(value_name = "ID", value_parser = number::id, allow_negative_numbers = true)]
        id: u64,
        /// Why the claim ends (recorded in the entry, shown with the status)
        #[arg(long, value_name = "TEXT")]
        reason: String,
        #[command(flatten)]
        change: Change,
    },
    /// Show a sign of life: renews every leased claim of the seat (no lock, no log entry; a
    /// file under .git beside the witness).
    #[command(
        after_help = "Examples:\n  mosaic-queue heartbeat --by darkwing\n  MOSAIC_AGENT_NAME=darkwing mosaic-queue heartbeat --json"
    )]
    Heartbeat {
        /// The seat (e.g. darkwing); defaults to $MOSAIC_AGENT_NAME
        #[arg(long, value_name = "NAME", allow_hyphen_values = true)]
        by: Option<String>,
    },
    /// Hand an in-progress row back to the queue (clears the owner).
    #[command(
        after_help = "Example:\n  mosaic-queue release 3 --op darkwing-3-release-1 --by darkwing"
    )]
    Release {
        /// The row's number
        #[arg(value_name = "ID", value_parser = number::id, allow_negative_numbers = true)]
        id: u64,
        #[command(flatten)]
        change: Change,
    },
    /// Give a row an owner (the lead, jason or sage).
    #[command(
        after_help = "Example:\n  mosaic-queue assign 3 flicker --op lead-3-assign-flicker --by lead"
    )]
    Assign {
        /// The row's number
        #[arg(value_name = "ID", value_parser = number::id, allow_negative_numbers = true)]
        id: u64,
        /// The seat that becomes the owner (1 to 32 characters of [a-z0-9-])
        seat: String,
        #[command(flatten)]
        change: Change,
    },
    /// Set a row's note; an empty TEXT clears it.
    #[command(
        after_help = "Examples:\n  mosaic-queue note 3 'unblocked once #1508 lands' --op flicker-3-note-1 --by flicker\n  mosaic-queue note 3 '' --op flicker-3-note-2 --by flicker"
    )]
    Note {
        /// The row's number
        #[arg(value_name = "ID", value_parser = number::id, allow_negative_numbers = true)]
        id: u64,
        /// The note, one line (no \ or <); '' clears it
        text: String,
        #[command(flatten)]
        change: Change,
    },
    /// Set piece, gate, issues, closes, reviewers, brief or after.
    #[command(
        after_help = "Examples:\n  mosaic-queue set 3 issues 1510,1511 --op lead-3-issues-1 --by lead\n  mosaic-queue set 3 closes 1510 --reason 'the rest moves to row 7' --op lead-3-closes-1 --by lead"
    )]
    Set {
        /// The row's number
        #[arg(value_name = "ID", value_parser = number::id, allow_negative_numbers = true)]
        id: u64,
        /// The field: piece, gate, issues, closes, reviewers, brief or after
        field: String,
        /// The new value: one line of text for piece and gate, a link target (no spaces or
        /// parentheses) for brief, comma-separated issue numbers for issues and closes,
        /// comma-separated seats for reviewers, comma-separated rows for after ('' clears it)
        #[arg(allow_negative_numbers = true)]
        value: String,
        /// Why: required when closes is narrowed to fewer than the row's issues
        #[arg(long, value_name = "TEXT")]
        reason: Option<String>,
        #[command(flatten)]
        change: Change,
    },
    /// Start the queue from the reviewed migration map (jason or sage).
    #[command(
        after_help = "Example:\n  mosaic-queue genesis --map agents/darkwing/work/queue-migration-map.md --op jason-genesis-1 --by jason"
    )]
    Genesis {
        /// The reviewed migration map: markdown with a `source: docs/plans/QUEUE.md blob <sha>`
        /// line and a `| # | Piece | Owner | Status | Gate | Issues | Note |` table
        #[arg(long, value_name = "FILE")]
        map: PathBuf,
        #[command(flatten)]
        change: Change,
    },
    /// Check queue.json (and with --current, that the table is current); with --snapshot, check
    /// a snapshot's two files anywhere, with no repository and no lock.
    #[command(
        after_help = "Examples:\n  mosaic-queue verify --current\n  mosaic-queue verify --full\n  mosaic-queue verify --snapshot /tmp/queue-snap --base old/queue.json"
    )]
    Verify {
        /// Also check that QUEUE.md's table is a current render of the queue
        #[arg(long, conflicts_with = "snapshot")]
        current: bool,
        /// A directory holding queue.json and QUEUE.md (what `snapshot --out` writes)
        #[arg(long, value_name = "DIR")]
        snapshot: Option<PathBuf>,
        /// A queue.json whose log the snapshot's log must extend
        #[arg(long, value_name = "FILE", requires = "snapshot")]
        base: Option<PathBuf>,
        /// Also read every archive under docs/plans/archive/ in order and prove the history
        /// from genesis: each epoch's starting state is what its archived log replays to
        #[arg(long, conflicts_with = "snapshot")]
        full: bool,
    },
    /// Rewrite the table when it is stale; --check only reports.
    #[command(after_help = "Examples:\n  mosaic-queue render --check\n  mosaic-queue render")]
    Render {
        /// Only report: exit 2 when the table is stale, and write nothing
        #[arg(long)]
        check: bool,
    },
    /// Confirm a visible tail durable and name each op that became durable unacknowledged;
    /// with --op, say whether that op is in the log and durable.
    #[command(
        after_help = "Examples:\n  mosaic-queue sync\n  mosaic-queue sync --op darkwing-3-start-1"
    )]
    Sync {
        /// The op to ask about, instead of confirming the tail
        #[arg(long, value_name = "ID", allow_hyphen_values = true)]
        op: Option<String>,
    },
    /// Copy queue.json and QUEUE.md into an empty directory outside the repository.
    #[command(after_help = "Example:\n  mosaic-queue snapshot --out /tmp/queue-snap")]
    Snapshot {
        /// The directory to copy into: new or empty, outside the repository
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
    /// Commit exactly the snapshot bytes of the two queue files on top of HEAD (the lead,
    /// jason or sage); --genesis for the first. Never pushes.
    #[command(
        after_help = "Examples:\n  mosaic-queue commit -m 'queue: row 3 in review' --by lead\n  mosaic-queue commit --genesis -m 'queue genesis' --by jason"
    )]
    Commit {
        /// The commit message
        #[arg(short, long, value_name = "MSG")]
        message: String,
        /// The first queue commit, which adds queue.json as genesis wrote it
        #[arg(long)]
        genesis: bool,
        /// The acting seat; defaults to $MOSAIC_AGENT_NAME
        #[arg(long, value_name = "NAME", allow_hyphen_values = true)]
        by: Option<String>,
    },
    /// Remove a dead or mismatched queue lock; --check-gate classifies a stale unlock gate.
    #[command(after_help = "Examples:\n  mosaic-queue unlock\n  mosaic-queue unlock --check-gate")]
    Unlock {
        /// Only classify the unlock gate (.git/mosaic-queue.unlock) and say what to do; remove
        /// nothing
        #[arg(long)]
        check_gate: bool,
    },
    /// Accept the file as it is after lost history or a missing witness (jason or sage; see
    /// Manual recovery).
    #[command(
        after_help = "Example:\n  mosaic-queue accept-history --reason 'restored from backup after disk loss' --yes --op sage-accept-1 --by sage"
    )]
    AcceptHistory {
        /// Why the history is accepted (recorded in the entry)
        #[arg(long, value_name = "TEXT")]
        reason: String,
        /// Confirms that ops lost before this entry are no longer deduplicated
        #[arg(long)]
        yes: bool,
        #[command(flatten)]
        change: Change,
    },
    /// Cut the history before revision REV into docs/plans/archive/epoch-NNNN.json, written
    /// once and never changed: queue.json keeps the rows still in play, one epoch entry and the
    /// entries from REV on (the lead, jason or sage; docs/format.md).
    #[command(
        after_help = "Example:\n  mosaic-queue archive --before 99001 --yes --op lead-archive-1 --by lead\n\n`doctor` names the cut, with its REV, once the log passes 10,000 entries; `verify --full` checks every archive."
    )]
    Archive {
        /// The first revision kept in queue.json: entries below it, and the done rows no later
        /// entry names, move to the archive (2 <= REV <= the revision after the last)
        #[arg(long, value_name = "REV", allow_hyphen_values = true, value_parser = number::parse)]
        before: u64,
        /// Confirms the cut: the archived history is read from its file from then on
        #[arg(long)]
        yes: bool,
        #[command(flatten)]
        change: Change,
    },
    /// Build a scratch canonical checkout with a sample queue under the system temp dir.
    #[command(after_help = "Example:\n  mosaic-queue demo")]
    Demo,
    /// Name every state that needs someone to act, each with the command that cures it
    /// (read-only: no lock, writes nothing).
    #[command(
        after_help = "Examples:\n  mosaic-queue doctor\n  mosaic-queue doctor --json\n\nExit 0: nothing needs doing; 2: something does (each line names the command that cures it), or no checkout is here; 1: it could not look."
    )]
    Doctor,
    /// The pre-commit guard: refuse a commit whose index entry for a queue file differs from
    /// HEAD's.
    #[command(after_help = "Example (what .git/hooks/pre-commit runs):\n  mosaic-queue guard")]
    Guard,
    /// Install scripts/git-hooks/pre-commit as .git/hooks/pre-commit (jason or sage).
    #[command(after_help = "Example:\n  mosaic-queue install-hook --by jason")]
    InstallHook {
        /// The acting seat; defaults to $MOSAIC_AGENT_NAME
        #[arg(long, value_name = "NAME", allow_hyphen_values = true)]
        by: Option<String>,
    },
    /// Report drift between the migration map and the current QUEUE.md (read-only).
    #[command(
        after_help = "Example:\n  mosaic-queue map-check --map agents/darkwing/work/queue-migration-map.md"
    )]
    MapCheck {
        /// The migration map to compare (as `genesis --map` takes it)
        #[arg(long, value_name = "FILE")]
        map: PathBuf,
    },
    /// Review requests, their resolution, verdicts, and checking a commit against a candidate.
    #[command(
        after_help = "Examples:\n  mosaic-queue review record 3 --verdict approve --comment 4242 --candidate git:0123456789abcdef0123456789abcdef01234567 --op flicker-3-verdict-1 --by flicker\n  mosaic-queue review verify-commit 3 HEAD"
    )]
    Review {
        #[command(subcommand)]
        verb: ReviewVerb,
    },
    /// Whether a change's receipt waits for the follower's push (the lead, jason or sage):
    /// `required` makes every receipt wait until `follow` has pushed its revision or a later
    /// one; `off` (every queue's start) answers once the change is durable here
    /// (docs/replication.md).
    #[command(after_help = "Examples:
  mosaic-queue replication required --op lead-replication-1 --by lead
  mosaic-queue replication off --op lead-replication-2 --by lead")]
    Replication {
        /// required or off
        #[arg(value_name = "required|off", allow_hyphen_values = true, value_parser = replication_mode)]
        mode: mosaic_queue_core::ReplicationMode,
        #[command(flatten)]
        change: Change,
    },
    /// Push each newest durable revision to REF on REMOTE with git, fast-forward only, until
    /// SIGTERM or Ctrl-C (after the push in flight): a commit holding only the queue's files
    /// on the last replicated one; one line per push on stdout (docs/replication.md).
    #[command(after_help = "Examples:
  mosaic-queue follow --to origin
  mosaic-queue follow --to ssh://git@gitea.example/team/stack.git --ref refs/heads/mosaic-queue")]
    Follow {
        /// The git remote (a name, or a URL) to push to, with git's own credentials
        #[arg(long, value_name = "REMOTE", allow_hyphen_values = true)]
        to: String,
        #[command(flatten)]
        replica: Replica,
    },
    /// Take the queue over in this standby checkout of the same repository (the lead, jason
    /// or sage): REF on REMOTE fetched and verified whole, one adopt entry pushed there at once
    /// (the old host is fenced by it), then the files installed here (docs/replication.md).
    #[command(after_help = "Example:
  mosaic-queue adopt --from origin --op lead-adopt-1 --by lead")]
    Adopt {
        /// The git remote (a name, or a URL) the follower pushed to
        #[arg(long, value_name = "REMOTE", allow_hyphen_values = true)]
        from: String,
        #[command(flatten)]
        replica: Replica,
        #[command(flatten)]
        change: Change,
    },
    /// Serve this checkout's queue to one seat over MCP on stdin and stdout until stdin closes
    /// (docs/mcp.md): the same verbs, answers and refusals as the CLI's --json.
    #[command(
        after_help = "Examples:\n  mosaic-queue mcp --seat darkwing\n  claude mcp add queue -- mosaic-queue mcp --seat darkwing"
    )]
    Mcp {
        /// The seat every tool call acts as (e.g. darkwing); defaults to $MOSAIC_AGENT_NAME
        #[arg(long, value_name = "SEAT", allow_hyphen_values = true)]
        seat: Option<String>,
    },
    /// Serve this checkout's queue as read-only web pages on loopback until Ctrl-C or
    /// SIGTERM (docs/board.md): the board, the dependency graph, the seats, the timeline and
    /// a page per row, updated live as writes become durable. The first line on stdout is
    /// `board: http://127.0.0.1:PORT/`.
    #[command(
        after_help = "From another machine, forward the port (the same on both ends) and open the address there:\nssh -N -L 7461:127.0.0.1:7461 queue-host\n\nExamples:\n  mosaic-queue board\n  mosaic-queue board --listen 127.0.0.1:0"
    )]
    Board {
        /// The loopback address and port to listen on (127.0.0.1 or [::1]; port 0 picks a
        /// free one); any other address is refused
        #[arg(long, value_name = "IP:PORT", default_value = BOARD_LISTEN)]
        listen: String,
    },
    /// The forced command of a seat's key in authorized_keys: runs the MCP server or the one
    /// verb SSH_ORIGINAL_COMMAND names, as that seat, in the checkout (docs/remote.md).
    /// Another program, shell syntax, another actor, a verb kept for others or a file on this
    /// host is refused with exit 2 and one line.
    #[command(
        after_help = "Examples (the command of a key's authorized_keys line; what the key's owner sends):\n  mosaic-queue gate --seat darkwing --root /srv/mosaic/stack\n  SSH_ORIGINAL_COMMAND='list --json' mosaic-queue gate --seat darkwing --root /srv/mosaic/stack"
    )]
    Gate(super::gate_args::GateArgs),
    /// Print a shell completion script for bash, zsh, fish or powershell.
    #[command(
        after_help = "Examples:\n  mosaic-queue completions bash > ~/.local/share/bash-completion/completions/mosaic-queue\n  mosaic-queue completions zsh > ~/.zfunc/_mosaic-queue"
    )]
    Completions {
        /// The shell: bash, zsh, fish or powershell
        #[arg(value_name = "SHELL")]
        shell: Shell,
    },
    /// Print a man page in roff: the whole command's, or one verb's.
    #[command(
        after_help = "Examples:\n  mosaic-queue man > ~/.local/share/man/man1/mosaic-queue.1\n  mosaic-queue man review request | man -l -"
    )]
    Man {
        /// The verb whose page to print (`review request` names a review verb); none: the
        /// top-level page
        #[arg(value_name = "VERB")]
        verb: Vec<String>,
    },
}

/// `lease-default`'s value: a lease in seconds, or none.
#[derive(Clone, Copy, Debug)]
pub struct LeaseSetting(pub Option<u32>);

/// `lease-default`'s value as every face reads it: `off`, or a lease `parse_lease` takes.
fn lease_or_off(text: &str) -> Result<LeaseSetting, mosaic_queue_core::ClaimError> {
    match text {
        "off" => Ok(LeaseSetting(None)),
        lease => mosaic_queue_core::parse_lease(lease).map(|s| LeaseSetting(Some(s))),
    }
}

#[derive(Subcommand, Debug)]
pub enum ReviewVerb {
    /// Post a new request in the current round after a failed or abandoned one.
    #[command(
        after_help = "Example:\n  mosaic-queue review request 3 --op darkwing-3-request-2 --by darkwing"
    )]
    Request {
        /// The row's number
        #[arg(value_name = "ID", value_parser = number::id, allow_negative_numbers = true)]
        id: u64,
        #[command(flatten)]
        change: Change,
    },
    /// Record the comment a person found for a requesting, uncertain or conflicting attempt
    /// (the owner, jason or sage); the comment is fetched and checked first.
    #[command(
        after_help = "Example:\n  mosaic-queue review resolve 3 darkwing-3-review-1 --comment 4242 --op darkwing-3-resolve-1 --by darkwing"
    )]
    Resolve {
        /// The row's number
        #[arg(value_name = "ID", value_parser = number::id, allow_negative_numbers = true)]
        id: u64,
        /// The op of the request attempt (as `show` lists it)
        attempt: String,
        /// The id of the comment found on the issue (the N of its #issuecomment-N link)
        #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = number::parse)]
        comment: u64,
        #[command(flatten)]
        change: Change,
    },
    /// Give up on an attempt whose comment is not on the issue (jason or sage).
    #[command(
        after_help = "Example:\n  mosaic-queue review abandon 3 darkwing-3-review-1 --reason 'no comment on #1510' --yes --op sage-3-abandon-1 --by sage"
    )]
    Abandon {
        /// The row's number
        #[arg(value_name = "ID", value_parser = number::id, allow_negative_numbers = true)]
        id: u64,
        /// The op of the request attempt (as `show` lists it)
        attempt: String,
        /// Why the attempt is given up (recorded in the entry)
        #[arg(long, value_name = "TEXT")]
        reason: String,
        /// Confirms that a late comment may still land (the round records a duplicate risk)
        #[arg(long)]
        yes: bool,
        #[command(flatten)]
        change: Change,
    },
    /// Record your verdict on the current round's candidate (a listed reviewer).
    #[command(
        after_help = "Example:\n  mosaic-queue review record 3 --verdict changes --comment 4243 --candidate sha256:9f2c0e7d4b1a63580f2e9c7d1b4a6e3f5c8d0b2a7e9f1c3d5b7a9e0f2c4d6b8a --op flicker-3-verdict-1 --by flicker"
    )]
    Record {
        /// The row's number
        #[arg(value_name = "ID", value_parser = number::id, allow_negative_numbers = true)]
        id: u64,
        /// approve or changes
        #[arg(long, value_name = "approve|changes", allow_hyphen_values = true)]
        verdict: String,
        /// The id of the comment carrying your verdict on the round's issue
        #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = number::parse)]
        comment: u64,
        /// The round's candidate digest as `show` prints it: sha256:<64 hex> or git:<40 hex>
        #[arg(long, value_name = "DIGEST", allow_hyphen_values = true)]
        candidate: String,
        #[command(flatten)]
        change: Change,
    },
    /// Check a prospective commit or tree against the current round's candidate (no lock).
    #[command(after_help = "Example:\n  mosaic-queue review verify-commit 3 HEAD")]
    VerifyCommit {
        /// The row's number
        #[arg(value_name = "ID", value_parser = number::id, allow_negative_numbers = true)]
        id: u64,
        /// The commit or tree to check: a sha, branch, tag or HEAD
        #[arg(value_name = "REF")]
        reference: String,
    },
}

impl Verb {
    /// The verb as typed (`review request`), which `--json` names in its text documents.
    pub fn name(&self) -> &'static str {
        match self {
            Verb::List { .. } => "list",
            Verb::Show { .. } => "show",
            Verb::Next { .. } => "next",
            Verb::Wait { .. } => "wait",
            Verb::Prime { .. } => "prime",
            Verb::Take { .. } => "take",
            Verb::LeaseDefault { .. } => "lease-default",
            Verb::Reclaim { .. } => "reclaim",
            Verb::Heartbeat { .. } => "heartbeat",
            Verb::Log { .. } => "log",
            Verb::Add { .. } => "add",
            Verb::Move { .. } => "move",
            Verb::Release { .. } => "release",
            Verb::Assign { .. } => "assign",
            Verb::Note { .. } => "note",
            Verb::Set { .. } => "set",
            Verb::Genesis { .. } => "genesis",
            Verb::Verify { .. } => "verify",
            Verb::Render { .. } => "render",
            Verb::Sync { .. } => "sync",
            Verb::Snapshot { .. } => "snapshot",
            Verb::Commit { .. } => "commit",
            Verb::Unlock { .. } => "unlock",
            Verb::AcceptHistory { .. } => "accept-history",
            Verb::Archive { .. } => "archive",
            Verb::Demo => "demo",
            Verb::Doctor => "doctor",
            Verb::Guard => "guard",
            Verb::InstallHook { .. } => "install-hook",
            Verb::MapCheck { .. } => "map-check",
            Verb::Mcp { .. } => "mcp",
            Verb::Board { .. } => "board",
            Verb::Replication { .. } => "replication",
            Verb::Follow { .. } => "follow",
            Verb::Adopt { .. } => "adopt",
            Verb::Gate(_) => "gate",
            Verb::Completions { .. } => "completions",
            Verb::Man { .. } => "man",
            Verb::Review { verb } => match verb {
                ReviewVerb::Request { .. } => "review request",
                ReviewVerb::Resolve { .. } => "review resolve",
                ReviewVerb::Abandon { .. } => "review abandon",
                ReviewVerb::Record { .. } => "review record",
                ReviewVerb::VerifyCommit { .. } => "review verify-commit",
            },
        }
    }

    /// Whether the verb writes log entries, whose receipt is its `--json` document.
    pub fn is_change(&self) -> bool {
        match self {
            Verb::Add { .. }
            | Verb::Move { .. }
            | Verb::Release { .. }
            | Verb::Assign { .. }
            | Verb::Note { .. }
            | Verb::Set { .. }
            | Verb::Take { .. }
            | Verb::LeaseDefault { .. }
            | Verb::Reclaim { .. }
            | Verb::Genesis { .. }
            | Verb::AcceptHistory { .. }
            | Verb::Archive { .. }
            | Verb::Replication { .. }
            | Verb::Adopt { .. } => true,
            Verb::Review { verb } => !matches!(verb, ReviewVerb::VerifyCommit { .. }),
            _ => false,
        }
    }
}
