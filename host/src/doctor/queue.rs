//! The queue's own files as doctor sees them: queue.json against the witness, the table against
//! the log, the checkout rules, genesis committed and unresolved review requests, then the guard
//! (guard.rs). Each is read once, without the lock; nothing is written.

use mosaic_queue_core::{BodyStatus, Queue, Witness, WitnessError, markdown, one_line};

use super::locks::Seen;
use super::{Finding, Kind, choice};
use crate::checkout::CheckoutError;
use crate::checkout::Paths;
use crate::io::Io;
use crate::store;
use crate::store::world::{Repository, World};

/// What Manual recovery ends with; a person fills in the op and the reason.
const ACCEPT: &str = "mosaic-queue accept-history --op OP --reason TEXT --yes --by jason";
const MANUAL: &str = "see the contract's Manual recovery";

/// When accept-history is the step to take, by what Manual recovery found.
const PLACED: &str = "a valid docs/plans/queue.json is in place (the contract's Manual recovery)";
const DECIDED: &str = "a person has decided that queue.json as it stands is the history to keep (the contract's Manual recovery)";
const REAPPLIED: &str =
    "the lost ops are found and re-applied under new op ids (the contract's Manual recovery)";

/// A finding Manual recovery settles, ending with accept-history once `when` holds.
fn recovery(kind: Kind, detail: String, when: &str) -> Finding {
    Finding::choose(kind, detail, vec![choice::accept_history(when)])
}

/// Inspects queue.json, the witness and the table; returns the revision of a file that
/// verifies.
pub(super) fn inspect(
    world: World<'_>,
    paths: &Paths,
    seen: &Seen,
    out: &mut Vec<Finding>,
) -> Option<u64> {
    let (io, repo) = (world.io, world.repo);
    filesystem(io, paths, out);
    let witness = witness(io, paths, out);
    let bytes = match io.read(&paths.queue_json, crate::io::Kind::QueueJson) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            out.push(no_queue(witness.as_ref().is_some_and(Option::is_some)));
            super::guard::inspect(repo, paths, out);
            return None;
        }
        Err(e) => {
            out.push(Finding::person(
                Kind::QueueUnreadable,
                format!("cannot read docs/plans/queue.json ({e}); check its permissions"),
            ));
            return None;
        }
    };
    let queue = match Queue::verify(&bytes) {
        Ok(q) => q,
        Err(e) => {
            out.push(recovery(
                Kind::QueueInvalid,
                format!(
                    "docs/plans/queue.json is invalid: {}; {MANUAL}: copy the file aside first (restoring HEAD's `git show HEAD:docs/plans/queue.json` drops every op since the last queue commit), put a valid file in place, then `{ACCEPT}`",
                    one_line(&e.to_string())
                ),
                PLACED,
            ));
            super::guard::inspect(repo, paths, out);
            return None;
        }
    };
    let rev = queue.revision();
    checkout_rules(repo, paths, &queue, out);
    let durable = match &witness {
        Some(Some(w)) => w.revision.min(rev),
        _ => 0,
    };
    if let Some(witness) = witness {
        history((io, paths), &queue, &bytes, witness.as_ref(), seen, out);
    }
    super::cut::inspect(io, paths, &queue, out);
    if !repo.genesis_committed(paths) {
        out.push(Finding::act(
            Kind::GenesisNotCommitted,
            "HEAD holds no docs/plans/queue.json, so every change refuses until genesis is committed",
            "mosaic-queue commit --genesis -m 'queue genesis' --by jason",
        ));
    }
    table_status(io, paths, &queue, seen, out);
    reviews(&queue, out);
    super::claims::inspect(world, paths, queue.state(), out);
    super::replication::inspect(io, paths, &queue, durable, out);
    super::guard::inspect(repo, paths, out);
    Some(rev)
}

/// The filesystem's finding where it cannot keep a write durable. A checkout with no
/// docs/plans yet keeps no queue there to make durable: the no-queue finding says what to do,
/// and a finding about a missing folder would not.
fn filesystem(io: &dyn Io, paths: &Paths, out: &mut Vec<Finding>) {
    let no_plans = io
        .fs_kind(&paths.plans)
        .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound);
    if let Err(e) = store::check_filesystem(io, paths)
        && !no_plans
    {
        out.push(Finding::person(
            Kind::Filesystem,
            format!("{e}: move the checkout to one (docs/durability.md)"),
        ));
    }
}

/// The witness as the store reads it (`Some(None)`: there is none); `None`, with its finding,
/// when it cannot be read.
fn witness(io: &dyn Io, paths: &Paths, out: &mut Vec<Finding>) -> Option<Option<Witness>> {
    match store::read_witness(io, paths) {
        Ok(w) => Some(w),
        Err(e) => {
            // The store's line ends with its own step (Manual recovery), which this one
            // names in full: the cause, then the step, each once.
            let line = one_line(&e.to_string());
            let step = format!("; {}", crate::io::Kind::Witness.next_step());
            let cause = line.strip_suffix(step.as_str()).unwrap_or(&line);
            out.push(recovery(
                Kind::WitnessInvalid,
                format!("{cause}; {MANUAL}, which ends with `{ACCEPT}`"),
                DECIDED,
            ));
            None
        }
    }
}

