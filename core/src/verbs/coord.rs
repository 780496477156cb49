//! Semantics 3, coordination: `take` claims the row `next` names for its actor, and rows may
//! wait on other rows (`add --after`, `set ID after`). Replay re-checks that each take claimed
//! exactly what `next` named at that revision, and that no dependency is missing or circular
//! (and, from semantics 5, that no set joins too many rows on both sides).

use alloc::string::String;
use alloc::vec::Vec;

use super::claims;
use crate::ctx::{Ctx, not_allowed};
use crate::entry::{REACH_SEMANTICS, Reclaimed, TakeArgs};
use crate::error::VerbError;
use crate::lease::lease_text;
use crate::matrix::{self, Via};
use crate::model::Status;
use crate::pick::Pick;
use crate::render::push_number;
use crate::state::{Held, State, Unlinked};

/// A path longer than this is quoted by its first and last `ENDS` rows.
const WHOLE: usize = 9;
const ENDS: usize = 4;

pub(super) fn take(
    state: &mut State,
    a: &TakeArgs,
    ctx: &Ctx,
    out: &mut String,
) -> Result<(), VerbError> {
    if let Some(r) = &a.reclaim {
        return take_expired(state, a, r, ctx, out);
    }
    let named = match state.take_pick(ctx.by) {
        Pick::Row(id) => Some(id),
        Pick::Held(_) | Pick::Reclaim(_) | Pick::Nothing => None,
    };
    if named != Some(a.id) {
        return Err(not_next(a.id, ctx.by, named));
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
        return Err(not_allowed(ctx, action, rule.who.describe()));
    }
    let lease = claims::lease_from(a.lease, ctx)?;
    let from = row.status;
    claims::take_over(state, pos, lease, ctx);
    state.set_move_reason(a.id, None);
    out.push_str("take ");
    push_number(out, a.id);
    out.push(' ');
    out.push_str(from.as_str());
    out.push_str(" -> in-progress");
    push_lease(out, a.lease);
    Ok(())
}

/// A take that ends another seat's expired claim (semantics 7): what the log proves of the
/// expiry (`claims::check_expired`), and `next`'s order as far as the log knows it: the seat
/// has no row of its own that `next` names first, no queued row free for it stands before
/// this one, and the row waits on nothing not done. Rows before it whose claims the log shows
/// expired may have been live by their heartbeats, so they do not count against it.
fn take_expired(
    state: &mut State,
    a: &TakeArgs,
    r: &Reclaimed,
    ctx: &Ctx,
    out: &mut String,
) -> Result<(), VerbError> {
    let pos = state.open_pos(a.id)?;
    claims::check_expired(&state.rows[pos], r, ctx)?;
    let first = match state.take_pick(ctx.by) {
        Pick::Held(id) => Some(id),
        Pick::Row(id) => {
            let p = state.pos(id)?;
            let own = state.rows[p].owner.as_deref() == Some(ctx.by);
            (own || p < pos).then_some(id)
        }
        Pick::Reclaim(_) | Pick::Nothing => None,
    };
    if first.is_some() || !state.ready(pos) {
        return Err(not_next(a.id, ctx.by, first));
    }
    let lease = claims::lease_from(a.lease, ctx)?;
    claims::take_over(state, pos, lease, ctx);
    state.set_move_reason(a.id, None);
    out.push_str("take ");
    push_number(out, a.id);
    out.push_str(" reclaimed from ");
    out.push_str(&r.from);
    out.push_str(" (last sign of life ");
    out.push_str(&r.seen);
    out.push_str(", lease ");
    out.push_str(&lease_text(r.lease));
    out.push(')');
    push_lease(out, a.lease);
    Ok(())
}

/// A claim's lease at the end of its receipt: `, lease 2h`.
pub(super) fn push_lease(out: &mut String, lease: Option<u32>) {
    if let Some(seconds) = lease {
        out.push_str(", lease ");
        out.push_str(&lease_text(seconds));
    }
}

fn not_next(id: u64, seat: &str, named: Option<u64>) -> VerbError {
    let mut next = String::new();
    match named {
        Some(id) => {
            next.push_str("row ");
            push_number(&mut next, id);
        }
        None => next.push_str("nothing to take"),
    }
    VerbError::NotNext {
        id,
        seat: String::from(seat),
        next,
    }
}

/// Checks a dependency list for row `id`: ascending without repeats, and every row there.
/// All `add` needs: no row can wait on the row it adds, so no cycle can pass through it.
pub(super) fn check_after(state: &State, id: u64, after: &[u64]) -> Result<(), VerbError> {
    if after.windows(2).any(|w| w[0] >= w[1]) {
        return Err(VerbError::DependencyOrder);
    }
    for &dep in after {
        if !state.has_row(dep) {
            if let Some(epoch) = state.archived_in(dep) {
                return Err(VerbError::RowArchived { id: dep, epoch });
            }
            return Err(VerbError::NoSuchDependency { id, after: dep });
        }
    }
    Ok(())
}

