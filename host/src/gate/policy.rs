//! What a remote seat may run, judged on the parsed command before anything is read: the verbs
//! that stay on the queue host, the actor pinned to the key's seat, the verbs the contract
//! keeps for the lead or for jason and sage, and no argument that names a file on the host.

use mosaic_queue_core::{LEAD, is_privileged};

use super::error::GateError;
use crate::cli::{Cli, ReviewVerb, Verb};

/// The longest remote `wait`, in seconds: the MCP server's bound, for the same reason.
pub const MAX_WAIT_SECS: u32 = crate::mcp::tools::MAX_WAIT_SECS;

/// Who the contract lets run a verb.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Who {
    Anyone,
    LeadOrPrivileged,
    Privileged,
}

impl Who {
    fn of(verb: &Verb) -> Who {
        match verb.name() {
            "add" | "assign" | "commit" | "archive" | "lease-default" | "reclaim" => {
                Who::LeadOrPrivileged
            }
            "genesis" | "accept-history" | "review abandon" | "install-hook" => Who::Privileged,
            _ => Who::Anyone,
        }
    }

    fn admits(self, seat: &str) -> bool {
        match self {
            Who::Anyone => true,
            Who::LeadOrPrivileged => seat == LEAD || is_privileged(seat),
            Who::Privileged => is_privileged(seat),
        }
    }

    fn named(self) -> &'static str {
        match self {
            Who::Anyone => "anyone",
            Who::LeadOrPrivileged => "the lead, jason or sage",
            Who::Privileged => "jason or sage",
        }
    }
}

/// Checks `cli` for `seat`. `names_file(value)` says whether `value`, taken from the
/// checkout's top as the verb would take it, names something there that is not a directory.
pub fn check(seat: &str, cli: &Cli, names_file: &dyn Fn(&str) -> bool) -> Result<(), GateError> {
    let verb = &cli.verb;
    if let Some((given, flag)) = actor(verb).filter(|(given, _)| *given != seat) {
        return Err(GateError::Actor {
            seat: seat.to_owned(),
            given: given.to_owned(),
            flag,
        });
    }
    let who = Who::of(verb);
    if !who.admits(seat) {
        return Err(GateError::Privileged {
            verb: verb.name(),
            who: who.named(),
            seat: seat.to_owned(),
        });
    }
    if let Some(why) = local_only(verb) {
        return Err(GateError::Local {
            verb: verb.name(),
            why,
        });
    }
    arguments(verb, names_file)
}

/// The actor a command names for itself, if it names one, and the flag that names it (`--by`,
/// or `mcp --seat`).
fn actor(verb: &Verb) -> Option<(&str, &'static str)> {
    let by = match verb {
        Verb::Add { change, .. }
        | Verb::Move { change, .. }
        | Verb::Take { change, .. }
        | Verb::LeaseDefault { change, .. }
        | Verb::Reclaim { change, .. }
        | Verb::Release { change, .. }
        | Verb::Assign { change, .. }
        | Verb::Note { change, .. }
        | Verb::Set { change, .. }
        | Verb::Genesis { change, .. }
        | Verb::AcceptHistory { change, .. }
        | Verb::Archive { change, .. } => &change.by,
        Verb::Review { verb } => match verb {
            ReviewVerb::Request { change, .. }
            | ReviewVerb::Resolve { change, .. }
            | ReviewVerb::Abandon { change, .. }
            | ReviewVerb::Record { change, .. } => &change.by,
            ReviewVerb::VerifyCommit { .. } => return None,
        },
        Verb::Commit { by, .. } | Verb::InstallHook { by } | Verb::Heartbeat { by } => by,
        Verb::Mcp { seat } => return seat.as_deref().map(|seat| (seat, "--seat")),
        _ => return None,
    };
    by.as_deref().map(|by| (by, "--by"))
}

/// Why a verb is not run for a remote seat: it reads or writes files on the queue host that
/// the seat names, or it is about the machine it runs on.
fn local_only(verb: &Verb) -> Option<&'static str> {
    Some(match verb {
        Verb::Genesis { .. } => {
            "reads its migration map from a file on the queue host; run it there"
        }
        Verb::MapCheck { .. } => {
            "reads the migration map from a file on the queue host; run it there"
        }
        Verb::Snapshot { .. } => {
            "writes files on the queue host; read the queue with list --json, or run it there"
        }
        Verb::Verify {
            snapshot: Some(_), ..
        } => {
            "reads files on the queue host; verify --snapshot needs no checkout, so run it where the snapshot is"
        }
        Verb::Guard => "runs inside git commit on the queue host; it is not run by hand",
        Verb::Demo => "builds a scratch checkout for whoever runs it; run it on your own machine",
        Verb::Completions { .. } | Verb::Man { .. } => {
            "prints for the machine that runs it; run it where mosaic-queue is installed"
        }
        Verb::Gate(_) => "is what this key already runs; send the verb itself",
        Verb::Board { .. } => {
            "serves web pages on the queue host's loopback; run it there and reach it with ssh -L"
        }
        _ => return None,
    })
}

/// The arguments that would reach a file or git as an option, and a wait with no end.
fn arguments(verb: &Verb, names_file: &dyn Fn(&str) -> bool) -> Result<(), GateError> {
    match verb {
        Verb::Move {
            candidate: Some(given),
            ..
        } => candidate(given, names_file),
        Verb::Review {
            verb: ReviewVerb::VerifyCommit { reference, .. },
        } => not_an_option("review verify-commit", reference),
        Verb::Wait { timeout, .. } => bounded(timeout.as_deref()),
        _ => Ok(()),
    }
}

/// A remote `--candidate` names a commit: never a path (absolute, or up out of the
/// checkout), never a file in the checkout, never an option.
fn candidate(given: &str, names_file: &dyn Fn(&str) -> bool) -> Result<(), GateError> {
    not_an_option("--candidate", given)?;
    let escapes = given.starts_with('/') || given.split('/').any(|part| part == "..");
    if escapes || names_file(given) {
        return Err(GateError::File(given.to_owned()));
    }
    Ok(())
}

fn not_an_option(flag: &'static str, value: &str) -> Result<(), GateError> {
    if value.starts_with('-') {
        return Err(GateError::Dash {
            flag,
            value: value.to_owned(),
        });
    }
    Ok(())
}

/// A timeout the verb itself would refuse is left to it (it waits for nothing then).
fn bounded(timeout: Option<&str>) -> Result<(), GateError> {
    let max = MAX_WAIT_SECS;
    match timeout.map(str::parse::<f64>) {
        None => Err(GateError::Unbounded { max }),
        Some(Ok(s)) if s.is_finite() && s > f64::from(max) => Err(GateError::Unbounded { max }),
        Some(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests;
