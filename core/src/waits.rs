//! The rows' dependencies as a graph over row positions, kept with a topological order (every
//! row after the rows it waits on). Making a row wait on rows that already stand before it
//! needs no search; otherwise only the rows standing between them can lie on a cycle, and a
//! search from both ends, which stops when either side runs out, finds the cycle or the rows
//! to move (docs/coordination.md, "What the checks cost"). Bounded counts of the rows on
//! either side serve the rule that keeps every set's search small.

use alloc::collections::BTreeSet;
use alloc::vec::Vec;

use crate::order::Order;

/// Why a row cannot be made to wait on the rows asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// It would close a cycle.
    Cycle,
    /// The search needed more steps than it was allowed.
    Budget,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Waits {
    order: Order,
    /// By position: the positions the row waits on.
    deps: Vec<Vec<usize>>,
    /// `(dependency, dependent)`: the rows waiting on a row are one range of this set, and a
    /// dependency dropped from a row that many rows wait on is removed without a scan.
    dependents: BTreeSet<(usize, usize)>,
    seen: Seen,
    /// Edges the searches looked at, for the tests that hold a set to the smaller side.
    #[cfg(test)]
    examined: usize,
}

/// The marks of the current search, one array per side; each search takes a new epoch
/// instead of clearing them.
#[derive(Clone, Debug, Default)]
struct Seen {
    forward: Vec<u32>,
    backward: Vec<u32>,
    epoch: u32,
}

impl Seen {
    fn begin(&mut self, n: usize) -> u32 {
        self.forward.resize(n, 0);
        self.backward.resize(n, 0);
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.forward.fill(0);
            self.backward.fill(0);
            self.epoch = 1;
        }
        self.epoch
    }
}

/// Which way a count goes: to the rows that wait on a row, or to the rows it waits on.
#[derive(Clone, Copy)]
enum Side {
    Ahead,
    Behind,
}

/// One side of `joins_more_than`: a depth-first walk, one link a step, counting the rows it
/// reaches (the rows it starts from only when reached again).
struct Count {
    /// Each frame: a row and where its links resume (a dependent's position ahead, an index
    /// into its dependencies behind).
    stack: Vec<(usize, usize)>,
    count: usize,
}

impl Count {
    fn new(from: &[usize]) -> Count {
        Count {
            stack: from.iter().map(|&r| (r, 0)).collect(),
            count: 0,
        }
    }

    /// Looks at one link; `false` once there is nothing left to look at.
    fn step(&mut self, w: &mut Waits, epoch: u32, side: Side) -> bool {
        let Some((row, at)) = self.stack.last_mut() else {
            return false;
        };
        let (next, marks) = match side {
            Side::Ahead => (
                w.dependents
                    .range((*row, *at)..=(*row, usize::MAX))
                    .next()
                    .map(|&(_, d)| (d, d + 1)),
                &mut w.seen.forward,
            ),
            Side::Behind => (
                w.deps[*row].get(*at).map(|&d| (d, *at + 1)),
                &mut w.seen.backward,
            ),
        };
        match next {
            None => {
                self.stack.pop();
            }
            Some((reached, resume)) => {
                *at = resume;
                if marks[reached] != epoch {
                    marks[reached] = epoch;
                    self.count += 1;
                    self.stack.push((reached, 0));
                }
            }
        }
        true
    }
}

/// One side of `search`: a depth-first walk, one link a step, and every row it reached (the
/// rows it starts from included), which are the rows to move if this side runs out first.
struct Walk {
    /// Each frame: a row and where its links resume (a dependent's position forward, an index
    /// into its dependencies backward).
    stack: Vec<(usize, usize)>,
    reached: Vec<usize>,
}

impl Walk {
    fn new(from: &[usize]) -> Walk {
        Walk {
            stack: from.iter().map(|&r| (r, 0)).collect(),
            reached: from.to_vec(),
        }
    }

    /// One row that waits on the row on top of the stack, if it stands no later than `high`.
    /// The graph comes in as its parts, borrowed apart, so that both sides run in one loop.
    #[inline]
    fn step_ahead(
        &mut self,
        dependents: &BTreeSet<(usize, usize)>,
        order: &Order,
        seen: &mut Seen,
        epoch: u32,
        high: u64,
    ) -> Step {
        let Some((row, from)) = self.stack.last_mut() else {
            return Step::Done;
        };
        match dependents.range((*row, *from)..=(*row, usize::MAX)).next() {
            None => {
                self.stack.pop();
            }
            Some(&(_, w)) => {
                *from = w + 1;
                if order.label(w) <= high {
                    if seen.backward[w] == epoch {
                        return Step::Cycle;
                    }
                    if seen.forward[w] != epoch {
                        seen.forward[w] = epoch;
                        self.reached.push(w);
                        self.stack.push((w, 0));
                    }
                }
            }
        }
        Step::Went
    }

