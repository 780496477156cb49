//! The generated body of `QUEUE.md`: a table of every row that is not parked, then the parked
//! list. `|` is escaped because it would split a cell, and from semantics 4 `[` and `]` too, so
//! that no text can form a markdown link or image (`\` and `<` never pass the text rules). A
//! body is rendered in the style of an entry's semantics, so a table rendered again for an old
//! entry hashes to what that entry recorded.

use alloc::string::String;

use crate::entry::{HARDENED_SEMANTICS, LEASE_SEMANTICS};
use crate::model::{AttemptState, Round, Row, Status};
use crate::pick::Done;
use crate::state::State;

pub(crate) const HEADER: &str = "| # | Piece | Owner | Status | Gate | Issues | Note |";
const RULE: &str = "| --- | --- | --- | --- | --- | --- | --- |";

/// The body between the markers for `state`, in the current style (brackets escaped).
pub fn render_body(state: &State) -> String {
    render_body_under(state, HARDENED_SEMANTICS)
}

/// The body QUEUE.md holds for `state`: rendered in the style of the last entry applied
/// (`State::semantics`), so it hashes to what that entry recorded. `Queue::render_body` and
/// `list` both print it.
pub fn render_table(state: &State) -> String {
    render_body_under(state, state.semantics())
}

/// The body as an entry of `semantics` renders it: before semantics 4 only `|` is escaped,
/// and before 7 the rows a row waits on are written `#5` (as issues are) rather than `row 5`.
/// Cells are written straight into the body: a write renders the whole table once per
/// command, so per-cell strings would add up.
pub fn render_body_under(state: &State, semantics: u8) -> String {
    let esc = Escape {
        brackets: semantics >= HARDENED_SEMANTICS,
    };
    let rows_named = semantics >= LEASE_SEMANTICS;
    let mut out = String::with_capacity(128 + state.rows.len() * 96);
    out.push_str(HEADER);
    out.push('\n');
    out.push_str(RULE);
    out.push('\n');
    let mut any_parked = false;
    let done = Done::of(&state.rows);
    for row in &state.rows {
        if row.status == Status::Parked {
            any_parked = true;
            continue;
        }
        out.push_str("| ");
        push_number(&mut out, row.id);
        out.push_str(" | ");
        push_piece(&mut out, row, esc);
        out.push_str(" | ");
        esc.push(&mut out, row.owner.as_deref().unwrap_or(""));
        out.push_str(" | ");
        push_status(&mut out, row, state.move_reason(row.id), esc);
        push_waits(&mut out, &done, row, rows_named);
        out.push_str(" | ");
        esc.push(&mut out, row.gate.as_deref().unwrap_or(""));
        out.push_str(" | ");
        push_issues(&mut out, row);
        out.push_str(" | ");
        esc.push(&mut out, row.note.as_deref().unwrap_or(""));
        out.push_str(" |\n");
    }
    out.push_str("\n**Parked**\n\n");
    if !any_parked {
        out.push_str("(none)\n");
    }
    for row in state.rows.iter().filter(|r| r.status == Status::Parked) {
        out.push_str("- ");
        push_number(&mut out, row.id);
        out.push(' ');
        push_piece(&mut out, row, esc);
        let mut parts = 0;
        if let Some(o) = &row.owner {
            next_part(&mut out, &mut parts);
            out.push_str("owner ");
            esc.push(&mut out, o);
        }
        if !row.issues.is_empty() {
            next_part(&mut out, &mut parts);
            out.push_str("issues ");
            push_issues(&mut out, row);
        }
        if let Some(g) = &row.gate {
            next_part(&mut out, &mut parts);
            out.push_str("gate ");
            esc.push(&mut out, g);
        }
        if let Some(r) = state.move_reason(row.id) {
            next_part(&mut out, &mut parts);
            out.push_str("reason: ");
            esc.push(&mut out, r);
        }
        if parts > 0 {
            out.push(')');
        }
        if let Some(n) = &row.note {
            out.push_str(": ");
            esc.push(&mut out, n);
        }
        out.push('\n');
    }
    out
}

/// Opens the parked line's parenthesis before the first part, separates the later ones.
fn next_part(out: &mut String, parts: &mut usize) {
    out.push_str(if *parts == 0 { " (" } else { "; " });
    *parts += 1;
}

/// Which characters of table text get a backslash: `|` always, `[` and `]` from semantics 4.
#[derive(Clone, Copy)]
struct Escape {
    brackets: bool,
}

