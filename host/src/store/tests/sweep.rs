//! The I/O-fault sweep, in memory and in full: the scenario's run once per call it makes and
//! per fault (EIO, ENOSPC, EDQUOT, EROFS, EACCES, a short write), each run asserting that its
//! fault fired. Each must end as the contract says (done, or one line with exit 1 or 3), leave
//! the queue as it was after exit 1, leave no temp file, print no receipt after a failed fsync,
//! and be recovered by its retry and the commands doctor names; a state left to a person must
//! hold a review request attempt whose outcome is not logged, and a panic is a broken run.

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{AssertUnwindSafe, catch_unwind};

use super::check::{Judge, Verdict, panic_text};
use super::gitea::Gitea;
use super::power::receipts;
use super::scenarios::Scenario;
use crate::exit::Exit;
use crate::in_memory::{Checkout, Ran};
use crate::io::crash::is_receipt;
use crate::io::trace::{Event, FaultKind, Op, Tracer};

/// The figures of one scenario's sweep.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Swept {
    pub calls: usize,
    /// How the faulted runs ended: done (the fault fell on a call whose failure the command
    /// absorbs: a cache, a lock removed after the receipt), exit 1, exit 3.
    pub ended: (usize, usize, usize),
    /// Runs whose outcome (files, receipts, comments) no earlier run left: each judged once.
    pub outcomes: usize,
    /// Outcomes a person's decision settled, each holding an unresolved request attempt.
    pub person: usize,
    /// Every run that broke a rule, was not recovered, or panicked, with why.
    pub broken: Vec<String>,
}

/// What a faulted run left: the queue's files, the lock and the gate (temp files included,
/// the read view by its presence), the receipts it printed, and the comments on Gitea.
type Outcome = (Vec<(String, Vec<u8>)>, BTreeSet<String>, Vec<String>);

/// Runs the scenario once per call and fault; the figures, with every run that broke a rule
/// (the caller asserts there is none).
pub fn sweep(s: &Scenario) -> Swept {
    let clean = Tracer::memory();
    let gitea = fresh(s);
    let ran = s
        .run
        .exec(&s.checkout.clone().process(Some(&clean)), &gitea);
    assert!(ran.is_ok(), "the clean run of {}: {ran:?}", s.name);
    let calls = clean.calls();
    let judge = Judge {
        scenario: s,
        before: receipts(s),
        reboot: false,
        comments: (s.gitea.comments(), Vec::new()),
    };
    let mut swept = Swept {
        calls: calls as usize,
        ..Swept::default()
    };
    let mut judged: BTreeMap<Outcome, Option<String>> = BTreeMap::new();
    for n in 1..=calls {
        for kind in FaultKind::ALL {
            let what = format!("{} call {n} {}", s.name, kind.name());
            let (work, gitea) = (s.checkout.clone(), fresh(s));
            let tracer = Tracer::memory().failing(n, kind);
            let ran = match catch_unwind(AssertUnwindSafe(|| {
                s.run.exec(&work.process(Some(&tracer)), &gitea)
            })) {
                Ok(ran) => ran,
                Err(panic) => {
                    swept
                        .broken
                        .push(format!("{what}: panicked: {}", panic_text(&panic)));
                    continue;
                }
            };
            let events = tracer.events();
            if !tracer.fired() {
                swept.broken.push(format!("{what}: the fault never fired"));
                continue;
            }
            if let Err(why) = rules(s, &work, &ran, &events) {
                swept.broken.push(format!("{what}: {why}"));
                continue;
            }
            match &ran {
                Ok(_) => swept.ended.0 += 1,
                Err(f) if f.exit == Exit::Failed => swept.ended.1 += 1,
                Err(_) => swept.ended.2 += 1,
            }
            let printed = printed(&events);
            let verdict = judged
                .entry(outcome(&work, &gitea, &printed))
                .or_insert_with(|| {
                    swept.outcomes += 1;
                    match judge.recover(&work, &gitea, &printed) {
                        Verdict::Healed(_) => None,
                        Verdict::Person(_, why) => {
                            swept.person += 1;
                            eprintln!("io-errors | {what} | settled by a person: {why} |");
                            None
                        }
                        Verdict::Unsafe(why) => Some(why),
                    }
                });
            if let Some(why) = verdict {
                swept.broken.push(format!("{what}: not recovered: {why}"));
            }
        }
    }
    swept.report(s.name);
    swept
}

impl Swept {
    /// The scenario's line of the sweep's table, on stderr.
    fn report(&self, name: &str) {
        eprintln!(
            "io-errors | {} | {} calls | ended {} done, {} exit 1, {} exit 3 | {} distinct outcomes | {} settled by a person | {} broken |",
            name,
            self.calls,
            self.ended.0,
            self.ended.1,
            self.ended.2,
            self.outcomes,
            self.person,
            self.broken.len()
        );
    }
}

/// Gitea as it was before the run.
fn fresh(s: &Scenario) -> Gitea {
    let gitea = Gitea::default();
    gitea.set_comments(s.gitea.comments());
    gitea
}

/// The receipts a run printed.
fn printed(events: &[Event]) -> BTreeSet<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Mark { what, text, .. } if what == "printed" && is_receipt(text) => {
                Some(text.clone())
            }
            _ => None,
        })
        .collect()
}

