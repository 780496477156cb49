//! Reading Gitea's answers: the comment id a POST's 201 carries, the login `GET /user` names,
//! and the comment a fetch returns. Pure functions of the body bytes, shared by the host and the
//! fuzzer; an id or issue number queue.json could not hold is refused, never taken.

use alloc::format;
use alloc::string::{String, ToString};

use serde_json::Value;
use thiserror::Error;

use crate::limits::MAX_SAFE_INTEGER;
use crate::secret::unsafe_to_echo;

/// The most characters of a string from an answer that a message repeats.
const QUOTED_CHARS: usize = 32;

/// What stood where a positive integer id was expected, worded as seen.
#[derive(Error, Debug, Clone, PartialEq, Eq)]
pub enum IdSeen {
    #[error("a body that is not JSON")]
    NotJson,
    #[error("no id")]
    Missing,
    /// A string, quoted (see [`quoted`]).
    #[error("the id {0} (a string)")]
    Text(String),
    /// A string that looks like a credential or would display otherwise than its bytes.
    #[error("an id that is a string")]
    HiddenText,
    /// A number out of range: zero, negative, fractional or above 2^53-1.
    #[error("the id {0}")]
    Number(String),
    #[error("the id null")]
    Null,
    #[error("the id {0}")]
    Flag(bool),
    #[error("an id that is not a number")]
    NotANumber,
}

/// The `id` member of `value` when it is an integer from 1 to 2^53-1.
fn positive_id(value: Option<&Value>) -> Result<u64, IdSeen> {
    let Some(v) = value else {
        return Err(IdSeen::Missing);
    };
    if let Some(id) = v.as_u64().filter(|id| (1..=MAX_SAFE_INTEGER).contains(id)) {
        return Ok(id);
    }
    Err(match v {
        Value::String(s) => quoted(s).map_or(IdSeen::HiddenText, IdSeen::Text),
        Value::Number(n) => IdSeen::Number(n.to_string()),
        Value::Null => IdSeen::Null,
        Value::Bool(b) => IdSeen::Flag(*b),
        Value::Array(_) | Value::Object(_) => IdSeen::NotANumber,
    })
}

/// The comment id of a 201's body (a Comment object).
pub fn posted_comment_id(body: &[u8]) -> Result<u64, IdSeen> {
    let value: Value = serde_json::from_slice(body).map_err(|_| IdSeen::NotJson)?;
    positive_id(value.get("id"))
}

/// The `login` a `GET /user` answer names, when it names one as a string.
pub fn user_login(body: &[u8]) -> Option<String> {
    let value: Value = serde_json::from_slice(body).ok()?;
    value.get("login")?.as_str().map(String::from)
}

/// `text` as a message may repeat it, in quotes: at most 32 characters of ASCII letters, digits,
/// `-`, `_`, `.` and spaces (what Gitea allows in a login), so the quotes around it keep it from
/// forming a credential with the words of the message; `None` for anything else, or for text that
/// looks like a credential or an op-id-like random string on its own.
pub fn quoted(text: &str) -> Option<String> {
    let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ' ');
    if text.is_empty() || text.len() > QUOTED_CHARS || !text.chars().all(plain) {
        return None;
    }
    if unsafe_to_echo(text) {
        return None;
    }
    Some(format!("\"{text}\""))
}

/// A comment as Gitea holds it: the fields `review resolve` checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchedComment {
    pub id: u64,
    pub body: String,
    /// `user.login`: who wrote it.
    pub login: String,
    /// The issue number from `issue_url`; `None` for a pull-request comment (empty issue_url).
    pub issue: Option<u64>,
}

/// Why a fetched body is not the Comment that was asked for.
#[derive(Error, Debug, Clone, PartialEq, Eq)]
pub enum CommentError {
    #[error("not JSON")]
    NotJson,
    #[error("{0}, not a positive integer comment id")]
    Id(IdSeen),
    #[error("it names comment {0}")]
    OtherId(u64),
    #[error("no body")]
    NoBody,
    #[error("no user.login")]
    NoLogin,
    #[error("no issue_url")]
    NoIssueUrl,
    #[error("issue_url names no issue")]
    NoIssue,
}

/// The Comment in a 200's body, which must be comment `asked`; other fields are ignored.
pub fn fetched_comment(body: &[u8], asked: u64) -> Result<FetchedComment, CommentError> {
    let value: Value = serde_json::from_slice(body).map_err(|_| CommentError::NotJson)?;
    let id = positive_id(value.get("id")).map_err(CommentError::Id)?;
    if id != asked {
        return Err(CommentError::OtherId(id));
    }
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(String::from);
    let body = text(value.get("body")).ok_or(CommentError::NoBody)?;
    let login =
        text(value.get("user").and_then(|u| u.get("login"))).ok_or(CommentError::NoLogin)?;
    let issue_url = text(value.get("issue_url")).ok_or(CommentError::NoIssueUrl)?;
    let issue = if issue_url.is_empty() {
        None
    } else {
        Some(issue_of(&issue_url).ok_or(CommentError::NoIssue)?)
    };
    Ok(FetchedComment {
        id,
        body,
        login,
        issue,
    })
}

