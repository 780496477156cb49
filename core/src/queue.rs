//! A verified queue and the write-side API: `verify` parses and replays bytes, `genesis`
//! starts a file, `execute` turns a command into a new entry (or finds it already recorded).
//! The host does the I/O around these calls; nothing here reads a clock or a file.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use crate::admission;
use crate::body::Body;
use crate::canon;
use crate::chain;
use crate::ctx::Ctx;
use crate::digest;
use crate::entry::{
    Args, COORDINATION_SEMANTICS, Entry, GenesisArgs, HARDENED_SEMANTICS, LEASE_SEMANTICS,
    PLAIN_SEMANTICS, REACH_SEMANTICS, REPLICATION_SEMANTICS, ResolveArgs,
};
use crate::epoch::{ArchiveInfo, EpochArgs};
use crate::error::{QueueError, VerbError, WitnessError};
use crate::file::{self, FORMAT_VERSION, QueueFile};
use crate::model::{Round, Row, Witness};
use crate::pick;
use crate::render::{render_body_under, render_table};
use crate::replay::replay;
use crate::review;
use crate::rules;
use crate::state::State;
use crate::table::{self, BodyStatus};
use crate::verbs::{self, Command};

/// A queue file whose bytes are canonical and whose log replays to its rows.
#[derive(Clone, Debug)]
pub struct Queue {
    pub(crate) file: QueueFile,
    pub(crate) state: State,
}

/// What `execute` did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A new entry at `rev`; the caller must write the file before printing the receipt. When
    /// the entry opened a review request attempt, `request` is the comment to post next.
    Applied {
        rev: u64,
        receipt: String,
        request: Option<ReviewRequest>,
    },
    /// The op was already in the log: its original receipt, nothing changed. `request` names
    /// the attempt the op opened, whose outcome the log already holds or still waits for; it
    /// is never posted again.
    Recorded {
        rev: u64,
        receipt: String,
        request: Option<ReviewRequest>,
    },
    /// A `take` found no queued row for its actor (`held`: the row `next` names, already in
    /// progress for the actor, if that is why). Nothing was written.
    NothingToTake { held: Option<u64> },
}

/// What `take` prints when it writes nothing.
pub const NOTHING_TO_TAKE: &str = "nothing to take";

impl Outcome {
    pub fn receipt(&self) -> &str {
        match self {
            Outcome::Applied { receipt, .. } | Outcome::Recorded { receipt, .. } => receipt,
            Outcome::NothingToTake { .. } => NOTHING_TO_TAKE,
        }
    }

    /// The review request attempt the op opened, if it opened one.
    pub fn request(&self) -> Option<&ReviewRequest> {
        match self {
            Outcome::Applied { request, .. } | Outcome::Recorded { request, .. } => {
                request.as_ref()
            }
            Outcome::NothingToTake { .. } => None,
        }
    }
}

/// A review request attempt to post: on `issue`, as Gitea user `login`, the comment `body`;
/// its outcome is then logged as op `<attempt>.outcome` on row `id`. The core decides that a
/// change opens one and what it says; the host only carries it out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReviewRequest {
    pub id: u64,
    pub issue: u64,
    pub attempt: String,
    pub login: String,
    pub body: String,
}

impl Queue {
    /// Parses `bytes`, checks they are canonical, and replays the log from genesis.
    pub fn verify(bytes: &[u8]) -> Result<Queue, QueueError> {
        let file = file::parse_queue(bytes)?;
        let state = replay(&file)?;
        Ok(Queue { file, state })
    }

    /// A new queue holding only its genesis entry.
    pub fn genesis(
        args: GenesisArgs,
        op: &str,
        by: &str,
        at: &str,
    ) -> Result<(Queue, String), VerbError> {
        let mut queue = Queue {
            file: QueueFile {
                version: FORMAT_VERSION,
                canonical_root: args.root.clone(),
                revision: 0,
                rows: Vec::new(),
                log: Vec::new(),
            },
            state: State::default(),
        };
        let args = Args::Genesis(Box::new(args));
        admission::check(&args, op)?;
        let receipt = queue.append_new(args, op, by, at, PLAIN_SEMANTICS, true)?;
        Ok((queue, receipt))
    }

