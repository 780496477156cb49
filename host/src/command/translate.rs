//! A parsed command line as the engine's request: each verb's arguments moved into their
//! request as the grammar typed them. The faces' own verbs (`mcp`, `board`, `gate`, `demo`,
//! `completions`, `man`) are no request; they come back for the face to serve or print.

use super::grammar::{Change as Flags, Replica, ReviewVerb, Verb};
use crate::engine::{Candidate, Change, MoveText, NewRowText, Request, Review};

/// What a command line asks: a request for the engine, or one of the faces' own verbs.
#[derive(Debug)]
pub enum Asked {
    Request(Request),
    Own(Verb),
}

fn change(flags: Flags) -> Change {
    Change {
        op: flags.op,
        by: flags.by,
        replication_timeout: flags.replication_timeout,
    }
}

/// The request `verb` asks for.
pub fn translate(verb: Verb) -> Asked {
    Asked::Request(match verb {
        Verb::List { stale: None } => Request::List,
        Verb::List { stale: Some(span) } => Request::Stale { span },
        Verb::Show { id } => Request::Show { id },
        Verb::Next { seat, explain } => Request::Next { seat, explain },
        Verb::Wait {
            id,
            status,
            revision_after,
            timeout,
        } => Request::Wait {
            id,
            status,
            revision_after,
            timeout,
        },
        Verb::Prime { seat } => Request::Prime { seat },
        Verb::Log { id, limit } => Request::Log { id, limit },
        Verb::Take {
            lease,
            no_reclaim,
            change: flags,
        } => Request::Take {
            lease,
            no_reclaim,
            change: change(flags),
        },
        Verb::Heartbeat { by } => Request::Heartbeat { by },
        Verb::Review { verb } => Request::Review(review(verb)),
        other => return changes(other),
    })
}

/// The plain changes: add, move, release, assign, note, set, lease-default, reclaim.
fn changes(verb: Verb) -> Asked {
    Asked::Request(match verb {
        verb @ Verb::Add { .. } => added(verb),
        verb @ Verb::Move { .. } => moved(verb),
        Verb::Release { id, change: flags } => Request::Release {
            id,
            change: change(flags),
        },
        Verb::Assign {
            id,
            seat,
            change: flags,
        } => Request::Assign {
            id,
            seat,
            change: change(flags),
        },
        Verb::Note {
            id,
            text,
            change: flags,
        } => Request::Note {
            id,
            text,
            change: change(flags),
        },
        Verb::Set {
            id,
            field,
            value,
            reason,
            change: flags,
        } => Request::Set {
            id,
            field,
            value,
            reason,
            change: change(flags),
        },
        Verb::LeaseDefault {
            lease,
            change: flags,
        } => Request::LeaseDefault {
            lease: lease.0,
            change: change(flags),
        },
        Verb::Reclaim {
            id,
            reason,
            change: flags,
        } => Request::Reclaim {
            id,
            reason,
            change: change(flags),
        },
        Verb::Replication {
            mode,
            change: flags,
        } => Request::Replication {
            mode,
            change: change(flags),
        },
        Verb::Adopt {
            from,
            replica: Replica {
                reference,
                git_timeout,
            },
            change: flags,
        } => Request::Adopt {
            from,
            reference,
            git_timeout,
            change: change(flags),
        },
        other => return others(other),
    })
}

/// The checks, recovery, git and setting-up verbs, and the faces' own.
fn others(verb: Verb) -> Asked {
    Asked::Request(match verb {
        Verb::Genesis { map, change: flags } => Request::Genesis {
            map,
            change: change(flags),
        },
        Verb::AcceptHistory {
            reason,
            yes,
            change: flags,
        } => Request::AcceptHistory {
            reason,
            yes,
            change: change(flags),
        },
        Verb::Archive {
            before,
            yes,
            change: flags,
        } => Request::Archive {
            before,
            yes,
            change: change(flags),
        },
        Verb::Verify {
            snapshot: Some(dir),
            base,
            ..
        } => Request::VerifySnapshot { dir, base },
        Verb::Verify { current, full, .. } => Request::Verify { current, full },
        Verb::Render { check } => Request::Render { check },
        Verb::Sync { op } => Request::Sync { op },
        Verb::Unlock { check_gate } => Request::Unlock { check_gate },
        Verb::Snapshot { out } => Request::Snapshot { out },
        Verb::Commit {
            message,
            genesis,
            by,
        } => Request::Commit {
            message,
            genesis,
            by,
        },
        Verb::Doctor => Request::Doctor,
        Verb::Guard => Request::Guard,
        Verb::InstallHook { by } => Request::InstallHook { by },
        Verb::MapCheck { map } => Request::MapCheck { map },
        own => return Asked::Own(own),
    })
}

fn review(verb: ReviewVerb) -> Review {
    match verb {
        ReviewVerb::Request { id, change: flags } => Review::Request {
            id,
            change: change(flags),
        },
        ReviewVerb::Resolve {
            id,
            attempt,
            comment,
            change: flags,
        } => Review::Resolve {
            id,
            attempt,
            comment,
            change: change(flags),
        },
        ReviewVerb::Abandon {
            id,
            attempt,
            reason,
            yes,
            change: flags,
        } => Review::Abandon {
            id,
            attempt,
            reason,
            yes,
            change: change(flags),
        },
        ReviewVerb::Record {
            id,
            verdict,
            comment,
            candidate,
            change: flags,
        } => Review::Record {
            id,
            verdict,
            comment,
            candidate,
            change: change(flags),
        },
        ReviewVerb::VerifyCommit { id, reference } => Review::VerifyCommit { id, reference },
    }
}

/// `add`: its row as given.
fn added(verb: Verb) -> Request {
    let Verb::Add {
        piece,
        owner,
        issues,
        gate,
        reviewers,
        brief,
        note,
        status,
        after,
        change: flags,
    } = verb
    else {
        unreachable!("added translates add only");
    };
    Request::Add {
        row: NewRowText {
            piece,
            owner,
            issues,
            gate,
            reviewers,
            brief,
            note,
            status,
            after,
        },
        change: change(flags),
    }
}

/// `move`: its arguments, the candidate as given (a name, the manifest's text, or stdin).
fn moved(verb: Verb) -> Request {
    let Verb::Move {
        id,
        status,
        reason,
        candidate,
        manifest_text,
        manifest_stdin,
        issue,
        evidence,
        lease,
        change: flags,
    } = verb
    else {
        unreachable!("moved translates move only");
    };
    let candidate = match (candidate, manifest_text) {
        (Some(given), _) => Some(Candidate::Named(given)),
        (None, Some(text)) => Some(Candidate::Text {
            from: "--manifest-text",
            text,
        }),
        (None, None) if manifest_stdin => Some(Candidate::Stdin),
        (None, None) => None,
    };
    Request::Move {
        moved: MoveText {
            id,
            status,
            reason,
            candidate,
            issue,
            evidence,
            lease,
        },
        change: change(flags),
    }
}
