//! The Gitea client: configuration from the environment, one deadline over each exchange, and
//! the two calls the review verbs make (`post_comment`, `fetch_comment`). The token comes from
//! `creds`; no response body is ever logged, and only fixed `detail` strings reach the queue log.

mod exchange;
mod fetch;
mod post;

use std::path::PathBuf;
use std::time::Duration;

pub use fetch::{FetchedComment, fetch_comment};
pub use post::{PostOutcome, post_comment, post_request};

use crate::creds::CredentialError;
use crate::exit::Exit;

/// The contract's deadline over a whole request: GET user and the POST, connect and reads.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// Where and as whom the review requests go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GiteaConfig {
    /// Base URL of the instance, `http(s)://host[:port][/prefix]`, without a trailing `/`.
    pub url: String,
    pub owner: String,
    pub repo: String,
    /// The seat's token file (checked by `creds::read_token` on every call).
    pub credential_file: PathBuf,
    /// One budget for the whole exchange.
    pub deadline: Duration,
}

/// Why a Gitea call did not give an answer the caller can use.
#[derive(Debug, thiserror::Error)]
pub enum GiteaError {
    /// A required variable is unset or empty.
    #[error("{0} is not set; set {0} ({1})")]
    MissingVar(&'static str, &'static str),
    /// A variable that is not valid UTF-8.
    #[error("{0} is not valid UTF-8; set it to plain text")]
    NotUnicode(&'static str),
    /// The base URL is not an http(s) URL. The value is never echoed: it may hold a secret.
    #[error(
        "MOSAIC_GITEA_URL {0}; set it to the instance's base URL, e.g. https://git.example.org"
    )]
    BadUrl(UrlProblem),
    /// The repository is not `owner/name`.
    #[error("MOSAIC_GITEA_REPO {0:?} is not owner/name; set it to e.g. mosaic/mosaicstack")]
    BadRepo(String),
    /// The test seam's deadline is not a number of milliseconds (the seam, and so this
    /// refusal, exists only in the fault-injection build).
    #[cfg(feature = "fault-injection")]
    #[error("MOSAIC_GITEA_DEADLINE_MS {0:?} is not a number of milliseconds")]
    BadDeadline(String),
    /// The token file was refused; nothing was sent.
    #[error(transparent)]
    Credentials(#[from] CredentialError),
    /// 401: the token is not valid on this instance.
    #[error(
        "Gitea answered 401 to {0}: the token is not valid there; replace the token file's token with one that has the scopes read:user, read:issue and write:issue"
    )]
    Unauthorized(String),
    /// 403: the token lacks a scope or the user lacks access.
    #[error(
        "Gitea answered 403 to {0}: the token lacks the read:issue scope or its user may not read this repository; give the token the scopes read:user, read:issue and write:issue"
    )]
    Forbidden(String),
    /// 404: the comment does not exist in this repository.
    #[error(
        "comment {0} does not exist in {1}; check the comment id (the number after #issuecomment-)"
    )]
    NotFound(u64, String),
    /// 204: the id names a timeline event, not a user comment.
    #[error(
        "id {0} is a timeline event, not a comment; use the id after #issuecomment- in the comment's link"
    )]
    NotAComment(u64),
    /// Any other status.
    #[error("Gitea answered {1} to {0}; try again later or check the instance")]
    Status(String, u16),
    /// 200 whose body is not the Comment the caller asked for.
    #[error("Gitea's answer for comment {0} is not usable ({1}); try again or check the instance")]
    Unparsable(u64, String),
    /// No answer: connection, TLS or protocol failure.
    #[error(
        "no usable answer from Gitea at {0}: {1}; check MOSAIC_GITEA_URL and the network, then retry"
    )]
    Transport(String, String),
    /// The deadline passed before the answer was complete.
    #[error("Gitea at {0} did not answer within {1} ms; retry when the instance responds")]
    Deadline(String, u128),
}

impl GiteaError {
    /// A comment that is not there (or is a timeline event) is a wrong id, refused; every other
    /// error is a failed exchange or configuration.
    pub fn exit(&self) -> Exit {
        match self {
            GiteaError::NotFound(..) | GiteaError::NotAComment(..) => Exit::Refused,
            _ => Exit::Failed,
        }
    }
}

/// What is wrong with `MOSAIC_GITEA_URL`, said without repeating any of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlProblem {
    /// `user:password@` or `user@` before the host.
    Credentials,
    NotHttp,
    NoHost,
    /// `?`, `#` or `\`, which would smuggle a query or fragment into every request.
    QueryOrFragment,
    /// White space, control characters or non-ASCII.
    NotPrintable,
    TrailingSlash,
}

