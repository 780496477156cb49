//! Replay from genesis, or from the epoch entry a cut log starts with: every entry re-applied under its own semantics against the matrix,
//! its receipt reproduced exactly, and the result compared with the file's `rows` and
//! `revision`. Body hashes are records of past renders and are not re-rendered here.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::canon;
use crate::ctx::Ctx;
use crate::digest::sha256_hex;
use crate::entry::{Args, CURRENT_SEMANTICS, EPOCH_SEMANTICS, Entry};
use crate::epoch::{EPOCH_OP_SUFFIX, EpochArgs, archive_path};
use crate::error::ReplayError;
use crate::file::{FORMAT_VERSION, QueueFile};
use crate::lease::check_lease;
use crate::model::Row;
use crate::rules;
use crate::state::State;
use crate::verbs;

/// Replays `file.log` and checks it yields `file.rows` and `file.revision`.
pub fn replay(file: &QueueFile) -> Result<State, ReplayError> {
    replay_upto(file, u64::MAX, true)
}

/// Replays `file.log` from its start (genesis or an epoch entry) through revision `upto`;
/// `whole` checks the result against the file (and that a cut log holds its archive entry).
pub(crate) fn replay_upto(file: &QueueFile, upto: u64, whole: bool) -> Result<State, ReplayError> {
    if file.version != FORMAT_VERSION {
        return Err(ReplayError::Version {
            found: file.version,
            supported: FORMAT_VERSION,
        });
    }
    let Some(first) = file.log.first() else {
        return Err(ReplayError::EmptyLog);
    };
    let duplicate = first_duplicate_op(&file.log);
    let (mut state, skip) = match &first.args {
        Args::Epoch(args) => (from_epoch(first, args)?, 1),
        _ => (start_state(), 0),
    };
    let base = state.revision;
    let mut receipt = String::new();
    for (index, entry) in file.log.iter().enumerate().skip(skip) {
        let expected = base + (index - skip) as u64 + 1;
        if expected > upto {
            break;
        }
        if entry.rev != expected {
            return Err(ReplayError::RevSequence {
                index,
                expected,
                found: entry.rev,
            });
        }
        // Reported where the entry-by-entry check would meet it, so a file with several faults
        // names the same one.
        if let Some((_, first)) = duplicate.filter(|&(later, _)| later == index) {
            return Err(ReplayError::DuplicateOp {
                rev: entry.rev,
                op: entry.op.clone(),
                first: file.log[first].rev,
            });
        }
        apply_entry(&mut state, entry, &mut receipt)?;
    }
    if whole {
        if let Some(seed) = state.seed()
            && seed.archived_at.is_none()
        {
            return Err(ReplayError::NoArchiveEntry { epoch: seed.epoch });
        }
        check_result(file, &state)?;
    }
    Ok(state)
}

/// The state an epoch entry starts replay from, once the entry holds together: its own
/// fields as a cut writes them, and arguments in shape (`EpochArgs::check`).
fn from_epoch(entry: &Entry, args: &EpochArgs) -> Result<State, ReplayError> {
    let rev = entry.rev;
    let bad = |why| ReplayError::Epoch { rev, why };
    let op_ok = entry
        .op
        .strip_suffix(EPOCH_OP_SUFFIX)
        .is_some_and(|op| rules::check_op(op).is_ok());
    if !op_ok {
        return Err(bad("its op is not an archive op's id followed by .epoch"));
    }
    if entry.semantics != EPOCH_SEMANTICS {
        return Err(bad("it is not under semantics 6"));
    }
    if rev == 0 || rules::check_timestamp(&entry.at).is_err() {
        return Err(bad("its revision or time is malformed"));
    }
    if !rules::is_lead_or_privileged(&entry.by) {
        return Err(bad("it is not by the lead, jason or sage"));
    }
    if !entry.body.is_digest() {
        return Err(ReplayError::BodyHash { rev });
    }
    args.check(rev).map_err(bad)?;
    if !(1..=CURRENT_SEMANTICS).contains(&args.state.semantics) {
        return Err(bad("its state's semantics is not one this build knows"));
    }
    if args
        .state
        .lease_default
        .is_some_and(|l| check_lease(u64::from(l)).is_err())
    {
        return Err(bad("its state's default lease is out of bounds"));
    }
    if entry.receipt != epoch_receipt(&entry.op, rev, args.epoch) {
        return Err(ReplayError::Receipt {
            rev,
            expected: epoch_receipt(&entry.op, rev, args.epoch),
            found: entry.receipt.clone(),
        });
    }
    let mut compact = Vec::new();
    canon::write_compact(entry, &mut compact);
    Ok(State::from_epoch(args, rev, sha256_hex(&compact)))
}