impl Escape {
    fn push(self, out: &mut String, text: &str) {
        let special = |c: char| c == '|' || (self.brackets && (c == '[' || c == ']'));
        let mut rest = text;
        while let Some(i) = rest.find(special) {
            out.push_str(&rest[..i]);
            out.push('\\');
            // The special characters are all one byte.
            out.push_str(&rest[i..i + 1]);
            rest = &rest[i + 1..];
        }
        out.push_str(rest);
    }
}

/// Appends `n` in decimal, as `Display` would, without going through the formatter.
pub(crate) fn push_number(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // Always ASCII digits, so this never falls through.
    if let Ok(text) = core::str::from_utf8(&digits[start..]) {
        out.push_str(text);
    }
}

fn push_piece(out: &mut String, row: &Row, esc: Escape) {
    match &row.brief {
        Some(anchor) => {
            out.push('[');
            esc.push(out, &row.piece);
            out.push_str("](");
            esc.push(out, anchor);
            out.push(')');
        }
        None => esc.push(out, &row.piece),
    }
}

/// A request round's latest attempt state, shown until it is posted so that a stuck request is
/// visible in the table.
fn request_state(round: &Round) -> Option<&'static str> {
    let last = round.attempts.last().filter(|_| round.requested)?;
    (last.state != AttemptState::Posted).then(|| last.state.as_str())
}

/// The status, with the review round while a round is open, and the reason for it.
fn push_status(out: &mut String, row: &Row, move_reason: Option<&str>, esc: Escape) {
    out.push_str(row.status.as_str());
    let open_round = matches!(row.status, Status::InReview | Status::WaitingOnJason);
    if let Some(round) = row
        .review
        .as_ref()
        .and_then(|r| r.rounds.last())
        .filter(|_| open_round)
    {
        out.push_str(" (round ");
        push_number(out, u64::from(round.round));
        if let Some(state) = request_state(round) {
            out.push_str(", request ");
            out.push_str(state);
        }
        out.push(')');
    }
    let reason = match row.status {
        Status::Blocked => row.blocked_reason.as_deref(),
        _ => move_reason,
    };
    if let Some(r) = reason {
        out.push_str(": ");
        esc.push(out, r);
    }
}

/// What an open row still waits on (semantics 3); nothing for a row without dependencies, so
/// a queue that never uses them renders as it always did. From semantics 7 the rows are named
/// as rows (`waits on row 5`, `waits on rows 3, 5`), since `#` in the same table means an
/// issue; before it, as `#5` (`waits on #3, #5`).
fn push_waits(out: &mut String, done: &Done, row: &Row, rows_named: bool) {
    if row.after.is_empty() || row.status == Status::Done {
        return;
    }
    let open = done.open_deps(row);
    if open.is_empty() {
        return;
    }
    out.push_str(" (waits on ");
    if !rows_named {
        push_issue_list(out, &open);
    } else {
        out.push_str(if open.len() == 1 { "row " } else { "rows " });
        for (i, &id) in open.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            push_number(out, id);
        }
    }
    out.push(')');
}

fn push_issues(out: &mut String, row: &Row) {
    push_issue_list(out, &row.issues);
    if row.closes_narrowed {
        out.push_str(" (closes ");
        if row.closes.is_empty() {
            out.push_str("none");
        } else {
            push_issue_list(out, &row.closes);
        }
        out.push(')');
    }
}

