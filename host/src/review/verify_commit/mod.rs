//! `review verify-commit ID REF`: checks a prospective commit or tree against the current
//! round's candidate. No lock and no writes: the queue is read as `list`/`show` read it, then
//! `objects` reads git and `compare` decides. Exit 1 is a mismatch, exit 2 a refusal.

mod compare;
mod objects;

use std::path::Path;

use mosaic_queue_core::{Round, current_round, manifest};
use thiserror::Error;

use self::compare::Mismatch;
use crate::exit::Exit;
use crate::read::cut::{Found, find};
use crate::read::load::{load_for_read, load_queue_for_read};
use crate::reply::{Failure, Replied, Reply};

/// How many mismatching paths the one stderr line names before it counts the rest.
const SHOWN: usize = 3;

/// Why verify-commit could not say yes.
#[derive(Debug, Error)]
pub enum VerifyCommitError {
    /// The row never entered review.
    #[error("row {id} has no review round; move it to in-review with --candidate FILE|REV first")]
    NoRound { id: u64 },
    /// A round with nothing frozen to compare against.
    #[error(
        "row {id} round {round} has no candidate; open a round with move {id} in-review --candidate FILE|REV"
    )]
    NoCandidate { id: u64, round: u32 },
    /// A manifest digest without its text (semantics-1 history) or one that does not parse.
    #[error(
        "row {id} round {round}: the queue holds no usable manifest for {candidate} ({why}); open a round with move {id} in-review --candidate FILE"
    )]
    NoManifest {
        id: u64,
        round: u32,
        candidate: String,
        why: String,
    },
    /// A candidate that is neither `sha256:` nor `git:`; replay should never let one in.
    #[error("row {id} round {round}: candidate {candidate:?} is not sha256:<hex> or git:<hex>")]
    BadCandidate {
        id: u64,
        round: u32,
        candidate: String,
    },
    /// `reference` as the core's `shown` quotes it (its start, for a long one).
    #[error("{reference} names no commit or tree here; pass a branch, tag, commit or tree id")]
    UnknownRef { reference: String },
    /// The queue keeps only the commit id; the objects live in git (Known windows and limits).
    #[error(
        "candidate commit {sha} of row {id} round {round} is not in this repository; verify-commit needs that commit: fetch it or restore the branch or tag that kept it"
    )]
    MissingCommit { id: u64, round: u32, sha: String },
    #[error("cannot read git objects: {0}")]
    Git(String),
    /// REF differs from the candidate in `wrong.len()` of `total` paths.
    #[error("{}", mismatch_line(.label, .reference, .wrong, *.total))]
    Mismatch {
        label: String,
        reference: String,
        wrong: Vec<Mismatch>,
        total: usize,
    },
}

impl VerifyCommitError {
    /// 1 when the check ran and REF does not match (like `cmp`: an answer, not an error);
    /// git failing is 1 too; everything that stops the check from running is 2.
    pub fn exit(&self) -> Exit {
        match self {
            VerifyCommitError::Mismatch { .. } | VerifyCommitError::Git(_) => Exit::Failed,
            _ => Exit::Refused,
        }
    }
}

impl From<VerifyCommitError> for Failure {
    fn from(e: VerifyCommitError) -> Failure {
        Failure::new(e.exit(), e.to_string())
    }
}

fn mismatch_line(label: &str, reference: &str, wrong: &[Mismatch], total: usize) -> String {
    let named: Vec<String> = wrong.iter().take(SHOWN).map(|m| m.to_string()).collect();
    let more = match wrong.len().saturating_sub(SHOWN) {
        0 => String::new(),
        n => format!(", and {n} more"),
    };
    format!(
        "verify-commit {label} does not match {}: {} of {}: {}{more}",
        shown(reference),
        wrong.len(),
        paths(total),
        named.join(", ")
    )
}

fn paths(n: usize) -> String {
    if n == 1 {
        String::from("1 path")
    } else {
        format!("{n} paths")
    }
}

/// REF as typed, quoted only when a control character would break the line.
fn shown(reference: &str) -> String {
    if reference.chars().any(char::is_control) {
        format!("{reference:?}")
    } else {
        reference.to_owned()
    }
}

