//! The sandbox's result layout, defined once: the wasm module encodes a snapshot check's
//! answer with `encode`, the host decodes the buffer with `decode`. The buffer comes from code
//! that ran on untrusted bytes, so a malformed one is an error, never a panic.
//!
//! Layout (after the u32 length the module puts in front): passed is `0`, revision u64,
//! has-base u8, base revision u64 (0 without a base); failed is `1`, code u8 (0 other, 1 base
//! invalid, 2 behind, 3 diverged), a u64, b u64, kind (u32 length + UTF-8), text (u32 length +
//! UTF-8). `a`/`b` are the revisions of behind (snapshot, base) and diverged (rev, 0); text is
//! the inner error of an invalid base, the whole message for code 0 and empty otherwise.
//! Integers are little-endian.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use thiserror::Error;

use crate::error::SnapshotError;
use crate::snapshot::Certified;

/// A snapshot certified, or why it failed: what `verify --snapshot` prints from, whichever way
/// the core ran. Two answers are equal exactly when the CLI would print the same line.
pub type Answer = Result<Certified, Refusal>;

/// A failed snapshot: the core's kind, and what the message is made from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub kind: String,
    pub reason: Reason,
}

/// The parts of a `SnapshotError` the host words itself (they name the base's path, which the
/// core never sees); every other failure is the core's own message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// The base is not a valid queue.json: the inner error's message.
    BaseInvalid(String),
    /// The base is ahead of the snapshot.
    Behind { revision: u64, base: u64 },
    /// The logs first differ at `rev`.
    Diverged { rev: u64 },
    /// The core's whole message.
    Other(String),
}