    /// Applies `cmd` as `op` by `by` at `at`. A recorded op with the same command answers
    /// with its original receipt; under another command or actor it is refused. An op the log
    /// lacks but an archive may hold is `OpMaybeArchived`: the caller reads those archives
    /// and asks `execute_with_archives`.
    pub fn execute(
        &mut self,
        cmd: &Command,
        op: &str,
        by: &str,
        at: &str,
    ) -> Result<Outcome, VerbError> {
        check_command(cmd, op, by)?;
        if let Some(entry) = self.entry_for_op(op) {
            return recorded(entry, cmd, &self.state, by, self.request_opened_by(op));
        }
        let epochs = self.maybe_archived(op);
        if !epochs.is_empty() {
            return Err(VerbError::OpMaybeArchived {
                op: String::from(op),
                epochs,
            });
        }
        self.apply_new(cmd, op, by, at)
    }

    /// `execute` once the archives `OpMaybeArchived` named are read (each `(epoch, file)`;
    /// a file must hash to the sha the epoch records): the op's original receipt when an
    /// archive holds it (same actor and command as a recorded op, no request to post), else
    /// the command applied as new. A false "maybe" costs the read, never a second apply.
    pub fn execute_with_archives(
        &mut self,
        cmd: &Command,
        op: &str,
        by: &str,
        at: &str,
        archives: &[(u32, &QueueFile)],
    ) -> Result<Outcome, VerbError> {
        check_command(cmd, op, by)?;
        if self.entry_for_op(op).is_some() {
            return self.execute(cmd, op, by, at);
        }
        let epochs = self.maybe_archived(op);
        let mut unread = Vec::new();
        for k in epochs {
            let Some((_, file)) = archives.iter().find(|(e, _)| *e == k) else {
                unread.push(k);
                continue;
            };
            let info = self
                .file
                .epoch()
                .and_then(|e| e.archives.get(k as usize - 1));
            if info.is_none_or(|i| digest::sha256_hex(&canon::to_canonical(*file)) != i.sha) {
                return Err(VerbError::ArchiveMismatch { epoch: k });
            }
            if let Some(entry) = file.chain_entries().iter().find(|e| e.op == op) {
                return recorded(entry, cmd, &self.state, by, None);
            }
        }
        if !unread.is_empty() {
            return Err(VerbError::OpMaybeArchived {
                op: String::from(op),
                epochs: unread,
            });
        }
        self.apply_new(cmd, op, by, at)
    }

    /// The epochs whose archive may hold op `op` (its filter says maybe), ascending; empty
    /// for a log that starts at genesis.
    pub fn maybe_archived(&self, op: &str) -> Vec<u32> {
        self.file.epoch().map_or_else(Vec::new, |e| {
            let hash = digest::sha256(op.as_bytes());
            e.archives
                .iter()
                .filter(|a| a.ops.may_contain_hash(&hash))
                .map(|a| a.epoch)
                .collect()
        })
    }

    /// The epoch entry's arguments when this log starts with one.
    pub fn epoch(&self) -> Option<&EpochArgs> {
        self.file.epoch()
    }

    /// The archive that holds row `id`, when a cut archived it.
    pub fn archive_of_row(&self, id: u64) -> Option<&ArchiveInfo> {
        let k = self.state.archived_in(id)?;
        self.file.epoch()?.archives.get(k as usize - 1)
    }

    /// `check_extends` for a witness older than the epoch (`BeforeEpoch`), with the archives
    /// it named as `(epoch, file)`.
    pub fn check_extends_archived(
        &self,
        file_sha: &str,
        witness: &Witness,
        archives: &[(u32, &QueueFile)],
    ) -> Result<(), WitnessError> {
        chain::check_extends_archived(&self.file, file_sha, witness, archives)
    }

