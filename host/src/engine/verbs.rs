//! Each request to the one function of the modules below that answers it: the reads, the
//! changes (through `command` to the core's `Command`), the review verbs, recovery, the
//! snapshot, the commit procedure and the checks; the reads and changes run `At` the world
//! given, the rest in the real one (`run_other` says which and why).

use mosaic_queue_core::TakeCmd;

use super::command;
use super::request::{Request, Review};
use crate::reply::{Failure, Replied, Reply};
use crate::store::session::At;
use crate::{change, commit, doctor, guard, read, recovery, replication, review, snapshot};

/// Runs an admitted request `at` its world and checkout.
pub fn run(request: Request, at: At<'_>, reply: &mut dyn Reply) -> Replied {
    match request {
        Request::List => read::rows::list(at, reply),
        Request::Stale { span } => read::stale::list_stale(&span, reply),
        Request::Show { id } => read::rows::show(at, id, reply),
        Request::Next {
            seat,
            explain: true,
        } => read::explain::next_explained(at, seat, reply),
        Request::Next { seat, .. } => read::rows::next(at, seat, reply),
        Request::Prime { seat } => read::prime::prime(seat, reply),
        Request::Wait {
            id,
            status,
            revision_after,
            timeout,
        } => {
            let until = read::wait::until(id, &status, revision_after)?;
            read::wait::wait(&until, read::wait::timeout(timeout.as_deref())?, reply)
        }
        Request::Log { id, limit } => {
            let limit = limit.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
            read::log::log(id, limit, reply)
        }
        Request::Take {
            lease,
            no_reclaim,
            change,
        } => {
            let take = TakeCmd {
                lease,
                no_reclaim,
                ..Default::default()
            };
            change::take(at, &take, &change.op, change.by.as_deref(), reply)
        }
        Request::Heartbeat { by } => change::heartbeat::heartbeat(at, by.as_deref(), reply),
        Request::Genesis { map, change } => {
            change::genesis::genesis(&map, &change.op, change.by.as_deref(), reply)
        }
        Request::AcceptHistory {
            reason,
            yes,
            change,
        } => recovery::accept_history::accept_history(
            &reason,
            yes,
            &change.op,
            change.by.as_deref(),
            reply,
        ),
        Request::Archive {
            before,
            yes,
            change,
        } => change::cut::archive(before, yes, &change.op, change.by.as_deref(), reply),
        Request::Adopt {
            from,
            reference,
            git_timeout,
            change,
        } => {
            let deadline = std::time::Duration::from_secs(u64::from(git_timeout));
            let target =
                replication::target(&from, &reference, deadline).map_err(Failure::usage)?;
            crate::values::check_op(&change.op)?;
            let by = crate::actor::actor(change.by.as_deref(), reply)?;
            replication::adopt(&target, &change.op, &by, reply)
        }
        Request::Review(review) => run_review(review, at, reply),
        other => run_other(other, at, reply),
    }
}

/// The review verbs: resolve fetches its comment first, verify-commit only reads, the others
/// are plain changes. Resolve (it fetches from Gitea) and verify-commit (it runs git) run in
/// the real world; a request posts to Gitea, its entries are written `at` the world given.
fn run_review(review: Review, at: At<'_>, reply: &mut dyn Reply) -> Replied {
    match review {
        Review::VerifyCommit { id, reference } => {
            review::verify_commit::verify_commit(id, &reference, reply)
        }
        Review::Resolve {
            id,
            attempt,
            comment,
            change,
        } => review::resolve::resolve(
            id,
            &attempt,
            comment,
            &change.op,
            change.by.as_deref(),
            reply,
        ),
        other => {
            let (command, change) = command::command(Request::Review(other))?;
            change::change(at, &command, &change.op, change.by.as_deref(), reply)
        }
    }
}

/// The checks, recovery, git and setting-up verbs, and the plain changes (add, move, release,
/// assign, note, set, lease-default, reclaim), which run `at` the world given. The others run
/// in the real world, as do stale, wait, prime, log, genesis, accept-history and archive above
/// (not yet threaded): verify-snapshot needs no checkout and reads the directory named;
/// doctor reports on a broken checkout rather than refusing; unlock, sync, verify and render
/// keep their own order of refusals; snapshot writes the directory named; commit, guard and
/// install-hook run git; map-check reads the file named.
fn run_other(request: Request, at: At<'_>, reply: &mut dyn Reply) -> Replied {
    match request {
        Request::VerifySnapshot { dir, base } => {
            snapshot::verify::verify_snapshot(&dir, base.as_deref(), reply)
        }
        Request::Verify { current, full } => recovery::verify::verify(current, full, reply),
        Request::Render { check } => recovery::verify::render(check, reply),
        Request::Sync { op } => recovery::sync::sync(op.as_deref(), reply),
        Request::Unlock { check_gate } => recovery::unlock::unlock(check_gate, reply),
        Request::Snapshot { out } => snapshot::copy::snapshot(&out, reply),
        Request::Commit {
            message,
            genesis,
            by,
        } => commit::commit(&message, genesis, by.as_deref(), reply),
        Request::Doctor => doctor::run::doctor(reply),
        Request::Guard => guard::guard(),
        Request::InstallHook { by } => guard::install_hook(by.as_deref(), reply),
        Request::MapCheck { map } => read::map_check::map_check(&map, reply),
        change_request => {
            let (command, change) = command::command(change_request)?;
            change::change(at, &command, &change.op, change.by.as_deref(), reply)
        }
    }
}
