//! The store session: the one path a verb takes to the queue's files. It locates the checkout,
//! checks the filesystem, takes the lock (one wait), loads under the witness rule, hands the
//! core a command, writes the result durably (or repairs what a killed writer of a recorded op
//! left), and releases. The CLI parses before it and prints after it.

use std::io;
use std::path::Path;

use mosaic_queue_core::{
    BodyStatus, Command, Outcome, OutcomeArgs, Queue, QueueError, State, VerbError, markdown,
    migration::Map,
};
use thiserror::Error;

use super::lock::{self, Lock, LockError};
use super::world::World;
use super::{Loaded, StoreError};
use crate::checkout::Paths;
use crate::checkout::{self, CheckoutError};
use crate::core_error::{CoreError, Ending};
use crate::exit::Exit;
use crate::io::{Io, RealIo};
pub use crate::io::{Kind, Refusal, into_refusal, size_text};

/// Why a session stopped. Each knows how the command ends.
#[derive(Debug, Error)]
pub enum SessionError {
    #[error("cannot read the working directory: {0}")]
    WorkingDir(io::Error),
    #[error(transparent)]
    Checkout(#[from] CheckoutError),
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(
        "there is no witness .git/mosaic-queue.head: if queue.json holds genesis alone run `mosaic-queue sync`, otherwise see Manual recovery"
    )]
    NoWitness,
    #[error(
        "there is no witness .git/mosaic-queue.head, so nothing is confirmed durable: run `mosaic-queue sync` or see Manual recovery"
    )]
    NothingDurable,
    #[error("QUEUE.md is not UTF-8; {}", Kind::QueueMd.next_step())]
    TableNotUtf8,
    #[error("docs/plans/QUEUE.md does not exist; {}", Kind::QueueMd.next_step())]
    TableMissing,
    #[error("{0}")]
    TableMarkers(String),
    /// `then` is the step once the table is restored (`render` refuses where accept-history
    /// has yet to run, so that verb names itself).
    #[error(
        "QUEUE.md's table is not a render of this queue (a hand edit?); restore it with git or re-apply the edit as queue ops, then {then}"
    )]
    HandEdit { then: &'static str },
    #[error(
        "the op is recorded but QUEUE.md could not be rendered ({0}); run `mosaic-queue render`"
    )]
    Rerender(io::Error),
    #[error("cannot write QUEUE.md: {0}")]
    WriteTable(io::Error),
    #[error(
        "docs/plans/queue.json exists already; genesis runs once (see Manual recovery for a broken file)"
    )]
    GenesisTwice,
    #[error("{0}; add both markers before genesis")]
    GenesisMarkers(String),
    /// The core refused the command or the data: its line and exit (`core_error`).
    #[error("{}", .0.line())]
    Core(CoreError),
    #[error(
        "op {op} recorded accept-history at rev {rev}, and history was lost again since; run accept-history with a new op id"
    )]
    LostAgain { op: String, rev: u64 },
    #[error(
        "nothing to accept: queue.json extends the witness (rev {witness_rev}){}; accept-history is only for Manual recovery",
        if *.ahead { " (`mosaic-queue sync` confirms its visible tail)" } else { "" }
    )]
    NothingToAccept { witness_rev: u64, ahead: bool },
    /// `then` is what to do once the table is looked at (`render --check`, `verify --current`).
    #[error("QUEUE.md is stale (rendered at rev {rev}); {then}")]
    TableStale { rev: u64, then: &'static str },
    #[error("QUEUE.md's table is not a render of this queue; {0}")]
    NotARender(&'static str),
    #[error(
        "op {op} is not in the log (rev {rev}): it never became visible; retry it with the same op id and arguments"
    )]
    NotInLog { op: String, rev: u64 },
    #[error(
        "there is no witness .git/mosaic-queue.head and queue.json is at rev {rev}, past genesis: sync cannot tell what was lost; see Manual recovery (accept-history)"
    )]
    SyncWithoutWitness { rev: u64 },
    #[error("sync confirms only a file that extends the witness: {0}")]
    SyncLost(String),
    #[error(
        "op {op} is new, but the archives' op filter cannot tell it from an archived op; run the cut again with another op id"
    )]
    CutOpMaybeArchived { op: String },
}