    /// A command not yet in the log, applied as the next entry.
    fn apply_new(
        &mut self,
        cmd: &Command,
        op: &str,
        by: &str,
        at: &str,
    ) -> Result<Outcome, VerbError> {
        if let Command::Take(t) = cmd {
            match pick::take_pick_with(&self.state.rows, by, &t.heartbeats, at, !t.no_reclaim) {
                pick::Pick::Row(_) | pick::Pick::Reclaim(_) => {}
                pick::Pick::Held(id) => return Ok(Outcome::NothingToTake { held: Some(id) }),
                pick::Pick::Nothing => return Ok(Outcome::NothingToTake { held: None }),
            }
        }
        let rev = self.state.revision + 1;
        let args = cmd.normalize(&self.state, rev, by, at)?;
        // A recorded op answered above as it was written; only a new entry meets these.
        admission::check(&args, op)?;
        let semantics = self.semantics_for(&args);
        let receipt = self.append_new(args, op, by, at, semantics, true)?;
        Ok(Outcome::Applied {
            rev,
            receipt,
            request: self.request_opened_by(op),
        })
    }

    /// What `execute` would refuse `review resolve` (as op `op` by `by`) for on the queue as it
    /// stands, checked without applying it: the rules of `execute` up to its decision (op id,
    /// actor, numbers) and then the resolve's own (`review::attempts::check_resolve`, which the
    /// applied entry goes through too). The host asks before it fetches the comment, so a
    /// resolve that would be refused costs no network call; an op already recorded is the
    /// caller's to answer first.
    pub fn check_resolve(&self, args: &ResolveArgs, op: &str, by: &str) -> Result<(), VerbError> {
        rules::check_op(op)?;
        rules::check_actor(by)?;
        verbs::numbers::command(&Command::ReviewResolve(args.clone()))?;
        review::attempts::check_resolve(&self.state, args, by).map(drop)
    }

    /// The review request attempt `op` opened: a `move` into review on a row with reviewers,
    /// or a `review request`. `None` for every other entry.
    pub fn request_opened_by(&self, op: &str) -> Option<ReviewRequest> {
        let id = match &self.entry_for_op(op)?.args {
            Args::Move(m) => m.id,
            Args::ReviewRequest(r) => r.id,
            _ => return None,
        };
        let row = self.state.row(id).ok()?;
        let (round, attempt) = review::locate(row, op)?;
        Some(ReviewRequest {
            id,
            issue: round.issue.unwrap_or(0),
            attempt: String::from(op),
            login: String::from(rules::gitea_login(&attempt.by)),
            body: review::comment::request_body(row, round, attempt),
        })
    }

    /// The semantics a new entry is written under: the lowest that gives its arguments their
    /// meaning, and never below the entry before it. 2 until the queue first takes a row or
    /// makes one wait on another, 3 from that entry on; 4 from the first entry that carries a
    /// manifest (or, `append_new`, whose table holds a bracket); 5 from the first `set … after`
    /// that names rows; 7 from the first that carries a lease, sets the default or reclaims,
    /// and from nothing else; 8 from the first `replication` or `adopt`. A queue's semantics
    /// never go back.
    fn semantics_for(&self, args: &Args) -> u8 {
        let so_far = self
            .file
            .log
            .last()
            .map_or(PLAIN_SEMANTICS, |e| e.semantics);
        let needed = if args.uses_replication().is_some() {
            REPLICATION_SEMANTICS
        } else if args.uses_leases().is_some() {
            LEASE_SEMANTICS
        } else if args.sets_dependencies() {
            REACH_SEMANTICS
        } else if args.carries_manifest() {
            HARDENED_SEMANTICS
        } else if args.uses_coordination() {
            COORDINATION_SEMANTICS
        } else {
            PLAIN_SEMANTICS
        };
        so_far.max(needed)
    }

