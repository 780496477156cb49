//! The card printer: one row as the board shows it (id, piece, owner and claim, issues,
//! dependencies, gate, reason, review round and verdicts, note) and the command a person
//! would run next, to copy. The board never writes: the command is for the CLI.

use mosaic_queue_core::Status;
use mosaic_queue_core::signs::{Judged, Liveness};

use super::layout::{status_class, when};
use crate::board::escape::{self, url_part};
use crate::engine::board::{Card, IssueLinks, ReviewState, Snapshot, Stage};

/// At most this many characters of a piece or note on a card (the row page shows them whole).
const CARD_CHARS: usize = 160;

/// A card's HTML.
pub fn card(snap: &Snapshot, card: &Card) -> String {
    let row = &card.row;
    let mut out = format!(
        "<article class=\"card {}\" id=\"row-{}\" data-row=\"{}\">",
        status_class(row.status),
        row.id,
        row.id
    );
    out.push_str(&format!(
        "<div class=\"meta\"><a class=\"id\" href=\"/row/{}\">#{}</a><span>{}</span><span class=\"owner\">{}</span></div>",
        row.id,
        row.id,
        escape::line(row.status.as_str()),
        owner(card)
    ));
    out.push_str(&format!(
        "<h3><a href=\"/row/{}\">{}</a></h3>",
        row.id,
        escape::line(&shortened(&row.piece))
    ));
    out.push_str("<ul class=\"facts\">");
    for fact in facts(snap, card) {
        out.push_str(&format!("<li>{fact}</li>"));
    }
    out.push_str("</ul>");
    if let Some(note) = &row.note {
        out.push_str(&format!(
            "<p class=\"note\">{}</p>",
            escape::line(&shortened(note))
        ));
    }
    if let Some(cmd) = next_command(snap.revision, card) {
        out.push_str(&command_html(&cmd));
    }
    out.push_str("</article>");
    out
}

/// The owner with what is known of its claim: a leased claim's state beside the name.
fn owner(card: &Card) -> String {
    let Some(o) = &card.row.owner else {
        return String::from("unowned");
    };
    let name = format!("<a href=\"/seat/{}\">{}</a>", url_part(o), escape::line(o));
    match &card.claim {
        Some(j) => format!(
            "{name} <span class=\"claim claim-{state}\">{state}</span>",
            state = j.state.as_str()
        ),
        None => name,
    }
}

/// A leased claim in one line: its state, when its lease ends and its last sign of life.
pub fn claim_line(j: &Judged) -> String {
    let mut line = format!("claim {}", j.state.as_str());
    match &j.lease_end {
        Some(end) if j.state == Liveness::Expired => {
            line.push_str(&format!(": lease ended {}", when(end)))
        }
        Some(end) => line.push_str(&format!(": lease ends {}", when(end))),
        None => line.push_str(": lease end unknown"),
    }
    match &j.last_sign {
        Some(last) => line.push_str(&format!(", last sign of life {}", when(last))),
        None => line.push_str(", no sign of life that counts"),
    }
    if j.state == Liveness::Unknown {
        line.push_str(" (heartbeat unreadable or ahead: never reclaimed by take)");
    }
    line
}

/// The card's lines of facts, each already markup.
fn facts(snap: &Snapshot, card: &Card) -> Vec<String> {
    let row = &card.row;
    let mut out = Vec::new();
    if !row.issues.is_empty() {
        out.push(format!(
            "issues {}",
            issues(snap.issues.as_ref(), &row.issues)
        ));
    }
    if !row.after.is_empty() {
        out.push(format!("waits on {}", waits_on(snap, &row.after)));
    }
    if let Some(j) = &card.claim {
        out.push(claim_line(j));
    }
    if let Some(gate) = &row.gate {
        out.push(format!("gate {}", escape::line(gate)));
    }
    if let Some(reason) = &row.blocked_reason {
        out.push(format!("blocked: {}", escape::line(&shortened(reason))));
    } else if let Some(reason) = &card.reason {
        out.push(format!("reason: {}", escape::line(&shortened(reason))));
    }
    if let Some(review) = &card.review {
        out.push(review_line(review));
    }
    if let Some(last) = &card.last {
        out.push(format!("last entry rev {} at {}", last.rev, when(&last.at)));
    }
    out
}

