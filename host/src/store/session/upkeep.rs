//! The upkeep verbs that begin, re-anchor or copy the history rather than change a row:
//! genesis (and its retry), `accept-history`, and a snapshot's pair read under the lock and its
//! copies written. The file verbs are `store::file_verbs`; the cut's are `store::cut`.

use std::path::Path;

use mosaic_queue_core::{Command, Outcome, Queue, migration::Map};

use super::error::SessionError;
use super::open::Session;
use crate::io::{Io, RealIo};
use crate::store::{self, Loaded};

impl Session<'_> {
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
        store::create(self.io, &self.paths, &queue, &md, &self.at).map_err(SessionError::from)?;
        acknowledge(&queue, false)?;
        self.release_after_answer();
        Ok(())
    }

    /// Genesis when queue.json exists: the retry of the op that wrote it (same op id and actor)
    /// finishes what a crash may have cut short (the witness of a genesis that has none, a
    /// stale table); anything else refuses. The map is not compared: the legacy view it was
    /// built with has since been replaced by the table.
    fn retry_genesis(&self, op: &str, by: &str) -> Result<Loaded, SessionError> {
        let Ok(loaded) = store::load_unchecked(self.io, &self.paths) else {
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

        self.check_not_adopted()?;
        let loaded = self.load_unchecked()?;
        let repo = self.world.repo;
        repo.check_genesis_committed(&self.paths)
            .map_err(SessionError::from)?;
        // Through the archives for a witness older than the epoch, as doctor checks it: one
        // it cannot check there is not extended, which is what doctor sends here for.
        let extends = loaded.witness.as_ref().map(|w| {
            store::cut::history::check_extends(self.io, &self.paths, &loaded.queue, &loaded.sha, w)
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
        match store::cut::history::execute(self.io, &self.paths, &mut queue, decided)?.outcome {
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
                store::write_durably(self.io, &self.paths, &loaded, &queue, rows, &md, &self.at)
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
    /// bytes) and QUEUE.md's exact bytes. Checking them is the caller's (the checkout in
    /// memory's `snapshot`).
    #[cfg(any(test, feature = "fault-injection"))]
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