/// `set ID after LIST` on the row at `pos`: the list checked as for `add`, then, under
/// semantics 5, the reach rule, and refused when a row of it already waits on `id`, directly
/// or through others. The state's dependency graph decides (in time bounded by the rows
/// between them in its order, and by the budget for older entries); the path the message
/// names is then found by the walk below, once, on the way out.
pub(super) fn set_after(
    state: &mut State,
    pos: usize,
    id: u64,
    after: &[u64],
    ctx: &Ctx,
) -> Result<(), VerbError> {
    check_after(state, id, after)?;
    let held = if ctx.semantics >= REACH_SEMANTICS {
        Held::Reach
    } else {
        Held::Budget { rev: ctx.rev }
    };
    match state.set_after(pos, after, held) {
        Ok(()) => Ok(()),
        Err(Unlinked::Budget(budget)) => Err(VerbError::DependencyBudget { budget }),
        Err(Unlinked::Reach) => {
            let old = &state.rows[pos].after;
            let added: Vec<u64> = after
                .iter()
                .copied()
                .filter(|d| old.binary_search(d).is_err())
                .collect();
            Err(VerbError::DependencyReach {
                id,
                rows: quote(&added, ", "),
            })
        }
        Err(Unlinked::Cycle) => {
            // Both answer the same question; should they ever disagree, the list stands in
            // for the path rather than letting the cycle in.
            let path = path_back(state, id, after).unwrap_or_else(|| after.to_vec());
            Err(VerbError::DependencyCycle {
                id,
                path: quote(&path, " -> "),
            })
        }
    }
}

/// `#3 -> #2 -> #1`, or for a long list its first and last rows around `...` and the count:
/// a refusal stays one short line however long the path.
fn quote(rows: &[u64], between: &str) -> String {
    let mut text = String::new();
    let long = rows.len() > WHOLE;
    for (i, step) in rows.iter().enumerate() {
        if long && (ENDS..rows.len() - ENDS).contains(&i) {
            if i == ENDS {
                text.push_str(between);
                text.push_str("...");
            }
            continue;
        }
        if i > 0 {
            text.push_str(between);
        }
        text.push('#');
        push_number(&mut text, *step);
    }
    if long {
        text.push_str(" (");
        push_number(&mut text, rows.len() as u64);
        text.push_str(" rows)");
    }
    text
}

