//! `next [SEAT]`: the row a seat should take up now. The rule, in `docs/next.md`: the seat's
//! own rows first (in-progress, then queued), then unowned queued rows, each in queue order.

use crate::model::{Row, Status};

/// The first row by the rule, or `None` when the seat has nothing to take.
pub fn next<'a>(rows: &'a [Row], seat: &str) -> Option<&'a Row> {
    let own =
        |status: Status| move |r: &&Row| r.status == status && r.owner.as_deref() == Some(seat);
    rows.iter()
        .find(own(Status::InProgress))
        .or_else(|| rows.iter().find(own(Status::Queued)))
        .or_else(|| {
            rows.iter()
                .find(|r| r.status == Status::Queued && r.owner.is_none())
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::String;
    use alloc::vec::Vec;

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
        }
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
    }

    #[test]
    fn own_queued_before_unowned_queued() {
        let rows = [
            row(1, Status::Queued, None),
            row(2, Status::Queued, Some("dw")),
        ];
        assert_eq!(pick(&rows, "dw"), Some(2));
        assert_eq!(pick(&rows, "other"), Some(1));
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
    }
}