    /// Applies already-normalized `args` as the next entry under `semantics` and records it
    /// with the hash of the body it renders. `execute` is the way in for new commands; this is
    /// for tools that rebuild a log entry by entry (fixtures of semantics-1 history, the wasm API).
    pub fn append_entry(
        &mut self,
        args: Args,
        op: &str,
        by: &str,
        at: &str,
        semantics: u8,
    ) -> Result<String, VerbError> {
        if let Some(entry) = self.entry_for_op(op) {
            return Err(VerbError::OpReused {
                op: String::from(op),
                rev: entry.rev,
                verb: entry.verb.as_str(),
            });
        }
        self.append_new(args, op, by, at, semantics, false)
    }

    /// `append_entry` once the caller has found `op` not in the log; a new entry (`harden`)
    /// may be written under a higher semantics than asked for its table's sake (`style`).
    pub(crate) fn append_new(
        &mut self,
        args: Args,
        op: &str,
        by: &str,
        at: &str,
        semantics: u8,
        harden: bool,
    ) -> Result<String, VerbError> {
        let rev = self.state.revision + 1;
        let ctx = Ctx {
            rev,
            op,
            by,
            at,
            semantics,
        };
        let receipt = verbs::apply(&mut self.state, &args, &ctx)?;
        let (semantics, body) = self.style(semantics, harden);
        self.state.leases |= semantics >= LEASE_SEMANTICS;
        self.state.replicating |= semantics >= REPLICATION_SEMANTICS;
        if let Args::Adopt(a) = &args {
            // The file's root follows the adopt, as replay holds it to.
            self.file.canonical_root.clone_from(&a.root);
        }
        self.state.semantics = semantics;
        self.file.log.push(Entry {
            rev,
            op: String::from(op),
            verb: args.verb(),
            by: String::from(by),
            at: String::from(at),
            semantics,
            args,
            receipt: receipt.clone(),
            body: Body::Sha256(digest::sha256(body.as_bytes())),
        });
        self.file.revision = rev;
        self.file.rows.clone_from(&self.state.rows);
        Ok(receipt)
    }

    /// The semantics a new entry at `semantics` is written under once applied, with the body
    /// it renders. A new entry (`harden`) whose table holds a `[` or `]` in some text is written
    /// under at least 4, so that the table escapes them. An entry rebuilt from history keeps the
    /// semantics it was given. Raising 2 or 3 to 4 here changes nothing `apply` did: they differ
    /// from 4 only for a manifest, and an entry that carries one is under 4 already. Nothing
    /// raises an entry to 7 for its table's sake: a row that waits on another is no lease, so a
    /// queue that never uses leases keeps writing what the build before them wrote (its table
    /// names a waiting row `#5`; from 7 on, `row 5`).
    fn style(&self, semantics: u8, harden: bool) -> (u8, String) {
        // `\` never passes the text rules, so an escaped bracket in this render comes from
        // some text's bracket, and a render without one is the same under 2, 3 and 4.
        let body = render_body_under(&self.state, semantics.max(HARDENED_SEMANTICS));
        let brackets = body.contains("\\[") || body.contains("\\]");
        if !brackets || semantics >= HARDENED_SEMANTICS {
            (semantics, body)
        } else if harden {
            (HARDENED_SEMANTICS, body)
        } else {
            (semantics, render_body_under(&self.state, semantics))
        }
    }

    pub fn file(&self) -> &QueueFile {
        &self.file
    }

    pub fn state(&self) -> &State {
        &self.state
    }

    pub fn rows(&self) -> &[Row] {
        &self.file.rows
    }

    pub fn revision(&self) -> u64 {
        self.file.revision
    }

    /// The canonical bytes of the file.
    pub fn to_bytes(&self) -> Vec<u8> {
        canon::to_canonical(&self.file)
    }

    /// The table body for the current state, in the style of the last entry's semantics, so
    /// that it hashes to what that entry recorded: the one rendering `list` prints too.
    pub fn render_body(&self) -> String {
        render_table(&self.state)
    }

    /// The manifest text `round` froze (`manifest_of`).
    pub fn round_manifest<'a>(&'a self, round: &'a Round) -> Option<&'a str> {
        manifest_of(&self.file, round)
    }

