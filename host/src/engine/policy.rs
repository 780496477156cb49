//! What a request may do, as a value the face hands the engine: on the command line and a
//! local MCP server everything, behind the OpenSSH gate a key's limits (the actor pinned to the
//! key's seat, the verbs the contract keeps for the lead or for jason and sage, nothing that
//! reads or writes files on the queue host, a bounded wait), judged before anything is read.

use std::path::{Path, PathBuf};

use mosaic_queue_core::{LEAD, is_privileged};
use thiserror::Error;

use super::request::{Candidate, Request, Review};
use crate::reply::Failure;

/// The longest wait a remote seat or an MCP call may ask for, in seconds, so a wait cannot
/// outlive the connection or the call that asked for it; also what an MCP wait without a
/// timeout gets. A client that wants longer asks again.
pub const MAX_WAIT_SECS: u32 = 600;

/// The limits a request runs under.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    remote: Option<Remote>,
}

/// A remote seat's key: the seat every request acts as, and the checkout, where a request's
/// relative paths start.
#[derive(Debug, Clone)]
pub struct Remote {
    pub seat: String,
    pub root: PathBuf,
}

/// Why a policy refused a request: each a refusal (exit 2) with its own stable kind.
#[derive(Debug, Error)]
pub enum PolicyError {
    /// `flag` is what named the other actor: `--by`, or `mcp --seat`'s `--seat`.
    #[error(
        "refused: this key acts as {seat} only, not {given}; leave {flag} out, since every command through it acts as {seat}"
    )]
    Actor {
        seat: String,
        given: String,
        flag: &'static str,
    },
    #[error("refused: {verb} is for {who}, and this key acts as {seat}; ask one of them to run it")]
    Privileged {
        verb: &'static str,
        who: &'static str,
        seat: String,
    },
    #[error("refused: {verb} {why}")]
    Local {
        verb: &'static str,
        why: &'static str,
    },
    #[error(
        "refused: --candidate {0:?} names a file on the queue host, which a remote seat cannot hand over; send the manifest's text with --manifest-stdin (ssh HOST move ... --manifest-stdin < MANIFEST) or --manifest-text, or name a commit"
    )]
    File(String),
    #[error(
        "refused: {flag} {value:?} starts with `-` and would reach git as an option; name a branch, tag or commit id"
    )]
    Dash { flag: &'static str, value: String },
    #[error(
        "refused: a remote wait needs --timeout SECONDS, at most {max}, so it cannot outlive its connection; call it again to wait longer"
    )]
    Unbounded { max: u32 },
}

impl PolicyError {
    /// The stable kind `--json` and the MCP server print.
    pub fn kind(&self) -> &'static str {
        match self {
            PolicyError::Actor { .. } => "actor-pinned",
            PolicyError::Privileged { .. } => "privileged-verb",
            PolicyError::Local { .. } => "local-only",
            PolicyError::File(_) => "file-argument",
            PolicyError::Dash { .. } => "option-injection",
            PolicyError::Unbounded { .. } => "wait-unbounded",
        }
    }
}

impl From<PolicyError> for Failure {
    fn from(e: PolicyError) -> Failure {
        Failure::refused(e.to_string()).kind(e.kind())
    }
}

impl Policy {
    /// Everything: the command line and a local MCP server.
    pub fn local() -> Policy {
        Policy::default()
    }

    /// A remote seat's key.
    pub fn remote(seat: String, root: PathBuf) -> Policy {
        Policy {
            remote: Some(Remote { seat, root }),
        }
    }

    /// Commits this process to the policy: under a remote seat's, every answer from now on
    /// speaks to a seat on another machine (`remote::is`: a refusal names what such a seat can
    /// give, never a file on the queue host). Called once, before anything runs.
    pub fn commit_process(&self) {
        if self.remote.is_some() {
            crate::remote::set();
        }
    }

    /// The key's limits, when this is a remote seat's policy.
    pub fn remote_seat(&self) -> Option<&Remote> {
        self.remote.as_ref()
    }