/// What an epoch entry's receipt says.
pub(crate) fn epoch_receipt(op: &str, rev: u64, epoch: u32) -> String {
    format!(
        "ok {op} rev {rev} epoch {epoch} starts here; the history before it is in {}",
        archive_path(epoch)
    )
}

/// The state replay starts from: no rows, no root, revision 0. The log's first entry must be
/// genesis, which sets the root and the first rows (`verbs` refuses anything else first).
fn start_state() -> State {
    State::default()
}

/// Applies one entry under its own context and semantics, and checks that it reproduces the
/// receipt it records; `receipt` is a buffer reused for every entry.
pub(crate) fn apply_entry(
    state: &mut State,
    entry: &Entry,
    receipt: &mut String,
) -> Result<(), ReplayError> {
    if !entry.body.is_digest() {
        return Err(ReplayError::BodyHash { rev: entry.rev });
    }
    let ctx = Ctx {
        rev: entry.rev,
        op: &entry.op,
        by: &entry.by,
        at: &entry.at,
        semantics: entry.semantics,
    };
    verbs::apply_into(state, &entry.args, &ctx, receipt).map_err(|e| ReplayError::Refused {
        rev: entry.rev,
        source: Box::new(e),
    })?;
    if *receipt != entry.receipt {
        return Err(ReplayError::Receipt {
            rev: entry.rev,
            expected: receipt.clone(),
            found: entry.receipt.clone(),
        });
    }
    Ok(())
}

/// Checks that the replayed state is what the file holds: its root, revision and rows.
fn check_result(file: &QueueFile, state: &State) -> Result<(), ReplayError> {
    if state.root.as_deref() != Some(file.canonical_root.as_str()) {
        return Err(ReplayError::Root {
            recorded: state.root.clone().unwrap_or_default(),
            found: file.canonical_root.clone(),
        });
    }
    if file.revision != state.revision {
        return Err(ReplayError::Revision {
            expected: state.revision,
            found: file.revision,
        });
    }
    if file.rows != state.rows {
        return Err(ReplayError::Rows {
            detail: rows_diff(&file.rows, &state.rows),
        });
    }
    Ok(())
}

/// The position of the first entry whose op id an earlier entry already used, with the
/// position of that earlier entry. Sorting hashes of the borrowed ids costs far less than an
/// owned map entry per replayed entry or a sort by string; ids are compared only where hashes
/// are equal.
fn first_duplicate_op(log: &[Entry]) -> Option<(usize, usize)> {
    first_repeat(log.len(), |i| &log[i].op, op_hash)
}

/// `first_duplicate_op` over ids `id(0..n)`, with the hash passed in so that tests can make
/// every id collide.
pub(crate) fn first_repeat<'a>(
    n: usize,
    id: impl Fn(usize) -> &'a str,
    hash: impl Fn(&str) -> u64,
) -> Option<(usize, usize)> {
    let mut hashes: Vec<(u64, usize)> = (0..n).map(|i| (hash(id(i)), i)).collect();
    hashes.sort_unstable();
    let mut earliest: Option<(usize, usize)> = None;
    for same_hash in hashes.chunk_by(|a, b| a.0 == b.0) {
        if same_hash.len() < 2 {
            continue;
        }
        let mut ids: Vec<(&str, usize)> = same_hash.iter().map(|&(_, i)| (id(i), i)).collect();
        ids.sort_unstable();
        // Within a run of equal ids the positions ascend, so each pair is (earlier, next use).
        for pair in ids.windows(2).filter(|w| w[0].0 == w[1].0) {
            let found = (pair[1].1, pair[0].1);
            if earliest.is_none_or(|e| found < e) {
                earliest = Some(found);
            }
        }
    }
    earliest
}

