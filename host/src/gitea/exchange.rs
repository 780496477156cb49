//! One exchange with Gitea: a ureq agent that follows no redirects, keeps no idle connection,
//! treats every status as an answer, and spends one deadline across all of its requests.
//! `post` and `fetch` call it; the `Authorization` value is marked sensitive for ureq.

use std::time::{Duration, Instant};

use ureq::Agent;
use ureq::http::HeaderValue;

use crate::creds::Token;

/// Responses larger than this are not a Comment or a User; reading stops there.
const MAX_BODY: u64 = 1 << 20;

/// Why no complete answer arrived.
pub(super) enum Transport {
    /// The deadline passed (before or during the request).
    Deadline,
    /// Anything else: refused connection, TLS, protocol, reset. The text is ureq's.
    Failed(String),
}

/// A status line and, if it could be read within the budget, the body.
pub(super) struct Answer {
    pub status: u16,
    pub body: Result<Vec<u8>, Transport>,
}

pub(super) struct Exchange {
    agent: Agent,
    until: Instant,
    auth: HeaderValue,
}

impl Exchange {
    /// Starts the clock: every request made through this exchange shares `deadline`.
    pub fn start(deadline: Duration, token: &Token) -> Result<Exchange, Transport> {
        let started = Instant::now();
        let secret = token.authorization();
        let mut auth = HeaderValue::from_str(secret.as_str())
            .map_err(|_| Transport::Failed("the token cannot be sent in a header".into()))?;
        auth.set_sensitive(true);
        let agent = Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            // A fresh connection per request: a pooled one the server already closed would
            // turn a POST into a transport error that says nothing about the comment.
            .max_idle_connections(0)
            .max_idle_connections_per_host(0)
            .user_agent(concat!("mosaic-queue/", env!("CARGO_PKG_VERSION")))
            .accept("application/json")
            .build()
            .new_agent();
        Ok(Exchange {
            agent,
            until: started + deadline,
            auth,
        })
    }

    /// What is left of the budget; `None` once it is spent.
    pub fn remaining(&self) -> Option<Duration> {
        self.until
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
    }

    pub fn get(&self, url: &str) -> Result<Answer, Transport> {
        let left = self.remaining().ok_or(Transport::Deadline)?;
        let sent = self
            .agent
            .get(url)
            .header("Authorization", self.auth.clone())
            .config()
            .timeout_global(Some(left))
            .build()
            .call();
        self.answer(sent)
    }

    pub fn post_json(&self, url: &str, json: &[u8]) -> Result<Answer, Transport> {
        let left = self.remaining().ok_or(Transport::Deadline)?;
        let sent = self
            .agent
            .post(url)
            .header("Authorization", self.auth.clone())
            .header("Content-Type", "application/json")
            .config()
            .timeout_global(Some(left))
            .build()
            .send(json);
        self.answer(sent)
    }

    fn answer(
        &self,
        sent: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
    ) -> Result<Answer, Transport> {
        let mut response = sent.map_err(|e| self.transport(e))?;
        let status = response.status().as_u16();
        let body = response
            .body_mut()
            .with_config()
            .limit(MAX_BODY)
            .read_to_vec()
            .map_err(|e| self.transport(e));
        Ok(Answer { status, body })
    }

    /// A spent budget explains any failure, whatever shape ureq gave the timeout.
    fn transport(&self, e: ureq::Error) -> Transport {
        match e {
            ureq::Error::Timeout(_) => Transport::Deadline,
            // Not read past the cap: no user or comment is that large (docs/limits.md).
            ureq::Error::BodyExceedsLimit(_) => Transport::Failed(format!(
                "its body is larger than the {} cap for a Gitea answer",
                crate::io::size_text(MAX_BODY)
            )),
            _ if self.remaining().is_none() => Transport::Deadline,
            other => Transport::Failed(one_line(&other.to_string())),
        }
    }
}

/// Error text from a library, made safe for a one-line message.
fn one_line(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(200)
        .collect();
    flat.trim().to_owned()
}
