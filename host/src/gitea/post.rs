//! Posting the review request comment: the token checks, `GET /user` naming the seat's login,
//! `GET` of the issue (a real Gitea answers a comment POST to a missing issue with 500, which
//! would read as uncertain), then one POST, classified by the contract (posted exit 0, failed
//! exit 1, uncertain exit 3).
//! Each outcome carries a fixed `detail` for the queue log and a one-line message for stderr.

use super::GiteaConfig;
use super::exchange::{Answer, Exchange, Transport};
use mosaic_queue_core::{ReviewRequest, gitea};

use crate::creds::read_token;
use crate::exit::Exit;
use crate::io::seams;

/// What the transport said about one review request comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PostOutcome {
    /// 201 with a numeric comment id.
    Posted { status: u16, comment_id: u64 },
    /// Nothing was posted: a pre-send check failed or Gitea rejected the POST (exit 1).
    Failed {
        status: Option<u16>,
        detail: &'static str,
        message: String,
    },
    /// The comment may or may not exist (exit 3).
    Uncertain {
        status: Option<u16>,
        detail: &'static str,
        message: String,
    },
}

impl PostOutcome {
    /// How a request with this outcome ends: `None` when it was posted.
    pub fn exit(&self) -> Option<Exit> {
        match self {
            PostOutcome::Posted { .. } => None,
            PostOutcome::Failed { .. } => Some(Exit::Failed),
            PostOutcome::Uncertain { .. } => Some(Exit::Uncertain),
        }
    }
}

/// The token scopes a review request needs (Gitea 1.19 and later): GET user, GET issue, POST.
pub const SCOPES: &str = "read:user, read:issue and write:issue";

/// Carries out the request the core returned: the configuration from the environment, then
/// one `post_comment`. The kill points on either side of it are where a crash leaves the
/// attempt requesting, with or without a comment.
pub fn post_request(request: &ReviewRequest) -> PostOutcome {
    seams::step("request-sending");
    let posted = match GiteaConfig::from_env() {
        Ok(cfg) => post_comment(&cfg, &request.login, request.issue, &request.body),
        Err(e) => failed(None, "config-invalid", e.to_string()),
    };
    seams::step("request-posted");
    posted
}

/// Statuses that say Gitea refused the comment, so it does not exist.
const REJECTED: [u16; 5] = [400, 401, 403, 404, 422];

/// Posts `body` as a comment on `issue`, as `login`, within `cfg.deadline`.
pub fn post_comment(cfg: &GiteaConfig, login: &str, issue: u64, body: &str) -> PostOutcome {
    if let Err(e) = cfg.check() {
        return failed(None, "config-invalid", e.to_string());
    }
    if issue == 0 {
        return failed(
            None,
            "issue-invalid",
            "issue 0 does not exist; name the round's issue".into(),
        );
    }
    let token = match read_token(&cfg.credential_file, login) {
        Ok(t) => t,
        Err(e) => return failed(None, "credentials-refused", e.to_string()),
    };
    let exchange = Exchange::start(cfg.deadline, &token);
    drop(token);
    let exchange = match exchange {
        Ok(x) => x,
        Err(_) => {
            return failed(
                None,
                "credentials-refused",
                "the token file's token cannot be sent in a header".into(),
            );
        }
    };

    let user_url = cfg.api("/user");
    if let Some(refusal) = check_user(&exchange, &user_url, login, cfg) {
        return refusal;
    }
    if exchange.remaining().is_none() {
        return failed(
            None,
            "deadline-before-post",
            format!(
                "the {} ms deadline passed before the POST; nothing was posted, retry with a new op when Gitea answers faster",
                cfg.deadline.as_millis()
            ),
        );
    }

    if let Some(refusal) = check_issue(&exchange, issue, cfg) {
        return refusal;
    }
    if exchange.remaining().is_none() {
        return failed(
            None,
            "deadline-before-post",
            format!(
                "the {} ms deadline passed before the POST; nothing was posted, retry with a new op when Gitea answers faster",
                cfg.deadline.as_millis()
            ),
        );
    }

    let url = cfg.repo_api(&format!("/issues/{issue}/comments"));
    let Ok(json) = serde_json::to_vec(&serde_json::json!({ "body": body })) else {
        return failed(
            None,
            "body-invalid",
            "the comment body cannot be sent as JSON".into(),
        );
    };
    classify_post(exchange.post_json(&url, &json), issue, cfg)
}

/// `None` when Gitea says the token is `login`'s; otherwise the Failed outcome.
fn check_user(
    exchange: &Exchange,
    url: &str,
    login: &str,
    cfg: &GiteaConfig,
) -> Option<PostOutcome> {
    let file = cfg.credential_file.display();
    let answer = match exchange.get(url) {
        Ok(a) => a,
        Err(t) => return Some(user_transport(None, t, cfg)),
    };
    let Answer { status, body } = answer;
    match status {
        200 => {}
        401 => {
            return Some(failed(
                Some(status),
                "user-unauthorized",
                format!(
                    "Gitea answered 401 to GET /api/v1/user: it does not accept the token in {file}; put there a token of {login}'s with the scopes {SCOPES}"
                ),
            ));
        }
        403 => {
            return Some(failed(
                Some(status),
                "user-unauthorized",
                format!(
                    "Gitea answered 403 to GET /api/v1/user: the token in {file} lacks the read:user scope; give {login}'s token the scopes {SCOPES}"
                ),
            ));
        }
        _ => {
            return Some(failed(
                Some(status),
                "user-status",
                format!(
                    "Gitea answered {status} to GET /api/v1/user; nothing was posted, check the instance and retry with a new op"
                ),
            ));
        }
    }
    let body = match body {
        Ok(b) => b,
        Err(t) => return Some(user_transport(Some(status), t, cfg)),
    };
    match gitea::user_login(&body) {
        Some(l) if l == login => None,
        Some(other) => Some(failed(
            Some(status),
            "user-other-login",
            match gitea::quoted(&other) {
                Some(name) => format!(
                    "the token in {file} belongs to Gitea user {name}, not {login}; use {login}'s own token file"
                ),
                None => format!(
                    "the token in {file} belongs to another Gitea user than {login}; use {login}'s own token file"
                ),
            },
        )),
        None => Some(failed(
            Some(status),
            "user-unparsable",
            "Gitea's answer to GET /api/v1/user names no login; nothing was posted, check MOSAIC_GITEA_URL".into(),
        )),
    }
}