/// A chain of dependencies from one of `after` back to `id`, if there is one: depth-first,
/// each row entered once, so a long chain costs one pass over the rows it reaches. The first
/// path in this walk's order is the one refusals have always named.
fn path_back(state: &State, id: u64, after: &[u64]) -> Option<Vec<u64>> {
    // Each row entered, to the length of the path it was entered on: the row index's map type,
    // so that no set of ids is compiled apart.
    let mut seen = alloc::collections::BTreeMap::new();
    for &start in after {
        if start != id && seen.insert(start, 1).is_some() {
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
                    if dep == id || seen.insert(dep, path.len() + 1).is_none() {
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
            lease: None,
            fenced: Vec::new(),
        }
    }

    /// What every `set … after` used to do: the walk back from the list, on every set.
    fn walk_only(state: &State, id: u64, after: &[u64]) -> Result<(), VerbError> {
        check_after(state, id, after)?;
        match path_back(state, id, after) {
            None => Ok(()),
            Some(path) => Err(VerbError::DependencyCycle {
                id,
                path: quote(&path, " -> "),
            }),
        }
    }

    /// Sets `id` after `after` and checks the answer against the walk's.
    fn set(state: &mut State, id: u64, after: &[u64]) -> Result<(), VerbError> {
        let want = walk_only(state, id, after);
        let pos = state.pos(id).unwrap();
        let got = set_after(state, pos, id, after, &ctx(REACH_SEMANTICS));
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

    fn ctx(semantics: u8) -> Ctx<'static> {
        Ctx {
            rev: 2,
            op: "lead-set-1",
            by: "lead",
            at: "2026-11-30T10:00:00.000Z",
            semantics,
        }
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

    /// A path of nine rows is quoted whole; a longer one by its ends and its length.
    #[test]
    fn a_long_path_is_quoted_by_its_ends() {
        let mut state = chain(9);
        let err = set(&mut state, 1, &[9]).unwrap_err();
        assert_eq!(
            alloc::format!("{err}"),
            "row 1 cannot wait on #9 -> #8 -> #7 -> #6 -> #5 -> #4 -> #3 -> #2 -> #1: that makes a cycle"
        );
        // Long enough for the reach rule: an older entry's cycle.
        let mut state = chain(20_000);
        let pos = state.pos(1).unwrap();
        let err = set_after(&mut state, pos, 1, &[20_000], &ctx(4)).unwrap_err();
        assert_eq!(
            alloc::format!("{err}"),
            "row 1 cannot wait on #20000 -> #19999 -> #19998 -> #19997 -> ... -> #4 -> #3 -> #2 -> #1 (20000 rows): that makes a cycle"
        );
        assert_eq!(
            quote(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], ", "),
            "#1, #2, #3, #4, ..., #7, #8, #9, #10 (10 rows)"
        );
        assert_eq!(quote(&[7], ", "), "#7");
    }

    /// Rows 1..=1002 and 1003..=2004, two chains: 1000 rows wait on row 2 and 1001 on row 1;
    /// row 2003 waits on 1000 rows and row 2004 on 1001.
    fn two_chains() -> State {
        let mut state = chain(1002);
        state.put_row(row(1003, &[]));
        for id in 1004..=2004 {
            state.put_row(row(id, &[id - 1]));
        }
        state
    }

    /// Under semantics 5 a set is refused only when both sides pass 1000 rows, exactly; the
    /// rows it already waits on do not count, and clearing is always free. Older entries are
    /// not held to it.
    #[test]
    fn the_reach_rule_at_its_edges() {
        let mut state = two_chains();
        let under = |state: &mut State, id: u64, after: &[u64], semantics: u8| {
            let pos = state.pos(id).unwrap();
            set_after(state, pos, id, after, &ctx(semantics))
        };
        for (id, tail, refused) in [
            (2, 2003, false),
            (1, 2003, false),
            (2, 2004, false),
            (1, 2004, true),
        ] {
            // A set replaces the row's list: row 2 keeps waiting on row 1.
            let kept: &[u64] = if id == 2 { &[1] } else { &[] };
            let got = under(&mut state, id, &[kept, &[tail]].concat(), REACH_SEMANTICS);
            assert_eq!(got.is_err(), refused, "set {id} after {tail}: {got:?}");
            if let Err(e) = got {
                assert_eq!(e.kind(), "dependency-reach");
                assert_eq!(
                    alloc::format!("{e}"),
                    "row 1 cannot wait on #2004: more than 1000 rows wait on row 1, directly or through others, and the rows it would add wait on more than 1000, more than one set may join (docs/coordination.md); make a row that fewer rows wait on wait on them instead, or clear dependencies that are no longer needed first"
                );
                assert!(state.row(1).unwrap().after.is_empty());
            }
            under(&mut state, id, kept, REACH_SEMANTICS).unwrap();
        }
        // The same set under semantics 4 is fine; once there, naming it again adds nothing.
        under(&mut state, 1, &[2004], 4).unwrap();
        under(&mut state, 1, &[2004], REACH_SEMANTICS).unwrap();
        assert_eq!(
            under(&mut state, 1, &[1003, 2004], REACH_SEMANTICS).map_err(|e| e.kind()),
            Ok(())
        );
        assert_eq!(
            under(&mut state, 1, &[2003, 2004], REACH_SEMANTICS).map_err(|e| e.kind()),
            Ok(())
        );
        under(&mut state, 1, &[], REACH_SEMANTICS).unwrap();
        assert!(state.waits_ordered());
        // A cycle whose sides are both long is refused at the rule, before any search.
        let mut state = chain(1_200);
        assert_eq!(
            under(&mut state, 1, &[1_200], REACH_SEMANTICS).map_err(|e| e.kind()),
            Err("dependency-reach")
        );
        assert_eq!(
            under(&mut state, 1, &[1_200], 4).map_err(|e| e.kind()),
            Err("dependency-cycle")
        );
    }

    /// Older sets replay within 64 steps an entry plus 1,000,000: two chains of 5,000 rows in
    /// ping-pong run out at the set whose steps would pass it, not one set sooner or later.
    #[test]
    fn older_sets_run_out_of_budget_exactly() {
        let n = 5_000;
        let mut state = chain(n);
        state.put_row(row(n + 1, &[]));
        for id in n + 2..=2 * n {
            state.put_row(row(id, &[id - 1]));
        }
        let round = [
            (1, vec![2 * n]),
            (1, vec![]),
            (n + 1, vec![n]),
            (n + 1, vec![]),
        ];
        let mut rev = 2 * n;
        for (id, after) in round.iter().cycle() {
            rev += 1;
            let at = |rev: u64| Ctx { rev, ..ctx(4) };
            let before = state.spent();
            let pos = state.pos(*id).unwrap();
            match set_after(&mut state, pos, *id, after, &at(rev)) {
                Ok(()) => assert!(state.spent() <= 64 * rev + 1_000_000),
                Err(e) => {
                    assert_eq!(state.spent(), before);
                    assert_eq!(
                        alloc::format!("{e}"),
                        alloc::format!(
                            "the set … after entries of semantics 3 and 4 up to here make the cycle check search more than {} steps (64 per entry plus 1000000), which no tool writes: restore queue.json from git (`git checkout -- docs/plans/queue.json`) or see Manual recovery",
                            64 * rev + 1_000_000
                        )
                    );
                    // With room, the same set takes more steps than were left.
                    let mut room = state.clone();
                    set_after(&mut room, pos, *id, after, &at(rev + 1_000_000)).unwrap();
                    assert!(room.spent() > 64 * rev + 1_000_000);
                    assert!(rev > 2 * n + 200, "ran out at rev {rev}");
                    return;
                }
            }
        }
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