    /// One row that the row on top of the stack waits on, if it stands no earlier than `low`.
    #[inline]
    fn step_behind(
        &mut self,
        deps: &[Vec<usize>],
        order: &Order,
        seen: &mut Seen,
        epoch: u32,
        low: u64,
    ) -> Step {
        let Some((row, i)) = self.stack.last_mut() else {
            return Step::Done;
        };
        match deps[*row].get(*i) {
            None => {
                self.stack.pop();
            }
            Some(&u) => {
                *i += 1;
                if order.label(u) >= low {
                    if seen.forward[u] == epoch {
                        return Step::Cycle;
                    }
                    if seen.backward[u] != epoch {
                        seen.backward[u] = epoch;
                        self.reached.push(u);
                        self.stack.push((u, 0));
                    }
                }
            }
        }
        Step::Went
    }
}

/// What one step of a side of `search` found.
enum Step {
    /// It looked at one link (or finished a row) and goes on.
    Went,
    /// The row it reached was reached from the other side: a cycle.
    Cycle,
    /// It has nothing left to look at.
    Done,
}

/// The rows a search found to move: from the changed row forward (the row and the rows that
/// wait on it, up to the latest new dependency), or from the new dependencies backward.
enum Moved {
    Forward(Vec<usize>),
    Backward(Vec<usize>),
}

impl Waits {
    /// The graph of `deps` (by position, the positions each row waits on), in a topological
    /// order that keeps queue order where it can. Rows on a cycle, which no replay produces,
    /// go last in queue order: the checks stay wrong for them but never fail.
    pub(crate) fn build(deps: Vec<Vec<usize>>) -> Waits {
        let n = deps.len();
        let mut dependents = BTreeSet::new();
        let mut waiting: Vec<usize> = Vec::with_capacity(n);
        for (p, ds) in deps.iter().enumerate() {
            for &d in ds {
                dependents.insert((d, p));
            }
            waiting.push(ds.len());
        }
        // A stack popped from its end, so the lowest ready position comes first.
        let mut ready: Vec<usize> = (0..n).rev().filter(|&p| waiting[p] == 0).collect();
        let mut seq = Vec::with_capacity(n);
        while let Some(p) = ready.pop() {
            seq.push(p);
            for &(_, w) in dependents.range((p, 0)..=(p, usize::MAX)) {
                waiting[w] = waiting[w].saturating_sub(1);
                if waiting[w] == 0 {
                    ready.push(w);
                }
            }
        }
        if seq.len() < n {
            let mut placed = alloc::vec![false; n];
            for &p in &seq {
                placed[p] = true;
            }
            seq.extend((0..n).filter(|&p| !placed[p]));
        }
        Waits {
            order: Order::from_sequence(&seq),
            deps,
            dependents,
            seen: Seen::default(),
            #[cfg(test)]
            examined: 0,
        }
    }

    /// A new row at the next position, waiting on `deps`: it goes last, since no row can wait
    /// on it yet.
    pub(crate) fn push(&mut self, deps: Vec<usize>) {
        let p = self.deps.len();
        for &d in &deps {
            self.dependents.insert((d, p));
        }
        self.deps.push(deps);
        self.order.push();
    }

    /// Makes row `x` wait on `new` in place of what it waited on, unless that closes a cycle
    /// or the search takes more than `limit` steps (one link looked at from each side a step);
    /// returns the steps taken. On `Err` nothing changed that anyone can see (the order may
    /// have been searched only).
    pub(crate) fn relink(&mut self, x: usize, new: Vec<usize>, limit: u64) -> Result<u64, Refused> {
        if new.contains(&x) {
            return Err(Refused::Cycle);
        }
        let at = self.order.label(x);
        let late: Vec<usize> = new
            .iter()
            .copied()
            .filter(|&d| self.order.label(d) > at)
            .collect();
        let mut steps = 0;
        if !late.is_empty() {
            steps = self.reorder(x, &late, limit)?;
        }
        for &d in &self.deps[x] {
            self.dependents.remove(&(d, x));
        }
        for &d in &new {
            self.dependents.insert((d, x));
        }
        self.deps[x] = new;
        Ok(steps)
    }

