//! `--candidate FILE|REV`: what a move into review freezes as the round's candidate. An
//! existing file is a manifest (its digest and text); anything else must name a commit that a
//! branch or tag keeps. A manifest can also come as its text (`--manifest-text`, stdin), from a
//! seat with no files on the queue host.

use std::path::Path;

use mosaic_queue_core::{manifest, shown};

use crate::git;
use crate::io::{Kind, Refusal};
use crate::reply::Failure;

/// A candidate as a move records it: its digest and, for a manifest, the manifest's text.
pub struct Candidate {
    pub digest: String,
    pub manifest: Option<String>,
}

/// `--candidate`, relative to `root`: an existing file is a manifest (`sha256:` of its bytes,
/// each line `<sha256> <path>`, kept in the round); anything else must name a commit
/// reachable from a branch or tag.
pub fn candidate(root: &Path, given: &str) -> Result<Candidate, Failure> {
    if let Some(text) = manifest_file(root, given)? {
        return manifest_text(given, text);
    }
    let sha = git::run(
        root,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            // A candidate may start with `-`: it is a revision, never an option.
            "--end-of-options",
            &format!("{given}^{{commit}}"),
        ],
    )
    .map_err(|_| {
        Failure::refused(format!(
            "--candidate {} is neither a manifest file nor a commit",
            shown(given)
        ))
    })?;
    let refs = git::run(
        root,
        &[
            "for-each-ref",
            "--contains",
            &sha,
            "--format=%(refname)",
            "refs/heads",
            "refs/tags",
        ],
    )
    .unwrap_or_default();
    if refs.trim().is_empty() {
        return Err(Failure::refused(format!(
            "--candidate commit {sha} is not reachable from any branch or tag; push it to a branch first"
        )));
    }
    Ok(Candidate {
        digest: format!("git:{sha}"),
        manifest: None,
    })
}

/// The manifest `given` names, checked, or `None` when no file is there (a directory is
/// never a manifest, and may share a branch's name: the caller tries the commit).
fn manifest_file(root: &Path, given: &str) -> Result<Option<String>, Failure> {
    let bytes = match crate::io::read_checked(&root.join(given), Kind::Manifest) {
        Ok(bytes) => bytes,
        Err(e) => {
            return match crate::io::into_refusal(e) {
                Ok(Refusal::NotRegular {
                    what: "a directory",
                    ..
                }) => Ok(None),
                Ok(refused) => Err(Failure::refused(format!("--candidate: {}", refused.line()))),
                Err(_) => Ok(None),
            };
        }
    };
    let text = String::from_utf8(bytes)
        .map_err(|_| Failure::refused(format!("manifest {given}: is not UTF-8")))?;
    Ok(Some(text))
}

/// A manifest candidate from its text, `from` naming where the text came from (the file,
/// `--manifest-text`, `stdin`): checked as stored text first (a path holding a secret is
/// refused as such), then as a manifest.
pub fn manifest_text(from: &str, text: String) -> Result<Candidate, Failure> {
    mosaic_queue_core::manifest_text(&text)
        .map_err(|e| Failure::refused(format!("manifest {from}: {e}")))?;
    manifest::parse(&text).map_err(|e| Failure::refused(format!("manifest {from}: {e}")))?;
    Ok(Candidate {
        digest: manifest::digest(&text),
        manifest: Some(text),
    })
}
