//! The two entries of a cut (semantics 6): the epoch entry that opens a log cut at revision C
//! (what replay needs to start there, the chain's digest at C, one record per archive), and
//! the `archive` entry that follows the window and pins it. Their shapes and checks live here;
//! making them is `cut`'s, applying them `replay`'s and `verbs`'.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::digest::sha256;
use crate::hex::is_hex;
use crate::model::{ReplicationMode, Row};

/// Where archive `epoch` lies in the repository.
pub fn archive_path(epoch: u32) -> String {
    format!("docs/plans/archive/epoch-{epoch:04}.json")
}

/// The suffix of an epoch entry's op: the archive op's id with it, which no new op may end in.
pub const EPOCH_OP_SUFFIX: &str = ".epoch";

/// `epoch`: log[0] of a file cut at `rev` = C_K.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EpochArgs {
    /// K, counted from 1.
    pub epoch: u32,
    /// The witness chain's digest over entries 1..C_K (hex): the chain goes on from it.
    pub digest: String,
    /// One record per cut 1..K; older ones copied unchanged.
    pub archives: Vec<ArchiveInfo>,
    pub state: EpochState,
}

/// What one cut moved out, and where to.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ArchiveInfo {
    pub epoch: u32,
    /// The archive's path in the repository (`archive_path(epoch)`).
    pub file: String,
    /// SHA-256 (hex) of the archive's bytes.
    pub sha: String,
    /// C_k: the revision the archive stands at.
    pub rev: u64,
    /// The rows archived at this cut, as ascending `[first, last]` ranges of ids.
    pub rows: Vec<[u64; 2]>,
    /// The op ids of the entries this archive holds (not those of earlier archives).
    pub ops: OpFilter,
}

/// The state replay starts from at C_K.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EpochState {
    pub branch: String,
    pub root: String,
    /// The smallest row id never given: `add` never reuses an archived id.
    pub next_id: u64,
    /// The search steps the `set … after` entries of semantics 3 and 4 took up to C_K.
    pub spent: u64,
    /// The semantics of entry C_K.
    pub semantics: u8,
    /// The default lease in force at C_K (semantics 7); written only when one is.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::model::present"
    )]
    pub lease_default: Option<u32>,
    /// Whether receipts wait for the follower at C_K (semantics 8); written only when they do.
    #[serde(
        default,
        skip_serializing_if = "ReplicationMode::is_off",
        deserialize_with = "crate::model::required_only"
    )]
    pub replication: ReplicationMode,
    /// The move reasons of the kept rows, by ascending id.
    pub reasons: Vec<(u64, String)>,
    /// The manifest texts of the kept rows' rounds opened at or before C_K whose move stored
    /// it (semantics 4 keeps it only there), by the round's `openedRev`, ascending.
    pub manifests: Vec<(u64, String)>,
    /// The rows at C_K less the archived ones, in queue order.
    pub rows: Vec<Row>,
}

/// `archive --before REV`: the entry after the window, which pins the epoch entry and the
/// archive into the chain.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ArchiveArgs {
    pub before: u64,
    pub epoch: u32,
    pub file: String,
    /// SHA-256 (hex) of the archive's bytes.
    pub sha: String,
    /// SHA-256 (hex) of the epoch entry's compact canonical JSON.
    pub epoch_sha: String,
    /// The entries archived (C_K - C_{K-1}).
    pub entries: u64,
    /// The rows archived.
    pub rows: u64,
}

/// Bits per op id in an archive's filter, and probes per lookup: about 1% false "maybe".
pub(crate) const FILTER_BITS_PER_OP: usize = 10;
pub(crate) const FILTER_PROBES: usize = 7;

/// A Bloom filter over op ids: `count` ids, `count * 10` bits rounded up to whole bytes, 7
/// probes taken from the SHA-256 of the id (little-endian u32 words 0..7, each modulo the
/// bit count). Written as `{count, bits}` with the bits in base64 (standard, padded).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpFilter {
    pub count: u64,
    pub bits: Vec<u8>,
}

impl OpFilter {
    /// The bytes a filter over `count` ids takes.
    pub fn len_for(count: u64) -> usize {
        usize::try_from(count)
            .unwrap_or(usize::MAX)
            .saturating_mul(FILTER_BITS_PER_OP)
            .div_ceil(8)
    }

