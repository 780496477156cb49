//! A total order over nodes `0..n` in which a run of nodes can be moved next to another node
//! in time about proportional to the run. Each node carries an integer label that grows along
//! the order; a move takes labels from the gap it lands in, and a gap too narrow is widened by
//! spreading out the nodes of the smallest surrounding block of labels that is sparse enough
//! (list labelling with thresholds that tighten with the block's size, which keeps the cost of
//! spreading to O(log n) a node, amortized).

use alloc::vec::Vec;

/// No node: before the first, after the last.
pub(crate) const NIL: usize = usize::MAX;

/// Labels lie in `1..TOP`; 0 and `TOP` stand for the two ends.
const TOP: u64 = 1 << 62;

/// The distance between labels handed out in sequence, so that most moves land in a gap that
/// is already wide enough.
const GAP: u64 = 1 << 32;

#[derive(Clone, Debug)]
pub(crate) struct Order {
    label: Vec<u64>,
    prev: Vec<usize>,
    next: Vec<usize>,
    first: usize,
    last: usize,
}

impl Default for Order {
    fn default() -> Order {
        Order::from_sequence(&[])
    }
}

impl Order {
    /// The nodes `0..seq.len()` in the order `seq` lists them (a permutation of them).
    pub(crate) fn from_sequence(seq: &[usize]) -> Order {
        let n = seq.len();
        let step = GAP.min(TOP / (n as u64 + 1));
        let mut order = Order {
            label: alloc::vec![0; n],
            prev: alloc::vec![NIL; n],
            next: alloc::vec![NIL; n],
            first: seq.first().copied().unwrap_or(NIL),
            last: seq.last().copied().unwrap_or(NIL),
        };
        for (i, &node) in seq.iter().enumerate() {
            order.label[node] = step * (i as u64 + 1);
            order.prev[node] = if i == 0 { NIL } else { seq[i - 1] };
            order.next[node] = seq.get(i + 1).copied().unwrap_or(NIL);
        }
        order
    }

    pub(crate) fn len(&self) -> usize {
        self.label.len()
    }

    /// Where `node` stands: a node before another has a smaller label.
    pub(crate) fn label(&self, node: usize) -> u64 {
        self.label[node]
    }

    /// Adds node `len()` at the end of the order.
    pub(crate) fn push(&mut self) {
        let node = self.len();
        self.label.push(0);
        self.prev.push(NIL);
        self.next.push(NIL);
        let after = self.label_or(self.last, 0);
        if after < TOP - GAP {
            self.link_after(self.last, node, after + GAP);
        } else {
            self.insert_after(self.last, &[node]);
        }
    }

    /// Moves `run` (distinct nodes, listed in the order they are to keep) to stand right after
    /// `anchor`, which is not among them.
    pub(crate) fn move_after(&mut self, anchor: usize, run: &[usize]) {
        for &node in run {
            self.unlink(node);
        }
        self.insert_after(anchor, run);
    }

    /// Moves `run` (as for `move_after`) to stand right before `anchor`.
    pub(crate) fn move_before(&mut self, anchor: usize, run: &[usize]) {
        for &node in run {
            self.unlink(node);
        }
        self.insert_after(self.prev[anchor], run);
    }

    /// The nodes from first to last; for checks.
    #[cfg(test)]
    pub(crate) fn sequence(&self) -> Vec<usize> {
        let mut out = Vec::new();
        let mut at = self.first;
        while at != NIL {
            out.push(at);
            at = self.next[at];
        }
        out
    }

    fn label_or(&self, node: usize, end: u64) -> u64 {
        if node == NIL { end } else { self.label[node] }
    }

    fn after(&self, node: usize) -> usize {
        if node == NIL {
            self.first
        } else {
            self.next[node]
        }
    }

    fn unlink(&mut self, node: usize) {
        let (p, n) = (self.prev[node], self.next[node]);
        match p {
            NIL => self.first = n,
            p => self.next[p] = n,
        }
        match n {
            NIL => self.last = p,
            n => self.prev[n] = p,
        }
    }

    /// Links `node` (unlinked) right after `anchor` (`NIL`: first) with label `label`.
    fn link_after(&mut self, anchor: usize, node: usize, label: u64) {
        let n = self.after(anchor);
        self.label[node] = label;
        self.prev[node] = anchor;
        self.next[node] = n;
        match anchor {
            NIL => self.first = node,
            a => self.next[a] = node,
        }
        match n {
            NIL => self.last = node,
            n => self.prev[n] = node,
        }
    }

    /// Links the unlinked `run` right after `anchor`, in its order, widening the gap first
    /// when it cannot hold them.
    fn insert_after(&mut self, anchor: usize, run: &[usize]) {
        let k = run.len() as u64;
        let width = |o: &Order| o.label_or(o.after(anchor), TOP) - o.label_or(anchor, 0);
        if width(self) <= k {
            self.spread(anchor, k);
        }
        let step = width(self) / (k + 1);
        let mut at = anchor;
        let mut label = self.label_or(anchor, 0);
        for &node in run {
            label += step;
            self.link_after(at, node, label);
            at = node;
        }
    }