impl std::fmt::Display for UrlProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            UrlProblem::Credentials => {
                "contains credentials (a user or password before `@`); remove them (the token comes from MOSAIC_GITEA_CREDENTIAL_FILE)"
            }
            UrlProblem::NotHttp => "is not an http:// or https:// URL",
            UrlProblem::NoHost => "names no host",
            UrlProblem::QueryOrFragment => "holds a `?`, `#` or `\\`; give the base URL alone",
            UrlProblem::NotPrintable => {
                "holds white space, control or non-ASCII characters"
            }
            UrlProblem::TrailingSlash => "ends in `/`",
        })
    }
}

impl GiteaConfig {
    /// `MOSAIC_GITEA_URL`, `MOSAIC_GITEA_REPO` (owner/name), `MOSAIC_GITEA_CREDENTIAL_FILE`;
    /// the deadline is 30 s.
    pub fn from_env() -> Result<Self, GiteaError> {
        Self::from_vars(|name| std::env::var_os(name))
    }

    /// As `from_env`, reading variables through `get`.
    pub fn from_vars(get: impl Fn(&str) -> Option<std::ffi::OsString>) -> Result<Self, GiteaError> {
        let text = |name: &'static str, what: &'static str| -> Result<String, GiteaError> {
            match get(name) {
                None => Err(GiteaError::MissingVar(name, what)),
                Some(v) if v.is_empty() => Err(GiteaError::MissingVar(name, what)),
                Some(v) => v.into_string().map_err(|_| GiteaError::NotUnicode(name)),
            }
        };
        let url = text("MOSAIC_GITEA_URL", "the Gitea base URL")?;
        let repo = text("MOSAIC_GITEA_REPO", "owner/name of the repository")?;
        let credential_file = get("MOSAIC_GITEA_CREDENTIAL_FILE")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .ok_or(GiteaError::MissingVar(
                "MOSAIC_GITEA_CREDENTIAL_FILE",
                "the seat's own token file",
            ))?;
        let url = url.trim_end_matches('/').to_owned();
        url_problem(&url).map_or(Ok(()), |p| Err(GiteaError::BadUrl(p)))?;
        let (owner, name) = match repo.split_once('/') {
            Some((o, n)) if valid_name(o) && valid_name(n) => (o.to_owned(), n.to_owned()),
            _ => return Err(GiteaError::BadRepo(repo)),
        };
        Ok(GiteaConfig {
            url,
            owner,
            repo: name,
            credential_file,
            deadline: deadline(&get)?,
        })
    }

    /// The config as the client can use it; fields are public, so callers may have built one
    /// by hand.
    fn check(&self) -> Result<(), GiteaError> {
        if let Some(problem) = url_problem(&self.url) {
            return Err(GiteaError::BadUrl(problem));
        }
        if self.url.ends_with('/') {
            return Err(GiteaError::BadUrl(UrlProblem::TrailingSlash));
        }
        if !valid_name(&self.owner) || !valid_name(&self.repo) {
            return Err(GiteaError::BadRepo(format!("{}/{}", self.owner, self.repo)));
        }
        Ok(())
    }

    fn api(&self, path: &str) -> String {
        format!("{}/api/v1{path}", self.url)
    }

    fn repo_api(&self, path: &str) -> String {
        self.api(&format!("/repos/{}/{}{path}", self.owner, self.repo))
    }
}

/// The deadline: 30 s; the fault-injection build lets `MOSAIC_GITEA_DEADLINE_MS` shorten it
/// so an end-to-end test of the deadline need not wait 30 s.
fn deadline(get: &impl Fn(&str) -> Option<std::ffi::OsString>) -> Result<Duration, GiteaError> {
    match crate::io::seams::gitea_deadline_ms(get) {
        #[cfg(feature = "fault-injection")]
        Some(text) => text
            .parse::<u64>()
            .map(Duration::from_millis)
            .map_err(|_| GiteaError::BadDeadline(text)),
        _ => Ok(DEADLINE),
    }
}

/// `http://` or `https://`, a host, and nothing that would smuggle a query, fragment,
/// credentials or whitespace into the request line; `None` when the URL is usable.
/// Credentials are looked for first, in any shape of value, so that no other refusal is the
/// one that gets reported for a URL that holds a password.
pub fn url_problem(url: &str) -> Option<UrlProblem> {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = after_scheme.split(['/', '?', '#']).next().unwrap_or("");
    if authority.contains('@') {
        return Some(UrlProblem::Credentials);
    }
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    let Some(r) = rest else {
        return Some(UrlProblem::NotHttp);
    };
    if !r.bytes().all(|b| b.is_ascii_graphic()) {
        return Some(UrlProblem::NotPrintable);
    }
    if r.bytes().any(|b| b"?#\\".contains(&b)) {
        return Some(UrlProblem::QueryOrFragment);
    }
    if r.split('/').next().unwrap_or("").is_empty() {
        return Some(UrlProblem::NoHost);
    }
    None
}