    /// The filter over `ops`.
    pub fn build<'a>(ops: impl ExactSizeIterator<Item = &'a str>) -> OpFilter {
        let count = ops.len() as u64;
        let mut bits = alloc::vec![0u8; OpFilter::len_for(count)];
        for op in ops {
            for bit in probes(&sha256(op.as_bytes()), bits.len()) {
                bits[bit / 8] |= 1 << (bit % 8);
            }
        }
        OpFilter { count, bits }
    }

    /// Whether `op` may be one of the ids (false: it is not).
    pub fn may_contain(&self, op: &str) -> bool {
        self.may_contain_hash(&sha256(op.as_bytes()))
    }

    /// `may_contain` for the id whose SHA-256 is `hash` (one hash for every filter).
    pub fn may_contain_hash(&self, hash: &[u8; 32]) -> bool {
        !self.bits.is_empty()
            && probes(hash, self.bits.len()).all(|bit| self.bits[bit / 8] & (1 << (bit % 8)) != 0)
    }
}

fn probes(hash: &[u8; 32], bytes: usize) -> impl Iterator<Item = usize> {
    let hash = *hash;
    let m = bytes.saturating_mul(8).max(1);
    (0..FILTER_PROBES).map(move |i| {
        let word = [
            hash[4 * i],
            hash[4 * i + 1],
            hash[4 * i + 2],
            hash[4 * i + 3],
        ];
        (u32::from_le_bytes(word) as usize) % m
    })
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFilter<'a> {
    count: u64,
    #[serde(borrow)]
    bits: alloc::borrow::Cow<'a, str>,
}

impl Serialize for OpFilter {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        RawFilter {
            count: self.count,
            bits: alloc::borrow::Cow::Owned(base64::encode(&self.bits)),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for OpFilter {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<OpFilter, D::Error> {
        let raw = RawFilter::deserialize(d)?;
        let bits = base64::decode(&raw.bits)
            .ok_or_else(|| serde::de::Error::custom("`bits` is not canonical base64"))?;
        if bits.len() != OpFilter::len_for(raw.count) {
            return Err(serde::de::Error::custom(
                "`bits` holds not 10 bits per op id, rounded up to whole bytes",
            ));
        }
        Ok(OpFilter {
            count: raw.count,
            bits,
        })
    }
}

/// Standard base64 with padding; decoding accepts only what encoding prints.
pub(crate) mod base64 {
    use alloc::string::String;
    use alloc::vec::Vec;

    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

    pub(crate) fn encode(bytes: &[u8]) -> String {
        let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
        for chunk in bytes.chunks(3) {
            let b = [
                chunk[0],
                *chunk.get(1).unwrap_or(&0),
                *chunk.get(2).unwrap_or(&0),
            ];
            let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            for i in 0..4 {
                if i <= chunk.len() {
                    out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
                } else {
                    out.push('=');
                }
            }
        }
        out
    }

    /// The value of each alphabet byte, 64 for any other byte.
    const VALUES: [u8; 256] = {
        let mut table = [64u8; 256];
        let mut i = 0;
        while i < 64 {
            table[ALPHABET[i] as usize] = i as u8;
            i += 1;
        }
        table
    };

