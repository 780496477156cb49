//! The transition matrix as data: one rule per allowed (from, to, verb), who may apply it and
//! what it needs. `verbs::moves` looks rules up here and replay re-checks every entry against
//! them; `docs/transitions.md` shows this table and a test keeps the two equal.

use alloc::string::String;
use alloc::vec::Vec;

use crate::model::Status::{self, *};
use crate::rules::{is_lead_or_privileged, is_privileged};

/// Which verb carries the transition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    Move,
    Release,
    /// `reclaim ID --reason TEXT` (semantics 7): ends a claim at once.
    Reclaim,
}

/// Who may apply a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    /// The row's owner.
    Owner,
    /// The owner; on an unowned row, any seat, which becomes the owner.
    OwnerOrClaimer,
    /// The owner, `jason` or `sage`.
    OwnerOrPrivileged,
    /// `jason` or `sage`.
    Privileged,
    /// `jason` alone.
    Jason,
    /// The lead, `jason` or `sage`.
    LeadOrPrivileged,
}

/// What a rule needs besides the right actor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Needs {
    Nothing,
    /// `--reason`, kept as the row's blocked reason.
    Reason,
    /// `--candidate`, frozen for the new review round.
    Candidate,
    /// On a request round, every reviewer's approval; on a round that posted nothing, `--evidence`
    /// (for done). Semantics 1 needs neither.
    Approval,
}

/// One allowed transition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    pub from: Status,
    pub to: Status,
    pub via: Via,
    pub who: Who,
    pub needs: Needs,
}

const fn r(from: Status, to: Status, who: Who, needs: Needs) -> Rule {
    Rule {
        from,
        to,
        via: Via::Move,
        who,
        needs,
    }
}

/// Every allowed transition. Anything not listed is refused; `done` has no way out.
pub const RULES: &[Rule] = &[
    r(Queued, InProgress, Who::OwnerOrClaimer, Needs::Nothing),
    r(InProgress, InReview, Who::Owner, Needs::Candidate),
    Rule {
        from: InProgress,
        to: Queued,
        via: Via::Release,
        who: Who::OwnerOrPrivileged,
        needs: Needs::Nothing,
    },
    r(InProgress, Blocked, Who::OwnerOrPrivileged, Needs::Reason),
    r(Blocked, InProgress, Who::OwnerOrPrivileged, Needs::Nothing),
    r(InReview, InProgress, Who::Owner, Needs::Nothing),
    r(InReview, Done, Who::OwnerOrPrivileged, Needs::Approval),
    r(InReview, WaitingOnJason, Who::Owner, Needs::Approval),
    r(WaitingOnJason, Done, Who::Jason, Needs::Nothing),
    // Any open status to parked and back, and any open status to queued: privileged.
    r(Queued, Parked, Who::Privileged, Needs::Nothing),
    r(InProgress, Parked, Who::Privileged, Needs::Nothing),
    r(InReview, Parked, Who::Privileged, Needs::Nothing),
    r(WaitingOnJason, Parked, Who::Privileged, Needs::Nothing),
    r(Blocked, Parked, Who::Privileged, Needs::Nothing),
    r(Parked, Queued, Who::Privileged, Needs::Nothing),
    r(Parked, InProgress, Who::Privileged, Needs::Nothing),
    r(Parked, InReview, Who::Privileged, Needs::Candidate),
    r(Parked, WaitingOnJason, Who::Privileged, Needs::Nothing),
    r(Parked, Blocked, Who::Privileged, Needs::Reason),
    r(InProgress, Queued, Who::Privileged, Needs::Nothing),
    r(InReview, Queued, Who::Privileged, Needs::Nothing),
    r(WaitingOnJason, Queued, Who::Privileged, Needs::Nothing),
    r(Blocked, Queued, Who::Privileged, Needs::Nothing),
    // Semantics 7: a claim ended at once, the row left free for the next take.
    Rule {
        from: InProgress,
        to: Queued,
        via: Via::Reclaim,
        who: Who::LeadOrPrivileged,
        needs: Needs::Reason,
    },
];

/// The rule for a transition by a verb, if there is one.
pub fn rule(from: Status, to: Status, via: Via) -> Option<&'static Rule> {
    RULES
        .iter()
        .find(|rule| rule.from == from && rule.to == to && rule.via == via)
}

impl Who {
    /// Whether `actor` may apply the rule to a row owned by `owner`.
    pub fn allows(self, actor: &str, owner: Option<&str>) -> bool {
        let is_owner = owner == Some(actor);
        match self {
            Who::Owner => is_owner,
            Who::OwnerOrClaimer => is_owner || owner.is_none(),
            Who::OwnerOrPrivileged => is_owner || is_privileged(actor),
            Who::Privileged => is_privileged(actor),
            Who::Jason => actor == "jason",
            Who::LeadOrPrivileged => is_lead_or_privileged(actor),
        }
    }

    /// The words the refusal and the docs use.
    pub fn describe(self) -> &'static str {
        match self {
            Who::Owner => "the owner only",
            Who::OwnerOrClaimer => "the owner; an unowned row: any seat, which becomes its owner",
            Who::OwnerOrPrivileged => "the owner, jason or sage",
            Who::Privileged => "jason or sage only",
            Who::Jason => "jason only",
            Who::LeadOrPrivileged => "the lead, jason or sage only",
        }
    }
}

impl Needs {
    pub fn describe(self) -> &'static str {
        match self {
            Needs::Nothing => "",
            Needs::Reason => "--reason",
            Needs::Candidate => "--candidate (opens a review round)",
            Needs::Approval => {
                "every reviewer's approval (request round) or --evidence (done, silent round)"
            }
        }
    }
}

/// The matrix as the markdown table `docs/transitions.md` holds between its markers.
pub fn markdown() -> String {
    let mut lines: Vec<String> = Vec::new();
    lines.push(String::from("| from | to | verb | who | needs |"));
    lines.push(String::from("| --- | --- | --- | --- | --- |"));
    for rule in RULES {
        let verb = match rule.via {
            Via::Move => "move",
            Via::Release => "release",
            Via::Reclaim => "reclaim",
        };
        lines.push(alloc::format!(
            "| {} | {} | {} | {} | {} |",
            rule.from,
            rule.to,
            verb,
            rule.who.describe(),
            rule.needs.describe()
        ));
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_rule_leaves_done_and_none_repeats() {
        assert!(RULES.iter().all(|r| r.from != Done));
        for (i, a) in RULES.iter().enumerate() {
            for b in &RULES[i + 1..] {
                assert!(
                    !(a.from == b.from && a.to == b.to && a.via == b.via),
                    "{a:?}"
                );
            }
        }
    }

    #[test]
    fn every_open_status_reaches_parked_and_queued() {
        for s in Status::ALL {
            if s.is_open() && s != Parked {
                assert!(rule(s, Parked, Via::Move).is_some(), "{s} -> parked");
                assert!(rule(Parked, s, Via::Move).is_some(), "parked -> {s}");
            }
            if s.is_open() && s != Queued {
                assert!(rule(s, Queued, Via::Move).is_some(), "{s} -> queued");
            }
        }
    }
}
