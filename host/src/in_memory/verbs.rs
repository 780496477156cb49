//! The verbs a person runs, run in memory by a `Process`: each goes through the same session
//! calls as the CLI's verb and prints the line a crash check reads (a change's receipt, and an
//! `ok` line for the verbs that answer otherwise). Parsing and the CLI's wording stay the CLI's.

use mosaic_queue_core::{BodyStatus, Command, Queue, markdown, migration};

use super::{Failed, MAP, Process, Ran};
use crate::doctor::{self, Report};
use crate::exit::Exit;
use crate::store::file_verbs::{self, Rendered};
use crate::store::session::{self, Session, SessionError};
use crate::store::world::Repository;

impl Process<'_> {
    /// A change (`add`, `move`, `note`, the review verbs...): its receipt, printed as the CLI
    /// prints it once the entry is durable (or the recorded entry's, on a retry).
    pub fn change(&self, command: &Command, op: &str, by: &str) -> Ran {
        let mut out = Vec::new();
        session::change(
            self.world(),
            self.paths(),
            command,
            op,
            by,
            |queue: &Queue, _| self.receipt(queue, op, &mut out),
        )?;
        Ok(out)
    }

    /// Prints the receipt of `op` in `queue`.
    fn receipt(&self, queue: &Queue, op: &str, out: &mut Vec<String>) -> Result<(), SessionError> {
        if let Some(entry) = queue.entry_for_op(op) {
            self.print(&entry.receipt, out);
        }
        Ok(())
    }

    /// `genesis --map MAP` from the checkout's map, on `main`.
    pub fn genesis(&self, op: &str, by: &str) -> Ran {
        let map = migration::parse(MAP).map_err(|e| Failed {
            exit: Exit::Refused,
            message: e.to_string(),
        })?;
        let world = self.world();
        crate::store::check_filesystem(world.io, self.paths()).map_err(SessionError::from)?;
        let mut out = Vec::new();
        Session::open(world, self.paths(), Some(op), "genesis")?.genesis(
            &map,
            "main",
            op,
            by,
            |queue: &Queue, _| self.receipt(queue, op, &mut out),
        )?;
        Ok(out)
    }

    /// `accept-history --reason TEXT --yes`.
    pub fn accept_history(&self, reason: &str, op: &str, by: &str) -> Ran {
        let world = self.world();
        crate::store::check_filesystem(world.io, self.paths()).map_err(SessionError::from)?;
        let mut out = Vec::new();
        Session::open(world, self.paths(), Some(op), "accept-history")?.accept_history(
            reason,
            op,
            by,
            |queue: &Queue, _| self.receipt(queue, op, &mut out),
        )?;
        Ok(out)
    }

    /// `render`.
    pub fn render(&self) -> Ran {
        let held = Session::open(self.world(), self.paths(), Some("render-table"), "render")?;
        let rev = match held.render(false)? {
            Rendered::Current(rev) | Rendered::Rewritten(rev) => rev,
        };
        self.answer(held, format!("ok render rev {rev}"))
    }

    /// `sync [--op ID]`: the `durable` lines, then its `ok` line.
    pub fn sync(&self, op: Option<&str>) -> Ran {
        let world = self.world();
        crate::store::check_filesystem(world.io, self.paths()).map_err(SessionError::from)?;
        let held = Session::open(world, self.paths(), None, "sync")?;
        let synced = held.sync(op)?;
        let mut out = Vec::new();
        for e in &synced.tail {
            let line = format!(
                "durable {} rev {} (by {}): tell {}",
                e.op, e.rev, e.by, e.by
            );
            self.print(&line, &mut out);
        }
        let mut last = self.answer(held, format!("ok sync rev {}", synced.rev))?;
        out.append(&mut last);
        Ok(out)
    }

    /// `archive --before REV --yes`: the cut.
    pub fn archive(&self, before: u64, op: &str, by: &str) -> Ran {
        let world = self.world();
        crate::store::check_filesystem(world.io, self.paths()).map_err(SessionError::from)?;
        let mut out = Vec::new();
        Session::open(world, self.paths(), Some(op), "archive")?.archive(
            before,
            op,
            by,
            |queue: &Queue, _| self.receipt(queue, op, &mut out),
        )?;
        Ok(out)
    }

    /// `verify [--current]`.
    pub fn verify(&self, current: bool) -> Ran {
        let held = Session::open(self.world(), self.paths(), Some("verify-read"), "verify")?;
        let v = held.verify(current)?;
        self.answer(held, format!("ok verify rev {}", v.rev))
    }

    /// `unlock`.
    pub fn unlock(&self) -> Ran {
        let unlocked = file_verbs::unlock(self.world(), self.paths())?;
        let mut out = Vec::new();
        self.print(&format!("ok unlock: {unlocked}"), &mut out);
        Ok(out)
    }

    /// `list`: the unlocked read; prints the revision it answers for.
    pub fn list(&self) -> Ran {
        let seen = session::read_unlocked(self.world(), self.paths())?;
        let mut out = Vec::new();
        self.print(&format!("rev {}", seen.state.revision), &mut out);
        Ok(out)
    }

    /// `doctor`: what it finds in the checkout.
    pub fn doctor(&self) -> Result<Report, Failed> {
        doctor::look(self.world(), self.paths(), Vec::new()).map_err(|e| Failed {
            exit: Exit::Failed,
            message: e.to_string(),
        })
    }

    /// `commit [--genesis]` as far as the store takes part: under the lock, the pair of files
    /// a snapshot takes (witnessed, with a current table), published as HEAD in the checkout's
    /// repository. Git's own objects and refs are the real commit's.
    pub fn commit(&self, genesis: bool) -> Ran {
        let refused = |message: &str| Failed {
            exit: Exit::Refused,
            message: message.to_owned(),
        };
        let repo = &self.checkout().repo;
        match (genesis, repo.genesis_committed(self.paths())) {
            (true, true) => return Err(refused("HEAD already holds docs/plans/queue.json")),
            (false, false) => return Err(refused("HEAD has no docs/plans/queue.json")),
            _ => {}
        }
        let held = Session::open(self.world(), self.paths(), None, "commit")?;
        let (loaded, md) = held.copy_pair()?;
        let rev = loaded.queue.revision();
        if loaded.ahead_of_witness() {
            return Err(refused(
                "rev is visible, not confirmed durable; run sync first",
            ));
        }
        let text = String::from_utf8_lossy(&md);
        let current = markdown::body(&text).is_ok_and(|body| {
            crate::store::table_status(self.world().io, self.paths(), &loaded.queue, body)
                == BodyStatus::Current
        });
        if !current {
            return Err(refused("QUEUE.md is not a current render; render first"));
        }
        if repo.published() == Some((loaded.bytes.clone(), md.clone())) {
            return Err(refused("nothing to commit: HEAD already holds these bytes"));
        }
        repo.publish(loaded.bytes, md);
        self.answer(held, format!("ok commit (queue rev {rev})"))
    }

    /// Prints `line`, then releases the lock: a command's answer comes before its release.
    fn answer(&self, held: Session<'_>, line: String) -> Ran {
        let mut out = Vec::new();
        self.print(&line, &mut out);
        held.release_after_answer();
        Ok(out)
    }
}
