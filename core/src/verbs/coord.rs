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

/// Checks a dependency list for row `id`: ascending without repeats, and every row there.
/// All `add` needs: no row can wait on the row it adds, so no cycle can pass through it.
pub(super) fn check_after(state: &State, id: u64, after: &[u64]) -> Result<(), VerbError> {
    if after.windows(2).any(|w| w[0] >= w[1]) {
        return Err(VerbError::DependencyOrder);
    }
    for &dep in after {
        if !state.has_row(dep) {
            return Err(VerbError::NoSuchDependency { id, after: dep });
        }
    }
    Ok(())
}

/// `set ID after LIST` on the row at `pos`: the list checked as for `add`, and refused when a
/// row of it already waits on `id`, directly or through others. The state's dependency graph
/// decides (in time bounded by the rows between them in its order); the path the message
/// names is then found by the walk below, once, on the way out.
pub(super) fn set_after(
    state: &mut State,
    pos: usize,
    id: u64,
    after: &[u64],
) -> Result<(), VerbError> {
    check_after(state, id, after)?;
    if state.set_after(pos, after).is_ok() {
        return Ok(());
    }
    // Both answer the same question; should they ever disagree, the list stands in for the
    // path rather than letting the cycle in.
    let path = path_back(state, id, after).unwrap_or_else(|| after.to_vec());
    let mut text = String::new();
    for (i, step) in path.iter().enumerate() {
        if i > 0 {
            text.push_str(" -> ");
        }
        text.push('#');
        push_number(&mut text, *step);
    }
    Err(VerbError::DependencyCycle { id, path: text })
}

