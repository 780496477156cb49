//! Gitea's answers as the host reads them: a POST's 201 body, `GET /user`, a fetched comment and
//! its `issue_url`. Invariants: whatever is taken agrees with a plain JSON reading of the same
//! bytes and fits queue.json (ids and issues from 1 to 2^53-1), whatever is refused had no such
//! value, and every refusal is one line that repeats nothing unsafe to echo.

use mosaic_queue_core::{
    MAX_SAFE_INTEGER, credential,
    gitea::{self, CommentError},
    invisible,
};
use serde_json::Value;

/// Checks the invariant on one input; panics when it does not hold.
pub fn check(bytes: &[u8]) {
    let value: Option<Value> = serde_json::from_slice(bytes).ok();
    let member = |name: &str| value.as_ref().and_then(|v| v.get(name));
    let in_range = |n: u64| (1..=MAX_SAFE_INTEGER).contains(&n);

    // The 201's comment id.
    let plain_id = member("id")
        .and_then(Value::as_u64)
        .filter(|&n| in_range(n));
    match gitea::posted_comment_id(bytes) {
        Ok(id) => assert_eq!(Some(id), plain_id, "an id the JSON does not hold"),
        Err(seen) => {
            assert_eq!(plain_id, None, "a usable id refused");
            one_safe_line(&format!(
                "the review request comment on issue #12 may or may not exist (201 with {seen}, not a positive integer comment id)"
            ));
        }
    }

    // GET /user's login, and how a message would name another one.
    let plain_login = member("login").and_then(Value::as_str);
    let login = gitea::user_login(bytes);
    assert_eq!(login.as_deref(), plain_login);
    if let Some(name) = login.as_deref().and_then(gitea::quoted) {
        // As the host words it, with the seat's login and the token file around it.
        one_safe_line(&format!(
            "the token in /home/x/agents/darkwing/secrets/gitea-mosaicstack-darkwing.token belongs to Gitea user {name}, not darkwing; use darkwing's own token file"
        ));
        assert!(name.len() <= 34, "a long quote");
    }

    // The fetched comment, asked for by its own id and by another.
    for asked in [plain_id.unwrap_or(1), 7] {
        match gitea::fetched_comment(bytes, asked) {
            Ok(c) => {
                assert_eq!(c.id, asked);
                assert_eq!(Some(c.id), plain_id);
                assert_eq!(
                    Some(c.body.as_str()),
                    member("body").and_then(Value::as_str)
                );
                let plain_login = member("user")
                    .and_then(|u| u.get("login"))
                    .and_then(Value::as_str);
                assert_eq!(Some(c.login.as_str()), plain_login);
                let url = member("issue_url").and_then(Value::as_str).unwrap();
                assert_eq!(c.issue, gitea::issue_of(url));
                assert_eq!(c.issue.is_none(), url.is_empty());
            }
            Err(e) => {
                if let CommentError::OtherId(id) = e {
                    assert!(in_range(id) && id != asked && Some(id) == plain_id);
                }
                one_safe_line(&format!(
                    "Gitea's answer for comment {asked} is not usable ({e}); try again or check the instance"
                ));
            }
        }
    }

    // The issue number of a web URL: the text after the last `/issues/`, in range.
    if let Ok(url) = core::str::from_utf8(bytes)
        && let Some(n) = gitea::issue_of(url)
    {
        assert!(in_range(n));
        let (head, number) = url.rsplit_once('/').unwrap();
        assert!(head.ends_with("/issues"));
        assert_eq!(number.trim_start_matches('0'), n.to_string());
    }
}

/// A message fit for stderr: one line of printable text that holds nothing credential-like.
fn one_safe_line(text: &str) {
    assert!(!text.is_empty() && text.len() <= 400, "{text:?}");
    assert!(!text.chars().any(char::is_control), "{text:?}");
    assert!(invisible(text).is_none(), "{text:?}");
    assert!(credential(text).is_none(), "{text:?}");
}
