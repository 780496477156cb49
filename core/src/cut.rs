//! Cutting the history at a revision C: the archive (the file as it stood at C), the epoch
//! entry replay starts from instead, and `verify_full`, which recomputes every epoch entry
//! from its archive with the same function the cut used.

use alloc::borrow::ToOwned;
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::body::Body;
use crate::canon;
use crate::chain;
use crate::digest::{sha256, sha256_hex};
use crate::entry::{Args, EPOCH_SEMANTICS, Entry, Verb};
use crate::epoch::{
    ArchiveArgs, ArchiveInfo, EPOCH_OP_SUFFIX, EpochArgs, EpochState, OpFilter, archive_path,
    ranges_of,
};
use crate::error::{QueueError, VerbError};
use crate::file::QueueFile;
use crate::hex::hex;
use crate::queue::{Queue, manifest_of, same_actor};
use crate::render::render_body_under;
use crate::replay::{epoch_receipt, first_repeat, op_hash, replay_upto};
use crate::rules;
use crate::state::State;
use crate::verbs::numbers;

/// A cut planned on a queue, nothing written: the archive to write first, then the queue.
#[derive(Clone, Debug)]
pub struct Cut {
    /// The archive's path in the repository (`docs/plans/archive/epoch-NNNN.json`).
    pub archive_file: String,
    /// The canonical bytes of the queue file as it stood at the cut.
    pub archive_bytes: Vec<u8>,
    /// The queue after the cut: `[epoch, C+1..N, archive]`.
    pub queue: Queue,
    pub receipt: String,
}

/// What `plan_archive` found.
#[derive(Clone, Debug)]
pub enum CutOutcome {
    /// The op already cut this queue: its original receipt, nothing to write.
    Recorded {
        rev: u64,
        receipt: String,
    },
    Planned(Box<Cut>),
}

impl Queue {
    /// Plans `archive --before REV` as `op` by `by` at `at`: the entries before `before` and
    /// the rows done by then that nothing after names move to an archive. Does not change
    /// `self`; replays the log up to the cut once.
    pub fn plan_archive(
        &self,
        before: u64,
        op: &str,
        by: &str,
        at: &str,
    ) -> Result<CutOutcome, VerbError> {
        rules::check_op(op)?;
        rules::check_actor(by)?;
        rules::check_timestamp(at)?;
        numbers::check("revision", before)?;
        if let Some(entry) = self.entry_for_op(op) {
            return recorded_cut(entry, before, by);
        }
        let cut = self.cut_point(before, op, by)?;
        let at_cut = self.at(cut)?;
        let archive_bytes = canon::to_canonical(&at_cut.file);
        let split = self.index_of(cut) + 1;
        let window = &self.file.log[split..];
        let epoch = epoch_entry(&at_cut, &sha256_hex(&archive_bytes), window, op, by, at)?;
        let Args::Epoch(args) = &epoch.args else {
            return Err(broken());
        };
        let info = args.archives.last().ok_or_else(broken)?;
        let archive = ArchiveArgs {
            before,
            epoch: args.epoch,
            file: info.file.clone(),
            sha: info.sha.clone(),
            epoch_sha: compact_sha(&epoch),
            entries: cut - at_cut.file.chain_start().map_or(0, |s| s.0),
            rows: crate::epoch::range_count(&info.rows),
        };
        let archive_file = info.file.clone();
        let mut log = Vec::with_capacity(window.len() + 2);
        log.push(epoch);
        log.extend_from_slice(window);
        let mut file = QueueFile {
            version: self.file.version,
            canonical_root: self.file.canonical_root.clone(),
            revision: self.file.revision,
            rows: Vec::new(),
            log,
        };
        let state = replay_upto(&file, u64::MAX, false).map_err(|_| broken())?;
        file.rows.clone_from(&state.rows);
        let mut queue = Queue { file, state };
        // 6, or 7 once the queue reached it (a queue's semantics never go back).
        let semantics = self
            .file
            .log
            .last()
            .map_or(EPOCH_SEMANTICS, |e| e.semantics)
            .max(EPOCH_SEMANTICS);
        let archive = Args::Archive(Box::new(archive));
        let receipt = queue.append_new(archive, op, by, at, semantics, true)?;
        Ok(CutOutcome::Planned(Box::new(Cut {
            archive_file,
            archive_bytes,
            queue,
            receipt,
        })))
    }

