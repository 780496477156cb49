//! The command line: it parses (`grammar`, `args`, `usage`, `help`), calls the one function
//! below it that answers the verb, and prints (`output`). Each answer, with its JSON document
//! and its failure, is built by code every face shares (`crate::reply` and the verbs' own
//! modules); nothing here reads or writes the queue. The dispatcher imports the files of
//! this folder, never the other way.

mod args;
mod demo;
mod grammar;
pub mod help;
pub mod output;
pub mod usage;

use crate::reply::{Failure, Replied, Reply};
use crate::{change, commit, doctor, guard, read, recovery, review, snapshot};

pub use self::grammar::{Change, Cli, ReviewVerb, Verb};

/// Runs a parsed command, giving its answer to `reply`.
pub fn run(cli: Cli, reply: &mut dyn Reply) -> Replied {
    match cli.verb {
        Verb::List { stale: Some(span) } => read::stale::list_stale(&span, reply),
        Verb::List { stale: None } => read::rows::list(reply),
        Verb::Show { id } => read::rows::show(id, reply),
        Verb::Next {
            seat,
            explain: true,
        } => read::explain::next_explained(seat, reply),
        Verb::Next { seat, .. } => read::rows::next(seat, reply),
        Verb::Take {
            lease,
            no_reclaim,
            change,
        } => {
            let take = mosaic_queue_core::TakeCmd {
                lease,
                no_reclaim,
                ..Default::default()
            };
            change::take(&take, &change.op, change.by.as_deref(), reply)
        }
        Verb::Heartbeat { by } => change::heartbeat::heartbeat(by.as_deref(), reply),
        Verb::Prime { seat } => read::prime::prime(seat, reply),
        Verb::Wait {
            id,
            status,
            revision_after,
            timeout,
        } => {
            let until = read::wait::until(id, &status, revision_after)?;
            read::wait::wait(&until, read::wait::timeout(timeout.as_deref())?, reply)
        }
        Verb::Log { id, limit } => {
            let limit = limit.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
            read::log::log(id, limit, reply)
        }
        Verb::Genesis { map, change } => {
            change::genesis::genesis(&map, &change.op, change.by.as_deref(), reply)
        }
        Verb::AcceptHistory {
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
        Verb::Archive {
            before,
            yes,
            change,
        } => change::archive::archive(before, yes, &change.op, change.by.as_deref(), reply),
        Verb::Review { verb } => run_review(verb, reply),
        other => run_other(other, reply),
    }
}

/// The review verbs: resolve fetches its comment first, verify-commit only reads, the others
/// are plain changes.
fn run_review(verb: ReviewVerb, reply: &mut dyn Reply) -> Replied {
    match verb {
        ReviewVerb::VerifyCommit { id, reference } => {
            review::verify_commit::verify_commit(id, &reference, reply)
        }
        ReviewVerb::Resolve {
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
            let (command, change) = args::command(Verb::Review { verb: other })?;
            change::change(&command, &change.op, change.by.as_deref(), reply)
        }
    }
}

/// The checks, recovery, git and setting-up verbs, and the plain changes (add, move, release,
/// assign, note, set).
fn run_other(verb: Verb, reply: &mut dyn Reply) -> Replied {
    match verb {
        Verb::Verify {
            snapshot: Some(dir),
            base,
            ..
        } => snapshot::verify::verify_snapshot(&dir, base.as_deref(), reply),
        Verb::Verify { current, full, .. } => recovery::verify::verify(current, full, reply),
        Verb::Render { check } => recovery::verify::render(check, reply),
        Verb::Sync { op } => recovery::sync::sync(op.as_deref(), reply),
        Verb::Unlock { check_gate } => recovery::unlock::unlock(check_gate, reply),
        Verb::Snapshot { out } => snapshot::copy::snapshot(&out, reply),
        Verb::Commit {
            message,
            genesis,
            by,
        } => commit::commit(&message, genesis, by.as_deref(), reply),
        Verb::Doctor => doctor::run::doctor(reply),
        Verb::Guard => guard::guard(),
        Verb::InstallHook { by } => guard::install_hook(by.as_deref(), reply),
        Verb::MapCheck { map } => read::map_check::map_check(&map, reply),
        Verb::Demo => crate::demo::demo(&demo::run_step, reply),
        Verb::Completions { shell } => help::completions(shell, reply),
        Verb::Man { verb } => help::man(&verb, reply),
        // The faces that serve are started by the binary itself (main.rs), beside this
        // dispatcher: a verb run inside a server never starts another.
        Verb::Mcp { .. } => Err(Failure::usage(
            "mcp starts a server from the command line; it is not a verb a server runs",
        )),
        Verb::Board { .. } => Err(Failure::usage(
            "board starts a server from the command line; it is not a verb a server runs",
        )),
        Verb::Gate(_) => Err(Failure::usage(
            "gate runs from an authorized_keys line; it is not a verb a server runs",
        )),
        change_verb => {
            let (command, change) = args::command(change_verb)?;
            change::change(&command, &change.op, change.by.as_deref(), reply)
        }
    }
}