fn no_queue(has_witness: bool) -> Finding {
    if has_witness {
        recovery(
            Kind::NoQueue,
            format!(
                "docs/plans/queue.json is missing but the witness .git/mosaic-queue.head vouches for a queue; {MANUAL}: put a valid file in place, then `{ACCEPT}`"
            ),
            PLACED,
        )
    } else {
        Finding::act(
            Kind::NoQueue,
            "docs/plans/queue.json does not exist: genesis has not run, or did not survive a crash (a retry of its op starts the queue)",
            "mosaic-queue genesis --map MAP --op OP --by jason",
        )
    }
}

fn checkout_rules(repo: &dyn Repository, paths: &Paths, queue: &Queue, out: &mut Vec<Finding>) {
    match repo.check_queue(paths, queue) {
        Ok(()) => {}
        Err(e @ CheckoutError::NotCanonical { .. }) => out.push(Finding::person(
            Kind::NotCanonical,
            format!("{e}; every verb but doctor refuses here"),
        )),
        Err(e @ CheckoutError::WrongBranch { .. }) => out.push(Finding::person(
            Kind::WrongBranch,
            format!(
                "{e}, but only once no uncommitted queue op would be touched (see the contract's git side of the protocol)"
            ),
        )),
        Err(e) => out.push(Finding::person(Kind::NotCanonical, e.to_string())),
    }
}

/// The file against the witness: lost history, a tail not yet durable, a dead writer's op.
fn history(
    at: (&dyn Io, &Paths),
    queue: &Queue,
    bytes: &[u8],
    witness: Option<&mosaic_queue_core::Witness>,
    seen: &Seen,
    out: &mut Vec<Finding>,
) {
    let Some(confirmed) = confirmed(at, queue, bytes, witness, out) else {
        return;
    };
    // The entries sync would confirm, the archives' among them: the check above read the
    // same archives, so one that fails now changed since, and queue.json's tail is named.
    let (io, paths) = at;
    let entries =
        store::cut::history::entries_after(io, paths, queue, confirmed).unwrap_or_else(|_| {
            let log = queue.file().chain_entries();
            log.iter().filter(|e| e.rev > confirmed).cloned().collect()
        });
    tail(queue, confirmed, &entries, seen, out);
    unacknowledged(queue, seen, out);
}

/// The revision the witness confirms durable (0 for genesis alone without one, itself a
/// finding), or `None` after the finding that history was lost or cannot be told.
fn confirmed(
    (io, paths): (&dyn Io, &Paths),
    queue: &Queue,
    bytes: &[u8],
    witness: Option<&mosaic_queue_core::Witness>,
    out: &mut Vec<Finding>,
) -> Option<u64> {
    let rev = queue.revision();
    Some(match witness {
        None if rev == 1 => {
            out.push(Finding::act(
                Kind::WitnessMissing,
                "there is no witness .git/mosaic-queue.head and queue.json holds genesis alone, so genesis is not confirmed durable",
                "mosaic-queue sync",
            ));
            0
        }
        None => {
            out.push(recovery(
                Kind::WitnessMissing,
                format!(
                    "there is no witness .git/mosaic-queue.head and queue.json is at rev {rev}, past genesis: nothing tells what was lost; {MANUAL}, which ends with `{ACCEPT}`"
                ),
                DECIDED,
            ));
            return None;
        }
        Some(w) => {
            let sha = mosaic_queue_core::sha256_hex(bytes);
            if let Err(e) = store::cut::history::check_extends(io, paths, queue, &sha, w) {
                out.push(recovery(
                    Kind::HistoryLost,
                    format!(
                        "{}; {MANUAL} (find the lost ops, re-apply them under new op ids), which ends with `{ACCEPT}`",
                        lost(&e)
                    ),
                    REAPPLIED,
                ));
                return None;
            }
            w.revision
        }
    })
}

/// Revisions past `confirmed` that are visible but not confirmed durable (`entries`): `sync`
/// confirms them (no action while a live writer holds the lock: it may be its own write in
/// flight).
fn tail(
    queue: &Queue,
    confirmed: u64,
    entries: &[mosaic_queue_core::Entry],
    seen: &Seen,
    out: &mut Vec<Finding>,
) {
    let rev = queue.revision();
    let tail: Vec<String> = entries
        .iter()
        .map(|e| format!("{} by {}", e.op, e.by))
        .collect();
    if confirmed > 0 && !tail.is_empty() {
        let detail = format!(
            "revs {} to {rev} are visible, not confirmed durable ({}); sync makes them durable and names each op's seat to tell",
            confirmed + 1,
            tail.join(", ")
        );
        out.push(if seen.live_writer {
            Finding {
                action: false,
                ..Finding::act(
                    Kind::TailNotDurable,
                    format!(
                        "{detail} (a writer holds the lock: it may be its own write in flight)"
                    ),
                    "mosaic-queue sync",
                )
            }
        } else {
            Finding::act(Kind::TailNotDurable, detail, "mosaic-queue sync")
        });
    }
}

