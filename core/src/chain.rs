//! The log's hash chain, which the witness records: `logDigest` at revision N is d_N where d_0
//! is 32 zero bytes and d_i = SHA-256(d_{i-1} || compact JSON of entry i), so a witness pins
//! the whole prefix. Building a witness and checking that a file extends one both live here.

use alloc::string::String;
use alloc::vec::Vec;
use sha2::{Digest, Sha256};

use crate::canon;
use crate::entry::Entry;
use crate::error::WitnessError;
use crate::file::QueueFile;
use crate::hex::{hex, unhex};
use crate::model::Witness;

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

/// The witness a write of `file` (whose canonical bytes hash to `file_sha`) leaves behind.
pub(crate) fn witness_for(file: &QueueFile, file_sha: String, at: String) -> Witness {
    witness_after(file, None, file_sha, at)
}

/// Like `witness_for`, continuing the chain from `prev` instead of from genesis. The caller
/// must already have checked that `file` extends `prev` (`check_extends`): the prefix is
/// taken on trust, which saves hashing the whole log a second time per write.
pub(crate) fn witness_after(
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
pub(crate) fn check_extends(
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
    fn empty_chain_is_zero() {
        assert_eq!(log_digest(&[], 0), "0".repeat(64));
    }
}