    pub(crate) fn decode(text: &str) -> Option<Vec<u8>> {
        let raw = text.as_bytes();
        if !raw.len().is_multiple_of(4) {
            return None;
        }
        let pad = raw.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 {
            return None;
        }
        let mut out = Vec::with_capacity(raw.len() / 4 * 3);
        for (q, quad) in raw.chunks(4).enumerate() {
            let last = q + 1 == raw.len() / 4;
            let mut n = 0u32;
            for (i, &c) in quad.iter().enumerate() {
                let v = match VALUES[c as usize] {
                    64 if c == b'=' && last && i >= 4 - pad => 0,
                    64 => return None,
                    v => v,
                };
                n = (n << 6) | u32::from(v);
            }
            let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
            let keep = if last { 3 - pad } else { 3 };
            // Only the one spelling: the bits past the data are zero.
            if bytes[keep..].iter().any(|&b| b != 0) {
                return None;
            }
            out.extend_from_slice(&bytes[..keep]);
        }
        Some(out)
    }
}

/// The archived id ranges of every cut, as `(first, last, epoch)`, ascending by `first`.
pub(crate) fn archived_ranges(archives: &[ArchiveInfo]) -> Vec<(u64, u64, u32)> {
    let all: Vec<(u64, u64, u32)> = archives
        .iter()
        .flat_map(|a| a.rows.iter().map(|r| (r[0], r[1], a.epoch)))
        .collect();
    // Ordered by first id through (id, place) pairs, the type replay sorts already, rather than
    // a sort compiled for these triples alone. It is the order of sorting the triples: ranges
    // that pass `EpochArgs::check` never share a first id, and two that do stand side by side
    // whichever comes first, so the check refuses them either way.
    let mut order: Vec<(u64, usize)> = all.iter().enumerate().map(|(i, r)| (r.0, i)).collect();
    order.sort_unstable();
    order.into_iter().map(|(_, i)| all[i]).collect()
}

/// Ascending ids as `[first, last]` ranges.
pub(crate) fn ranges_of(ids: &[u64]) -> Vec<[u64; 2]> {
    let mut out: Vec<[u64; 2]> = Vec::new();
    for &id in ids {
        match out.last_mut() {
            Some(last) if last[1].checked_add(1) == Some(id) => last[1] = id,
            _ => out.push([id, id]),
        }
    }
    out
}

/// How many ids the ranges hold.
pub(crate) fn range_count(ranges: &[[u64; 2]]) -> u64 {
    ranges
        .iter()
        .map(|r| r[1].saturating_sub(r[0]).saturating_add(1))
        .fold(0, u64::saturating_add)
}

impl EpochArgs {
    /// The shape an epoch entry at `rev` must have, short of recomputing it (`verify --full`
    /// does that): numbering, files, hashes, ranges, and a state whose rows are not archived.
    pub(crate) fn check(&self, rev: u64) -> Result<(), &'static str> {
        if !is_hex(&self.digest, 64) {
            return Err("its digest is not 64 lowercase hex digits");
        }
        if self.epoch == 0 || self.archives.len() != self.epoch as usize {
            return Err("it does not list one archive per epoch 1..K");
        }
        let mut last_rev = 0;
        for (i, a) in self.archives.iter().enumerate() {
            if a.epoch as usize != i + 1 || a.file != archive_path(a.epoch) {
                return Err("an archive's number or file is out of order");
            }
            if !is_hex(&a.sha, 64) {
                return Err("an archive's sha is not 64 lowercase hex digits");
            }
            if a.rev <= last_rev {
                return Err("the archives' revisions do not ascend");
            }
            last_rev = a.rev;
            if a.rows.iter().any(|r| r[0] == 0 || r[0] > r[1])
                || a.rows
                    .windows(2)
                    .any(|w| w[0][1].saturating_add(1) >= w[1][0])
            {
                return Err("an archive's row ranges are not ascending [first, last] pairs");
            }
        }
        if last_rev != rev {
            return Err("the last archive does not stand at the entry's revision");
        }
        let ranges = archived_ranges(&self.archives);
        if ranges.windows(2).any(|w| w[0].1 >= w[1].0) {
            return Err("two archives hold the same row");
        }
        self.state.check(&ranges)
    }
}

impl EpochState {
    fn check(&self, ranges: &[(u64, u64, u32)]) -> Result<(), &'static str> {
        if self.branch.is_empty() || self.branch.chars().any(|c| c.is_whitespace()) {
            return Err("its branch is not a branch name");
        }
        if !self.root.starts_with('/') || self.root.chars().any(char::is_control) {
            return Err("its root is not an absolute path");
        }
        let top = ranges.last().map_or(0, |r| r.1);
        let mut ids: Vec<u64> = self.rows.iter().map(|r| r.id).collect();
        ids.sort_unstable();
        if ids.first() == Some(&0) || ids.windows(2).any(|w| w[0] == w[1]) {
            return Err("its rows repeat an id");
        }
        let max = ids.last().copied().unwrap_or(0).max(top);
        if self.next_id <= max {
            return Err("its nextId is not above every row id given");
        }
        if ids.iter().any(|&id| archived_in(ranges, id).is_some()) {
            return Err("it keeps a row an archive holds");
        }
        if self.reasons.windows(2).any(|w| w[0].0 >= w[1].0)
            || self
                .reasons
                .iter()
                .any(|(id, text)| ids.binary_search(id).is_err() || text.is_empty())
        {
            return Err("its reasons are not one per kept row in ascending order");
        }
        if self.manifests.windows(2).any(|w| w[0].0 >= w[1].0) {
            return Err("its manifests are not in ascending order of revision");
        }
        Ok(())
    }
}

