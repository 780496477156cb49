//! Fetching one comment by its instance-global id, for `review resolve`: only a 200 with a
//! parsable Comment is proof that it exists. The caller decides whether it is the right one
//! (issue, author, markers); this module only reports what Gitea holds.

use mosaic_queue_core::canon::MAX_SAFE_INTEGER;

use super::exchange::{Exchange, Transport};
use super::{GiteaConfig, GiteaError};
use crate::creds::read_token;

/// A comment as Gitea holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchedComment {
    pub id: u64,
    pub body: String,
    /// `user.login`: who wrote it.
    pub login: String,
    /// The issue number from `issue_url`; `None` for a pull-request comment (empty issue_url).
    pub issue: Option<u64>,
}

/// `GET /repos/{owner}/{repo}/issues/comments/{id}` with `login`'s token.
pub fn fetch_comment(
    cfg: &GiteaConfig,
    login: &str,
    id: u64,
) -> Result<FetchedComment, GiteaError> {
    cfg.check()?;
    let token = read_token(&cfg.credential_file, login)?;
    let exchange = Exchange::start(cfg.deadline, &token);
    drop(token);
    let what = format!("GET comment {id}");
    let exchange = exchange.map_err(|t| transport_error(cfg, t))?;
    let url = cfg.repo_api(&format!("/issues/comments/{id}"));
    let answer = exchange.get(&url).map_err(|t| transport_error(cfg, t))?;
    match answer.status {
        200 => {}
        204 => return Err(GiteaError::NotAComment(id)),
        401 => return Err(GiteaError::Unauthorized(what)),
        403 => return Err(GiteaError::Forbidden(what)),
        404 => {
            return Err(GiteaError::NotFound(
                id,
                format!("{}/{}", cfg.owner, cfg.repo),
            ));
        }
        other => return Err(GiteaError::Status(what, other)),
    }
    let body = answer.body.map_err(|t| transport_error(cfg, t))?;
    parse_comment(&body, id)
}

fn transport_error(cfg: &GiteaConfig, t: Transport) -> GiteaError {
    match t {
        Transport::Deadline => GiteaError::Deadline(cfg.url.clone(), cfg.deadline.as_millis()),
        Transport::Failed(why) => GiteaError::Transport(cfg.url.clone(), why),
    }
}

/// The fields resolve needs from a Comment body; other fields are ignored.
fn parse_comment(bytes: &[u8], asked: u64) -> Result<FetchedComment, GiteaError> {
    let bad = |why: &str| GiteaError::Unparsable(asked, why.to_owned());
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|_| bad("not JSON"))?;
    let id = super::positive_id(value.get("id")).map_err(|seen| {
        GiteaError::Unparsable(asked, format!("{seen}, not a positive integer comment id"))
    })?;
    if id != asked {
        return Err(GiteaError::Unparsable(
            asked,
            format!("it names comment {id}"),
        ));
    }
    let body = value
        .get("body")
        .and_then(|v| v.as_str())
        .ok_or(bad("no body"))?;
    let login = value
        .get("user")
        .and_then(|u| u.get("login"))
        .and_then(|l| l.as_str())
        .ok_or(bad("no user.login"))?;
    let issue_url = value
        .get("issue_url")
        .and_then(|v| v.as_str())
        .ok_or(bad("no issue_url"))?;
    let issue = if issue_url.is_empty() {
        None
    } else {
        Some(issue_of(issue_url).ok_or(bad("issue_url names no issue"))?)
    };
    Ok(FetchedComment {
        id,
        body: body.to_owned(),
        login: login.to_owned(),
        issue,
    })
}

/// `n` from a web URL ending in `/issues/<n>`. The host part is not compared with the
/// configured URL: Gitea builds it from its own ROOT_URL, which may differ from the API URL.
fn issue_of(url: &str) -> Option<u64> {
    let (head, number) = url.rsplit_once('/')?;
    if !head.ends_with("/issues")
        || number.is_empty()
        || !number.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    // An issue number queue.json could not hold is no round's issue.
    number
        .parse()
        .ok()
        .filter(|&n| (1..=MAX_SAFE_INTEGER).contains(&n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue_numbers_come_from_web_urls_only() {
        assert_eq!(issue_of("https://git.example.org/o/r/issues/12"), Some(12));
        assert_eq!(issue_of("http://h:3000/sub/o/r/issues/1"), Some(1));
        for url in [
            "https://h/o/r/pulls/12",
            "https://h/o/r/issues/",
            "https://h/o/r/issues/12#x",
            "https://h/o/r/issues/0",
            "https://h/o/r/issues/+3",
            "https://h/o/r/issues/99999999999999999999999",
            "https://h/o/r/issues/9007199254740992",
            "12",
        ] {
            assert_eq!(issue_of(url), None, "{url}");
        }
    }

    #[test]
    fn a_comment_needs_every_field_resolve_reads() {
        let ok = br#"{"id":5,"body":"b","user":{"login":"jarvis","id":1},"issue_url":"https://h/o/r/issues/3","extra":[1]}"#;
        assert_eq!(
            parse_comment(ok, 5).unwrap(),
            FetchedComment {
                id: 5,
                body: "b".into(),
                login: "jarvis".into(),
                issue: Some(3)
            }
        );
        let pr = br#"{"id":5,"body":"b","user":{"login":"jarvis"},"issue_url":""}"#;
        assert_eq!(parse_comment(pr, 5).unwrap().issue, None);
        for (body, why) in [
            (
                &br#"{"id":6,"body":"b","user":{"login":"j"},"issue_url":""}"#[..],
                "it names comment 6",
            ),
            (
                br#"{"body":"b","user":{"login":"j"},"issue_url":""}"#,
                "no id, not a positive integer comment id",
            ),
            (
                br#"{"id":-5,"body":"b","user":{"login":"j"},"issue_url":""}"#,
                "the id -5, not a positive integer comment id",
            ),
            (
                br#"{"id":5,"user":{"login":"j"},"issue_url":""}"#,
                "no body",
            ),
            (
                br#"{"id":5,"body":"b","user":{},"issue_url":""}"#,
                "no user.login",
            ),
            (
                br#"{"id":5,"body":"b","user":{"login":"j"}}"#,
                "no issue_url",
            ),
            (
                br#"{"id":5,"body":"b","user":{"login":"j"},"issue_url":"https://h/o/r/pulls/2"}"#,
                "issue_url names no issue",
            ),
            (b"<html>", "not JSON"),
        ] {
            match parse_comment(body, 5) {
                Err(GiteaError::Unparsable(5, w)) => assert_eq!(w, why),
                other => panic!("{why}: {other:?}"),
            }
        }
    }
}
