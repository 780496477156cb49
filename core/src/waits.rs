//! The rows' dependencies as a graph over row positions, kept with a topological order (every
//! row after the rows it waits on). Making a row wait on rows that already stand before it
//! needs no search; otherwise only the rows standing between them can lie on a cycle, and a
//! search from both ends, which stops when either side runs out, finds the cycle or the rows
//! to move (docs/coordination.md, "How the cycle check stays cheap").

use alloc::collections::BTreeSet;
use alloc::vec::Vec;

use crate::order::Order;

/// Making a row wait on the rows asked would close a cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cycle;

#[derive(Clone, Debug, Default)]
pub(crate) struct Waits {
    order: Order,
    /// By position: the positions the row waits on.
    deps: Vec<Vec<usize>>,
    /// `(dependency, dependent)`: the rows waiting on a row are one range of this set, and a
    /// dependency dropped from a row that many rows wait on is removed without a scan.
    dependents: BTreeSet<(usize, usize)>,
    seen: Seen,
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

    /// Makes row `x` wait on `new` in place of what it waited on, unless that closes a cycle;
    /// on `Err` nothing changed that anyone can see (the order may have been searched only).
    pub(crate) fn relink(&mut self, x: usize, new: Vec<usize>) -> Result<(), Cycle> {
        if new.contains(&x) {
            return Err(Cycle);
        }
        let at = self.order.label(x);
        let late: Vec<usize> = new
            .iter()
            .copied()
            .filter(|&d| self.order.label(d) > at)
            .collect();
        if !late.is_empty() {
            self.reorder(x, &late)?;
        }
        for &d in &self.deps[x] {
            self.dependents.remove(&(d, x));
        }
        for &d in &new {
            self.dependents.insert((d, x));
        }
        self.deps[x] = new;
        Ok(())
    }

    /// Puts `x` after `late` (rows that stand after it), moving the smaller side found.
    fn reorder(&mut self, x: usize, late: &[usize]) -> Result<(), Cycle> {
        let Some(&top) = late.iter().max_by_key(|&&d| self.order.label(d)) else {
            return Ok(());
        };
        match self.search(x, late, top)? {
            Moved::Forward(mut rows) => {
                rows.sort_unstable_by_key(|&n| self.order.label(n));
                self.order.move_after(top, &rows);
            }
            Moved::Backward(mut rows) => {
                rows.sort_unstable_by_key(|&n| self.order.label(n));
                self.order.move_before(x, &rows);
            }
        }
        Ok(())
    }

    /// Searches forward from `x` (the rows that wait on it, directly or through others, that
    /// stand no later than `top`) and backward from `late` (the rows they wait on that stand
    /// after `x`), one edge of each in turn. A row reached from both sides is a cycle. When a
    /// side runs out, its rows can move past the other end without breaking the order: the
    /// forward side right after `top`, the backward side right before `x`.
    fn search(&mut self, x: usize, late: &[usize], top: usize) -> Result<Moved, Cycle> {
        let Waits {
            order,
            deps,
            dependents,
            seen,
        } = self;
        let (low, high) = (order.label(x), order.label(top));
        let epoch = seen.begin(order.len());
        seen.forward[x] = epoch;
        let mut forward: Vec<(usize, usize)> = alloc::vec![(x, 0)];
        let mut ahead = alloc::vec![x];
        for &d in late {
            seen.backward[d] = epoch;
        }
        let mut backward: Vec<(usize, usize)> = late.iter().map(|&d| (d, 0)).collect();
        let mut behind = late.to_vec();
        loop {
            // One row that waits on the row on top of the forward stack.
            let Some((row, from)) = forward.last_mut() else {
                return Ok(Moved::Forward(ahead));
            };
            match dependents.range((*row, *from)..=(*row, usize::MAX)).next() {
                None => {
                    forward.pop();
                }
                Some(&(_, w)) => {
                    *from = w + 1;
                    if order.label(w) <= high {
                        if seen.backward[w] == epoch {
                            return Err(Cycle);
                        }
                        if seen.forward[w] != epoch {
                            seen.forward[w] = epoch;
                            ahead.push(w);
                            forward.push((w, 0));
                        }
                    }
                }
            }
            // One row that the row on top of the backward stack waits on.
            let Some((row, i)) = backward.last_mut() else {
                return Ok(Moved::Backward(behind));
            };
            match deps[*row].get(*i) {
                None => {
                    backward.pop();
                }
                Some(&u) => {
                    *i += 1;
                    if order.label(u) >= low {
                        if seen.forward[u] == epoch {
                            return Err(Cycle);
                        }
                        if seen.backward[u] != epoch {
                            seen.backward[u] = epoch;
                            behind.push(u);
                            backward.push((u, 0));
                        }
                    }
                }
            }
        }
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
