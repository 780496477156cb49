//! What the board shows, as plain values: every row with its review state and claim, the
//! log of this epoch, each seat's last sign of life, the archives that hold older history and
//! where issues link. `source` builds it from the queue; the pages only read it.

use mosaic_queue_core::signs::Judged;
use mosaic_queue_core::{AttemptState, Round, Row, Status, VerdictKind};

/// One read of the queue, everything the pages draw from.
pub struct Snapshot {
    pub revision: u64,
    /// False when queue.json is ahead of its witness: visible, not confirmed durable.
    pub durable: bool,
    /// The rows in queue order (the order `next` reads).
    pub cards: Vec<Card>,
    /// This epoch's log, oldest first.
    pub log: Vec<LogItem>,
    pub seats: Vec<Seat>,
    /// The archives a cut wrote, oldest first: the history before this epoch.
    pub archives: Vec<ArchiveRef>,
    /// How many rows the cuts archived (done rows no longer in queue.json).
    pub archived_rows: u64,
    pub issues: Option<IssueLinks>,
    /// The revision the follower last pushed, when one ever did (docs/replication.md).
    pub replicated: Option<u64>,
    /// The first moment (milliseconds since the epoch) at which a leased claim here turns
    /// another state with time alone (live to quiet, quiet to expired): the snapshot is read
    /// again from then on, and the event stream says so. `None` when no claim will.
    pub turns: Option<i64>,
}

impl Snapshot {
    pub fn card(&self, id: u64) -> Option<&Card> {
        self.cards.iter().find(|c| c.row.id == id)
    }
}

/// A row and what the board says about it beyond its fields.
pub struct Card {
    pub row: Row,
    /// The reason given with its last move, shown with the status.
    pub reason: Option<String>,
    /// The leased claim on a row in progress as `judge` found it when the snapshot was read
    /// (its lease, the log's last sign and the holder's heartbeat); `None` for a row that is
    /// no claim or whose claim has no lease.
    pub claim: Option<Judged>,
    /// The current round's state, for a row in review.
    pub review: Option<ReviewState>,
    /// The newest log entry that named the row.
    pub last: Option<Touch>,
}

/// When something happened: the revision it produced and its time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Touch {
    pub rev: u64,
    pub at: String,
}

/// Where a row in review stands in its current round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReviewState {
    pub round: u32,
    pub issue: Option<u64>,
    pub candidate: Option<String>,
    pub stage: Stage,
    /// The last request attempt: its op and state.
    pub attempt: Option<(String, AttemptState)>,
    pub approvals: Vec<String>,
    pub changes: Vec<String>,
    /// Reviewers (the owner aside) who have given no verdict on this candidate.
    pub pending: Vec<String>,
}

/// The review lanes of the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// No request is posted yet: one is on its way, unresolved, failed or abandoned.
    Requesting,
    /// The request is posted (or the round posts none) and verdicts are still to come.
    AwaitingVerdicts,
    /// A reviewer asked for changes on this candidate.
    ChangesAsked,
    /// Every reviewer approved this candidate: the owner moves it on.
    Approved,
}

impl ReviewState {
    /// The state of `row`'s current round; `None` for a row with no round.
    pub fn of(row: &Row) -> Option<ReviewState> {
        let round = row.review.as_ref()?.rounds.last()?;
        let reviewers: Vec<&String> = row
            .reviewers
            .iter()
            .filter(|r| row.owner.as_ref() != Some(*r))
            .collect();
        let on_candidate = |kind: VerdictKind| -> Vec<String> {
            round
                .verdicts
                .iter()
                .filter(|v| v.verdict == kind && Some(&v.candidate) == round.candidate.as_ref())
                .map(|v| v.by.clone())
                .collect()
        };
        let approvals = on_candidate(VerdictKind::Approve);
        let changes = on_candidate(VerdictKind::Changes);
        let pending: Vec<String> = reviewers
            .iter()
            .filter(|r| !approvals.contains(*r) && !changes.contains(*r))
            .map(|r| (*r).clone())
            .collect();
        let stage = stage(round, &approvals, &changes, reviewers.len());
        Some(ReviewState {
            round: round.round,
            issue: round.issue,
            candidate: round.candidate.clone(),
            stage,
            attempt: round.attempts.last().map(|a| (a.op.clone(), a.state)),
            approvals,
            changes,
            pending,
        })
    }
}

fn stage(round: &Round, approvals: &[String], changes: &[String], reviewers: usize) -> Stage {
    let posted = round
        .attempts
        .iter()
        .any(|a| a.state == AttemptState::Posted);
    if round.requested && !posted {
        return Stage::Requesting;
    }
    if !changes.is_empty() {
        Stage::ChangesAsked
    } else if reviewers > 0 && approvals.len() >= reviewers {
        Stage::Approved
    } else {
        Stage::AwaitingVerdicts
    }
}

