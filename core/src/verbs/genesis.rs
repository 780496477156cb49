//! `genesis`: the first entry, which turns the reviewed migration map into rows. Every row
//! starts with `closes` equal to its issues (not narrowed), no reviewers, brief or review.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use super::check::{check_issues, check_opt_text};
use crate::ctx::{Ctx, not_allowed};
use crate::entry::{GenesisArgs, MapRow};
use crate::error::VerbError;
use crate::hex::is_hex;
use crate::model::Row;
use crate::render::push_number;
use crate::rules;
use crate::state::State;

pub(super) fn apply(
    state: &mut State,
    a: &GenesisArgs,
    ctx: &Ctx,
    out: &mut String,
) -> Result<(), VerbError> {
    if state.revision != 0 || state.branch.is_some() {
        return Err(VerbError::GenesisExists);
    }
    if !rules::is_privileged(ctx.by) {
        return Err(not_allowed(
            ctx,
            String::from("run genesis"),
            "jason or sage only",
        ));
    }
    if a.branch.is_empty()
        || a.branch
            .chars()
            .any(|c| c.is_whitespace() || c.is_control())
    {
        return Err(VerbError::BadText {
            field: "branch",
            why: "must be a branch name without white space",
        });
    }
    if !a.root.starts_with('/') || a.root.chars().any(char::is_control) {
        return Err(VerbError::BadText {
            field: "canonical root",
            why: "must be an absolute path without control characters",
        });
    }
    if !is_hex(&a.source, 40) {
        return Err(VerbError::BadText {
            field: "source",
            why: "must be the 40-hex blob id of the QUEUE.md the map was built from",
        });
    }
    // Each id to its row's place, in the row index's map type (no set of ids compiled apart).
    let mut seen = BTreeMap::new();
    for (i, r) in a.rows.iter().enumerate() {
        if r.id == 0 || seen.insert(r.id, i).is_some() {
            return Err(VerbError::BadText {
                field: "map row id",
                why: "must be a positive number used once",
            });
        }
        rules::check_text("piece", &r.piece)?;
        if let Some(o) = &r.owner {
            rules::check_seat(o)?;
        }
        check_opt_text("gate", &r.gate)?;
        check_opt_text("note", &r.note)?;
        check_issues(&r.issues)?;
    }
    for row in genesis_rows(&a.rows) {
        state.put_row(row);
    }
    state.branch = Some(a.branch.clone());
    state.root = Some(a.root.clone());
    out.push_str("genesis ");
    push_number(out, a.rows.len() as u64);
    out.push_str(" rows on ");
    out.push_str(&a.branch);
    out.push_str(" from blob ");
    out.push_str(&a.source[..12]);
    Ok(())
}

/// The rows genesis makes from the map.
pub(super) fn genesis_rows(map: &[MapRow]) -> Vec<Row> {
    map.iter()
        .map(|r| Row {
            id: r.id,
            piece: r.piece.clone(),
            owner: r.owner.clone(),
            status: r.status,
            gate: r.gate.clone(),
            issues: r.issues.clone(),
            closes: r.issues.clone(),
            closes_narrowed: false,
            reviewers: Vec::new(),
            brief: None,
            note: r.note.clone(),
            blocked_reason: None,
            review: None,
            after: Vec::new(),
            lease: None,
            fenced: Vec::new(),
        })
        .collect()
}
