//! Checks the verbs share on an entry's lists and texts, beyond `rules`: the shapes
//! `Command::normalize` makes, which a hand-written entry must have too.

use alloc::string::String;

use crate::error::VerbError;
use crate::rules;

/// Issue lists in entries are strictly ascending positive numbers (what `normalize` makes).
pub(crate) fn check_issues(issues: &[u64]) -> Result<(), VerbError> {
    if let Some(&value) = issues.iter().find(|&&i| i == 0) {
        return Err(VerbError::BadIssue { value });
    }
    if issues.windows(2).any(|w| w[0] >= w[1]) {
        return Err(VerbError::IssueOrder);
    }
    Ok(())
}

/// Seat lists in entries hold valid, distinct seat names.
pub(crate) fn check_seats(seats: &[String]) -> Result<(), VerbError> {
    for (i, s) in seats.iter().enumerate() {
        rules::check_seat(s)?;
        if seats[..i].contains(s) {
            return Err(VerbError::DuplicateSeat { name: s.clone() });
        }
    }
    Ok(())
}

pub(crate) fn check_opt_text(field: &'static str, text: &Option<String>) -> Result<(), VerbError> {
    match text {
        Some(t) => rules::check_text(field, t),
        None => Ok(()),
    }
}