/// A core error, and the domain errors a session meets, become `SessionError::Core`.
macro_rules! session_through_core_error {
    ($($error:ty),* $(,)?) => {$(
        impl From<$error> for SessionError {
            fn from(e: $error) -> SessionError {
                SessionError::Core(e.into())
            }
        }
    )*};
}

session_through_core_error!(CoreError, QueueError, VerbError);

impl SessionError {
    pub fn exit(&self) -> Exit {
        match self {
            SessionError::Checkout(e) => e.exit(),
            SessionError::Lock(e) => e.exit(),
            SessionError::Store(e) => e.exit(),
            SessionError::Core(e) => e.exit(),
            SessionError::WorkingDir(_) | SessionError::WriteTable(_) => Exit::Failed,
            SessionError::Rerender(_) => Exit::Uncertain,
            SessionError::NoWitness
            | SessionError::NothingDurable
            | SessionError::TableNotUtf8
            | SessionError::TableMissing
            | SessionError::TableMarkers(_)
            | SessionError::HandEdit { .. }
            | SessionError::GenesisTwice
            | SessionError::GenesisMarkers(_)
            | SessionError::LostAgain { .. }
            | SessionError::NothingToAccept { .. }
            | SessionError::TableStale { .. }
            | SessionError::NotARender(_)
            | SessionError::NotInLog { .. }
            | SessionError::SyncWithoutWitness { .. }
            | SessionError::SyncLost(_)
            | SessionError::CutOpMaybeArchived { .. } => Exit::Refused,
        }
    }
}

/// The checkout around the working directory, its shape checked (not yet against the queue).
pub fn locate() -> Result<Paths, SessionError> {
    let cwd = std::env::current_dir().map_err(SessionError::WorkingDir)?;
    Ok(checkout::locate(&cwd)?)
}

/// Refuses a checkout whose directories are on a filesystem the durability claims do not cover.
pub fn check_filesystem(paths: &Paths) -> Result<(), StoreError> {
    super::check_filesystem(&RealIo, paths)
}

/// A file read as the store reads its own (docs/limits.md): never blocking, only a regular
/// file within `kind`'s cap, and never through a symlink unless a person named the path.
pub fn read_file(path: &Path, kind: Kind) -> io::Result<Vec<u8>> {
    RealIo.read(path, kind)
}

/// What an unlocked read sees: the state, and whether the witness confirms it durable.
pub struct Seen {
    pub state: State,
    pub durable: bool,
}

/// The unlocked read (list, show, next, verify-commit). The read view answers when the witness
/// and queue.json are exactly what the last durable write left; otherwise the file is read and
/// replayed unlocked, and once more under the lock if that failed, so a write in progress never
/// reads as loss.
pub fn read_unlocked(world: World<'_>, paths: &Paths) -> Result<Seen, SessionError> {
    let io = world.io;
    if let Ok(Some(witness)) = super::read_witness(io, paths)
        && let Some(state) = super::view::load(io, paths, &witness)
    {
        world.repo.check_state(paths, &state)?;
        return Ok(Seen {
            state,
            durable: true,
        });
    }
    let loaded = load_unlocked(world, paths)?;
    Ok(Seen {
        durable: !loaded.ahead_of_witness(),
        state: loaded.queue.state().clone(),
    })
}

/// The read view as a `Listing` for `list --json`, which prints the rows' text as the view
/// holds it, checked against the checkout; `None` when the view cannot answer, and the
/// caller reads as `read_unlocked` does.
pub fn read_listing(
    world: World<'_>,
    paths: &Paths,
) -> Result<Option<super::view::Listing>, SessionError> {
    let io = world.io;
    if let Ok(Some(witness)) = super::read_witness(io, paths)
        && let Some(listing) = super::view::load_listing(io, paths, &witness)
    {
        world.repo.check_state(paths, &listing.state)?;
        return Ok(Some(listing));
    }
    Ok(None)
}

