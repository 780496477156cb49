//! `next [SEAT]`: the row a seat should take up now. The rule, in `docs/next.md`: the seat's
//! own rows first (in-progress, then queued), then unowned queued rows, each in queue order,
//! never a row that waits on a row not yet done. `explain` says why each other row was passed
//! over, and `take_pick` is what `take` claims.

use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::model::{Row, Status};

/// The rows that are done, for dependency checks; empty (and free) when no row waits on any.
pub struct Done(BTreeSet<u64>);

impl Done {
    pub fn of(rows: &[Row]) -> Done {
        if rows.iter().all(|r| r.after.is_empty()) {
            return Done(BTreeSet::new());
        }
        Done(
            rows.iter()
                .filter(|r| r.status == Status::Done)
                .map(|r| r.id)
                .collect(),
        )
    }

    /// The rows `row` still waits on, in its order.
    pub fn open_deps(&self, row: &Row) -> Vec<u64> {
        row.after
            .iter()
            .copied()
            .filter(|id| !self.0.contains(id))
            .collect()
    }

    fn ready(&self, row: &Row) -> bool {
        row.after.iter().all(|id| self.0.contains(id))
    }
}

/// The first row by the rule, or `None` when the seat has nothing to take up.
pub fn next<'a>(rows: &'a [Row], seat: &str) -> Option<&'a Row> {
    let done = Done::of(rows);
    let own = |status: Status| {
        let done = &done;
        move |r: &&Row| r.status == status && r.owner.as_deref() == Some(seat) && done.ready(r)
    };
    rows.iter()
        .find(own(Status::InProgress))
        .or_else(|| rows.iter().find(own(Status::Queued)))
        .or_else(|| {
            rows.iter()
                .find(|r| r.status == Status::Queued && r.owner.is_none() && done.ready(r))
        })
}

/// What `take` claims for a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// A queued row `next` names: take moves it to in-progress for the seat.
    Row(u64),
    /// `next` names a row the seat already has in progress: there is nothing new to take.
    Held(u64),
    /// `next` names nothing.
    Nothing,
}

/// The row `take` would claim for `seat`: the one `next` names, when it is still queued.
pub fn take_pick(rows: &[Row], seat: &str) -> Pick {
    match next(rows, seat) {
        Some(r) if r.status == Status::Queued => Pick::Row(r.id),
        Some(r) => Pick::Held(r.id),
        None => Pick::Nothing,
    }
}

/// Why `next` passed over a row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Why {
    Parked,
    Blocked,
    InReview,
    /// Gated: the row waits on Jason.
    WaitingOnJason,
    /// Another seat owns it.
    Owned(String),
    /// It waits on these rows, not yet done.
    WaitingOn(Vec<u64>),
    /// It could be taken, but the named row comes first by the rule.
    After(u64),
}

impl Why {
    /// A stable one-word code for `--json`.
    pub fn code(&self) -> &'static str {
        match self {
            Why::Parked => "parked",
            Why::Blocked => "blocked",
            Why::InReview => "in-review",
            Why::WaitingOnJason => "gated",
            Why::Owned(_) => "owned",
            Why::WaitingOn(_) => "waiting",
            Why::After(_) => "later",
        }
    }
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Why::Parked => f.write_str("parked"),
            Why::Blocked => f.write_str("blocked"),
            Why::InReview => f.write_str("in review"),
            Why::WaitingOnJason => f.write_str("gated: waiting on jason"),
            Why::Owned(seat) => write!(f, "owned by {seat}"),
            Why::WaitingOn(ids) => {
                f.write_str("waiting on ")?;
                for (i, id) in ids.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "#{id}")?;
                }
                Ok(())
            }
            Why::After(id) => write!(f, "could be taken, but row {id} comes first"),
        }
    }
}

/// `next SEAT --explain`: the pick, each open row passed over with why (in queue order), and
/// how many done rows were skipped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explained {
    pub pick: Option<u64>,
    pub passed: Vec<(u64, Why)>,
    pub done: usize,
}