    /// Judges `request`: `Ok` when it may run. Nothing is read but, for a move's candidate,
    /// whether the name reaches a file in the checkout.
    pub fn admit(&self, request: &Request) -> Result<(), PolicyError> {
        let Some(remote) = &self.remote else {
            return Ok(());
        };
        remote.admit(request)
    }
}

/// Who may run a verb under a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Who {
    Anyone,
    LeadOrPrivileged,
    Privileged,
}

impl Who {
    fn of(verb: &str) -> Who {
        match verb {
            "add" | "assign" | "commit" | "archive" | "lease-default" | "reclaim"
            | "replication" | "adopt" => Who::LeadOrPrivileged,
            "genesis" | "accept-history" | "review abandon" | "install-hook" => Who::Privileged,
            _ => Who::Anyone,
        }
    }

    fn admits(self, seat: &str) -> bool {
        match self {
            Who::Anyone => true,
            Who::LeadOrPrivileged => seat == LEAD || is_privileged(seat),
            Who::Privileged => is_privileged(seat),
        }
    }

    fn named(self) -> &'static str {
        match self {
            Who::Anyone => "anyone",
            Who::LeadOrPrivileged => "the lead, jason or sage",
            Who::Privileged => "jason or sage",
        }
    }
}

impl Remote {
    /// The actor first, then who may run the verb, then whether it stays on the queue host,
    /// then its arguments.
    fn admit(&self, request: &Request) -> Result<(), PolicyError> {
        if let Some((given, flag)) = request.named_actor().filter(|(g, _)| *g != self.seat) {
            return Err(PolicyError::Actor {
                seat: self.seat.clone(),
                given: given.to_owned(),
                flag,
            });
        }
        let verb = request.name();
        let who = Who::of(verb);
        if !who.admits(&self.seat) {
            return Err(PolicyError::Privileged {
                verb,
                who: who.named(),
                seat: self.seat.clone(),
            });
        }
        if let Some(why) = local_only(request) {
            return Err(PolicyError::Local { verb, why });
        }
        self.arguments(request)
    }

    fn arguments(&self, request: &Request) -> Result<(), PolicyError> {
        match request {
            Request::Move { moved, .. } => match &moved.candidate {
                Some(Candidate::Named(given)) => candidate(given, &|v| names_file(&self.root, v)),
                _ => Ok(()),
            },
            Request::Review(Review::VerifyCommit { reference, .. }) => {
                not_an_option("review verify-commit", reference)
            }
            Request::Wait { timeout, .. } => bounded(timeout.as_deref()),
            _ => Ok(()),
        }
    }
}

/// The requests that stay on the queue host, and why.
fn local_only(request: &Request) -> Option<&'static str> {
    Some(match request {
        Request::Genesis { .. } => {
            "reads its migration map from a file on the queue host; run it there"
        }
        Request::MapCheck { .. } => {
            "reads the migration map from a file on the queue host; run it there"
        }
        Request::Snapshot { .. } => {
            "writes files on the queue host; read the queue with list --json, or run it there"
        }
        Request::VerifySnapshot { .. } => {
            "reads files on the queue host; verify --snapshot needs no checkout, so run it where the snapshot is"
        }
        Request::Guard => "runs inside git commit on the queue host; it is not run by hand",
        Request::Adopt { .. } => {
            "fetches the replicated ref into a checkout and installs the queue there; run it in that checkout"
        }
        _ => return None,
    })
}

/// A commit a remote seat names is fine; a path that leaves the checkout, or that reaches
/// anything in it but a directory (which only a commit's name can be mistaken for), is not.
fn candidate(given: &str, names_file: &dyn Fn(&str) -> bool) -> Result<(), PolicyError> {
    not_an_option("--candidate", given)?;
    let escapes = given.starts_with('/') || given.split('/').any(|part| part == "..");
    if escapes || names_file(given) {
        return Err(PolicyError::File(given.to_owned()));
    }
    Ok(())
}

/// A value git would read as an option.
fn not_an_option(flag: &'static str, value: &str) -> Result<(), PolicyError> {
    if value.starts_with('-') {
        return Err(PolicyError::Dash {
            flag,
            value: value.to_owned(),
        });
    }
    Ok(())
}

