//! SHA-256 digests: file and body hashes, and the log's hash chain that the witness records.
//! `logDigest` at revision N is d_N where d_0 is 32 zero bytes and
//! d_i = SHA-256(d_{i-1} || compact JSON of entry i), so a witness pins the whole prefix.

use alloc::string::String;
use alloc::vec::Vec;
use sha2::{Digest, Sha256};

use crate::canon;
use crate::entry::Entry;
use crate::error::WitnessError;
use crate::model::{QueueFile, Witness};

/// SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&sha256(bytes))
}

const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// Lowercase hex of any byte string.
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 0xf)] as char);
    }
    s
}

/// True for exactly `len` lowercase hex digits.
pub fn is_hex(s: &str, len: usize) -> bool {
    s.len() == len && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The hash chain over the first `upto` entries of `log`.
pub fn log_digest(log: &[Entry], upto: usize) -> String {
    hex(&chain_from(log, 0, upto, [0u8; 32]))
}

/// The chain over `log[from..upto]` continued from `start`, the chain of the first `from`.
fn chain_from(log: &[Entry], from: usize, upto: usize, start: [u8; 32]) -> [u8; 32] {
    let mut chain = start;
    let mut buf = Vec::with_capacity(1024);
    let upto = upto.min(log.len());
    for entry in &log[from.min(upto)..upto] {
        buf.clear();
        canon::write_compact(entry, &mut buf);
        let mut h = Sha256::new();
        h.update(chain);
        h.update(&buf);
        chain = h.finalize().into();
    }
    chain
}

/// The 64 lowercase hex digits of a SHA-256, without a heap allocation.
pub fn hex64(bytes: &[u8; 32]) -> [u8; 64] {
    let mut out = [0u8; 64];
    for (pair, b) in out.chunks_exact_mut(2).zip(bytes) {
        pair[0] = DIGITS[usize::from(b >> 4)];
        pair[1] = DIGITS[usize::from(b & 0xf)];
    }
    out
}

/// The 32 bytes that exactly 64 lowercase hex digits spell.
pub fn unhex(s: &str) -> Option<[u8; 32]> {
    if !is_hex(s, 64) {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, pair) in s.as_bytes().chunks(2).enumerate() {
        let digit = |b: u8| if b <= b'9' { b - b'0' } else { b - b'a' + 10 };
        out[i] = digit(pair[0]) * 16 + digit(pair[1]);
    }
    Some(out)
}

/// The witness a write of `file` (whose canonical bytes hash to `file_sha`) leaves behind.
pub fn witness_for(file: &QueueFile, file_sha: String, at: String) -> Witness {
    witness_after(file, None, file_sha, at)
}

/// Like `witness_for`, continuing the chain from `prev` instead of from genesis. The caller
/// must already have checked that `file` extends `prev` (`check_extends`): the prefix is
/// taken on trust, which saves hashing the whole log a second time per write.
pub fn witness_after(
    file: &QueueFile,
    prev: Option<&Witness>,
    file_sha: String,
    at: String,
) -> Witness {
    let start = prev
        .filter(|w| w.revision <= file.revision)
        .and_then(|w| Some((usize::try_from(w.revision).ok()?, unhex(&w.log_digest)?)));
    let (from, seed) = start.unwrap_or((0, [0u8; 32]));
    Witness {
        revision: file.revision,
        log_digest: hex(&chain_from(&file.log, from, file.log.len(), seed)),
        file_sha,
        at,
    }
}

/// Checks that `file` (already verified) extends what `witness` saw: no lost or rewritten
/// history. `file_sha` is the SHA-256 of the file's bytes; at equal revisions it must match.
pub fn check_extends(
    file: &QueueFile,
    file_sha: &str,
    witness: &Witness,
) -> Result<(), WitnessError> {
    if witness.revision > file.revision {
        return Err(WitnessError::Behind {
            witness: witness.revision,
            file: file.revision,
        });
    }
    let upto = usize::try_from(witness.revision).unwrap_or(usize::MAX);
    if log_digest(&file.log, upto) != witness.log_digest {
        return Err(WitnessError::Diverged {
            revision: witness.revision,
        });
    }
    if witness.revision == file.revision && witness.file_sha != file_sha {
        return Err(WitnessError::FileChanged {
            revision: file.revision,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_of_empty_input() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn empty_chain_is_zero() {
        assert_eq!(log_digest(&[], 0), "0".repeat(64));
    }

    #[test]
    fn unhex_reverses_hex() {
        let bytes: [u8; 32] = core::array::from_fn(|i| (i * 7) as u8);
        assert_eq!(unhex(&hex(&bytes)), Some(bytes));
        assert_eq!(unhex("zz"), None);
    }

    #[test]
    fn hex_check() {
        assert!(is_hex("00ff", 4));
        assert!(!is_hex("00FF", 4));
        assert!(!is_hex("00f", 4));
    }
}