pub fn explain(rows: &[Row], seat: &str) -> Explained {
    let pick = next(rows, seat).map(|r| r.id);
    let done = Done::of(rows);
    let mut out = Explained {
        pick,
        passed: Vec::new(),
        done: 0,
    };
    for row in rows {
        if Some(row.id) == pick {
            continue;
        }
        let owner = row.owner.as_deref();
        let why = match row.status {
            Status::Done => {
                out.done += 1;
                continue;
            }
            Status::Parked => Why::Parked,
            Status::Blocked => Why::Blocked,
            Status::InReview => Why::InReview,
            Status::WaitingOnJason => Why::WaitingOnJason,
            Status::Queued | Status::InProgress => match owner {
                Some(o) if o != seat => Why::Owned(String::from(o)),
                None if row.status == Status::InProgress => Why::Owned(String::from("nobody")),
                _ if !done.ready(row) => Why::WaitingOn(done.open_deps(row)),
                // Ready and the seat's (or free): only the pick can be ahead of it.
                _ => Why::After(pick.unwrap_or(row.id)),
            },
        };
        out.passed.push((row.id, why));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn row(id: u64, status: Status, owner: Option<&str>) -> Row {
        Row {
            id,
            piece: String::from("p"),
            owner: owner.map(String::from),
            status,
            gate: None,
            issues: Vec::new(),
            closes: Vec::new(),
            closes_narrowed: false,
            reviewers: Vec::new(),
            brief: None,
            note: None,
            blocked_reason: None,
            review: None,
            after: Vec::new(),
        }
    }

    fn waiting(mut r: Row, after: &[u64]) -> Row {
        r.after = after.to_vec();
        r
    }

    fn pick(rows: &[Row], seat: &str) -> Option<u64> {
        next(rows, seat).map(|r| r.id)
    }

    #[test]
    fn own_in_progress_comes_before_everything() {
        let rows = [
            row(1, Status::Queued, None),
            row(2, Status::Queued, Some("dw")),
            row(3, Status::InProgress, Some("dw")),
        ];
        assert_eq!(pick(&rows, "dw"), Some(3));
        assert_eq!(take_pick(&rows, "dw"), Pick::Held(3));
    }

    #[test]
    fn own_queued_before_unowned_queued() {
        let rows = [
            row(1, Status::Queued, None),
            row(2, Status::Queued, Some("dw")),
        ];
        assert_eq!(pick(&rows, "dw"), Some(2));
        assert_eq!(pick(&rows, "other"), Some(1));
        assert_eq!(take_pick(&rows, "other"), Pick::Row(1));
    }

    #[test]
    fn queue_order_breaks_ties() {
        let rows = [row(5, Status::Queued, None), row(2, Status::Queued, None)];
        assert_eq!(pick(&rows, "dw"), Some(5));
    }

    #[test]
    fn skips_rows_a_seat_cannot_take() {
        let rows = [
            row(1, Status::Blocked, Some("dw")),
            row(2, Status::Parked, None),
            row(3, Status::Done, Some("dw")),
            row(4, Status::InReview, Some("dw")),
            row(5, Status::WaitingOnJason, Some("dw")),
            row(6, Status::Queued, Some("someone-else")),
            row(7, Status::InProgress, Some("someone-else")),
        ];
        assert_eq!(pick(&rows, "dw"), None);
        assert_eq!(pick(&[], "dw"), None);
        assert_eq!(take_pick(&rows, "dw"), Pick::Nothing);
    }

    #[test]
    fn never_names_a_row_whose_dependencies_are_not_done() {
        let rows = [
            waiting(row(1, Status::Queued, Some("dw")), &[3]),
            waiting(row(2, Status::Queued, None), &[3, 4]),
            row(3, Status::InProgress, Some("other")),
            row(4, Status::Done, None),
            waiting(row(5, Status::Queued, None), &[4]),
        ];
        assert_eq!(pick(&rows, "dw"), Some(5));
        let mut all_done = rows.clone();
        all_done[2].status = Status::Done;
        assert_eq!(pick(&all_done, "dw"), Some(1));
        assert_eq!(pick(&all_done, "new"), Some(2));
        // An own in-progress row that waits is passed over too.
        let held = [
            waiting(row(1, Status::InProgress, Some("dw")), &[2]),
            row(2, Status::Queued, None),
        ];
        assert_eq!(pick(&held, "dw"), Some(2));
    }

    #[test]
    fn explain_names_every_open_row_passed_over() {
        let rows = [
            row(1, Status::Done, None),
            row(2, Status::Parked, None),
            row(3, Status::Blocked, Some("dw")),
            row(4, Status::InReview, Some("dw")),
            row(5, Status::WaitingOnJason, Some("dw")),
            row(6, Status::Queued, Some("huey")),
            waiting(row(7, Status::Queued, None), &[6, 1]),
            row(8, Status::Queued, None),
            row(9, Status::Queued, None),
        ];
        let got = explain(&rows, "dw");
        assert_eq!(got.pick, Some(8));
        assert_eq!(got.done, 1);
        assert_eq!(
            got.passed,
            vec![
                (2, Why::Parked),
                (3, Why::Blocked),
                (4, Why::InReview),
                (5, Why::WaitingOnJason),
                (6, Why::Owned(String::from("huey"))),
                (7, Why::WaitingOn(vec![6])),
                (9, Why::After(8)),
            ]
        );
        let text: Vec<String> = got
            .passed
            .iter()
            .map(|(_, w)| alloc::format!("{w}"))
            .collect();
        assert_eq!(text[4], "owned by huey");
        assert_eq!(text[5], "waiting on #6");
        assert_eq!(text[6], "could be taken, but row 8 comes first");
    }
}