    /// The revision a new cut `archive --before REV` as `op` by `by` stands at, or why it may
    /// not be made: an op an archive may hold, a token-like op, a seat, a REV out of range.
    fn cut_point(&self, before: u64, op: &str, by: &str) -> Result<u64, VerbError> {
        let epochs = self.maybe_archived(op);
        if !epochs.is_empty() {
            return Err(VerbError::OpMaybeArchived {
                op: String::from(op),
                epochs,
            });
        }
        crate::admission::check_new_op(op)?;
        if !rules::is_lead_or_privileged(by) {
            return Err(VerbError::NotAllowed {
                actor: String::from(by),
                action: String::from("cut the history"),
                who: "the lead, jason or sage only",
            });
        }
        let head = self.file.revision;
        let low = self
            .state
            .seed()
            .and_then(|s| s.archived_at)
            .map_or(2, |rev| rev + 1);
        if before < low || before > head + 1 {
            return Err(VerbError::CutRange {
                before,
                low,
                high: head + 1,
            });
        }
        Ok(before - 1)
    }

    /// The position of revision `rev` (which the log holds) in the log.
    fn index_of(&self, rev: u64) -> usize {
        (rev - self.file.first_rev()) as usize
    }

    /// The queue as it stood at revision `rev` (one the log holds past its start).
    fn at(&self, rev: u64) -> Result<Queue, VerbError> {
        let state = replay_upto(&self.file, rev, false).map_err(|_| broken())?;
        let file = QueueFile {
            version: self.file.version,
            // The root as it stood then: an adopt after `rev` moved it since.
            canonical_root: state.root.clone().unwrap_or_default(),
            revision: rev,
            rows: state.rows.clone(),
            log: self.file.log[..=self.index_of(rev)].to_vec(),
        };
        Ok(Queue { file, state })
    }
}

/// A verified queue that does not replay to its own cut: no input makes one.
fn broken() -> VerbError {
    VerbError::EpochEntry {
        why: "the log does not replay to the cut",
    }
}

/// The retry of an `archive` op: its receipt when the actor and REV are the ones recorded.
fn recorded_cut(entry: &Entry, before: u64, by: &str) -> Result<CutOutcome, VerbError> {
    same_actor(entry, by)?;
    match &entry.args {
        Args::Archive(a) if a.before == before => Ok(CutOutcome::Recorded {
            rev: entry.rev,
            receipt: entry.receipt.clone(),
        }),
        _ => Err(VerbError::OpReused {
            op: entry.op.clone(),
            rev: entry.rev,
            verb: entry.verb.as_str(),
        }),
    }
}

/// SHA-256 (hex) of an entry's compact canonical JSON, which the archive entry pins.
pub(crate) fn compact_sha(entry: &Entry) -> String {
    let mut compact = Vec::new();
    canon::write_compact(entry, &mut compact);
    sha256_hex(&compact)
}

/// The rows a cut at C archives: done at C, with no request attempt whose outcome is not
/// logged yet (an outcome sets `detail`; one may still come for a done row), in no row's
/// `after` at C, and named by no entry of the window after C (so every window entry replays
/// against the epoch state as it did against the whole one). Ascending.
pub(crate) fn archived_rows(at_cut: &State, window: &[Entry]) -> Vec<u64> {
    // A sorted list rather than a set: ids are sorted everywhere in the core, and a set of
    // them would be a B-tree compiled for this alone.
    let mut named: Vec<u64> = window.iter().flat_map(|e| e.args.rows_named()).collect();
    named.extend(at_cut.rows.iter().flat_map(|r| r.after.iter().copied()));
    named.sort_unstable();
    named.dedup();
    let mut out: Vec<u64> = at_cut
        .rows
        .iter()
        .filter(|r| !r.status.is_open() && named.binary_search(&r.id).is_err())
        .filter(|r| {
            r.review.as_ref().is_none_or(|rv| {
                rv.rounds
                    .iter()
                    .all(|round| round.attempts.iter().all(|a| a.detail.is_some()))
            })
        })
        .map(|r| r.id)
        .collect();
    out.sort_unstable();
    out
}