    /// Puts `x` after `late` (rows that stand after it), moving the smaller side found;
    /// the steps the search took.
    fn reorder(&mut self, x: usize, late: &[usize], limit: u64) -> Result<u64, Refused> {
        let Some(&top) = late.iter().max_by_key(|&&d| self.order.label(d)) else {
            return Ok(0);
        };
        let (moved, steps) = self.search(x, late, top, limit)?;
        match moved {
            Moved::Forward(mut rows) => {
                self.in_order(&mut rows);
                self.order.move_after(top, &rows);
            }
            Moved::Backward(mut rows) => {
                self.in_order(&mut rows);
                self.order.move_before(x, &rows);
            }
        }
        Ok(steps)
    }

    /// Sorts `rows` by where they stand. Labels are distinct, so sorting (label, row) pairs
    /// gives the same order, and replay already compiles the sort of that pair type; a sort by
    /// a key would be compiled for this closure alone.
    fn in_order(&self, rows: &mut [usize]) {
        let mut pairs: Vec<(u64, usize)> = rows.iter().map(|&n| (self.order.label(n), n)).collect();
        pairs.sort_unstable();
        for (row, (_, n)) in rows.iter_mut().zip(pairs) {
            *row = n;
        }
    }

    /// Searches forward from `x` (the rows that wait on it, directly or through others, that
    /// stand no later than `top`) and backward from `late` (the rows they wait on that stand
    /// after `x`), one edge of each in turn. A row reached from both sides is a cycle. When a
    /// side runs out, its rows can move past the other end without breaking the order: the
    /// forward side right after `top`, the backward side right before `x`. A step looks at one
    /// link on each side, so the steps are about the smaller side's links; past `limit` steps
    /// the search gives up.
    fn search(
        &mut self,
        x: usize,
        late: &[usize],
        top: usize,
        limit: u64,
    ) -> Result<(Moved, u64), Refused> {
        let Waits {
            order,
            deps,
            dependents,
            seen,
            ..
        } = self;
        let (low, high) = (order.label(x), order.label(top));
        let epoch = seen.begin(order.len());
        seen.forward[x] = epoch;
        for &d in late {
            seen.backward[d] = epoch;
        }
        let mut forward = Walk::new(&[x]);
        let mut backward = Walk::new(late);
        let mut steps: u64 = 0;
        #[cfg(test)]
        let mut examined = 0;
        let found = loop {
            #[cfg(test)]
            {
                examined += 1;
            }
            if steps == limit {
                break Err(Refused::Budget);
            }
            steps += 1;
            match forward.step_ahead(dependents, order, seen, epoch, high) {
                Step::Went => {}
                Step::Cycle => break Err(Refused::Cycle),
                Step::Done => break Ok((Moved::Forward(forward.reached), steps)),
            }
            match backward.step_behind(deps, order, seen, epoch, low) {
                Step::Went => {}
                Step::Cycle => break Err(Refused::Cycle),
                Step::Done => break Ok((Moved::Backward(backward.reached), steps)),
            }
        };
        #[cfg(test)]
        {
            self.examined += examined;
        }
        found
    }

    /// Whether more than `most` rows wait on `x` and the rows of `from` wait on more than
    /// `most` (each directly or through others; a row of `from` counts when another one waits
    /// on it). The two counts go one link at a time in turn and each stops past `most`, so the
    /// answer costs about the smaller side, and at most `most` rows of either.
    pub(crate) fn joins_more_than(&mut self, x: usize, from: &[usize], most: usize) -> bool {
        let epoch = self.seen.begin(self.deps.len());
        let mut ahead = Count::new(&[x]);
        let mut behind = Count::new(from);
        loop {
            if ahead.count <= most && !ahead.step(self, epoch, Side::Ahead) {
                return false;
            }
            if behind.count <= most && !behind.step(self, epoch, Side::Behind) {
                return false;
            }
            if ahead.count > most && behind.count > most {
                return true;
            }
        }
    }

