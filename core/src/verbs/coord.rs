//! Semantics 3, coordination: `take` claims the row `next` names for its actor, and rows may
//! wait on other rows (`add --after`, `set ID after`). Replay re-checks that each take claimed
//! exactly what `next` named at that revision, and that no dependency is missing or circular.

use alloc::string::String;
use alloc::vec::Vec;

use super::Ctx;
use crate::entry::IdArgs;
use crate::error::VerbError;
use crate::matrix::{self, Via};
use crate::model::Status;
use crate::next::{self, Pick};
use crate::render::push_number;
use crate::state::State;

pub(super) fn take(
    state: &mut State,
    a: &IdArgs,
    ctx: &Ctx,
    out: &mut String,
) -> Result<(), VerbError> {
    let named = match next::take_pick(&state.rows, ctx.by) {
        Pick::Row(id) => Some(id),
        Pick::Held(_) | Pick::Nothing => None,
    };
    if named != Some(a.id) {
        let mut next = String::new();
        match named {
            Some(id) => {
                next.push_str("row ");
                push_number(&mut next, id);
            }
            None => next.push_str("nothing to take"),
        }
        return Err(VerbError::NotNext {
            id: a.id,
            seat: String::from(ctx.by),
            next,
        });
    }
    let pos = state.open_pos(a.id)?;
    let row = &state.rows[pos];
    // `next` only names a queued row the seat owns or nobody does, which the matrix allows;
    // the check stays so that the two rules cannot drift apart unnoticed.
    let rule =
        matrix::rule(row.status, Status::InProgress, Via::Move).ok_or(VerbError::NoTransition {
            id: a.id,
            from: row.status,
            to: Status::InProgress,
        })?;
    if !rule.who.allows(ctx.by, row.owner.as_deref()) {
        let action = alloc::format!("take row {}", a.id);
        return Err(super::not_allowed(ctx, action, rule.who.describe()));
    }
    let from = row.status;
    let row = state.row_mut(pos);
    row.owner = Some(String::from(ctx.by));
    row.status = Status::InProgress;
    row.blocked_reason = None;
    state.set_move_reason(a.id, None);
    out.push_str("take ");
    push_number(out, a.id);
    out.push(' ');
    out.push_str(from.as_str());
    out.push_str(" -> in-progress");
    Ok(())
}

/// Checks that row `id` may wait on `after`: ascending without repeats, every row there, and
/// no path back to `id` through the rows' own dependencies.
pub(super) fn check_after(state: &State, id: u64, after: &[u64]) -> Result<(), VerbError> {
    if after.windows(2).any(|w| w[0] >= w[1]) {
        return Err(VerbError::DependencyOrder);
    }
    for &dep in after {
        if !state.has_row(dep) {
            return Err(VerbError::NoSuchDependency { id, after: dep });
        }
    }
    if let Some(path) = path_back(state, id, after) {
        let mut text = String::new();
        for (i, step) in path.iter().enumerate() {
            if i > 0 {
                text.push_str(" -> ");
            }
            text.push('#');
            push_number(&mut text, *step);
        }
        return Err(VerbError::DependencyCycle { id, path: text });
    }
    Ok(())
}

/// A chain of dependencies from one of `after` back to `id`, if there is one: depth-first,
/// each row entered once, so a long chain costs one pass over the rows it reaches.
fn path_back(state: &State, id: u64, after: &[u64]) -> Option<Vec<u64>> {
    let mut seen = alloc::collections::BTreeSet::new();
    for &start in after {
        if start != id && !seen.insert(start) {
            continue;
        }
        // Each frame: a row on the current path and how many of its dependencies were tried.
        let mut path: Vec<(u64, usize)> = alloc::vec![(start, 0)];
        while let Some(top) = path.last_mut() {
            let (at, tried) = *top;
            if at == id {
                return Some(path.iter().map(|&(r, _)| r).collect());
            }
            let deps: &[u64] = state.row(at).map_or(&[], |r| &r.after);
            match deps.get(tried) {
                Some(&dep) => {
                    top.1 += 1;
                    if dep == id || seen.insert(dep) {
                        path.push((dep, 0));
                    }
                }
                None => {
                    path.pop();
                }
            }
        }
    }
    None
}