/// A remote wait names its timeout, at most `MAX_WAIT_SECS`; a timeout that is no number is
/// left to the wait's own refusal.
fn bounded(timeout: Option<&str>) -> Result<(), PolicyError> {
    let max = MAX_WAIT_SECS;
    match timeout.map(str::parse::<f64>) {
        None => Err(PolicyError::Unbounded { max }),
        Some(Ok(s)) if s.is_finite() && s > f64::from(max) => Err(PolicyError::Unbounded { max }),
        Some(_) => Ok(()),
    }
}

/// Whether `value` from `root` reaches something that is not a directory: a file, a
/// symlink, a fifo, a device. Anything that cannot be looked at counts as a file too.
pub fn names_file(root: &Path, value: &str) -> bool {
    match std::fs::symlink_metadata(root.join(value)) {
        Ok(meta) => !meta.is_dir(),
        Err(e) => e.kind() != std::io::ErrorKind::NotFound,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Change, MoveText};

    fn change(by: Option<&str>) -> Change {
        Change {
            op: String::from("darkwing-op-0001"),
            by: by.map(String::from),
            replication_timeout: None,
        }
    }

    fn moved(candidate: Option<Candidate>) -> Request {
        let moved = MoveText {
            id: 3,
            status: String::from("in-review"),
            reason: None,
            candidate,
            issue: Some(7),
            evidence: None,
            lease: None,
        };
        Request::Move {
            moved,
            change: change(None),
        }
    }

    /// Requests built as the MCP server builds them, with no command line in between: the
    /// local policy lets each through, a remote seat's judges each by its kind.
    #[test]
    fn a_remote_policy_judges_requests_as_values() {
        let dir = std::env::temp_dir().join(format!("policy-requests-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("manifest.txt"), "x").unwrap();
        let remote = Policy::remote(String::from("darkwing"), dir.clone());
        let kind = |request: &Request| remote.admit(request).map_err(|e| e.kind());
        let cases = [
            (moved(Some(Candidate::Named(String::from("main")))), Ok(())),
            (
                moved(Some(Candidate::Named(String::from("manifest.txt")))),
                Err("file-argument"),
            ),
            (
                moved(Some(Candidate::Named(String::from("--output=x")))),
                Err("option-injection"),
            ),
            (
                moved(Some(Candidate::Text {
                    from: "--manifest-text",
                    text: String::from("a.txt sha256:00"),
                })),
                Ok(()),
            ),
            (
                Request::Note {
                    id: 3,
                    text: String::from("hi"),
                    change: change(Some("jason")),
                },
                Err("actor-pinned"),
            ),
            (
                Request::Reclaim {
                    id: 3,
                    reason: String::from("gone"),
                    change: change(None),
                },
                Err("privileged-verb"),
            ),
            (Request::Guard, Err("local-only")),
            (
                Request::Wait {
                    id: Some(3),
                    status: vec![String::from("done")],
                    revision_after: None,
                    timeout: None,
                },
                Err("wait-unbounded"),
            ),
            (
                Request::Wait {
                    id: Some(3),
                    status: vec![String::from("done")],
                    revision_after: None,
                    timeout: Some(String::from("600")),
                },
                Ok(()),
            ),
        ];
        for (request, expected) in &cases {
            assert_eq!(kind(request), *expected, "{request:?}");
            assert!(Policy::local().admit(request).is_ok(), "{request:?}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn names_file_tells_files_from_directories_and_nothing() {
        let dir = std::env::temp_dir().join(format!("policy-names-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("m.txt"), "x").unwrap();
        std::os::unix::fs::symlink("sub", dir.join("link")).unwrap();
        assert!(names_file(&dir, "m.txt"));
        assert!(names_file(&dir, "link"));
        assert!(!names_file(&dir, "sub"));
        assert!(!names_file(&dir, "main"));
        assert!(!names_file(&dir, "feature/x"));
        // A path through a file cannot be looked at: it counts as a file.
        assert!(names_file(&dir, "m.txt/x"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
