//! The cut under the lock: `archive` plans the cut in the core, places the archive file and
//! only then writes the queue durably; and `verify --full`, which hands every archive and
//! queue.json to the core.

use mosaic_queue_core::{CutOutcome, Queue, ReplicationMode, VerbError};

use super::{epochs, history};
use crate::store::Loaded;
use crate::store::session::{Session, SessionError};

impl Session<'_> {
    /// `verify --full`: every archive the epoch names, read in order (each checked against its
    /// SHA-256), and queue.json, handed to the core, which proves each epoch's starting state
    /// is what the history before it replays to. Returns how many archives it read.
    pub fn verify_full(&self) -> Result<usize, SessionError> {
        let loaded = self.load()?;
        let io = self.world().io;
        let mut archives = Vec::new();
        if let Some(epoch) = loaded.queue.epoch() {
            for info in &epoch.archives {
                archives.push(epochs::read(io, self.paths(), &info.file, &info.sha)?);
            }
        }
        // The verified queue is dropped first: the core builds its own from the bytes.
        let Loaded { bytes, queue, .. } = loaded;
        drop(queue);
        let refs: Vec<&[u8]> = archives.iter().map(Vec::as_slice).collect();
        mosaic_queue_core::verify_full(&refs, &bytes)?;
        Ok(archives.len())
    }

    /// `archive --before REV`: under the lock, on a file that extends the witness, the core
    /// plans the cut; the archive is placed durably first (nothing names it yet), then the
    /// queue file that names it is written through every durability point, then the receipt.
    /// A retry of a recorded cut completes what a killed run left, as every change does.
    pub fn archive<E: From<SessionError>>(
        self,
        before: u64,
        op: &str,
        by: &str,
        acknowledge: impl FnOnce(&Queue, bool) -> Result<(), E>,
    ) -> Result<(), E> {
        self.check_not_adopted()?;
        let loaded = self.load()?;
        self.world()
            .repo
            .check_genesis_committed(self.paths())
            .map_err(SessionError::from)?;
        // Under `replication required` the receipt waits for the follower (the mode as this
        // queue holds it, also for a retry answered from an archive).
        let required = loaded.queue.state().replication() == ReplicationMode::Required;
        let planned = match loaded.queue.plan_archive(before, op, by, self.at()) {
            Err(VerbError::OpMaybeArchived { .. }) => {
                return self.archived_cut(&loaded.queue, before, (op, by), acknowledge);
            }
            other => other.map_err(SessionError::from)?,
        };
        match planned {
            CutOutcome::Recorded { .. } => {
                // A temp file beside the archive is left only by a run killed before its link.
                for temp in epochs::leftover_temps(self.world().io, self.paths()) {
                    let _ = self.world().io.remove(&temp);
                }
                self.repair(&loaded)?;
                self.answer(loaded.queue, (op, true, required), acknowledge)
            }
            CutOutcome::Planned(cut) => {
                let md = self.table(&loaded.queue, "run `mosaic-queue render`")?;
                self.place_archive(&loaded, &cut.archive_file, &cut.archive_bytes)?;
                let (io, paths) = (self.world().io, self.paths());
                crate::store::write_whole(io, paths, &loaded, &cut.queue, &md, self.at())
                    .map_err(SessionError::from)?;
                self.answer(cut.queue, (op, false, required), acknowledge)
            }
        }
    }

    /// Prints the cut's receipt from `queue` (which holds its entry) and releases. Under
    /// `replication required` the receipt waits, with the lock released, for the follower to
    /// push the cut's revision, as every other change's does.
    fn answer<E: From<SessionError>>(
        self,
        queue: Queue,
        (op, recorded, required): (&str, bool, bool),
        acknowledge: impl FnOnce(&Queue, bool) -> Result<(), E>,
    ) -> Result<(), E> {
        let world = self.world();
        if !required {
            acknowledge(&queue, recorded)?;
            if !recorded {
                world.io.step("receipt-printed");
            }
            self.release_after_answer();
            return Ok(());
        }
        let paths = self.paths().clone();
        self.release_after_answer();
        let rev = queue.entry_for_op(op).map_or(queue.revision(), |e| e.rev);
        crate::store::session::replicated(world, &paths, rev)?;
        acknowledge(&queue, recorded)?;
        if !recorded {
            world.io.step("receipt-printed");
        }
        Ok(())
    }

    /// The retry of a cut whose op a later cut archived: the archive that holds it answers as
    /// queue.json did (the original receipt, or the same refusals for another actor or
    /// command). An op the filter only may hold is refused: a new cut takes an op id no
    /// archive's filter names.
    fn archived_cut<E: From<SessionError>>(
        self,
        queue: &Queue,
        before: u64,
        (op, by): (&str, &str),
        acknowledge: impl FnOnce(&Queue, bool) -> Result<(), E>,
    ) -> Result<(), E> {
        let io = self.world().io;
        let required = queue.state().replication() == ReplicationMode::Required;
        let Some(held) = history::holder::<SessionError>(io, self.paths(), queue, op)? else {
            return Err(SessionError::CutOpMaybeArchived { op: op.to_owned() }.into());
        };
        match held
            .plan_archive(before, op, by, self.at())
            .map_err(SessionError::from)?
        {
            CutOutcome::Recorded { .. } => self.answer(held, (op, true, required), acknowledge),
            // The archive holds the op, so its queue only answers; never planned again.
            CutOutcome::Planned(_) => {
                Err(SessionError::CutOpMaybeArchived { op: op.to_owned() }.into())
            }
        }
    }

    /// Places the archive a cut planned, refusing one the loaded epoch already names with
    /// other bytes (it is never touched).
    fn place_archive(&self, loaded: &Loaded, rel: &str, bytes: &[u8]) -> Result<(), SessionError> {
        let named = loaded
            .queue
            .epoch()
            .is_some_and(|e| e.archives.iter().any(|a| a.file == rel));
        let io = self.world().io;
        epochs::place(io, self.paths(), rel, bytes, named)?;
        io.step("archive-written");
        Ok(())
    }
}
