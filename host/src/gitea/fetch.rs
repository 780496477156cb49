//! Fetching one comment by its instance-global id, for `review resolve`: only a 200 with a
//! parsable Comment is proof that it exists. The caller decides whether it is the right one
//! (issue, author, markers); this module only reports what Gitea holds.

use mosaic_queue_core::gitea;
pub use mosaic_queue_core::gitea::FetchedComment;

use super::exchange::{Exchange, Transport};
use super::{GiteaConfig, GiteaError};
use crate::creds::read_token;

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

/// The fields resolve needs from a Comment body (the core reads them); other fields are ignored.
fn parse_comment(bytes: &[u8], asked: u64) -> Result<FetchedComment, GiteaError> {
    gitea::fetched_comment(bytes, asked).map_err(|e| GiteaError::Unparsable(asked, e.to_string()))
}