/// A chain of dependencies from one of `after` back to `id`, if there is one: depth-first,
/// each row entered once, so a long chain costs one pass over the rows it reaches. The first
/// path in this walk's order is the one refusals have always named.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Row;
    use alloc::vec;

    fn row(id: u64, after: &[u64]) -> Row {
        Row {
            id,
            piece: String::from("p"),
            owner: None,
            status: Status::Queued,
            gate: None,
            issues: Vec::new(),
            closes: Vec::new(),
            closes_narrowed: false,
            reviewers: Vec::new(),
            brief: None,
            note: None,
            blocked_reason: None,
            review: None,
            after: after.to_vec(),
        }
    }

    /// What every `set … after` used to do: the walk back from the list, on every set.
    fn walk_only(state: &State, id: u64, after: &[u64]) -> Result<(), VerbError> {
        check_after(state, id, after)?;
        match path_back(state, id, after) {
            None => Ok(()),
            Some(path) => {
                let steps: Vec<String> = path.iter().map(|s| alloc::format!("#{s}")).collect();
                Err(VerbError::DependencyCycle {
                    id,
                    path: steps.join(" -> "),
                })
            }
        }
    }

    /// Sets `id` after `after` and checks the answer against the walk's.
    fn set(state: &mut State, id: u64, after: &[u64]) -> Result<(), VerbError> {
        let want = walk_only(state, id, after);
        let pos = state.pos(id).unwrap();
        let got = set_after(state, pos, id, after);
        assert_eq!(
            got.as_ref().map_err(|e| alloc::format!("{e}")),
            want.as_ref().map_err(|e| alloc::format!("{e}")),
            "set {id} after {after:?}"
        );
        if got.is_ok() {
            assert_eq!(state.row(id).unwrap().after, after);
        }
        assert!(
            state.waits_ordered(),
            "order broken by set {id} after {after:?}"
        );
        got
    }

    fn chain(n: u64) -> State {
        let mut state = State::default();
        state.put_row(row(1, &[]));
        for id in 2..=n {
            check_after(&state, id, &[id - 1]).unwrap();
            state.put_row(row(id, &[id - 1]));
        }
        state
    }

    #[test]
    fn a_cycle_is_refused_with_the_path_the_walk_names() {
        let mut state = chain(6);
        let err = set(&mut state, 1, &[6]).unwrap_err();
        assert_eq!(
            alloc::format!("{err}"),
            "row 1 cannot wait on #6 -> #5 -> #4 -> #3 -> #2 -> #1: that makes a cycle"
        );
        let err = set(&mut state, 3, &[2, 3]).unwrap_err();
        assert_eq!(
            alloc::format!("{err}"),
            "row 3 cannot wait on #3: that makes a cycle"
        );
        assert_eq!(state.row(1).unwrap().after, Vec::<u64>::new());
        // Row 4 moves after row 6's side once 1 no longer leads to it: 2 after 6 is fine once
        // 3 stops waiting on 2.
        set(&mut state, 3, &[]).unwrap();
        set(&mut state, 2, &[6]).unwrap();
        set(&mut state, 4, &[2]).unwrap_err();
        set(&mut state, 1, &[2]).unwrap();
        assert!(matches!(
            set(&mut state, 6, &[1]),
            Err(VerbError::DependencyCycle { .. })
        ));
        assert!(matches!(
            set(&mut state, 6, &[9]),
            Err(VerbError::NoSuchDependency { id: 6, after: 9 })
        ));
        assert!(matches!(
            set(&mut state, 6, &[2, 1]),
            Err(VerbError::DependencyOrder)
        ));
    }

    /// Two chains made to wait on each other's end in turn: each set moves a whole chain in
    /// the order, and the order and the answers stay right.
    #[test]
    fn ping_pong_between_two_chains() {
        let mut state = chain(20);
        state.put_row(row(21, &[]));
        for id in 22..=40 {
            state.put_row(row(id, &[id - 1]));
        }
        for _ in 0..5 {
            set(&mut state, 1, &[40]).unwrap();
            set(&mut state, 21, &[20]).unwrap_err();
            set(&mut state, 1, &[]).unwrap();
            set(&mut state, 21, &[20]).unwrap();
            set(&mut state, 1, &[40]).unwrap_err();
            set(&mut state, 21, &[]).unwrap();
        }
    }

    /// Random adds and sets, biased towards long chains and sets against the order, checked
    /// entry by entry against the walk.
    #[test]
    fn random_sets_agree_with_the_walk() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut rand = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..40 {
            let mut state = State::default();
            state.put_row(row(1, &[]));
            let (mut refused, mut applied) = (0, 0);
            for _ in 0..300 {
                let n = state.next_id() - 1;
                let pick = |r: &mut dyn FnMut(u64) -> u64| {
                    let mut list: Vec<u64> = (0..r(3) + 1).map(|_| r(n) + 1).collect();
                    list.sort_unstable();
                    list.dedup();
                    list
                };
                match rand(10) {
                    0..3 => {
                        let after = if rand(3) == 0 {
                            pick(&mut rand)
                        } else {
                            vec![n]
                        };
                        check_after(&state, n + 1, &after).unwrap();
                        state.put_row(row(n + 1, &after));
                    }
                    3 => {
                        let id = rand(n) + 1;
                        set(&mut state, id, &[]).unwrap();
                    }
                    _ => {
                        let id = rand(n) + 1;
                        let after = pick(&mut rand);
                        match set(&mut state, id, &after) {
                            Ok(()) => applied += 1,
                            Err(_) => refused += 1,
                        }
                    }
                }
            }
            assert!(
                refused > 10 && applied > 10,
                "{refused} refused, {applied} applied"
            );
        }
    }

    /// A row put again in place of another (as genesis would) sends the graph back to the
    /// rows: the next set reads them afresh.
    #[test]
    fn a_replaced_row_is_read_again() {
        let mut state = chain(4);
        set(&mut state, 1, &[]).unwrap();
        state.put_row(row(4, &[1]));
        set(&mut state, 1, &[4]).unwrap_err();
        set(&mut state, 3, &[4]).unwrap();
        set(&mut state, 1, &[3]).unwrap_err();
    }
}