/// The state the witness vouches durable (for `wait`), or `None` while the file is ahead of it
/// (a write in progress, or one killed before its witness): the next witness wakes the
/// caller. Never takes the lock; a read that fails is tried once more, since the first may
/// have met a write between its two files.
pub fn read_durable(world: World<'_>, paths: &Paths) -> Result<Option<State>, SessionError> {
    let io = world.io;
    if let Ok(Some(w)) = super::read_witness(io, paths)
        && let Some(state) = super::view::load(io, paths, &w)
    {
        world.repo.check_state(paths, &state)?;
        return Ok(Some(state));
    }
    let loaded = match super::load(io, paths) {
        Ok(l) => l,
        Err(_) => super::load(io, paths)?,
    };
    world.repo.check_queue(paths, &loaded.queue)?;
    if loaded.witness.is_none() {
        return Err(SessionError::NothingDurable);
    }
    if loaded.ahead_of_witness() {
        return Ok(None);
    }
    Ok(Some(loaded.queue.state().clone()))
}

/// The whole verified queue, read as `read_unlocked` falls back to reading it (for a read that
/// needs the log, which the read view does not hold): queue.json read and replayed without the
/// lock, and once more under it if that failed (a write in progress), checked against the
/// checkout.
pub fn load_unlocked(world: World<'_>, paths: &Paths) -> Result<Loaded, SessionError> {
    let loaded = match super::load(world.io, paths) {
        Ok(l) => l,
        Err(_) => {
            let session = Session::open(world, paths, Some("unlocked-read"), "read")?;
            let l = super::load(world.io, paths)?;
            session.release()?;
            l
        }
    };
    world.repo.check_queue(paths, &loaded.queue)?;
    Ok(loaded)
}

/// One change in the checkout at `paths`: the filesystem checked, the lock taken for `op`, and
/// `Session::change`. The lock names the verb as the command line does.
pub fn change<E: From<SessionError>>(
    world: World<'_>,
    paths: &Paths,
    command: &Command,
    op: &str,
    by: &str,
    acknowledge: impl FnOnce(&Queue, bool) -> Result<(), E>,
) -> Result<(Outcome, Queue), E> {
    super::check_filesystem(world.io, paths).map_err(SessionError::from)?;
    let session = Session::open(world, paths, Some(op), &command.verb().command_line())?;
    session.change(command, op, by, acknowledge)
}

/// Logs what the transport said about a review request attempt (its op `<attempt>.outcome`),
/// then passes the kill point after it. Returns the queue as it now stands.
pub fn log_outcome<E: From<SessionError>>(
    world: World<'_>,
    paths: &Paths,
    outcome: OutcomeArgs,
    by: &str,
    acknowledge: impl FnOnce(&Queue, bool) -> Result<(), E>,
) -> Result<Queue, E> {
    let op = format!("{}.outcome", outcome.attempt);
    let (_, queue) = change(
        world,
        paths,
        &Command::ReviewOutcome(outcome),
        &op,
        by,
        acknowledge,
    )?;
    world.io.step("outcome-logged");
    Ok(queue)
}

/// A held queue lock and what the session needs to read and write under it.
pub struct Session<'w> {
    world: World<'w>,
    io: &'w dyn Io,
    paths: Paths,
    lock: Lock<'w>,
    at: String,
}

impl Session<'static> {
    /// Takes the lock in the real world for `verb`, recording `op` (`None` for a command
    /// that has no op id of its own). A verb that writes the queue calls `check_filesystem`
    /// first.
    pub fn begin(paths: &Paths, op: Option<&str>, verb: &str) -> Result<Self, SessionError> {
        Session::open(World::real(), paths, op, verb)
    }
}

impl<'w> Session<'w> {
    /// Takes the lock in `world`, stamped with the time this command started.
    pub fn open(
        world: World<'w>,
        paths: &Paths,
        op: Option<&str>,
        verb: &str,
    ) -> Result<Self, SessionError> {
        let at = world.clock.now();
        let lock =
            lock::acquire_with(world.io, world.probe, paths, op, verb, &at, world.lock_wait)?;
        Ok(Session {
            world,
            io: world.io,
            paths: paths.clone(),
            lock,
            at,
        })
    }

