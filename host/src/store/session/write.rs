//! Writing a change: the session's durable write path. The core decides on the loaded queue,
//! a new entry is made durable before its receipt prints, and the retry of a recorded op
//! repairs what a killed writer left (its tail confirmed, a stale table rendered again).

use mosaic_queue_core::{
    BodyStatus, Command, Outcome, OutcomeArgs, Queue, ReplicationMode, markdown,
};

use super::error::SessionError;
use super::open::Session;
use crate::checkout::Paths;
use crate::io::{Io, Kind};
use crate::store::replicated::Reached;
use crate::store::world::World;
use crate::store::{self, Loaded};

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
    store::check_filesystem(world.io, paths).map_err(SessionError::from)?;
    let session = Session::open_change(world, paths, op, &command.verb().command_line())?;
    session.change(command, op, by, acknowledge)
}

/// Refuses a change while the fence stands: under the lock, where it decides, and where the
/// lock cannot be taken (`Session::open_change`).
fn not_adopted(io: &dyn Io, paths: &Paths) -> Result<(), SessionError> {
    let fence = store::adopted::read(io, paths);
    if let store::adopted::Fence::Failed(e) = fence {
        let path = store::adopted::path(paths);
        return Err(store::io_err("read", &path)(e).into());
    }
    match fence.refusal() {
        Some(line) => Err(SessionError::AdoptedElsewhere(line)),
        None => Ok(()),
    }
}

/// Waits until the follower has pushed `rev` or a later revision (`replication required`),
/// within the world's wait: past it the change is durable here and the command exits 3, and
/// the retry with the same op answers once it is replicated.
pub fn replicated(world: World<'_>, paths: &Paths, rev: u64) -> Result<(), SessionError> {
    match world
        .replicas
        .await_revision(world.io, paths, rev, world.replication_wait)
    {
        Reached::Yes => Ok(()),
        reached => Err(SessionError::NotReplicated { rev, reached }),
    }
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

impl<'w> Session<'w> {
    /// Takes the lock for a change. Where it cannot be taken and the fence stands, the fence
    /// is what is said: a host that went down with a writer in flight holds a stale lock, and
    /// unlocking it would only meet the fence.
    pub fn open_change(
        world: World<'w>,
        paths: &Paths,
        op: &str,
        verb: &str,
    ) -> Result<Self, SessionError> {
        Session::open(world, paths, Some(op), verb).map_err(|refused| {
            match not_adopted(world.io, paths) {
                Err(fenced @ SessionError::AdoptedElsewhere(_)) => fenced,
                _ => refused,
            }
        })
    }
}

impl Session<'_> {
    /// Rewrites the table of `md` (QUEUE.md as read under the lock) for `queue`.
    pub fn rewrite_table(&self, queue: &Queue, md: &str) -> Result<(), SessionError> {
        store::sweep_temps(self.io, &self.paths);
        store::write_table(self.io, &self.paths, queue, md).map_err(SessionError::WriteTable)
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
        self.check_not_adopted()?;
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
            &store::heartbeat::with_signs(self.io, &self.paths, loaded.queue.state(), command);
        let decided = store::cut::history::execute(
            self.io,
            &self.paths,
            &mut loaded.queue,
            (command, op, by, &self.at),
        )?;
        let outcome = &decided.outcome;
        // Under `replication required` the receipt waits for the follower's push, which the
        // lock must not be held across: the answer is given once the lock is released.
        let required = loaded.queue.state().replication() == ReplicationMode::Required;
        let mut acknowledge = Some(acknowledge);
        let mut answer = |queue: &Queue, recorded: bool| match acknowledge.take() {
            Some(acknowledge) => acknowledge(queue, recorded),
            None => Ok(()),
        };
        match outcome {
            Outcome::Recorded { .. } => {
                self.repair(&loaded)?;
                if !required {
                    answer(decided.holder(&loaded.queue), true)?;
                }
            }
            Outcome::Applied { .. } => {
                let md = self.table(&loaded.queue, "run `mosaic-queue render`")?;
                let (new, at) = (&loaded.queue, &self.at);
                store::write_durably(self.io, &self.paths, &loaded, new, &loaded_rows, &md, at)
                    .map_err(SessionError::from)?;
                if !required {
                    answer(&loaded.queue, false)?;
                    self.io.step("receipt-printed");
                }
            }
            // `take` found nothing: nothing is written, not even a confirmation of the tail;
            // what to say is the caller's.
            Outcome::NothingToTake { .. } => {}
        }
        let nothing = matches!(outcome, Outcome::NothingToTake { .. });
        if !nothing {
            store::heartbeat::renew(self.io, &self.paths, loaded.queue.state(), by, &self.at);
        }
        let (world, paths) = (self.world, self.paths.clone());
        self.release_after_answer();
        if required && !nothing {
            let recorded = matches!(outcome, Outcome::Recorded { .. });
            let holder = decided.holder(&loaded.queue);
            let rev = holder.entry_for_op(op).map_or(holder.revision(), |e| e.rev);
            replicated(world, &paths, rev)?;
            answer(holder, recorded)?;
            if !recorded {
                world.io.step("receipt-printed");
            }
        }
        Ok((decided.outcome, loaded.queue))
    }

    /// Refuses every change while the fence stands (`store::adopted`): the queue lives in the
    /// checkout that adopted it, and a write here would fork it.
    pub fn check_not_adopted(&self) -> Result<(), SessionError> {
        not_adopted(self.io, &self.paths)
    }

    /// A retry completes the write it repeats: a tail the witness has not confirmed is made
    /// durable (its writer may have died before the fsync of docs/plans, or seen it fail), and a table left
    /// stale after the rename is rendered again. A hand-edited table is left for a person.
    pub(in crate::store) fn repair(&self, loaded: &Loaded) -> Result<(), SessionError> {
        if loaded.ahead_of_witness() {
            self.confirm(loaded, loaded.checked_witness())?;
        } else {
            store::sweep_temps(self.io, &self.paths);
        }
        self.finish_table(&loaded.queue)
    }

    /// Renders a table left stale (by a writer that died after its rename) again.
    pub(super) fn finish_table(&self, queue: &Queue) -> Result<(), SessionError> {
        let Ok(bytes) = self.io.read(&self.paths.queue_md, Kind::QueueMd) else {
            return Ok(());
        };
        let md = String::from_utf8_lossy(&bytes);
        if let Ok(body) = markdown::body(&md)
            && matches!(
                store::table_status(self.io, &self.paths, queue, body),
                BodyStatus::Stale { .. }
            )
        {
            store::write_table(self.io, &self.paths, queue, &md).map_err(SessionError::Rerender)?;
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
        store::confirm_tail(self.io, &self.paths, loaded, prev, &self.at)?;
        Ok(())
    }
}