/// Why a result buffer could not be read back.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("the sandbox's result is malformed: {0}")]
pub struct Malformed(pub &'static str);

impl Malformed {
    pub fn new(why: &'static str) -> Malformed {
        Malformed(why)
    }
}

/// Result tags.
const PASSED: u8 = 0;
const FAILED: u8 = 1;

/// Failure codes: the reasons whose host message is not the error's own text.
const OTHER: u8 = 0;
const BASE_INVALID: u8 = 1;
const BEHIND: u8 = 2;
const DIVERGED: u8 = 3;

impl From<&SnapshotError> for Refusal {
    fn from(e: &SnapshotError) -> Refusal {
        let reason = match e {
            SnapshotError::BaseInvalid(inner) => Reason::BaseInvalid(inner.to_string()),
            SnapshotError::Behind { revision, base } => Reason::Behind {
                revision: *revision,
                base: *base,
            },
            SnapshotError::Diverged { rev } => Reason::Diverged { rev: *rev },
            other => Reason::Other(other.to_string()),
        };
        Refusal {
            kind: e.kind().to_owned(),
            reason,
        }
    }
}

impl Refusal {
    /// The line the CLI prints, naming the base as `base_shown`.
    pub fn message(&self, base_shown: &str) -> String {
        match &self.reason {
            Reason::BaseInvalid(inner) => format!("the base {base_shown} is invalid: {inner}"),
            Reason::Behind { revision, base } => format!(
                "the snapshot (rev {revision}) is behind the base {base_shown} (rev {base}): history was lost"
            ),
            Reason::Diverged { rev } => format!(
                "the snapshot's log differs from the base {base_shown} at rev {rev}: history was rewritten"
            ),
            Reason::Other(message) => message.clone(),
        }
    }
}

/// The payload for `answer` (without the length in front).
pub fn encode(answer: &Answer) -> Vec<u8> {
    let mut out = Vec::new();
    match answer {
        Ok(certified) => {
            out.push(PASSED);
            out.extend_from_slice(&certified.revision.to_le_bytes());
            out.push(u8::from(certified.base_revision.is_some()));
            out.extend_from_slice(&certified.base_revision.unwrap_or(0).to_le_bytes());
        }
        Err(refusal) => {
            let (code, a, b, text) = match &refusal.reason {
                Reason::Other(text) => (OTHER, 0, 0, text.as_str()),
                Reason::BaseInvalid(inner) => (BASE_INVALID, 0, 0, inner.as_str()),
                Reason::Behind { revision, base } => (BEHIND, *revision, *base, ""),
                Reason::Diverged { rev } => (DIVERGED, *rev, 0, ""),
            };
            out.push(FAILED);
            out.push(code);
            out.extend_from_slice(&a.to_le_bytes());
            out.extend_from_slice(&b.to_le_bytes());
            put_str(&mut out, &refusal.kind);
            put_str(&mut out, text);
        }
    }
    out
}

/// Reads a payload (the bytes after its u32 length).
pub fn decode(payload: &[u8]) -> Result<Answer, Malformed> {
    let mut r = Reader(payload);
    let answer = match r.u8()? {
        PASSED => {
            let revision = r.u64()?;
            let has_base = r.u8()?;
            let base = r.u64()?;
            Ok(Certified {
                revision,
                base_revision: match has_base {
                    0 => None,
                    1 => Some(base),
                    _ => return Err(Malformed("the has-base flag is not 0 or 1")),
                },
            })
        }
        FAILED => {
            let (code, a, b) = (r.u8()?, r.u64()?, r.u64()?);
            let kind = r.str()?;
            let text = r.str()?;
            let reason = match code {
                OTHER => Reason::Other(text),
                BASE_INVALID => Reason::BaseInvalid(text),
                BEHIND => Reason::Behind {
                    revision: a,
                    base: b,
                },
                DIVERGED => Reason::Diverged { rev: a },
                _ => return Err(Malformed("unknown failure code")),
            };
            Err(Refusal { kind, reason })
        }
        _ => return Err(Malformed("unknown result tag")),
    };
    if !r.0.is_empty() {
        return Err(Malformed("trailing bytes"));
    }
    Ok(answer)
}

/// The archives a check is given, as one buffer for the module: each archive's bytes after
/// their u32 little-endian length, one after another (empty for none).
pub fn pack_archives(archives: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::with_capacity(archives.iter().map(|a| a.len() + 4).sum());
    for a in archives {
        out.extend_from_slice(&len32(a.len()).to_le_bytes());
        out.extend_from_slice(a);
    }
    out
}

/// The archives in a buffer `pack_archives` made.
pub fn unpack_archives(mut buf: &[u8]) -> Result<Vec<&[u8]>, Malformed> {
    let mut out = Vec::new();
    while !buf.is_empty() {
        let (len, rest) = buf
            .split_first_chunk::<4>()
            .ok_or(Malformed("an archive's length is cut short"))?;
        let len = u32::from_le_bytes(*len) as usize;
        if len > rest.len() {
            return Err(Malformed("an archive runs past the end"));
        }
        let (archive, rest) = rest.split_at(len);
        out.push(archive);
        buf = rest;
    }
    Ok(out)
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&len32(s.len()).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// Lengths inside a 32-bit memory always fit in a u32.
fn len32(len: usize) -> u32 {
    u32::try_from(len).unwrap_or(u32::MAX)
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], Malformed> {
        let (head, rest) = self
            .0
            .split_first_chunk::<N>()
            .ok_or(Malformed("it ends early"))?;
        self.0 = rest;
        Ok(*head)
    }

    fn u8(&mut self) -> Result<u8, Malformed> {
        Ok(self.take::<1>()?[0])
    }

    fn u64(&mut self) -> Result<u64, Malformed> {
        Ok(u64::from_le_bytes(self.take()?))
    }

    fn str(&mut self) -> Result<String, Malformed> {
        let len = u32::from_le_bytes(self.take()?) as usize;
        if len > self.0.len() {
            return Err(Malformed("a string runs past the end"));
        }
        let (text, rest) = self.0.split_at(len);
        self.0 = rest;
        String::from_utf8(text.to_vec()).map_err(|_| Malformed("a string is not UTF-8"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn refusal(kind: &str, reason: Reason) -> Answer {
        Err(Refusal {
            kind: kind.into(),
            reason,
        })
    }

    #[test]
    fn archives_pack_and_unpack() {
        let list: [&[u8]; 3] = [b"{}\n", b"", b"abc"];
        let packed = pack_archives(&list);
        assert_eq!(packed.len(), 3 + 4 * 3 + 3);
        assert_eq!(unpack_archives(&packed).unwrap(), list);
        assert_eq!(unpack_archives(&[]).unwrap(), Vec::<&[u8]>::new());
        assert!(unpack_archives(&packed[..packed.len() - 1]).is_err());
        assert!(unpack_archives(&[1, 0]).is_err());
    }

    /// Every shape of answer comes back as it went in.
    #[test]
    fn every_answer_round_trips() {
        let answers = [
            Ok(Certified {
                revision: 16,
                base_revision: Some(6),
            }),
            Ok(Certified {
                revision: 1,
                base_revision: None,
            }),
            Ok(Certified {
                revision: u64::MAX,
                base_revision: Some(0),
            }),
            refusal(
                "snapshot-behind",
                Reason::Behind {
                    revision: 3,
                    base: 9,
                },
            ),
            refusal("snapshot-diverged", Reason::Diverged { rev: 4 }),
            refusal("base-invalid", Reason::BaseInvalid("inner é".into())),
            refusal("table-unknown", Reason::Other(String::new())),
        ];
        for answer in answers {
            assert_eq!(decode(&encode(&answer)), Ok(answer.clone()), "{answer:?}");
        }
    }

    /// The layout is the one documented above, byte for byte.
    #[test]
    fn the_layout_is_as_documented() {
        let mut passed = vec![0];
        passed.extend(16u64.to_le_bytes());
        passed.push(1);
        passed.extend(6u64.to_le_bytes());
        let certified = Certified {
            revision: 16,
            base_revision: Some(6),
        };
        assert_eq!(encode(&Ok(certified)), passed);
        let mut failed = vec![1, 2];
        failed.extend(3u64.to_le_bytes());
        failed.extend(9u64.to_le_bytes());
        failed.extend(1u32.to_le_bytes());
        failed.push(b'k');
        failed.extend(0u32.to_le_bytes());
        let behind = Reason::Behind {
            revision: 3,
            base: 9,
        };
        assert_eq!(encode(&refusal("k", behind)), failed);
    }

    #[test]
    fn malformed_buffers_are_errors_not_panics() {
        let good = encode(&refusal(
            "base-invalid",
            Reason::BaseInvalid("inner".into()),
        ));
        for cut in 0..good.len() {
            assert!(decode(&good[..cut]).is_err(), "cut at {cut}");
        }
        let mut trailing = good.clone();
        trailing.push(0);
        assert_eq!(decode(&trailing), Err(Malformed("trailing bytes")));
        assert_eq!(decode(&[7]), Err(Malformed("unknown result tag")));
        let mut bad_code = good.clone();
        bad_code[1] = 9;
        assert_eq!(decode(&bad_code), Err(Malformed("unknown failure code")));
        let mut bad_flag = encode(&Ok(Certified {
            revision: 1,
            base_revision: None,
        }));
        bad_flag[9] = 2;
        assert_eq!(
            decode(&bad_flag),
            Err(Malformed("the has-base flag is not 0 or 1"))
        );
        let mut bad_utf8 = good;
        *bad_utf8.last_mut().unwrap() = 0xff;
        assert_eq!(decode(&bad_utf8), Err(Malformed("a string is not UTF-8")));
    }
}