/// A Gitea owner or repository name: letters, digits, `.`, `_`, `-`, and not a dot path.
pub fn valid_name(s: &str) -> bool {
    !s.is_empty()
        && s != "."
        && s != ".."
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    fn vars(list: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let owned: Vec<(String, String)> = list
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |name| {
            owned
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    const FILE: &str = "/h/agents/jarvis/secrets/gitea-mosaicstack-jarvis.token";

    #[test]
    fn reads_the_three_variables() {
        let cfg = GiteaConfig::from_vars(vars(&[
            ("MOSAIC_GITEA_URL", "https://git.example.org/"),
            ("MOSAIC_GITEA_REPO", "mosaic/stack"),
            ("MOSAIC_GITEA_CREDENTIAL_FILE", FILE),
        ]))
        .unwrap();
        assert_eq!(
            cfg,
            GiteaConfig {
                url: "https://git.example.org".into(),
                owner: "mosaic".into(),
                repo: "stack".into(),
                credential_file: FILE.into(),
                deadline: Duration::from_secs(30),
            }
        );
        assert_eq!(
            cfg.repo_api("/issues/3/comments"),
            "https://git.example.org/api/v1/repos/mosaic/stack/issues/3/comments"
        );
    }

    #[test]
    fn refuses_missing_and_malformed_variables() {
        let base = [
            ("MOSAIC_GITEA_URL", "http://127.0.0.1:3000"),
            ("MOSAIC_GITEA_REPO", "o/r"),
            ("MOSAIC_GITEA_CREDENTIAL_FILE", FILE),
        ];
        for drop in 0..3 {
            let mut v = base.to_vec();
            let gone = v.remove(drop).0;
            let err = GiteaConfig::from_vars(vars(&v)).unwrap_err();
            assert!(
                matches!(err, GiteaError::MissingVar(n, _) if n == gone),
                "{err}"
            );
        }
        for (url, problem) in [
            ("ftp://x", UrlProblem::NotHttp),
            ("git.example.org", UrlProblem::NotHttp),
            // The trailing slashes go first, so this one is "https:".
            ("https://", UrlProblem::NotHttp),
            ("https:///api", UrlProblem::NoHost),
            ("https://a b", UrlProblem::NotPrintable),
            ("https://u@h", UrlProblem::Credentials),
            (
                "https://user:s3cret@git.example.org",
                UrlProblem::Credentials,
            ),
            ("ftp://user:s3cret@h", UrlProblem::Credentials),
            ("user:s3cret@h", UrlProblem::Credentials),
            ("https://user:s3cret@h?x#y", UrlProblem::Credentials),
            ("http://h/?q", UrlProblem::QueryOrFragment),
            ("http://h/x?token=s3cret", UrlProblem::QueryOrFragment),
        ] {
            let mut v = base.to_vec();
            v[0].1 = url;
            let err = GiteaConfig::from_vars(vars(&v)).unwrap_err();
            assert!(
                matches!(err, GiteaError::BadUrl(p) if p == problem),
                "{url}: {err}"
            );
            // The value is never echoed: it may hold a password or a token.
            let text = err.to_string();
            assert!(
                !text.contains("s3cret") && !text.contains(&format!("URL {url}")),
                "{url}: {text}"
            );
        }
        let mut v = base.to_vec();
        v[0].1 = "https://user:s3cret@git.example.org";
        assert_eq!(
            GiteaConfig::from_vars(vars(&v)).unwrap_err().to_string(),
            "MOSAIC_GITEA_URL contains credentials (a user or password before `@`); remove them (the token comes from MOSAIC_GITEA_CREDENTIAL_FILE); set it to the instance's base URL, e.g. https://git.example.org"
        );
        for repo in ["o", "o/", "/r", "o/r/x", "o/..", "o/r?x", "o r/x"] {
            let mut v = base.to_vec();
            v[1].1 = repo;
            let err = GiteaConfig::from_vars(vars(&v)).unwrap_err();
            assert!(matches!(err, GiteaError::BadRepo(_)), "{repo}: {err}");
        }
    }

    #[test]
    fn deadline_seam_exists_only_in_the_fault_injection_build() {
        let cfg = GiteaConfig::from_vars(vars(&[
            ("MOSAIC_GITEA_URL", "http://h"),
            ("MOSAIC_GITEA_REPO", "o/r"),
            ("MOSAIC_GITEA_CREDENTIAL_FILE", FILE),
            ("MOSAIC_GITEA_DEADLINE_MS", "250"),
        ]))
        .unwrap();
        let expected = if cfg!(feature = "fault-injection") {
            Duration::from_millis(250)
        } else {
            DEADLINE
        };
        assert_eq!(cfg.deadline, expected);
    }
}