/// `None` when the issue exists; otherwise the Failed outcome (nothing was posted).
fn check_issue(exchange: &Exchange, issue: u64, cfg: &GiteaConfig) -> Option<PostOutcome> {
    let path = format!(
        "GET /api/v1/repos/{}/{}/issues/{issue}",
        cfg.owner, cfg.repo
    );
    let url = cfg.repo_api(&format!("/issues/{issue}"));
    let status = match exchange.get(&url) {
        Ok(answer) => answer.status,
        Err(Transport::Deadline) => {
            return Some(failed(
                None,
                "issue-deadline",
                format!(
                    "{path} did not finish within {} ms; nothing was posted, retry with a new op when Gitea answers",
                    cfg.deadline.as_millis()
                ),
            ));
        }
        Err(Transport::Failed(why)) => {
            return Some(failed(
                None,
                "issue-transport",
                format!(
                    "no usable answer from Gitea at {} to {path} ({why}); nothing was posted, check MOSAIC_GITEA_URL and retry with a new op",
                    cfg.url
                ),
            ));
        }
    };
    let (detail, message) = match status {
        200 => return None,
        404 => (
            "issue-not-found",
            format!(
                "issue #{issue} does not exist in {}/{} ({path} answered 404); nothing was posted, name one of the row's issues that exists with --issue N and a new op",
                cfg.owner, cfg.repo
            ),
        ),
        401 | 403 => (
            "issue-unauthorized",
            format!(
                "Gitea answered {status} to {path}: the token lacks the read:issue scope or may not read this repository; give the token the scopes {SCOPES}, then retry with a new op"
            ),
        ),
        _ => (
            "issue-status",
            format!(
                "Gitea answered {status} to {path}; nothing was posted, check the instance and retry with a new op"
            ),
        ),
    };
    Some(failed(Some(status), detail, message))
}

fn user_transport(status: Option<u16>, t: Transport, cfg: &GiteaConfig) -> PostOutcome {
    match t {
        Transport::Deadline => failed(
            status,
            "user-deadline",
            format!(
                "GET /api/v1/user did not finish within {} ms; nothing was posted, retry with a new op when Gitea answers",
                cfg.deadline.as_millis()
            ),
        ),
        Transport::Failed(why) => failed(
            status,
            "user-transport",
            format!(
                "no usable answer from Gitea at {} to GET /api/v1/user ({why}); nothing was posted, check MOSAIC_GITEA_URL and retry with a new op",
                cfg.url
            ),
        ),
    }
}

/// The contract's classification of the POST's answer.
fn classify_post(sent: Result<Answer, Transport>, issue: u64, cfg: &GiteaConfig) -> PostOutcome {
    let answer = match sent {
        Ok(a) => a,
        Err(Transport::Deadline) => {
            let why = format!("no answer within {} ms", cfg.deadline.as_millis());
            return uncertain(None, "post-deadline", issue, &why);
        }
        Err(Transport::Failed(why)) => return uncertain(None, "post-transport", issue, &why),
    };
    let status = answer.status;
    if status == 403 {
        return failed(
            Some(status),
            "post-rejected",
            format!(
                "Gitea refused the comment on issue #{issue} with 403: the token lacks the write:issue scope or may not comment on this repository; nothing was posted, give the token the scopes {SCOPES}, then run review request"
            ),
        );
    }
    if REJECTED.contains(&status) {
        return failed(
            Some(status),
            "post-rejected",
            format!(
                "Gitea refused the comment on issue #{issue} with {status}; nothing was posted, fix the cause (token scope, issue, repository) and run review request"
            ),
        );
    }
    if status != 201 {
        let why = format!("Gitea answered {status}, not 201");
        return uncertain(Some(status), "post-status", issue, &why);
    }
    match answer.body {
        Ok(bytes) => match gitea::posted_comment_id(&bytes) {
            Ok(id) => PostOutcome::Posted {
                status,
                comment_id: id,
            },
            Err(seen) => uncertain(
                Some(status),
                "post-created-without-id",
                issue,
                &format!("201 with {seen}, not a positive integer comment id"),
            ),
        },
        Err(Transport::Deadline) => uncertain(
            Some(status),
            "post-deadline",
            issue,
            "201, but the body did not arrive before the deadline",
        ),
        Err(Transport::Failed(why)) => {
            let why = format!("201, but the body was cut off: {why}");
            uncertain(Some(status), "post-transport", issue, &why)
        }
    }
}

fn failed(status: Option<u16>, detail: &'static str, message: String) -> PostOutcome {
    PostOutcome::Failed {
        status,
        detail,
        message,
    }
}

fn uncertain(status: Option<u16>, detail: &'static str, issue: u64, why: &str) -> PostOutcome {
    PostOutcome::Uncertain {
        status,
        detail,
        message: format!(
            "the review request comment on issue #{issue} may or may not exist ({why})"
        ),
    }
}