/// The epoch entry a cut at `at_cut`'s revision writes: `at_cut` is the queue as it stood
/// there (its bytes hash to `archive_sha`), `window` the entries after it up to the head the
/// cut was made on, `op`/`by`/`at` the archive op's. One function for the cut and for
/// `verify_full`, so a full check recomputes exactly what the cut wrote.
pub(crate) fn epoch_entry(
    at_cut: &Queue,
    archive_sha: &str,
    window: &[Entry],
    op: &str,
    by: &str,
    at: &str,
) -> Result<Entry, VerbError> {
    let (file, state) = (&at_cut.file, &at_cut.state);
    let rev = file.revision;
    let prev = file.epoch();
    let epoch = prev.map_or(1, |e| e.epoch + 1);
    let digest = chain::digest_at(file, rev).ok_or_else(broken)?;
    let archived = archived_rows(state, window);
    let mut archives = prev.map_or_else(Vec::new, |e| e.archives.clone());
    archives.push(ArchiveInfo {
        epoch,
        file: archive_path(epoch),
        sha: archive_sha.to_owned(),
        rev,
        rows: ranges_of(&archived),
        ops: OpFilter::build(file.chain_entries().iter().map(|e| e.op.as_str())),
    });
    let kept = |id: &u64| archived.binary_search(id).is_err();
    let rows: Vec<_> = state.rows.iter().filter(|r| kept(&r.id)).cloned().collect();
    // Per opening revision, the least manifest text, in revision order (what sorting the
    // pairs and keeping each revision's first gave), through the map type the move reasons
    // use rather than a sort compiled for these pairs alone.
    let mut least: BTreeMap<u64, String> = BTreeMap::new();
    let opened = rows
        .iter()
        .filter_map(|r| r.review.as_ref())
        .flat_map(|rv| rv.rounds.iter())
        .filter(|round| round.manifest.is_none() && round.opened_rev <= rev);
    for round in opened {
        let Some(text) = manifest_of(file, round) else {
            continue;
        };
        match least.get_mut(&round.opened_rev) {
            Some(kept) if kept.as_str() <= text => {}
            Some(kept) => *kept = text.to_owned(),
            None => {
                least.insert(round.opened_rev, text.to_owned());
            }
        }
    }
    let manifests: Vec<(u64, String)> = least.into_iter().collect();
    let args = EpochArgs {
        epoch,
        digest: hex(&digest),
        archives,
        state: EpochState {
            branch: state.branch.clone().unwrap_or_default(),
            root: state.root.clone().unwrap_or_default(),
            next_id: state.next_id(),
            spent: state.spent(),
            semantics: file.log.last().map_or(EPOCH_SEMANTICS, |e| e.semantics),
            lease_default: state.lease_default(),
            replication: state.replication(),
            reasons: state
                .move_reasons()
                .filter(|(id, _)| kept(id))
                .map(|(id, r)| (id, r.to_owned()))
                .collect(),
            manifests,
            rows,
        },
    };
    let body = render_body_under(
        &State::from_epoch(&args, rev, String::new()),
        EPOCH_SEMANTICS,
    );
    let op = format!("{op}{EPOCH_OP_SUFFIX}");
    Ok(Entry {
        rev,
        receipt: epoch_receipt(&op, rev, epoch),
        op,
        verb: Verb::Epoch,
        by: String::from(by),
        at: String::from(at),
        semantics: EPOCH_SEMANTICS,
        args: Args::Epoch(Box::new(args)),
        body: Body::Sha256(sha256(body.as_bytes())),
    })
}