    pub fn paths(&self) -> &Paths {
        &self.paths
    }

    /// The world this session runs in.
    pub fn world(&self) -> World<'w> {
        self.world
    }

    /// The time this command started, as entries and the witness record it.
    pub fn at(&self) -> &str {
        &self.at
    }

    /// Removes the lock.
    pub fn release(self) -> Result<(), SessionError> {
        Ok(self.lock.release()?)
    }

    /// Removes the lock once the command's answer has printed. A failure then cannot undo what
    /// was acknowledged, so it is a warning on stderr naming the cure (the lock may be left,
    /// dead once this process exits), not a failed exit.
    pub fn release_after_answer(self) {
        let warn = self.world.warn;
        let line = match self.lock.release() {
            Ok(()) => return,
            // Someone else removed or replaced it: what to check is in the message.
            Err(e @ LockError::Lost { .. }) => format!("warning: done, but {e}"),
            Err(e) => format!(
                "warning: done, but the queue lock may not be released ({e}); if `mosaic-queue doctor` names a dead lock, run `mosaic-queue unlock`"
            ),
        };
        warn(&line);
    }

    /// Loads under the witness rule: the file verifies, extends the witness, which must exist,
    /// and belongs to this checkout.
    pub fn load(&self) -> Result<Loaded, SessionError> {
        let loaded = super::load(self.io, &self.paths)?;
        self.world.repo.check_queue(&self.paths, &loaded.queue)?;
        if loaded.witness.is_none() {
            return Err(SessionError::NoWitness);
        }
        Ok(loaded)
    }

    /// Loads a file that must verify and belong to this checkout but need not extend the
    /// witness: for the verbs that run in that state (`accept-history`, `sync`).
    pub fn load_unchecked(&self) -> Result<Loaded, SessionError> {
        let loaded = super::load_unchecked(self.io, &self.paths)?;
        self.world.repo.check_queue(&self.paths, &loaded.queue)?;
        Ok(loaded)
    }

    /// QUEUE.md's bytes as they are now.
    pub fn read_table(&self) -> Result<Vec<u8>, SessionError> {
        self.io
            .read(&self.paths.queue_md, Kind::QueueMd)
            .map_err(|e| match e.kind() {
                io::ErrorKind::NotFound => SessionError::TableMissing,
                _ => super::io_err("read", &self.paths.queue_md)(e).into(),
            })
    }

    /// QUEUE.md's text: every verb that reads it refuses a non-UTF-8 file alike.
    pub fn table_text(&self) -> Result<String, SessionError> {
        String::from_utf8(self.read_table()?).map_err(|_| SessionError::TableNotUtf8)
    }

    /// QUEUE.md as read under the lock, refused when its markers are missing or its body is a
    /// hand edit (a write would overwrite it).
    pub fn table(&self, queue: &Queue, then: &'static str) -> Result<String, SessionError> {
        let md = self.table_text()?;
        let body = markdown::body(&md).map_err(|e| SessionError::TableMarkers(e.to_string()))?;
        if super::table_status(self.io, &self.paths, queue, body) == BodyStatus::Unknown {
            return Err(SessionError::HandEdit { then });
        }
        Ok(md)
    }

    /// Rewrites the table of `md` (QUEUE.md as read under the lock) for `queue`.
    pub fn rewrite_table(&self, queue: &Queue, md: &str) -> Result<(), SessionError> {
        super::sweep_temps(self.io, &self.paths);
        super::write_table(self.io, &self.paths, queue, md).map_err(SessionError::WriteTable)
    }

    /// One change: loads, lets the core decide, and makes a new entry durable (or completes
    /// what a killed writer of this recorded op left) before `acknowledge` prints the receipt
    /// (given the queue holding the op's entry, and whether the op was already recorded);
    /// then releases. Returns what the core decided and the queue as it now stands.
    pub fn change<E: From<SessionError>>(
        self,
        command: &Command,
        op: &str,
        by: &str,
        acknowledge: impl FnOnce(&Queue, bool) -> Result<(), E>,
    ) -> Result<(Outcome, Queue), E> {
        let mut loaded = self.load()?;
        let repo = self.world.repo;
        repo.check_genesis_committed(&self.paths)
            .map_err(SessionError::from)?;
        // The rows as loaded, for the write to keep the text of those the change left alone.
        let loaded_rows = loaded.queue.rows().to_vec();
        // The core decides on the loaded queue itself rather than a copy (a copy of a large
        // queue costs as much as the decision): a refusal returns before anything is written,
        // a recorded op or nothing to take leaves it as loaded, and an applied change leaves
        // the new queue beside the bytes and witness it was loaded from, which is what the
        // write needs. The table check then sees one entry more, whose render no table on
        // disk can hold yet, so it decides as it would on the loaded queue.
        let command =
            &super::heartbeat::with_signs(self.io, &self.paths, loaded.queue.state(), command);
        let decided = super::cut::history::execute(
            self.io,
            &self.paths,
            &mut loaded.queue,
            (command, op, by, &self.at),
        )?;
        let outcome = &decided.outcome;
        match outcome {
            Outcome::Recorded { .. } => {
                self.repair(&loaded)?;
                acknowledge(decided.holder(&loaded.queue), true)?;
            }
            Outcome::Applied { .. } => {
                let md = self.table(&loaded.queue, "run `mosaic-queue render`")?;
                let (new, at) = (&loaded.queue, &self.at);
                super::write_durably(self.io, &self.paths, &loaded, new, &loaded_rows, &md, at)
                    .map_err(SessionError::from)?;
                acknowledge(&loaded.queue, false)?;
                self.io.step("receipt-printed");
            }
            // `take` found nothing: nothing is written, not even a confirmation of the tail;
            // what to say is the caller's.
            Outcome::NothingToTake { .. } => {}
        }
        if !matches!(outcome, Outcome::NothingToTake { .. }) {
            super::heartbeat::renew(self.io, &self.paths, loaded.queue.state(), by, &self.at);
        }
        self.release_after_answer();
        Ok((decided.outcome, loaded.queue))
    }

    /// A retry completes the write it repeats: a tail the witness has not confirmed is made
    /// durable (its writer may have died before the fsync of docs/plans, or seen it fail), and a table left
    /// stale after the rename is rendered again. A hand-edited table is left for a person.
    pub(super) fn repair(&self, loaded: &Loaded) -> Result<(), SessionError> {
        if loaded.ahead_of_witness() {
            self.confirm(loaded, loaded.checked_witness())?;
        } else {
            super::sweep_temps(self.io, &self.paths);
        }
        self.finish_table(&loaded.queue)
    }

    /// Renders a table left stale (by a writer that died after its rename) again.
    fn finish_table(&self, queue: &Queue) -> Result<(), SessionError> {
        let Ok(bytes) = self.io.read(&self.paths.queue_md, Kind::QueueMd) else {
            return Ok(());
        };
        let md = String::from_utf8_lossy(&bytes);
        if let Ok(body) = markdown::body(&md)
            && matches!(
                super::table_status(self.io, &self.paths, queue, body),
                BodyStatus::Stale { .. }
            )
        {
            super::write_table(self.io, &self.paths, queue, &md).map_err(SessionError::Rerender)?;
        }
        Ok(())
    }

    /// Makes a visible tail durable, then writes its witness (`store::confirm_tail`: the file
    /// is written again from the bytes read and verified, since the rename that made it
    /// visible may not have reached the disk, or its fsync failed), continuing the chain from
    /// `prev` when the load checked the file extends it.
    pub fn confirm(
        &self,
        loaded: &Loaded,
        prev: Option<&mosaic_queue_core::Witness>,
    ) -> Result<(), SessionError> {
        super::confirm_tail(self.io, &self.paths, loaded, prev, &self.at)?;
        Ok(())
    }

    /// Genesis from the reviewed `map` on `branch`: the first entry, with QUEUE.md's text
    /// between its markers kept as the legacy view; `acknowledge` prints the receipt.
    pub fn genesis<E: From<SessionError>>(
        self,
        map: &Map,
        branch: &str,
        op: &str,
        by: &str,
        acknowledge: impl FnOnce(&Queue, bool) -> Result<(), E>,
    ) -> Result<(), E> {
        // Anything at the name, even a dangling link, is a queue.json genesis must not replace.
        if self.io.file_id(&self.paths.queue_json).is_ok() {
            let loaded = self.retry_genesis(op, by)?;
            acknowledge(&loaded.queue, true)?;
            self.release_after_answer();
            return Ok(());
        }
        let md = self.table_text()?;
        let root = self.paths.root.to_string_lossy().into_owned();
        let args = map
            .genesis_args(branch, &root, &md)
            .map_err(|e| SessionError::GenesisMarkers(e.to_string()))?;
        let (queue, _) = Queue::genesis(args, op, by, &self.at).map_err(SessionError::from)?;
        super::create(self.io, &self.paths, &queue, &md, &self.at).map_err(SessionError::from)?;
        acknowledge(&queue, false)?;
        self.release_after_answer();
        Ok(())
    }

    /// Genesis when queue.json exists: the retry of the op that wrote it (same op id and actor)
    /// finishes what a crash may have cut short (the witness of a genesis that has none, a
    /// stale table); anything else refuses. The map is not compared: the legacy view it was
    /// built with has since been replaced by the table.
    fn retry_genesis(&self, op: &str, by: &str) -> Result<Loaded, SessionError> {
        let Ok(loaded) = super::load_unchecked(self.io, &self.paths) else {
            return Err(SessionError::GenesisTwice);
        };
        let Some(first) = loaded.queue.file().log.first() else {
            return Err(SessionError::GenesisTwice);
        };
        if first.op != op || first.by != by || first.verb != mosaic_queue_core::Verb::Genesis {
            return Err(SessionError::GenesisTwice);
        }
        self.world.repo.check_queue(&self.paths, &loaded.queue)?;
        if loaded.witness.is_none() && loaded.queue.revision() == 1 {
            self.confirm(&loaded, None)?;
        }
        self.finish_table(&loaded.queue)?;
        Ok(loaded)
    }

    /// `accept-history`: the one change that runs when queue.json does not extend the witness
    /// or there is none. It logs the old witness (or its absence) and the reason, then writes
    /// the witness for the file as it is.
    pub fn accept_history<E: From<SessionError>>(
        self,
        reason: &str,
        op: &str,
        by: &str,
        acknowledge: impl FnOnce(&Queue, bool) -> Result<(), E>,
    ) -> Result<(), E> {
        use mosaic_queue_core::{AcceptHistoryCmd, Args};

        let loaded = self.load_unchecked()?;
        let repo = self.world.repo;
        repo.check_genesis_committed(&self.paths)
            .map_err(SessionError::from)?;
        // Through the archives for a witness older than the epoch, as doctor checks it: one
        // it cannot check there is not extended, which is what doctor sends here for.
        let extends = loaded.witness.as_ref().map(|w| {
            super::cut::history::check_extends(self.io, &self.paths, &loaded.queue, &loaded.sha, w)
                .is_ok()
        });
        // A retry is compared with what the first run recorded: by then the witness on disk may
        // be the one that run wrote, not the one it replaced.
        let recorded_witness = match loaded.queue.entry_for_op(op).map(|e| &e.args) {
            Some(Args::AcceptHistory(a)) => Some(a.old_witness.clone()),
            _ => None,
        };
        let command = Command::AcceptHistory(AcceptHistoryCmd {
            reason: reason.to_owned(),
            old_witness: recorded_witness
                .clone()
                .unwrap_or_else(|| loaded.witness.clone()),
            yes: true,
        });
        let mut queue = loaded.queue.clone();
        let decided = (&command, op, by, self.at.as_str());
        match super::cut::history::execute(self.io, &self.paths, &mut queue, decided)?.outcome {
            Outcome::Recorded { rev, .. } => {
                self.finish_accepted(&loaded, extends, recorded_witness, op, rev)?;
                acknowledge(&loaded.queue, true)?;
            }
            Outcome::Applied { .. } => {
                if let (Some(true), Some(w)) = (extends, &loaded.witness) {
                    return Err(SessionError::NothingToAccept {
                        witness_rev: w.revision,
                        ahead: loaded.ahead_of_witness(),
                    }
                    .into());
                }
                // Render refuses until this verb has run: the retry is the next step.
                let md = self.table(&loaded.queue, "run accept-history again")?;
                // The durable write re-reads and compares the bytes; it does not ask the file to
                // extend the witness, so it serves this verb as it is and rewrites the witness.
                let rows = loaded.queue.rows();
                super::write_durably(self.io, &self.paths, &loaded, &queue, rows, &md, &self.at)
                    .map_err(SessionError::from)?;
                acknowledge(&queue, false)?;
                self.io.step("receipt-printed");
            }
            // Only `take` finds nothing to do; accept-history always writes or answers.
            Outcome::NothingToTake { .. } => {}
        }
        self.release_after_answer();
        Ok(())
    }

    /// The retry of an accept-history recorded at `rev`: a file that extends the witness gets
    /// its tail confirmed; a witness that is missing or not extended may be finished only by
    /// the run killed after its rename and before its witness (the entry is the last, and the
    /// witness is the one it replaced). History lost since needs a new op.
    fn finish_accepted(
        &self,
        loaded: &Loaded,
        extends: Option<bool>,
        recorded_witness: Option<Option<mosaic_queue_core::Witness>>,
        op: &str,
        rev: u64,
    ) -> Result<(), SessionError> {
        let finish = match extends {
            Some(true) => loaded.ahead_of_witness(),
            _ => {
                let last = rev == loaded.queue.revision();
                if !(last && recorded_witness == Some(loaded.witness.clone())) {
                    return Err(SessionError::LostAgain {
                        op: op.to_owned(),
                        rev,
                    });
                }
                true
            }
        };
        if finish {
            // The chain is hashed from genesis: the file need not extend the old one.
            self.confirm(loaded, None)?;
        }
        Ok(())
    }

    /// The two files a snapshot holds, under this lock: the queue as loaded (with its exact
    /// bytes) and QUEUE.md's exact bytes. Checking them is the caller's.
    pub fn copy_pair(&self) -> Result<(Loaded, Vec<u8>), SessionError> {
        let loaded = self.load()?;
        let md = self.read_table()?;
        Ok((loaded, md))
    }
}