/// `n` from a web URL ending in `/issues/<n>`. The host part is not compared with the
/// configured URL: Gitea builds it from its own ROOT_URL, which may differ from the API URL.
pub fn issue_of(url: &str) -> Option<u64> {
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
        .filter(|n| (1..=MAX_SAFE_INTEGER).contains(n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec::Vec;

    #[test]
    fn a_posted_id_is_a_positive_integer_and_a_refusal_says_what_it_saw() {
        assert_eq!(posted_comment_id(br#"{"id": 7, "body": "x"}"#), Ok(7));
        assert_eq!(
            posted_comment_id(br#"{"id": 9007199254740991}"#),
            Ok(MAX_SAFE_INTEGER)
        );
        let seen: Vec<(&[u8], &str)> = alloc::vec![
            (br#"{"body": "x"}"#, "no id"),
            (br#"{"id": "7"}"#, "the id \"7\" (a string)"),
            (br#"{"id": 0}"#, "the id 0"),
            (br#"{"id": -3}"#, "the id -3"),
            // queue.json could not hold it: never `posted`.
            (br#"{"id": 9007199254740992}"#, "the id 9007199254740992"),
            (br#"{"id": 1.5}"#, "the id 1.5"),
            (br#"{"id": null}"#, "the id null"),
            (br#"{"id": true}"#, "the id true"),
            (br#"{"id": [7]}"#, "an id that is not a number"),
            (br#"[7]"#, "no id"),
            (b"not json", "a body that is not JSON"),
            (b"", "a body that is not JSON"),
        ];
        for (body, words) in seen {
            let err = posted_comment_id(body).unwrap_err();
            assert_eq!(err.to_string(), words, "{body:?}");
        }
    }

    #[test]
    fn a_string_id_is_repeated_only_when_safe() {
        let said = |body: &str| posted_comment_id(body.as_bytes()).unwrap_err().to_string();
        assert_eq!(said(r#"{"id": "7"}"#), "the id \"7\" (a string)");
        let longest = "a".repeat(QUOTED_CHARS);
        assert_eq!(
            said(&alloc::format!(r#"{{"id": "{longest}"}}"#)),
            alloc::format!("the id \"{longest}\" (a string)")
        );
        for hidden in [
            alloc::format!(r#"{{"id": "{longest}a"}}"#),
            r#"{"id": "ghp_0123456789abcdefghijABCDEFGHIJ012345"}"#.into(),
            "{\"id\": \"7\u{202e}1\"}".into(),
            r#"{"id": "a\nb"}"#.into(),
            r#"{"id": "h7_[AuTh="}"#.into(),
            r#"{"id": ""}"#.into(),
        ] {
            assert_eq!(said(&hidden), "an id that is a string", "{hidden}");
        }
    }

    #[test]
    fn the_user_answer_names_a_login_as_a_string() {
        assert_eq!(
            user_login(br#"{"login": "jarvis", "id": 3}"#).as_deref(),
            Some("jarvis")
        );
        for body in [&br#"{"login": 3}"#[..], br#"{}"#, br#"[]"#, b"<html>"] {
            assert_eq!(user_login(body), None);
        }
    }

    #[test]
    fn issue_numbers_come_from_web_urls_only() {
        assert_eq!(issue_of("https://git.example.org/o/r/issues/12"), Some(12));
        for url in [
            "https://git.example.org/o/r/pulls/12",
            "https://git.example.org/o/r/issues/",
            "https://git.example.org/o/r/issues/1x",
            "https://git.example.org/o/r/issues/0",
            "https://git.example.org/o/r/issues/9007199254740992",
            "12",
        ] {
            assert_eq!(issue_of(url), None, "{url}");
        }
    }

    #[test]
    fn a_comment_needs_every_field_resolve_reads() {
        let ok = br#"{"id":5,"body":"b","user":{"login":"jarvis","id":1},"issue_url":"https://h/o/r/issues/3","extra":[1]}"#;
        assert_eq!(
            fetched_comment(ok, 5),
            Ok(FetchedComment {
                id: 5,
                body: "b".into(),
                login: "jarvis".into(),
                issue: Some(3),
            })
        );
        let pr = br#"{"id":5,"body":"b","user":{"login":"jarvis"},"issue_url":""}"#;
        assert_eq!(fetched_comment(pr, 5).unwrap().issue, None);
        for (body, words) in [
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
            (b"{", "not JSON"),
        ] {
            assert_eq!(fetched_comment(body, 5).unwrap_err().to_string(), words);
        }
    }
}