    /// Relabels the nodes of the smallest aligned block of labels around `anchor` whose
    /// density, counting `k` nodes more, is under the block's threshold (blocks of 2^i labels
    /// may hold (4/3)^i nodes), evenly, leaving room for `k` nodes right after `anchor`.
    fn spread(&mut self, anchor: usize, k: u64) {
        let at = self.label_or(anchor, 0);
        // The nodes inside the block are those strictly between `left` and `right`.
        let (mut left, mut right) = (anchor, self.after(anchor));
        let mut count: u64 = u64::from(anchor != NIL);
        if anchor != NIL {
            left = self.prev[anchor];
        }
        let mut bits = 1u32;
        let (lo, hi) = loop {
            let size = 1u64 << bits;
            let lo = at & !(size - 1);
            let hi = lo + size;
            while left != NIL && self.label[left] >= lo {
                count += 1;
                left = self.prev[left];
            }
            while right != NIL && self.label[right] < hi {
                count += 1;
                right = self.next[right];
            }
            let cap = (1u128 << (2 * bits)) / 3u128.pow(bits);
            let usable = size - u64::from(lo == 0);
            let fits = u128::from(count + k) <= cap && usable > count + k;
            // The whole range of labels takes them in any case.
            if fits || size == TOP {
                break (lo.max(1), hi);
            }
            bits += 1;
        };
        let step = (hi - lo) / (count + k + 1);
        let mut slot = 1;
        if anchor == NIL {
            slot += k;
        }
        let mut node = self.after(left);
        while node != right {
            self.label[node] = lo + step * slot;
            slot += 1;
            if node == anchor {
                slot += k;
            }
            node = self.next[node];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Labels grow along the order and the links agree both ways.
    fn check(o: &Order) {
        let seq = o.sequence();
        assert_eq!(seq.len(), o.len(), "every node is linked once");
        for w in seq.windows(2) {
            assert!(o.label[w[0]] < o.label[w[1]], "labels grow: {seq:?}");
            assert_eq!(o.prev[w[1]], w[0]);
        }
        if let (Some(&a), Some(&z)) = (seq.first(), seq.last()) {
            assert!(o.label[a] >= 1 && o.label[z] < TOP);
            assert_eq!((o.first, o.last), (a, z));
        }
    }

    #[test]
    fn moves_keep_the_order_they_were_asked_for() {
        let mut o = Order::from_sequence(&[2, 0, 1]);
        o.push();
        assert_eq!(o.sequence(), [2, 0, 1, 3]);
        o.move_after(3, &[2, 0]);
        assert_eq!(o.sequence(), [1, 3, 2, 0]);
        o.move_before(1, &[0, 3]);
        assert_eq!(o.sequence(), [0, 3, 1, 2]);
        o.move_after(2, &[0]);
        assert_eq!(o.sequence(), [3, 1, 2, 0]);
        o.move_before(3, &[2, 1]);
        assert_eq!(o.sequence(), [2, 1, 3, 0]);
        check(&o);
    }

    /// Moving the same nodes back and forth in front of one node fills the same gap again and
    /// again: the labels are spread, and stay ordered.
    #[test]
    fn a_gap_filled_over_and_over_is_widened() {
        let mut o = Order::from_sequence(&(0..64).collect::<Vec<_>>());
        let mut model: Vec<usize> = (0..64).collect();
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut rand = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for round in 0..4_000 {
            let anchor = if round % 3 == 0 { 5 } else { rand(64) };
            let run: Vec<usize> = model
                .iter()
                .copied()
                .filter(|&n| n != anchor && rand(4) == 0)
                .collect();
            model.retain(|n| !run.contains(n));
            let at = model.iter().position(|&n| n == anchor).unwrap();
            if round % 2 == 0 {
                o.move_before(anchor, &run);
                model.splice(at..at, run.iter().copied());
            } else {
                o.move_after(anchor, &run);
                model.splice(at + 1..at + 1, run.iter().copied());
            }
            assert_eq!(o.sequence(), model, "round {round}");
            check(&o);
        }
    }

    /// Runs moved after the last node over and over crowd the top of the labels, then the
    /// first ones the same way.
    #[test]
    fn the_ends_fill_and_are_spread() {
        let mut o = Order::from_sequence(&(0..300).collect::<Vec<_>>());
        for round in 0..3_000 {
            let seq = o.sequence();
            let (first, last) = (seq[0], seq[seq.len() - 1]);
            if round % 2 == 0 {
                o.move_after(last, &seq[..1 + round % 40]);
            } else {
                o.move_before(first, &seq[seq.len() - 1 - round % 40..]);
            }
            check(&o);
        }
    }

    #[test]
    fn pushes_and_front_moves_past_every_gap() {
        let mut o = Order::default();
        for _ in 0..200 {
            o.push();
        }
        for i in 0..2_000 {
            let node = 199 - i % 150;
            let first = o.sequence()[0];
            if first != node {
                o.move_before(first, &[node]);
            }
            o.push();
        }
        check(&o);
        assert_eq!(o.len(), 2_200);
    }
}