fn push_issue_list(out: &mut String, issues: &[u64]) {
    for (i, &issue) in issues.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push('#');
        push_number(out, issue);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::vec;
    use alloc::vec::Vec;

    use crate::model::Review;

    /// Escapes text as the current style does: `|`, `[` and `]` get a backslash.
    fn escape(text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        Escape { brackets: true }.push(&mut out, text);
        out
    }

    /// A row's piece cell, as the reference renders it.
    fn piece_cell(row: &Row) -> String {
        match &row.brief {
            Some(anchor) => format!("[{}]({})", escape(&row.piece), escape(anchor)),
            None => escape(&row.piece),
        }
    }
    /// A row's status cell, as the reference renders it.
    fn status_cell(row: &Row, move_reason: Option<&str>) -> String {
        let mut cell = String::from(row.status.as_str());
        let open_round = matches!(row.status, Status::InReview | Status::WaitingOnJason);
        if let Some(round) = row
            .review
            .as_ref()
            .and_then(|r| r.rounds.last())
            .filter(|_| open_round)
        {
            let request = round
                .attempts
                .last()
                .filter(|a| round.requested && a.state != AttemptState::Posted)
                .map_or(String::new(), |a| format!(", request {}", a.state.as_str()));
            cell.push_str(&format!(" (round {}{request})", round.round));
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
    /// A row's issues cell, as the reference renders it.
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

    /// The body as rendered before cells were written in place; the new one must match it.
    fn reference(state: &State) -> String {
        let mut out = String::new();
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

    fn round(n: u32) -> Round {
        let state = [
            AttemptState::Requesting,
            AttemptState::Posted,
            AttemptState::Conflict,
        ][n as usize % 3];
        Round {
            round: n,
            issue: Some(7),
            candidate: None,
            manifest: None,
            requested: n.is_multiple_of(2),
            opened_by: String::from("flicker"),
            opened_rev: 2,
            attempts: vec![crate::model::Attempt {
                op: String::from("flicker-request-1"),
                by: String::from("flicker"),
                state,
                status: None,
                detail: None,
                comment: None,
            }],
            verdicts: Vec::new(),
            duplicate_risk: false,
        }
    }

    #[test]
    fn cells_written_in_place_match_the_reference() {
        let text = |s: &str| Some(String::from(s));
        let statuses = Status::ALL;
        let mut state = State::default();
        for id in 1..=64u64 {
            let bits = id.wrapping_mul(0x9e37_79b9) >> 3;
            let on = |bit: u64| bits >> bit & 1 == 1;
            let status = statuses[(id % statuses.len() as u64) as usize];
            let issues: Vec<u64> = (0..bits % 3).map(|i| 1500 + id + i).collect();
            let row = Row {
                id: id * 10,
                piece: format!("Piece {id}{}", if on(0) { " | piped" } else { "" }),
                owner: on(1).then(|| String::from("darkwing")),
                status,
                gate: if on(2) { text("CI | green") } else { None },
                closes: if on(3) {
                    issues[..issues.len() / 2].to_vec()
                } else {
                    issues.clone()
                },
                closes_narrowed: on(3),
                issues,
                reviewers: Vec::new(),
                brief: on(4).then(|| format!("docs/plans/q.md#p|{id}")),
                note: if on(5) { text("a | note") } else { None },
                blocked_reason: if on(6) { text("waiting | on CI") } else { None },
                after: Vec::new(),
                lease: None,
                fenced: Vec::new(),
                review: on(7).then(|| Review {
                    rounds: vec![round(1), round(2)],
                }),
            };
            state.put_row(row);
            if on(8) {
                state.set_move_reason(id * 10, Some("moved | back"));
            }
        }
        assert_eq!(render_body(&state), reference(&state));
        let none_parked = State::default();
        assert_eq!(render_body(&none_parked), reference(&none_parked));
    }

    /// The rows a row waits on are named as issues are before semantics 7 and as rows from it;
    /// a parked row's dependencies and a row waiting only on done rows name nothing.
    #[test]
    fn waiting_rows_are_named_as_rows_from_semantics_7() {
        let mut state = State::default();
        let row = |id: u64, status: Status, after: Vec<u64>| Row {
            id,
            piece: format!("Piece {id}"),
            owner: None,
            status,
            gate: None,
            issues: vec![1500 + id],
            closes: vec![1500 + id],
            closes_narrowed: false,
            reviewers: Vec::new(),
            brief: None,
            note: None,
            blocked_reason: None,
            review: None,
            after,
            lease: None,
            fenced: Vec::new(),
        };
        state.put_row(row(1, Status::Done, vec![]));
        state.put_row(row(2, Status::InProgress, vec![]));
        state.put_row(row(3, Status::Queued, vec![1]));
        state.put_row(row(4, Status::Parked, vec![2]));
        state.put_row(row(5, Status::Queued, vec![1, 2]));
        state.put_row(row(6, Status::Blocked, vec![2, 5]));
        let lines = |semantics: u8| -> Vec<String> {
            render_body_under(&state, semantics)
                .lines()
                .filter(|l| l.contains("waits"))
                .map(String::from)
                .collect()
        };
        assert_eq!(
            lines(5),
            [
                "| 5 | Piece 5 |  | queued (waits on #2) |  | #1505 |  |",
                "| 6 | Piece 6 |  | blocked (waits on #2, #5) |  | #1506 |  |",
            ]
        );
        assert_eq!(
            lines(7),
            [
                "| 5 | Piece 5 |  | queued (waits on row 2) |  | #1505 |  |",
                "| 6 | Piece 6 |  | blocked (waits on rows 2, 5) |  | #1506 |  |",
            ]
        );
    }
}
