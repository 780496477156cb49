//! `review resolve ID OP --comment N`: a person found the comment of an attempt left
//! requesting, uncertain or in conflict. The comment is fetched and checked against the
//! attempt before anything is logged; the entry is then one change through the store session.

use mosaic_queue_core::{Command, ResolveArgs, comment};

use crate::actor::actor;
use crate::creds::login_of;
use crate::gitea::{self, GiteaConfig};
use crate::reply::{Failure, Replied, Reply, acknowledge};
use crate::store::session::{self, Session};
use crate::store::world::World;
use crate::values::check_op;

/// Resolves attempt `attempt` of row `id` with comment `comment_id`, as op `op` by `by` (else
/// `$MOSAIC_AGENT_NAME`). A retry of a recorded resolve fetches nothing.
pub fn resolve(
    id: u64,
    attempt: &str,
    comment_id: u64,
    op: &str,
    by: Option<&str>,
    reply: &mut dyn Reply,
) -> Replied {
    check_op(op)?;
    let by = actor(by, reply)?;
    let paths = session::locate()?;
    let args = ResolveArgs {
        id,
        attempt: String::from(attempt),
        comment: comment_id,
    };
    // The verified queue as it stands, read under the lock and released at once: the comment
    // is fetched outside it.
    let held = Session::begin(&paths, Some("review-read"), "read")?;
    let current = held.load()?.queue;
    // An op a cut archived is answered from its archive by the change below: no fetch.
    let archived = match current.maybe_archived(op).is_empty() {
        true => false,
        false => crate::store::cut::history::holder::<session::SessionError>(
            &crate::io::RealIo,
            &paths,
            &current,
            op,
        )?
        .is_some(),
    };
    held.release()?;
    if current.entry_for_op(op).is_none() && !archived {
        // What the core would refuse the entry for (actor, row, attempt state) first, so a
        // resolve that would be refused anyway costs no network call. Only the session's
        // change below decides and writes.
        current.check_resolve(&args, op, &by)?;
        let row = current.state().row(id)?;
        let cfg = GiteaConfig::from_env().map_err(|e| Failure::new(e.exit(), e.to_string()))?;
        let fetched = gitea::fetch_comment(&cfg, login_of(&by), comment_id).map_err(|e| {
            Failure::new(e.exit(), format!("cannot fetch comment {comment_id}: {e}"))
        })?;
        let facts = comment::Fetched {
            id: fetched.id,
            issue: fetched.issue,
            login: &fetched.login,
            body: &fetched.body,
        };
        comment::check(row, attempt, &facts)?;
    }
    let command = Command::ReviewResolve(args);
    session::change(
        World::real(),
        &paths,
        &command,
        op,
        &by,
        acknowledge(reply, op),
    )
    .map(drop)
}