/// One log entry as the timeline lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogItem {
    pub rev: u64,
    pub op: String,
    pub verb: String,
    pub by: String,
    pub at: String,
    pub receipt: String,
    /// The row its arguments name, if one.
    pub row: Option<u64>,
    /// The rows genesis brought in (empty for any other entry).
    pub genesis_rows: Vec<u64>,
}

impl LogItem {
    /// Whether the entry touched row `id`: its arguments name it, or genesis brought it in.
    pub fn touches(&self, id: u64) -> bool {
        self.row == Some(id) || self.genesis_rows.binary_search(&id).is_ok()
    }
}

/// A seat (or person) the queue knows: an owner, a reviewer or an actor in the log.
pub struct Seat {
    pub name: String,
    /// Its newest entry in the log.
    pub last: Option<Touch>,
    /// Its heartbeat file's time, read for a seat that holds a leased claim.
    pub heartbeat: Option<String>,
}

/// One archive a cut wrote.
pub struct ArchiveRef {
    pub epoch: u32,
    pub file: String,
}

/// Where an issue number links: `{base}/issues/N` on the team's Gitea.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IssueLinks {
    /// `https://host[/prefix]/owner/repo`, checked by `source`.
    pub base: String,
}

impl IssueLinks {
    pub fn href(&self, issue: u64) -> String {
        format!("{}/issues/{issue}", self.base)
    }
}

/// The statuses in the order the board's lanes show them.
pub fn open_statuses() -> [Status; 6] {
    [
        Status::Queued,
        Status::InProgress,
        Status::InReview,
        Status::WaitingOnJason,
        Status::Blocked,
        Status::Parked,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use mosaic_queue_core::{Attempt, Review, Verdict};

    fn row(attempt: Option<AttemptState>, verdicts: &[(&str, VerdictKind)]) -> Row {
        let round = Round {
            round: 2,
            issue: Some(12),
            candidate: Some("git:ab".into()),
            manifest: None,
            requested: true,
            opened_by: "darkwing".into(),
            opened_rev: 4,
            attempts: attempt
                .into_iter()
                .map(|state| Attempt {
                    op: "darkwing-1-review-1".into(),
                    by: "darkwing".into(),
                    state,
                    status: None,
                    detail: None,
                    comment: None,
                })
                .collect(),
            verdicts: verdicts
                .iter()
                .map(|(by, verdict)| Verdict {
                    by: (*by).into(),
                    verdict: *verdict,
                    comment: 9,
                    candidate: "git:ab".into(),
                })
                .collect(),
            duplicate_risk: false,
        };
        Row {
            id: 1,
            piece: "p".into(),
            owner: Some("darkwing".into()),
            status: Status::InReview,
            gate: None,
            issues: vec![12],
            closes: vec![12],
            closes_narrowed: false,
            reviewers: vec!["flicker".into(), "darkwing".into(), "gosling".into()],
            brief: None,
            note: None,
            blocked_reason: None,
            review: Some(Review {
                rounds: vec![round],
            }),
            after: vec![],
            lease: None,
            fenced: vec![],
        }
    }

    #[test]
    fn each_round_lands_in_its_lane() {
        use AttemptState::*;
        use VerdictKind::*;
        let stage = |a, v: &[(&str, VerdictKind)]| ReviewState::of(&row(a, v)).unwrap().stage;
        assert_eq!(stage(None, &[]), Stage::Requesting);
        assert_eq!(stage(Some(Uncertain), &[]), Stage::Requesting);
        assert_eq!(stage(Some(Failed), &[]), Stage::Requesting);
        assert_eq!(stage(Some(Posted), &[]), Stage::AwaitingVerdicts);
        assert_eq!(
            stage(Some(Posted), &[("flicker", Approve)]),
            Stage::AwaitingVerdicts
        );
        assert_eq!(
            stage(Some(Posted), &[("flicker", Approve), ("gosling", Changes)]),
            Stage::ChangesAsked
        );
        // The owner is among the reviewers but never reviews its own row.
        assert_eq!(
            stage(Some(Posted), &[("flicker", Approve), ("gosling", Approve)]),
            Stage::Approved
        );
        let state = ReviewState::of(&row(Some(Posted), &[("flicker", Approve)])).unwrap();
        assert_eq!(state.pending, vec!["gosling".to_owned()]);
        assert_eq!(state.approvals, vec!["flicker".to_owned()]);
    }
}
