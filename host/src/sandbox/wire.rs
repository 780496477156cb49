//! Decoding the sandbox module's result buffer (its layout is documented on the module's
//! `verify_snapshot` export, wasm/src/sandbox.rs, and in docs/sandbox.md) into an `Answer`.
//! The buffer comes from code that ran on untrusted bytes, so a malformed one is an error.

use mosaic_queue_core::snapshot::Verdict;

use super::answer::{Answer, Reason, Refusal};

/// Why a result buffer could not be read back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the sandbox's result is malformed: {0}")]
pub struct Malformed(&'static str);

impl Malformed {
    pub fn new(why: &'static str) -> Malformed {
        Malformed(why)
    }
}

/// Reads a result payload (the bytes after its u32 length).
pub fn decode(payload: &[u8]) -> Result<Answer, Malformed> {
    let mut r = Reader(payload);
    let answer = match r.u8()? {
        0 => {
            let revision = r.u64()?;
            let has_base = r.u8()?;
            let base = r.u64()?;
            Ok(Verdict {
                revision,
                base_revision: match has_base {
                    0 => None,
                    1 => Some(base),
                    _ => return Err(Malformed("the has-base flag is not 0 or 1")),
                },
            })
        }
        1 => {
            let (code, a, b) = (r.u8()?, r.u64()?, r.u64()?);
            let kind = r.str()?;
            let text = r.str()?;
            let reason = match code {
                0 => Reason::Other(text),
                1 => Reason::BaseInvalid(text),
                2 => Reason::Behind {
                    revision: a,
                    base: b,
                },
                3 => Reason::Diverged { rev: a },
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

    fn failed(code: u8, a: u64, b: u64, kind: &str, text: &str) -> Vec<u8> {
        let mut out = vec![1, code];
        out.extend(a.to_le_bytes());
        out.extend(b.to_le_bytes());
        for s in [kind, text] {
            out.extend((s.len() as u32).to_le_bytes());
            out.extend(s.as_bytes());
        }
        out
    }

    #[test]
    fn each_shape_decodes() {
        let mut ok = vec![0];
        ok.extend(16u64.to_le_bytes());
        ok.push(1);
        ok.extend(6u64.to_le_bytes());
        assert_eq!(
            decode(&ok),
            Ok(Ok(Verdict {
                revision: 16,
                base_revision: Some(6)
            }))
        );
        assert_eq!(
            decode(&failed(2, 3, 9, "snapshot-behind", "x")),
            Ok(Err(Refusal {
                kind: "snapshot-behind".into(),
                reason: Reason::Behind {
                    revision: 3,
                    base: 9
                }
            }))
        );
        assert_eq!(
            decode(&failed(0, 0, 0, "table-unknown", "why")),
            Ok(Err(Refusal {
                kind: "table-unknown".into(),
                reason: Reason::Other("why".into())
            }))
        );
    }

    #[test]
    fn malformed_buffers_are_errors_not_panics() {
        let good = failed(1, 0, 0, "base-invalid", "inner");
        for cut in 0..good.len() {
            assert!(decode(&good[..cut]).is_err(), "cut at {cut}");
        }
        let mut trailing = good.clone();
        trailing.push(0);
        assert_eq!(decode(&trailing), Err(Malformed("trailing bytes")));
        assert_eq!(decode(&[7]), Err(Malformed("unknown result tag")));
        assert_eq!(
            decode(&failed(9, 0, 0, "k", "t")),
            Err(Malformed("unknown failure code"))
        );
        let mut bad_utf8 = failed(0, 0, 0, "k", "t");
        *bad_utf8.last_mut().unwrap() = 0xff;
        assert_eq!(decode(&bad_utf8), Err(Malformed("a string is not UTF-8")));
    }
}