/// The op a dead writer held the lock for, when it is in the log: its seat may not have seen
/// the receipt.
fn unacknowledged(queue: &Queue, seen: &Seen, out: &mut Vec<Finding>) {
    if let Some(op) = &seen.dead_op
        && let Some(e) = queue.entry_for_op(op)
    {
        out.push(Finding {
            action: false,
            ..Finding::act(
                Kind::Unacknowledged,
                format!(
                    "op {} (by {}) is in the log at rev {}, but the writer that held the lock for it stopped, so its receipt may not have printed: tell {}, whose retry of the same op answers with the original receipt",
                    e.op, e.by, e.rev, e.by
                ),
                format!("mosaic-queue sync --op {}", e.op),
            )
        });
    }
}

/// How history was lost, said once: the core's line names its own step (Manual recovery),
/// which the finding names in full.
fn lost(e: &store::StoreError) -> String {
    let store::StoreError::Witness(e) = e else {
        // An archive the epoch names is missing or changed: its own finding says what to do.
        return format!("the witness could not be checked through the archives: {e}");
    };
    match e {
        WitnessError::Behind { witness, file } => format!(
            "history was rolled back: queue.json is at rev {file} but the witness saw rev {witness}"
        ),
        WitnessError::Diverged { revision } => format!(
            "history was rewritten: queue.json's log up to rev {revision} differs from what the witness saw"
        ),
        WitnessError::FileChanged { revision } => format!(
            "history was rewritten: queue.json at rev {revision} is not the file the witness saw (it was changed after its write)"
        ),
        WitnessError::BeforeEpoch { .. } | WitnessError::Archive { .. } => format!(
            "history was rewritten: queue.json does not extend what the witness saw through the archives ({e})"
        ),
    }
}

fn table_status(io: &dyn Io, paths: &Paths, queue: &Queue, seen: &Seen, out: &mut Vec<Finding>) {
    let restore = "restore it with git (`git show HEAD:docs/plans/QUEUE.md` holds the committed one) or re-apply the edit as queue ops, then run `mosaic-queue render`";
    let md = match io.read(&paths.queue_md, crate::io::Kind::QueueMd) {
        Ok(bytes) => bytes,
        Err(e) => {
            out.push(Finding::person(
                Kind::TableMissing,
                format!("cannot read docs/plans/QUEUE.md ({e}): {restore}"),
            ));
            return;
        }
    };
    let Ok(text) = std::str::from_utf8(&md) else {
        out.push(Finding::person(
            Kind::TableMarkers,
            format!("docs/plans/QUEUE.md is not UTF-8: {restore}"),
        ));
        return;
    };
    let body = match markdown::body(text) {
        Ok(b) => b,
        Err(e) => {
            out.push(Finding::person(
                Kind::TableMarkers,
                format!("docs/plans/QUEUE.md {e}: {restore}"),
            ));
            return;
        }
    };
    match store::table_status(io, paths, queue, body) {
        BodyStatus::Current => {}
        BodyStatus::Stale { rev } => {
            let shows = if rev == 0 {
                "still shows the legacy table genesis replaces".to_owned()
            } else {
                format!("shows rev {rev}")
            };
            let mut f = Finding::act(
                Kind::TableStale,
                format!(
                    "docs/plans/QUEUE.md {shows}, the log is at rev {}",
                    queue.revision()
                ),
                "mosaic-queue render",
            );
            if seen.live_writer {
                f.action = false;
                f.detail
                    .push_str(" (a writer holds the lock: it may be rendering it now)");
            }
            out.push(f);
        }
        BodyStatus::Unknown => out.push(Finding::person(
            Kind::TableHandEdited,
            format!("docs/plans/QUEUE.md's table is not a render of this queue (a hand edit?): {restore}"),
        )),
    }
}

fn reviews(queue: &Queue, out: &mut Vec<Finding>) {
    for row in queue.rows() {
        let Some(review) = &row.review else { continue };
        for round in &review.rounds {
            for a in round.attempts.iter().filter(|a| a.state.is_unresolved()) {
                let issue = round
                    .issue
                    .map_or_else(|| "the round's issue".to_owned(), |i| format!("issue #{i}"));
                let choices =
                    choice::unresolved_request(row.id, &a.op, &issue, row.owner.as_deref());
                out.push(Finding::choose(
                    Kind::ReviewUnresolved,
                    format!(
                        "row {} round {}: request attempt {} by {} is {}, which blocks the row; once no request for it is still running, look on {issue} for a comment carrying <!-- mosaic-queue-op: {} -->: if it is there, the owner or jason/sage runs `mosaic-queue review resolve {} {} --comment N`, else jason or sage runs `mosaic-queue review abandon {} {} --reason TEXT --yes`",
                        row.id,
                        round.round,
                        a.op,
                        a.by,
                        a.state.as_str(),
                        a.op,
                        row.id,
                        a.op,
                        row.id,
                        a.op
                    ),
                    choices.into(),
                ));
            }
        }
    }
}
