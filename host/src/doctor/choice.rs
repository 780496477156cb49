//! The commands a person chooses among where no single one cures a finding: each as data (the
//! command with its placeholders named, when to take it, who may run it), so an agent reading
//! `doctor --json` need not take them apart from the finding's prose.

use mosaic_queue_core::PRIVILEGED;
use serde::Serialize;

/// One way out of a finding. `command` is complete but for its placeholders: upper-case words
/// that `placeholders` names, in the order they appear.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Choice {
    /// What must be true for this to be the one to take.
    pub when: String,
    pub command: String,
    pub placeholders: Vec<Placeholder>,
    /// The actors who may run it (its `--by`).
    pub by: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Placeholder {
    pub name: &'static str,
    pub means: String,
}

fn placeholder(name: &'static str, means: impl Into<String>) -> Placeholder {
    Placeholder {
        name,
        means: means.into(),
    }
}

/// Every change takes a new op id.
fn op() -> Placeholder {
    placeholder(
        "OP",
        "a new op id for this change: 8 to 72 characters of [a-z0-9._-], starting with a letter or digit",
    )
}

/// The actor, named by `--by` (or left out where $MOSAIC_AGENT_NAME names one of `by`).
fn actor() -> Placeholder {
    placeholder("ACTOR", "who runs it: one of by")
}

fn privileged() -> Vec<String> {
    PRIVILEGED.iter().map(|a| (*a).to_owned()).collect()
}

/// The last step of Manual recovery, once `when` holds.
pub fn accept_history(when: &str) -> Choice {
    Choice {
        when: when.to_owned(),
        command: "mosaic-queue accept-history --op OP --reason TEXT --yes --by ACTOR".to_owned(),
        placeholders: vec![
            op(),
            placeholder(
                "TEXT",
                "what was lost or changed and what the person did about it; the entry keeps it",
            ),
            actor(),
        ],
        by: privileged(),
    }
}

/// A request attempt left unresolved on row `id`: whether its comment is on the issue decides
/// between resolving it (the row's owner or a privileged actor) and abandoning it (privileged).
pub fn unresolved_request(id: u64, attempt: &str, issue: &str, owner: Option<&str>) -> [Choice; 2] {
    let marker = format!("<!-- mosaic-queue-op: {attempt} -->");
    let running = "and no request for it is still running";
    let mut by: Vec<String> = owner.into_iter().map(str::to_owned).collect();
    by.extend(
        privileged()
            .into_iter()
            .filter(|a| Some(a.as_str()) != owner),
    );
    let resolve = Choice {
        when: format!("a comment carrying {marker} is on {issue}, {running}"),
        command: format!(
            "mosaic-queue review resolve {id} {attempt} --comment N --op OP --by ACTOR"
        ),
        placeholders: vec![
            placeholder(
                "N",
                format!("the id of the comment on {issue} carrying {marker}"),
            ),
            op(),
            actor(),
        ],
        by,
    };
    let abandon = Choice {
        when: format!("no comment carrying {marker} is on {issue}, {running}"),
        command: format!(
            "mosaic-queue review abandon {id} {attempt} --reason TEXT --yes --op OP --by ACTOR"
        ),
        placeholders: vec![
            placeholder("TEXT", format!("why: what the person found on {issue}")),
            op(),
            actor(),
        ],
        by: privileged(),
    };
    [resolve, abandon]
}

/// An expired or doubtful claim on row `id` held by `holder`: another seat's `take` reclaims
/// it once it has expired (it is then next in that seat's order), or the lead, jason or sage
/// ends it at once.
pub fn end_claim(id: u64, holder: &str) -> [Choice; 2] {
    let take = Choice {
        when: format!("the claim has expired and another seat is to carry on with row {id}"),
        command: "mosaic-queue take --op OP --by ACTOR".to_owned(),
        placeholders: vec![op(), actor()],
        by: vec![format!("any seat but {holder}")],
    };
    let mut by = vec![mosaic_queue_core::LEAD.to_owned()];
    by.extend(privileged());
    let reclaim = Choice {
        when: format!("{holder} has stopped and row {id} goes back to the queue now"),
        command: format!("mosaic-queue reclaim {id} --reason TEXT --op OP --by ACTOR"),
        placeholders: vec![
            placeholder(
                "TEXT",
                format!("why {holder}'s claim ends; the entry keeps it"),
            ),
            op(),
            actor(),
        ],
        by,
    };
    [take, reclaim]
}