    /// How many rows wait on `x`, counted up to `most + 1`; for checks.
    #[cfg(test)]
    fn count_waiting(&mut self, x: usize, most: usize) -> usize {
        let epoch = self.seen.begin(self.deps.len());
        let mut ahead = Count::new(&[x]);
        while ahead.count <= most && ahead.step(self, epoch, Side::Ahead) {}
        ahead.count
    }

    /// How many rows the rows of `from` wait on, counted up to `most + 1`; for checks.
    #[cfg(test)]
    fn count_waited_on(&mut self, from: &[usize], most: usize) -> usize {
        let epoch = self.seen.begin(self.deps.len());
        let mut behind = Count::new(from);
        while behind.count <= most && behind.step(self, epoch, Side::Behind) {}
        behind.count
    }

    /// Every row stands after the rows it waits on; for checks.
    #[cfg(test)]
    pub(crate) fn is_ordered(&self) -> bool {
        self.deps.iter().enumerate().all(|(p, ds)| {
            ds.iter()
                .all(|&d| self.order.label(d) < self.order.label(p))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    /// No limit on a search's steps.
    const ALL: u64 = u64::MAX;

    /// Rows `0..n`, each waiting on the one before.
    fn chain(n: usize) -> Vec<Vec<usize>> {
        (0..n)
            .map(|p| if p == 0 { vec![] } else { vec![p - 1] })
            .collect()
    }

    #[test]
    fn the_order_built_puts_every_row_after_what_it_waits_on() {
        // Rows waiting on rows later in queue order, and one on two.
        let w = Waits::build(vec![vec![3], vec![0, 2], vec![], vec![2], vec![]]);
        assert!(w.is_ordered());
        assert_eq!(w.order.sequence(), [2, 3, 0, 1, 4]);
        // A cycle (no replay makes one) still builds: its rows go last.
        let w = Waits::build(vec![vec![1], vec![0], vec![]]);
        assert_eq!(w.order.sequence(), [2, 0, 1]);
    }

    /// A long chain and one lone row made to wait on each other's ends in turn: each set pays
    /// for the lone row's side, not the chain's. Only the cycle costs the chain's length.
    #[test]
    fn a_set_pays_for_the_smaller_side() {
        let n = 2_000;
        let mut w = Waits::build(chain(n));
        w.push(vec![]);
        let lone = n;
        for round in 0..200 {
            let before = w.examined;
            w.relink(0, vec![lone], ALL).unwrap();
            w.relink(0, vec![], ALL).unwrap();
            w.relink(lone, vec![n - 1], ALL).unwrap();
            w.relink(lone, vec![], ALL).unwrap();
            assert!(w.is_ordered(), "round {round}");
            assert!(
                w.examined - before < 20,
                "round {round}: {}",
                w.examined - before
            );
        }
        w.relink(lone, vec![n - 1], ALL).unwrap();
        let before = w.examined;
        assert_eq!(w.relink(0, vec![lone], ALL), Err(Refused::Cycle));
        assert!(w.examined - before > n / 4, "{}", w.examined - before);
        assert_eq!(w.relink(lone, vec![0], ALL), Ok(0));
        assert!(w.is_ordered());
    }

    /// The same between two long chains: each set moves one whole chain, in time about its
    /// length, and the order stays right.
    #[test]
    fn two_chains_swap_places() {
        let n = 500;
        let mut deps = chain(n);
        deps.extend(
            chain(n)
                .into_iter()
                .map(|d| d.iter().map(|p| p + n).collect()),
        );
        let mut w = Waits::build(deps);
        let (a1, an, b1, bn) = (0, n - 1, n, 2 * n - 1);
        for round in 0..6 {
            let before = w.examined;
            w.relink(a1, vec![bn], ALL).unwrap();
            assert_eq!(w.relink(b1, vec![an], ALL), Err(Refused::Cycle));
            w.relink(a1, vec![], ALL).unwrap();
            w.relink(b1, vec![an], ALL).unwrap();
            w.relink(b1, vec![], ALL).unwrap();
            assert!(w.is_ordered(), "round {round}");
            let paid = w.examined - before;
            assert!((n..8 * n).contains(&paid), "round {round}: {paid}");
        }
    }

    /// A search stops at its limit, leaving the order as it was; with one step more it passes
    /// and says how many it took.
    #[test]
    fn a_search_past_its_limit_gives_up() {
        let n = 300;
        let mut deps = chain(n);
        deps.extend(
            chain(n)
                .into_iter()
                .map(|d| d.iter().map(|p| p + n).collect()),
        );
        let mut w = Waits::build(deps);
        let before = w.order.sequence();
        let (a1, bn) = (0, 2 * n - 1);
        let took = w.clone().relink(a1, vec![bn], ALL).unwrap();
        assert!((n as u64..=2 * n as u64 + 1).contains(&took), "{took}");
        assert_eq!(w.relink(a1, vec![bn], took - 1), Err(Refused::Budget));
        assert_eq!(w.order.sequence(), before);
        assert_eq!(w.relink(a1, vec![bn], took), Ok(took));
        assert!(w.is_ordered());
        // Nothing to search: no steps.
        assert_eq!(w.relink(a1, vec![], 0), Ok(0));
        // Chain b now stands before chain a.
        assert_eq!(w.relink(n - 1, vec![n - 2, bn], 0), Ok(0));
    }

    /// The bounded counts: exactly `most` rows is not more, one row more is, through chains,
    /// a fan and rows reached twice.
    #[test]
    fn reach_counts_stop_one_past_the_most() {
        // 0 <- 1 <- ... <- 10, and 11..=20 each waiting on 0 and 10 (reached twice from 0).
        let mut deps = chain(11);
        deps.extend((11..=20).map(|_| vec![0, 10]));
        let mut w = Waits::build(deps);
        assert_eq!(w.count_waiting(0, 20), 20);
        assert_eq!(w.count_waiting(0, 19), 20);
        assert_eq!(w.count_waiting(0, 5), 6);
        assert_eq!(w.count_waiting(10, 10), 10);
        assert_eq!(w.count_waiting(20, 0), 0);
        assert_eq!(w.count_waited_on(&[20], 11), 11);
        assert_eq!(w.count_waited_on(&[20], 3), 4);
        // A row of the list that another one waits on counts; the list's own rows do not.
        assert_eq!(w.count_waited_on(&[5, 10], 20), 10);
        assert_eq!(w.count_waited_on(&[0, 1], 20), 1);
        assert_eq!(w.count_waited_on(&[0], 20), 0);
        // Both sides must pass: row 0 has 20 rows waiting, row 20 waits on 11.
        assert!(w.joins_more_than(0, &[20], 10));
        assert!(!w.joins_more_than(0, &[20], 11));
        assert!(!w.joins_more_than(10, &[20], 10));
        assert!(w.joins_more_than(10, &[20], 9));
        assert!(!w.joins_more_than(20, &[20], 0));
        assert!(!w.joins_more_than(0, &[0], 0));
    }

    /// Whether `to` can be reached from `from` through what rows wait on.
    fn reaches(deps: &[Vec<usize>], from: usize, to: usize) -> bool {
        let mut seen = vec![false; deps.len()];
        let mut stack = vec![from];
        while let Some(p) = stack.pop() {
            if p == to {
                return true;
            }
            if !core::mem::replace(&mut seen[p], true) {
                stack.extend(&deps[p]);
            }
        }
        false
    }

    /// Random sets on a growing graph against a plain search, the order checked after each.
    #[test]
    fn random_sets_agree_with_a_plain_search() {
        let mut seed: u64 = 0x853c_49e6_748f_ea9b;
        let mut rand = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut deps = chain(50);
        let mut w = Waits::build(deps.clone());
        let (mut refused, mut moved) = (0, 0);
        for step in 0..6_000 {
            let n = deps.len();
            if rand(8) == 0 {
                let new: Vec<usize> = (0..rand(3)).map(|_| rand(n)).collect();
                let mut new = new;
                new.sort_unstable();
                new.dedup();
                w.push(new.clone());
                deps.push(new);
                continue;
            }
            let x = rand(n);
            let mut new: Vec<usize> = (0..1 + rand(3)).map(|_| rand(n)).collect();
            new.sort_unstable();
            new.dedup();
            let cycle = new.iter().any(|&d| reaches(&deps, d, x));
            let late = new.iter().any(|&d| w.order.label(d) > w.order.label(x));
            let got = w.relink(x, new.clone(), ALL);
            assert_eq!(got.is_err(), cycle, "step {step}: {x} after {new:?}");
            if got.is_ok() {
                moved += usize::from(late);
                deps[x] = new;
            } else {
                refused += 1;
            }
            assert!(w.is_ordered(), "step {step}");
        }
        assert!(
            refused > 500 && moved > 500,
            "{refused} refused, {moved} moved"
        );
    }
}