    /// Whether `body` (the text between QUEUE.md's markers) is current, stale or unknown.
    pub fn body_status(&self, body: &str) -> BodyStatus {
        table::body_status(&self.file.log, body)
    }

    /// The row `seat` should take next (see `docs/next.md`).
    pub fn next(&self, seat: &str) -> Option<&Row> {
        pick::next(&self.file.rows, seat)
    }

    /// The witness a durable write of these bytes leaves; `file_sha` hashes `to_bytes()`.
    pub fn witness(&self, file_sha: String, at: String) -> Witness {
        chain::witness_for(&self.file, file_sha, at)
    }

    /// The witness for these bytes, continuing the chain of `prev`, which the caller has
    /// checked this file extends (`check_extends`); `None` hashes the whole log.
    pub fn witness_after(&self, prev: Option<&Witness>, file_sha: String, at: String) -> Witness {
        chain::witness_after(&self.file, prev, file_sha, at)
    }

    /// Checks that this file extends `witness` (no lost or rewritten history).
    pub fn check_extends(&self, file_sha: &str, witness: &Witness) -> Result<(), WitnessError> {
        chain::check_extends(&self.file, file_sha, witness)
    }

    /// The entry that recorded `op`, if any. A scan of the log: one process runs one command,
    /// so an index kept for every entry would cost replay more than this lookup does.
    pub fn entry_for_op(&self, op: &str) -> Option<&Entry> {
        self.file.log.iter().find(|e| e.op == op)
    }
}

/// The rules on a command before the log is looked at: its op id, its actor, its numbers.
fn check_command(cmd: &Command, op: &str, by: &str) -> Result<(), VerbError> {
    match cmd {
        Command::ReviewOutcome(o) if op.strip_suffix(".outcome") == Some(&o.attempt) => {
            rules::check_op(&o.attempt)?
        }
        _ => rules::check_op(op)?,
    }
    rules::check_actor(by)?;
    // Before the retry test, so that a number queue.json cannot hold is named as such.
    verbs::numbers::command(cmd)
}

/// The answer to the retry of `entry`'s op: its receipt, when the actor and the command are
/// the ones it recorded.
fn recorded(
    entry: &Entry,
    cmd: &Command,
    state: &State,
    by: &str,
    request: Option<ReviewRequest>,
) -> Result<Outcome, VerbError> {
    same_actor(entry, by)?;
    if !cmd.matches(&entry.args, state, by) {
        return Err(VerbError::OpReused {
            op: entry.op.clone(),
            rev: entry.rev,
            verb: entry.verb.as_str(),
        });
    }
    Ok(Outcome::Recorded {
        rev: entry.rev,
        receipt: entry.receipt.clone(),
        request,
    })
}

/// The manifest text `round` froze, in `file`: the round's own copy (opened under semantics
/// 2 or 3), else the text in the args of the move that opened it (semantics 4 stores it only
/// there), else, for a round opened before the file's cut, the copy its epoch state keeps.
pub(crate) fn manifest_of<'a>(file: &'a QueueFile, round: &'a Round) -> Option<&'a str> {
    if let Some(text) = round.manifest.as_deref() {
        return Some(text);
    }
    if let Some(entry) = file.entry(round.opened_rev)
        && entry.rev == round.opened_rev
        && let Args::Move(m) = &entry.args
    {
        return m.manifest.as_deref();
    }
    let kept = &file.epoch()?.state.manifests;
    let i = kept.binary_search_by_key(&round.opened_rev, |m| m.0).ok()?;
    Some(kept[i].1.as_str())
}

/// A recorded op answers only the actor that wrote it; anyone else is refused, naming both.
pub(crate) fn same_actor(entry: &Entry, by: &str) -> Result<(), VerbError> {
    if entry.by != by {
        return Err(VerbError::OpOtherActor {
            op: entry.op.clone(),
            rev: entry.rev,
            recorded_by: entry.by.clone(),
            actor: String::from(by),
        });
    }
    Ok(())
}