/// Issue numbers, linked to Gitea when the board knows where it is.
pub fn issues(links: Option<&IssueLinks>, issues: &[u64]) -> String {
    let parts: Vec<String> = issues
        .iter()
        .map(|n| match links {
            Some(l) => format!(
                "<a href=\"{}\" rel=\"noreferrer\">#{n}</a>",
                escape::text(&l.href(*n))
            ),
            None => format!("#{n}"),
        })
        .collect();
    parts.join(", ")
}

/// A row's dependencies, each linked, done ones said so.
pub fn waits_on(snap: &Snapshot, after: &[u64]) -> String {
    let parts: Vec<String> = after
        .iter()
        .map(|id| match snap.card(*id).map(|c| c.row.status) {
            Some(Status::Done) | None => format!("<a href=\"/row/{id}\">#{id}</a> (done)"),
            Some(s) => format!("<a href=\"/row/{id}\">#{id}</a> ({})", s.as_str()),
        })
        .collect();
    parts.join(", ")
}

/// The current round in one line: number, issue, lane, who approved and who is still to.
fn review_line(r: &ReviewState) -> String {
    let issue = r.issue.map_or_else(String::new, |i| format!(" on #{i}"));
    let stage = match r.stage {
        Stage::Requesting => match &r.attempt {
            Some((_, state)) => format!("request {}", state.as_str()),
            None => String::from("no request yet"),
        },
        Stage::AwaitingVerdicts => String::from("awaiting verdicts"),
        Stage::ChangesAsked => String::from("changes asked"),
        Stage::Approved => String::from("approved"),
    };
    let mut line = format!("round {}{issue}: {stage}", r.round);
    let names = |v: &[String]| {
        v.iter()
            .map(|n| escape::line(n))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !r.approvals.is_empty() {
        line.push_str(&format!("; approved by {}", names(&r.approvals)));
    }
    if !r.changes.is_empty() {
        line.push_str(&format!("; changes from {}", names(&r.changes)));
    }
    if !r.pending.is_empty() && r.stage != Stage::Requesting {
        line.push_str(&format!("; waiting for {}", names(&r.pending)));
    }
    line
}

/// `text` cut to `CARD_CHARS` characters, the last one `…`.
fn shortened(text: &str) -> String {
    if text.chars().count() <= CARD_CHARS {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(CARD_CHARS - 1).collect();
    cut.push('…');
    cut
}

/// A command to copy and who may run it.
#[derive(Debug, PartialEq, Eq)]
pub struct Command {
    pub line: String,
    pub who: String,
}

/// The command block of a card or row page.
pub fn command_html(cmd: &Command) -> String {
    format!(
        "<div class=\"cmd\"><code>{}</code><span class=\"who\">{}</span></div>",
        escape::text(&cmd.line),
        escape::line(&cmd.who)
    )
}

/// What a person would run next on this row, at revision `rev`: each op id names the row, the
/// step and the revision it was offered at, so running it twice is a retry and never a
/// second change. `--by` is left out where more than one person may run it (the CLI takes
/// MOSAIC_AGENT_NAME); `None` where nothing waits on a person (queued rows are taken by
/// seats; done rows never move).
pub fn next_command(rev: u64, card: &Card) -> Option<Command> {
    let row = &card.row;
    let id = row.id;
    let op = |step: &str| format!("--op {step}-{id}-r{rev}");
    let owner = row.owner.as_deref().map(shell_word);
    let owner_by = owner
        .as_ref()
        .map_or_else(String::new, |o| format!(" --by {o}"));
    let owned = |who: &str| match &owner {
        Some(o) => format!("{o} (the owner){who}"),
        None => format!("the owner{who}"),
    };
    let cmd = |line: String, who: String| Some(Command { line, who });
    let expired = card
        .claim
        .as_ref()
        .is_some_and(|j| j.state == Liveness::Expired);
    match row.status {
        Status::InProgress if expired => cmd(
            format!(
                "mosaic-queue reclaim {id} --reason 'lease expired' {}",
                op("reclaim")
            ),
            String::from(
                "the lead, jason or sage end the expired claim (--by, or MOSAIC_AGENT_NAME); another seat's take also picks it up",
            ),
        ),
        Status::InProgress => cmd(
            format!("mosaic-queue release {id} {}", op("release")),
            String::from("jason or sage hand it back to the queue (--by, or MOSAIC_AGENT_NAME)"),
        ),
        Status::InReview => review_command(rev, card, &owner_by, &owned),
        Status::WaitingOnJason => cmd(
            format!("mosaic-queue move {id} done {} --by jason", op("approve")),
            String::from("jason approves"),
        ),
        Status::Blocked => cmd(
            format!(
                "mosaic-queue move {id} in-progress {}{owner_by}",
                op("unblock")
            ),
            owned(", once unblocked"),
        ),
        Status::Parked => cmd(
            format!("mosaic-queue move {id} queued {}", op("unpark")),
            String::from("jason or sage bring it back (--by, or MOSAIC_AGENT_NAME)"),
        ),
        Status::Queued | Status::Done => None,
    }
}

/// The next step of a row in review, by its lane.
fn review_command(
    rev: u64,
    card: &Card,
    owner_by: &str,
    owned: &dyn Fn(&str) -> String,
) -> Option<Command> {
    let row = &card.row;
    let r = card.review.as_ref()?;
    let id = row.id;
    let op = |step: &str| format!("--op {step}-{id}-r{rev}");
    let (line, who) = match r.stage {
        Stage::Requesting => match &r.attempt {
            Some((attempt, state)) if state.is_unresolved() => (
                format!(
                    "mosaic-queue review resolve {id} {} --comment N {}",
                    shell_word(attempt),
                    op("resolve")
                ),
                String::from(
                    "the owner, jason or sage, with N the request comment's id once found (review abandon if it is not on the issue)",
                ),
            ),
            _ => (
                format!(
                    "mosaic-queue review request {id} {}{owner_by}",
                    op("request")
                ),
                owned(" posts the request again"),
            ),
        },
        Stage::AwaitingVerdicts => awaiting(r, id, &op, owner_by, owned)?,
        Stage::ChangesAsked => (
            format!(
                "mosaic-queue move {id} in-progress {}{owner_by}",
                op("rework")
            ),
            owned(" takes it back for the changes"),
        ),
        Stage::Approved if row.gate.as_deref() == Some("jason") => (
            format!(
                "mosaic-queue move {id} waiting-on-jason {}{owner_by}",
                op("handoff")
            ),
            owned(" hands it to jason"),
        ),
        Stage::Approved => (
            format!("mosaic-queue move {id} done {}", op("done")),
            owned(", jason or sage (--by, or MOSAIC_AGENT_NAME)"),
        ),
    };
    Some(Command { line, who })
}

/// A round still waiting: the first pending reviewer's verdict, or, for a round that posted
/// no request, the move to done with the approving comment as evidence.
fn awaiting(
    r: &ReviewState,
    id: u64,
    op: &dyn Fn(&str) -> String,
    owner_by: &str,
    owned: &dyn Fn(&str) -> String,
) -> Option<(String, String)> {
    let candidate = shell_word(r.candidate.as_deref()?);
    match r.pending.first() {
        Some(reviewer) => {
            let reviewer = shell_word(reviewer);
            Some((
                format!(
                    "mosaic-queue review record {id} --verdict approve --comment N --candidate {candidate} {} --by {reviewer}",
                    op(&format!("{reviewer}-verdict"))
                ),
                format!(
                    "{reviewer} records a verdict, N its comment's id (approve or changes){}",
                    if r.pending.len() > 1 {
                        "; others wait too"
                    } else {
                        ""
                    }
                ),
            ))
        }
        None => Some((
            format!(
                "mosaic-queue move {id} done --evidence comment=N,round={},candidate={candidate} {}{owner_by}",
                r.round,
                op("done")
            ),
            owned(", with N the approving comment's id"),
        )),
    }
}

/// A value as one shell word: as it is when it holds only characters no shell reads, else in
/// single quotes.
fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._:,=/@+-".contains(&b));
    if plain {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}
