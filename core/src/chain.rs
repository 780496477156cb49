//! The log's hash chain, which the witness records: `logDigest` at revision N is d_N where d_0
//! is 32 zero bytes and d_i = SHA-256(d_{i-1} || compact JSON of entry i), so a witness pins
//! the whole prefix. Building a witness and checking that a file extends one both live here.
//! A log cut at revision C starts its chain from d_C, which its epoch entry records; a witness
//! older than that is checked through the archives.

use alloc::string::String;
use alloc::vec::Vec;
use sha2::{Digest, Sha256};

use crate::canon;
use crate::digest::sha256_hex;
use crate::entry::Entry;
use crate::epoch::EpochArgs;
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

/// d_rev of `file`'s chain: from the start its epoch entry gives (or genesis), over its
/// entries up to `rev`. `None` before that start or past the log.
pub(crate) fn digest_at(file: &QueueFile, rev: u64) -> Option<[u8; 32]> {
    let (base, seed) = file.chain_start()?;
    let n = usize::try_from(rev.checked_sub(base)?).ok()?;
    let entries = file.chain_entries();
    (n <= entries.len()).then(|| chain_from(entries, 0, n, seed))
}

/// The witness a write of `file` (whose canonical bytes hash to `file_sha`) leaves behind.
pub(crate) fn witness_for(file: &QueueFile, file_sha: String, at: String) -> Witness {
    witness_after(file, None, file_sha, at)
}

/// Like `witness_for`, continuing the chain of `prev` instead of from its start. The caller
/// must already have checked that `file` extends `prev` (`check_extends`): the prefix is
/// taken on trust, which saves hashing the whole log a second time per write.
pub(crate) fn witness_after(
    file: &QueueFile,
    prev: Option<&Witness>,
    file_sha: String,
    at: String,
) -> Witness {
    let (base, seed) = file.chain_start().unwrap_or((0, [0u8; 32]));
    let start = prev
        .filter(|w| (base..=file.revision).contains(&w.revision))
        .and_then(|w| {
            Some((
                usize::try_from(w.revision - base).ok()?,
                unhex(&w.log_digest)?,
            ))
        });
    let (from, seed) = start.unwrap_or((0, seed));
    let entries = file.chain_entries();
    Witness {
        revision: file.revision,
        log_digest: hex(&chain_from(entries, from, entries.len(), seed)),
        file_sha,
        at,
    }
}

/// Checks that `file` (already verified) extends what `witness` saw: no lost or rewritten
/// history. `file_sha` is the SHA-256 of the file's bytes; at equal revisions it must match.
/// A witness older than the file's epoch is checked through the archives
/// (`check_extends_archived`); here it answers `BeforeEpoch` with the archives to read.
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
    if let Some(epoch) = file.epoch()
        && witness.revision < file.first_rev()
    {
        return Err(WitnessError::BeforeEpoch {
            witness: witness.revision,
            epoch_rev: file.first_rev(),
            epochs: archives_after(epoch, witness.revision),
        });
    }
    if digest_at(file, witness.revision)
        .map(|d| hex(&d))
        .as_deref()
        != Some(witness.log_digest.as_str())
    {
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

/// The archives that hold the chain from revision `rev` to the epoch: those that stand
/// after it, ascending.
pub(crate) fn archives_after(epoch: &EpochArgs, rev: u64) -> Vec<u32> {
    epoch
        .archives
        .iter()
        .filter(|a| a.rev > rev)
        .map(|a| a.epoch)
        .collect()
}

/// `check_extends` for a witness older than `file`'s epoch, given the archives it named:
/// each must hash to the sha the epoch records; the chain from the witness's revision
/// through them must match the witness there and end at the epoch's digest.
pub(crate) fn check_extends_archived(
    file: &QueueFile,
    file_sha: &str,
    witness: &Witness,
    archives: &[(u32, &QueueFile)],
) -> Result<(), WitnessError> {
    let epoch = match (file.epoch(), check_extends(file, file_sha, witness)) {
        (Some(epoch), Err(WitnessError::BeforeEpoch { .. })) => epoch,
        (_, other) => return other,
    };
    let mut running: Option<[u8; 32]> = None;
    for k in archives_after(epoch, witness.revision) {
        let info = &epoch.archives[k as usize - 1];
        let bad = |why| WitnessError::Archive { epoch: k, why };
        let archive = archives
            .iter()
            .find(|(e, _)| *e == k)
            .map(|(_, f)| *f)
            .ok_or(bad("was not read"))?;
        if sha256_hex(&canon::to_canonical(archive)) != info.sha {
            return Err(bad("its bytes hash to another sha"));
        }
        if archive.revision != info.rev {
            return Err(bad("it stands at another revision"));
        }
        let start = archive
            .chain_start()
            .ok_or(bad("its epoch digest is malformed"))?;
        match running {
            None => {
                let at_witness = digest_at(archive, witness.revision)
                    .ok_or(bad("its chain does not cover the witness's revision"))?;
                if hex(&at_witness) != witness.log_digest {
                    return Err(WitnessError::Diverged {
                        revision: witness.revision,
                    });
                }
            }
            Some(d) if d != start.1 => {
                return Err(bad("it does not go on from the archive before it"));
            }
            Some(_) => {}
        }
        running = digest_at(archive, archive.revision);
    }
    if running.map(|d| hex(&d)).as_deref() != Some(epoch.digest.as_str()) {
        return Err(WitnessError::Archive {
            epoch: epoch.epoch,
            why: "its chain does not end at the digest the epoch records",
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
