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