/// The rules every faulted run keeps, whatever its fault.
fn rules(s: &Scenario, work: &Checkout, ran: &Ran, events: &[Event]) -> Result<(), String> {
    if let Err(f) = ran {
        if !matches!(f.exit, Exit::Failed | Exit::Uncertain) {
            return Err(format!(
                "exit {} ({:?}): {}",
                f.exit.code(),
                f.exit,
                f.message
            ));
        }
        if f.message.contains('\n') || f.message.is_empty() {
            return Err(format!("not one line: {:?}", f.message));
        }
        let (disk, p) = (&work.disk, &work.paths);
        let pristine = &s.checkout.disk;
        if f.exit == Exit::Failed
            && (disk.get(&p.queue_json) != pristine.get(&p.queue_json)
                || disk.get(&p.witness) != pristine.get(&p.witness))
        {
            return Err(format!("exit 1 but the queue changed: {}", f.message));
        }
    }
    no_receipt_after_failed_fsync(events)?;
    // A temp file stays only when removing it was the call that failed.
    let failed_unlink = events.iter().find_map(|e| match e {
        Event::Fault {
            op: Op::Unlink(p), ..
        } => Some(p.clone()),
        _ => None,
    });
    for dir in [&work.paths.plans, &work.paths.git_dir, &work.paths.archive] {
        for name in work.disk.names(dir) {
            let temp = name.ends_with(".tmp")
                && [
                    ".queue.json.",
                    ".QUEUE.md.",
                    ".mosaic-queue.",
                    "mosaic-queue.",
                    ".epoch-",
                ]
                .iter()
                .any(|pre| name.starts_with(pre));
            if temp && failed_unlink.as_deref() != Some(dir.join(&name).as_path()) {
                return Err(format!("left the temp file {name}"));
            }
        }
    }
    Ok(())
}

/// A failed fsync is never followed by a receipt. The fsync of .git after an acknowledged
/// write removed its lock holds no queue data (at worst a dead lock comes back after a crash),
/// so a review request's outcome write may go on; and the read view is never fsynced.
fn no_receipt_after_failed_fsync(events: &[Event]) -> Result<(), String> {
    let Some(at) = events.iter().position(|e| matches!(e, Event::Fault { .. })) else {
        return Ok(());
    };
    let Event::Fault { op, .. } = &events[at] else {
        return Ok(());
    };
    let synced = matches!(op, Op::Fsync(_) | Op::FsyncDir(_));
    let releasing = events[..at]
        .iter()
        .rev()
        .find(|e| matches!(e, Event::Ok { .. }))
        .is_some_and(|e| {
            matches!(e, Event::Ok { op: Op::Unlink(p), .. } if p.ends_with(".git/mosaic-queue.lock"))
        });
    let view = op.path().to_string_lossy().contains(".mosaic-queue.view.");
    if synced && !releasing && !view {
        let later = events[at..].iter().any(|e| {
            matches!(e, Event::Mark { what, text, .. } if what == "printed" && text.starts_with("ok "))
        });
        if later {
            return Err("a receipt printed after a failed fsync".to_owned());
        }
    }
    Ok(())
}

fn outcome(work: &Checkout, gitea: &Gitea, printed: &BTreeSet<String>) -> Outcome {
    let mut files = Vec::new();
    for (path, bytes) in work.disk.files(&work.paths.plans) {
        files.push((path.display().to_string(), bytes));
    }
    for (path, bytes) in work.disk.files(&work.paths.git_dir) {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if name.contains("mosaic-queue") {
            // The read view names the inode of the file it verified: by its presence.
            let bytes = if name == "mosaic-queue.view" {
                Vec::new()
            } else {
                bytes
            };
            files.push((path.display().to_string(), bytes));
        }
    }
    let comments = gitea.comments().into_iter().map(|c| c.body).collect();
    (files, printed.clone(), comments)
}

/// The rules find what they exist to find: a temp file left behind, and a receipt printed
/// after a failed fsync.
#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::store::tests::scenarios;

    #[test]
    fn a_temp_file_left_behind_breaks_the_rules() {
        let s = scenarios::note();
        let work = s.checkout.clone();
        assert_eq!(rules(&s, &work, &Ok(Vec::new()), &[]), Ok(()));
        work.disk
            .put(&work.paths.plans.join(".queue.json.7.tmp"), b"half");
        assert_eq!(
            rules(&s, &work, &Ok(Vec::new()), &[]),
            Err("left the temp file .queue.json.7.tmp".to_owned())
        );
    }

    #[test]
    fn a_receipt_after_a_failed_fsync_breaks_the_rules() {
        let dir = PathBuf::from("/mem/repo/docs/plans");
        let printed = Event::Mark {
            n: 2,
            what: "printed".to_owned(),
            text: "ok darkwing-1-note rev 2 note 1".to_owned(),
        };
        let fsync = Event::Fault {
            n: 2,
            op: Op::FsyncDir(dir.clone()),
        };
        let read = Event::Fault {
            n: 2,
            op: Op::Read(dir.join("queue.json")),
        };
        assert_eq!(
            no_receipt_after_failed_fsync(&[fsync, printed.clone()]),
            Err("a receipt printed after a failed fsync".to_owned())
        );
        assert_eq!(no_receipt_after_failed_fsync(&[read, printed]), Ok(()));
    }
}
