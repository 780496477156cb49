//! `review verify-commit ID REF`: checks a prospective commit or tree against the current
//! round's candidate, reading only the queue and git objects (no lock).

use super::CliResult;

pub fn verify_commit(id: u64, reference: &str) -> CliResult {
    let _ = (id, reference);
    Err(super::Failure::new(
        1,
        "review verify-commit is not built yet",
    ))
}
