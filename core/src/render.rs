//! The generated body of `QUEUE.md`: a table of every row that is not parked, then the parked
//! list. Only `|` needs escaping here because `\` and `<` never pass the text rules.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::model::{Row, Status};
use crate::state::State;

pub const HEADER: &str = "| # | Piece | Owner | Status | Gate | Issues | Note |";
const RULE: &str = "| --- | --- | --- | --- | --- | --- | --- |";

/// The body between the markers for `state`.
pub fn render_body(state: &State) -> String {
    let mut out = String::with_capacity(128 + state.rows.len() * 96);
    out.push_str(HEADER);
    out.push('\n');
    out.push_str(RULE);
    out.push('\n');
    let (parked, listed): (Vec<&Row>, Vec<&Row>) =
        state.rows.iter().partition(|r| r.status == Status::Parked);
    for row in listed {
        let cells = [
            format!("{}", row.id),
            piece_cell(row),
            escape(row.owner.as_deref().unwrap_or("")),
            escape(&status_cell(row, state.move_reason(row.id))),
            escape(row.gate.as_deref().unwrap_or("")),
            issues_cell(row),
            escape(row.note.as_deref().unwrap_or("")),
        ];
        out.push_str("| ");
        out.push_str(&cells.join(" | "));
        out.push_str(" |\n");
    }
    out.push_str("\n**Parked**\n\n");
    if parked.is_empty() {
        out.push_str("(none)\n");
    }
    for row in parked {
        out.push_str(&format!("- {} {}", row.id, piece_cell(row)));
        let mut parts: Vec<String> = Vec::new();
        if let Some(o) = &row.owner {
            parts.push(format!("owner {}", escape(o)));
        }
        if !row.issues.is_empty() {
            parts.push(format!("issues {}", issues_cell(row)));
        }
        if let Some(g) = &row.gate {
            parts.push(format!("gate {}", escape(g)));
        }
        if let Some(r) = state.move_reason(row.id) {
            parts.push(format!("reason: {}", escape(r)));
        }
        if !parts.is_empty() {
            out.push_str(&format!(" ({})", parts.join("; ")));
        }
        if let Some(n) = &row.note {
            out.push_str(&format!(": {}", escape(n)));
        }
        out.push('\n');
    }
    out
}

/// Escapes the table's one special character.
pub fn escape(text: &str) -> String {
    text.replace('|', "\\|")
}

fn piece_cell(row: &Row) -> String {
    match &row.brief {
        Some(anchor) => format!("[{}]({})", escape(&row.piece), escape(anchor)),
        None => escape(&row.piece),
    }
}

/// The status, with the review round while a round is open, and the reason for it.
fn status_cell(row: &Row, move_reason: Option<&str>) -> String {
    let mut cell = String::from(row.status.as_str());
    let open_round = matches!(row.status, Status::InReview | Status::WaitingOnJason);
    if let Some(round) = row
        .review
        .as_ref()
        .and_then(|r| r.rounds.last())
        .filter(|_| open_round)
    {
        cell.push_str(&format!(" (round {})", round.round));
    }
    let reason = match row.status {
        Status::Blocked => row.blocked_reason.as_deref(),
        _ => move_reason,
    };
    if let Some(r) = reason {
        cell.push_str(": ");
        cell.push_str(r);
    }
    cell
}

fn issues_cell(row: &Row) -> String {
    let list = |v: &[u64]| -> String {
        let parts: Vec<String> = v.iter().map(|i| format!("#{i}")).collect();
        parts.join(", ")
    };
    let mut cell = list(&row.issues);
    if row.closes_narrowed {
        let closes = if row.closes.is_empty() {
            String::from("none")
        } else {
            list(&row.closes)
        };
        cell.push_str(&format!(" (closes {closes})"));
    }
    cell
}