/// `verify --full`: `archives` are the bytes of archives 1..K in order and `active` the bytes
/// of queue.json. Each file verifies; each epoch entry (archive k+1's first, or queue.json's
/// for K) is exactly what archive k and the entries after it make; no op id repeats across the
/// whole history. Linear in the history.
pub fn verify_full(archives: &[&[u8]], active: &[u8]) -> Result<Queue, QueueError> {
    let queue = Queue::verify(active)?;
    let count = queue.file.epoch().map_or(0, |e| e.epoch);
    if archives.len() != count as usize {
        return Err(QueueError::Epoch {
            epoch: count,
            detail: format!(
                "queue.json names {count} archives but {} were given",
                archives.len()
            ),
        });
    }
    let mut ops: Vec<(String, u64)> = Vec::new();
    let mut prev: Option<Queue> = None;
    for (i, bytes) in archives.iter().enumerate() {
        let k = i as u32 + 1;
        let archive = Queue::verify(bytes).map_err(|e| QueueError::Epoch {
            epoch: k,
            detail: format!("{} is invalid: {e}", archive_path(k)),
        })?;
        if archive.file.epoch().map_or(0, |e| e.epoch) != k - 1 {
            let start = match k {
                1 => String::from("genesis"),
                _ => format!("epoch {}'s entry", k - 1),
            };
            return Err(QueueError::Epoch {
                epoch: k,
                detail: format!("{} does not start with {start}", archive_path(k)),
            });
        }
        if let Some(p) = &prev {
            check_epoch(p, archives[i - 1], &archive.file, k - 1)?;
        }
        collect_ops(&archive.file, &mut ops);
        prev = Some(archive);
    }
    if let Some(p) = &prev {
        check_epoch(p, archives[archives.len() - 1], &queue.file, count)?;
    }
    collect_ops(&queue.file, &mut ops);
    if let Some((later, first)) = first_repeat(ops.len(), |i| &ops[i].0, op_hash) {
        return Err(QueueError::Epoch {
            epoch: count,
            detail: format!(
                "op `{}` is used at rev {} and again at rev {}",
                ops[later].0, ops[first].1, ops[later].1
            ),
        });
    }
    Ok(queue)
}

fn collect_ops(file: &QueueFile, ops: &mut Vec<(String, u64)>) {
    ops.extend(file.chain_entries().iter().map(|e| (e.op.clone(), e.rev)));
}

/// Checks that `next`'s epoch entry (epoch `k`) is what archive k (`archive`, from
/// `bytes`) and the entries of `next` up to its archive entry make.
fn check_epoch(archive: &Queue, bytes: &[u8], next: &QueueFile, k: u32) -> Result<(), QueueError> {
    let fail = |detail: String| QueueError::Epoch { epoch: k, detail };
    let (pos, cut) = next
        .log
        .iter()
        .enumerate()
        .find_map(|(i, e)| match &e.args {
            Args::Archive(a) if a.epoch == k => Some((i, e)),
            _ => None,
        })
        .ok_or_else(|| fail(String::from("no archive entry follows it")))?;
    let window = &next.log[1..pos];
    let want = epoch_entry(
        archive,
        &sha256_hex(bytes),
        window,
        &cut.op,
        &cut.by,
        &cut.at,
    )
    .map_err(|e| {
        fail(format!(
            "{} does not replay to its cut: {e}",
            archive_path(k)
        ))
    })?;
    let found = &next.log[0];
    if *found != want {
        return Err(fail(format!(
            "the epoch entry is not what {} and the entries after it make ({} differs)",
            archive_path(k),
            differs(found, &want)
        )));
    }
    Ok(())
}

/// The first part of an epoch entry where `found` and `want` part ways.
fn differs(found: &Entry, want: &Entry) -> &'static str {
    let (Args::Epoch(f), Args::Epoch(w)) = (&found.args, &want.args) else {
        return "its verb";
    };
    let sha_part = f
        .archives
        .iter()
        .zip(&w.archives)
        .any(|(a, b)| a.sha != b.sha);
    [
        ("its digest", f.digest != w.digest),
        ("an archive's sha", sha_part),
        (
            "the archived rows",
            f.archives
                .iter()
                .map(|a| &a.rows)
                .ne(w.archives.iter().map(|a| &a.rows)),
        ),
        (
            "an op filter",
            f.archives
                .iter()
                .map(|a| &a.ops)
                .ne(w.archives.iter().map(|a| &a.ops)),
        ),
        ("the archives", f.archives != w.archives),
        ("its state's rows", f.state.rows != w.state.rows),
        ("its state", f.state != w.state),
        ("its body", found.body != want.body),
    ]
    .into_iter()
    .find(|(_, d)| *d)
    .map_or("a field", |(name, _)| name)
}