/// The epoch whose archive holds row `id`, if one does.
pub(crate) fn archived_in(ranges: &[(u64, u64, u32)], id: u64) -> Option<u32> {
    let i = ranges.partition_point(|r| r.0 <= id);
    let r = ranges.get(i.checked_sub(1)?)?;
    (id <= r.1).then_some(r.2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archived_ranges_ascend_as_the_sorted_triples() {
        let archive = |epoch: u32, rows: &[[u64; 2]]| ArchiveInfo {
            epoch,
            file: archive_path(epoch),
            sha: String::new(),
            rev: u64::from(epoch) * 10,
            rows: rows.to_vec(),
            ops: OpFilter::build([].into_iter()),
        };
        let archives = [
            archive(1, &[[3, 4], [9, 9], [20, 25]]),
            archive(2, &[[1, 2], [5, 8], [30, 30]]),
            archive(3, &[[10, 19]]),
        ];
        let mut sorted: Vec<(u64, u64, u32)> = archives
            .iter()
            .flat_map(|a| a.rows.iter().map(|r| (r[0], r[1], a.epoch)))
            .collect();
        sorted.sort_unstable();
        assert_eq!(archived_ranges(&archives), sorted);
        // Two archives holding a range from the same first id stand side by side.
        let twice = [archive(1, &[[4, 6]]), archive(2, &[[4, 4]])];
        let ranges = archived_ranges(&twice);
        assert!(ranges.windows(2).any(|w| w[0].1 >= w[1].0), "{ranges:?}");
    }

    #[test]
    fn base64_has_one_spelling() {
        for (bytes, text) in [
            (&b""[..], ""),
            (b"f", "Zg=="),
            (b"fo", "Zm8="),
            (b"foo", "Zm9v"),
            (b"foob", "Zm9vYg=="),
            (&[0xff, 0xfe, 0x00], "//4A"),
        ] {
            assert_eq!(base64::encode(bytes), text);
            assert_eq!(base64::decode(text).as_deref(), Some(bytes));
        }
        for bad in [
            "Zg=", "Zh==", "Z===", "Zg==Zg==", "Zm9v\n", "Zm-v", "=Zm9", "Zm=v",
        ] {
            assert_eq!(base64::decode(bad), None, "{bad}");
        }
        // Every length and byte value round-trips, and one changed character never reads as
        // the same bytes.
        let bytes: Vec<u8> = (0..=255u8)
            .chain((0..64u8).map(|i| i.wrapping_mul(7)))
            .collect();
        for end in 0..bytes.len() {
            let text = base64::encode(&bytes[..end]);
            assert_eq!(base64::decode(&text).as_deref(), Some(&bytes[..end]));
            if let Some(last) = text.len().checked_sub(1) {
                let mut other = text.clone().into_bytes();
                other[last] = if other[last] == b'A' { b'B' } else { b'A' };
                let other = String::from_utf8(other).unwrap();
                assert_ne!(base64::decode(&other).as_deref(), Some(&bytes[..end]));
            }
        }
    }

    #[test]
    fn the_filter_holds_its_ids_and_few_others() {
        let ops: Vec<String> = (0..2_000).map(|i| format!("seat-op-{i}")).collect();
        let filter = OpFilter::build(ops.iter().map(String::as_str));
        assert_eq!((filter.count, filter.bits.len()), (2_000, 2_500));
        assert!(ops.iter().all(|op| filter.may_contain(op)));
        let false_maybe = (0..10_000)
            .filter(|i| filter.may_contain(&format!("other-op-{i}")))
            .count();
        assert!(false_maybe < 300, "{false_maybe} false maybes in 10000");
        let empty = OpFilter::build(core::iter::empty());
        assert!(!empty.may_contain("seat-op-1"));
    }

    #[test]
    fn ranges_cover_ids_and_find_them() {
        assert_eq!(ranges_of(&[1, 2, 3, 7, 9, 10]), [[1, 3], [7, 7], [9, 10]]);
        assert_eq!(range_count(&[[1, 3], [7, 7], [9, 10]]), 6);
        let ranges = [(1, 3, 1), (7, 7, 2), (9, 10, 1)];
        let found: Vec<Option<u32>> = (0..12).map(|id| archived_in(&ranges, id)).collect();
        let want = [
            None,
            Some(1),
            Some(1),
            Some(1),
            None,
            None,
            None,
            Some(2),
            None,
        ];
        assert_eq!(found[..9], want);
        assert_eq!(found[9..], [Some(1), Some(1), None]);
    }
}