/// Writes `files` (name, bytes) into `dir`, creating it first when `create`, and `archives`
/// (file name, bytes) into `dir/archive/`, created when there are any; on any failure removes
/// what it wrote (and the directories it created), so a failed copy leaves nothing.
pub fn write_copies(
    dir: &Path,
    create: bool,
    files: &[(&str, &[u8])],
    archives: &[(&str, &[u8])],
) -> Result<(), String> {
    let io = &RealIo;
    let sub = dir.join("archive");
    let mut made = Vec::new();
    let mut written = Vec::new();
    let result = (|| {
        for (wanted, at) in [(create, dir), (!archives.is_empty(), sub.as_path())] {
            if wanted {
                io.create_dir(at)
                    .map_err(|e| format!("cannot create {}: {e}", at.display()))?;
                made.push(at.to_path_buf());
            }
        }
        for (at, list) in [(dir, files), (sub.as_path(), archives)] {
            for (name, bytes) in list {
                let path = at.join(name);
                // create_synced opens with O_EXCL and O_NOFOLLOW: it never writes through a link.
                io.create_synced(&path, bytes)
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                written.push(path);
            }
        }
        for at in [sub.as_path(), dir]
            .into_iter()
            .skip(usize::from(archives.is_empty()))
        {
            io.sync_dir(at)
                .map_err(|e| format!("cannot fsync {}: {e}", at.display()))?;
        }
        Ok(())
    })();
    if result.is_err() {
        for path in &written {
            let _ = io.remove(path);
        }
        for at in made.iter().rev() {
            let _ = std::fs::remove_dir(at);
        }
    }
    result
}