/// Checks `reference` (a commit or tree) against row `id`'s current round's candidate.
pub fn verify_commit(id: u64, reference: &str, reply: &mut dyn Reply) -> Replied {
    let seen = load_for_read(reply)?;
    // A row the read view lacks may be archived: its last round is in its archive.
    let archived = match seen.state.row(id) {
        Ok(_) => None,
        Err(_) => match find(
            crate::store::world::World::real(),
            &crate::store::session::locate()?,
            id,
            reply,
        )? {
            Found::Archived(archived) => Some(archived),
            Found::Now(_) => None,
        },
    };
    let row = match &archived {
        Some(a) => a.row()?,
        None => seen.state.row(id).map_err(Failure::from)?,
    };
    let round = current_round(row).ok_or(VerifyCommitError::NoRound { id })?;
    let candidate = round
        .candidate
        .as_deref()
        .ok_or(VerifyCommitError::NoCandidate {
            id,
            round: round.round,
        })?;
    let dir = std::env::current_dir().map_err(|e| Failure::failed(e.to_string()))?;
    let tree = objects::tree_of(&dir, reference).ok_or_else(|| VerifyCommitError::UnknownRef {
        reference: mosaic_queue_core::shown(reference),
    })?;
    // From semantics 4 a round keeps only the digest; the text is in the log, which the read
    // view does not hold.
    let from_log = match &round.manifest {
        None if candidate.starts_with("sha256:") => match &archived {
            Some(a) => a.queue.round_manifest(round).map(str::to_owned),
            None => {
                let queue = load_queue_for_read(reply)?;
                queue.round_manifest(round).map(str::to_owned)
            }
        },
        _ => None,
    };
    let text = round.manifest.as_deref().or(from_log.as_deref());
    let (wrong, total) = check(&dir, id, round, candidate, text, &tree)?;
    let label = format!("row {id} round {} {candidate}", round.round);
    if !wrong.is_empty() {
        return Err(VerifyCommitError::Mismatch {
            label,
            reference: reference.to_owned(),
            wrong,
            total,
        }
        .into());
    }
    reply.line(&format!(
        "ok verify-commit {label} matches {} ({})",
        shown(reference),
        paths(total)
    ))?;
    Ok(())
}

/// The paths of REF's `tree` that do not match `candidate` (whose manifest text, for a
/// `sha256:` one, is `text`), and how many paths were checked.
fn check(
    dir: &Path,
    id: u64,
    round: &Round,
    candidate: &str,
    text: Option<&str>,
    tree: &str,
) -> Result<(Vec<Mismatch>, usize), VerifyCommitError> {
    let at = round.round;
    let git = VerifyCommitError::Git;
    if candidate.starts_with("sha256:") {
        let no_manifest = |why: String| VerifyCommitError::NoManifest {
            id,
            round: at,
            candidate: candidate.to_owned(),
            why,
        };
        let text = text
            .ok_or_else(|| no_manifest(String::from("semantics-1 history kept only its digest")))?;
        let listed = manifest::parse(text).map_err(|e| no_manifest(e.to_string()))?;
        if manifest::digest(text) != candidate {
            return Err(no_manifest(String::from(
                "its text does not hash to the digest",
            )));
        }
        let entries = objects::entries(dir, tree).map_err(git)?;
        let wrong = compare::manifest(&listed, &entries, |oids| objects::blob_sha256(dir, oids))
            .map_err(git)?;
        return Ok((wrong, listed.len()));
    }
    let Some(sha) = candidate.strip_prefix("git:") else {
        return Err(VerifyCommitError::BadCandidate {
            id,
            round: at,
            candidate: candidate.to_owned(),
        });
    };
    // The digest was checked at replay; hex only, so it can never read as an option to git.
    if sha.is_empty() || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(VerifyCommitError::BadCandidate {
            id,
            round: at,
            candidate: candidate.to_owned(),
        });
    }
    if !objects::has_commit(dir, sha) {
        return Err(VerifyCommitError::MissingCommit {
            id,
            round: at,
            sha: sha.to_owned(),
        });
    }
    let changes = objects::changes(dir, sha).map_err(git)?;
    let entries = objects::entries(dir, tree).map_err(git)?;
    Ok((compare::candidate_paths(&changes, &entries), changes.len()))
}
