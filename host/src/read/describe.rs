//! A row as `show` prints it: `field: value` lines, its dependencies, its move reason and
//! its current review round.

use mosaic_queue_core::{Row, State, Status};

/// A row as `field: value` lines.
pub fn describe(st: &State, row: &Row) -> String {
    let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| String::from("-"));
    let list = |v: &[u64]| {
        let parts: Vec<String> = v.iter().map(|i| format!("#{i}")).collect();
        if parts.is_empty() {
            String::from("-")
        } else {
            parts.join(", ")
        }
    };
    let mut out = format!("row {}: {}\n", row.id, row.piece);
    out.push_str(&format!("  status: {}\n", row.status));
    out.push_str(&format!("  owner: {}\n", opt(&row.owner)));
    out.push_str(&format!("  gate: {}\n", opt(&row.gate)));
    out.push_str(&format!("  issues: {}\n", list(&row.issues)));
    let narrowed = if row.closes_narrowed {
        " (narrowed)"
    } else {
        ""
    };
    out.push_str(&format!("  closes: {}{narrowed}\n", list(&row.closes)));
    let reviewers = if row.reviewers.is_empty() {
        String::from("-")
    } else {
        row.reviewers.join(", ")
    };
    out.push_str(&format!("  reviewers: {reviewers}\n"));
    out.push_str(&format!("  brief: {}\n", opt(&row.brief)));
    out.push_str(&format!("  note: {}\n", opt(&row.note)));
    if let Some(r) = &row.blocked_reason {
        out.push_str(&format!("  blocked: {r}\n"));
    }
    if !row.after.is_empty() {
        out.push_str(&format!("  after: {}\n", after_text(st, row)));
    }
    if let Some(r) = st.move_reason(row.id) {
        out.push_str(&format!("  reason: {r}\n"));
    }
    if let Some(round) = row.review.as_ref().and_then(|r| r.rounds.last()) {
        out.push_str(&format!(
            "  review: round {} on {} candidate {}\n",
            round.round,
            round
                .issue
                .map_or_else(|| String::from("-"), |i| format!("#{i}")),
            round.candidate.as_deref().unwrap_or("-")
        ));
        for a in &round.attempts {
            let comment = a
                .comment
                .map_or_else(String::new, |c| format!(" comment {c}"));
            out.push_str(&format!(
                "  request: {} by {} {}{comment}\n",
                a.op,
                a.by,
                a.state.as_str()
            ));
        }
        for v in &round.verdicts {
            out.push_str(&format!(
                "  verdict: {} {} comment {}\n",
                v.by,
                v.verdict.as_str(),
                v.comment
            ));
        }
        if round.duplicate_risk {
            out.push_str("  duplicate risk: an abandoned request's comment may still land\n");
        }
    }
    out.push_str(&format!("  rev: {}\n", st.revision));
    out
}

/// A row's dependencies for `show`: `#3 (done), #5`.
fn after_text(st: &State, row: &Row) -> String {
    let parts: Vec<String> = row
        .after
        .iter()
        .map(|&id| match st.row(id) {
            Ok(r) if r.status == Status::Done => format!("#{id} (done)"),
            _ => format!("#{id}"),
        })
        .collect();
    parts.join(", ")
}