/// A fast, non-cryptographic hash of an op id; collisions only cost a string comparison.
pub(crate) fn op_hash(op: &str) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mix = |h: u64, word: [u8; 8]| (h.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(K);
    let mut h = op.len() as u64;
    let mut chunks = op.as_bytes().chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        h = mix(h, word);
    }
    let rest = chunks.remainder();
    let mut word = [0u8; 8];
    word[..rest.len()].copy_from_slice(rest);
    mix(h, word)
}

/// Names the first row and field where the file and the replay part ways.
fn rows_diff(file: &[Row], replayed: &[Row]) -> String {
    for (i, (f, r)) in file.iter().zip(replayed).enumerate() {
        if f == r {
            continue;
        }
        if f.id != r.id {
            return format!(
                "position {} holds row {} but replay puts row {} there",
                i + 1,
                f.id,
                r.id
            );
        }
        let field = [
            ("piece", f.piece == r.piece),
            ("owner", f.owner == r.owner),
            ("status", f.status == r.status),
            ("gate", f.gate == r.gate),
            ("issues", f.issues == r.issues),
            ("closes", f.closes == r.closes),
            ("closesNarrowed", f.closes_narrowed == r.closes_narrowed),
            ("reviewers", f.reviewers == r.reviewers),
            ("brief", f.brief == r.brief),
            ("note", f.note == r.note),
            ("blockedReason", f.blocked_reason == r.blocked_reason),
            ("review", f.review == r.review),
            ("after", f.after == r.after),
            ("lease", f.lease == r.lease),
            ("fenced", f.fenced == r.fenced),
        ]
        .into_iter()
        .find(|(_, same)| !same)
        .map_or("a field", |(name, _)| name);
        return format!("row {}'s {field} is not what the log produces", f.id);
    }
    format!(
        "the file has {} rows but the log produces {}",
        file.len(),
        replayed.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What replay used to do entry by entry: the first id seen before, and where.
    fn naive(ids: &[&str]) -> Option<(usize, usize)> {
        (0..ids.len()).find_map(|i| ids[..i].iter().position(|x| *x == ids[i]).map(|f| (i, f)))
    }

    #[test]
    fn the_earliest_repeat_is_reported_with_its_first_use() {
        type Case = (&'static [&'static str], Option<(usize, usize)>);
        let cases: [Case; 6] = [
            (&["a", "b", "c"], None),
            (&["a", "b", "c", "b", "a"], Some((3, 1))),
            (&["x", "x", "x"], Some((1, 0))),
            (&["a", "b", "a", "b"], Some((2, 0))),
            (&["a", "b", "b", "a"], Some((2, 1))),
            (&[], None),
        ];
        for (ids, want) in cases {
            assert_eq!(
                first_repeat(ids.len(), |i| ids[i], op_hash),
                want,
                "{ids:?}"
            );
            assert_eq!(first_repeat(ids.len(), |i| ids[i], |_| 7), want, "{ids:?}");
        }
    }

    #[test]
    fn repeats_agree_with_the_entry_by_entry_check() {
        const IDS: [&str; 12] = [
            "op-000001",
            "op-000002",
            "op-000003",
            "op-000004",
            "op-000005",
            "op-000006",
            "lead-add-160",
            "jason-genesis-1",
            "a",
            "ab",
            "abcdefghijklmnopq",
            "abcdefghijklmnopr",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..5_000 {
            let n = (next() % 10) as usize;
            let ids: Vec<&str> = (0..n)
                .map(|_| IDS[(next() % IDS.len() as u64) as usize])
                .collect();
            let want = naive(&ids);
            assert_eq!(first_repeat(n, |i| ids[i], op_hash), want, "{ids:?}");
            assert_eq!(
                first_repeat(n, |i| ids[i], |s| s.len() as u64 % 2),
                want,
                "{ids:?}"
            );
        }
    }
}
