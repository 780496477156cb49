//! `next [SEAT]`: the row a seat should take up now. The rule, in `docs/next.md`: the seat's
//! own rows first (in-progress, then queued), then unowned queued rows and, judged with the
//! signs of life (`next_with`), rows whose claim by another seat expired, each in queue order,
//! never a row that waits on a row not yet done. `explain` says why each other row was passed
//! over, and `take_pick` is what `take` claims. `Candidates` keeps the answer without expired
//! claims up to date in the replayed state, so that replaying a take does not read every row.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::liveness::{Claim, Judged, Liveness, Signs, judge};
use crate::model::{Row, Status};

/// The rows that are done, for dependency checks; empty (and free) when no row waits on any.
/// Each done row's id to its place: the row index's map type, so that no set of ids is
/// compiled apart.
pub struct Done(BTreeMap<u64, usize>);

impl Done {
    pub fn of(rows: &[Row]) -> Done {
        if rows.iter().all(|r| r.after.is_empty()) {
            return Done(BTreeMap::new());
        }
        // Inserted one by one rather than collected: `collect()` would compile a sort and a
        // bulk builder for this iterator alone, and a queue's rows are few.
        let mut done = BTreeMap::new();
        for (i, r) in rows.iter().enumerate() {
            if r.status == Status::Done {
                done.insert(r.id, i);
            }
        }
        Done(done)
    }

    /// The rows `row` still waits on, in its order.
    pub fn open_deps(&self, row: &Row) -> Vec<u64> {
        row.after
            .iter()
            .copied()
            .filter(|id| !self.0.contains_key(id))
            .collect()
    }

    fn ready(&self, row: &Row) -> bool {
        row.after.iter().all(|id| self.0.contains_key(id))
    }
}

/// The first row by the rule, or `None` when the seat has nothing to take up. Without the
/// signs of life no claim is judged, so no claim is expired: what replay can check of a take.
pub fn next<'a>(rows: &'a [Row], seat: &str) -> Option<&'a Row> {
    first(rows, seat, None).map(|(row, _)| row)
}

/// `next` judged with the signs of life at `now`: a row whose claim by another seat expired
/// is free work at its place in the queue, like an unowned queued row.
pub fn next_with<'a>(rows: &'a [Row], seat: &str, signs: &Signs, now: &str) -> Option<&'a Row> {
    first(rows, seat, Some((signs, now))).map(|(row, _)| row)
}

/// The row by the rule, with the judgement of its claim when it is an expired one.
fn first<'a>(
    rows: &'a [Row],
    seat: &str,
    signs: Option<(&Signs, &str)>,
) -> Option<(&'a Row, Option<Judged>)> {
    let done = Done::of(rows);
    let own = |status: Status| {
        let done = &done;
        move |r: &&Row| r.status == status && r.owner.as_deref() == Some(seat) && done.ready(r)
    };
    if let Some(r) = rows
        .iter()
        .find(own(Status::InProgress))
        .or_else(|| rows.iter().find(own(Status::Queued)))
    {
        return Some((r, None));
    }
    rows.iter().filter(|r| done.ready(r)).find_map(|r| {
        if r.status == Status::Queued && r.owner.is_none() {
            return Some((r, None));
        }
        let (signs, now) = signs?;
        expired(r, seat, signs, now).map(|j| (r, Some(j)))
    })
}

/// The judgement of `row`'s claim when it is another seat's leased claim that expired.
fn expired(row: &Row, seat: &str, signs: &Signs, now: &str) -> Option<Judged> {
    let claim = Claim::of(row).filter(|c| c.holder != seat && c.lease.is_some())?;
    let judged = judge(&claim, &signs.heartbeat(claim.holder), now);
    (judged.state == Liveness::Expired).then_some(judged)
}

/// What `take` claims for a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// A queued row `next` names: take moves it to in-progress for the seat.
    Row(u64),
    /// A row whose claim by another seat expired, which `next` names: take claims it for the
    /// seat in one entry that names the previous holder (semantics 7).
    Reclaim(u64),
    /// `next` names a row the seat already has in progress: there is nothing new to take.
    Held(u64),
    /// `next` names nothing.
    Nothing,
}

/// The row `take` would claim for `seat`: the one `next` names, when it is still queued.
pub fn take_pick(rows: &[Row], seat: &str) -> Pick {
    pick_of(first(rows, seat, None))
}

/// `take_pick` judged with the signs of life at `now`; with `reclaim` false (`take
/// --no-reclaim`) it claims queued rows only, as without the signs.
pub fn take_pick_with(rows: &[Row], seat: &str, signs: &Signs, now: &str, reclaim: bool) -> Pick {
    pick_of(first(rows, seat, reclaim.then_some((signs, now))))
}

fn pick_of(found: Option<(&Row, Option<Judged>)>) -> Pick {
    match found {
        Some((r, Some(_))) => Pick::Reclaim(r.id),
        Some((r, None)) if r.status == Status::Queued => Pick::Row(r.id),
        Some((r, None)) => Pick::Held(r.id),
        None => Pick::Nothing,
    }
}

/// The rows `next` can name, by position: for each seat its in-progress and its queued rows,
/// and the unowned queued rows, each only while every row it waits on is done. Kept by the
/// state as rows change (rows put, dependencies set, and every row changed through
/// `State::row_mut`, filed again when next asked), so that a pick costs O(log rows).
#[derive(Clone, Debug, Default)]
pub(crate) struct Candidates {
    /// By position: how many of the row's dependencies are not done (a row not there counts).
    open: Vec<u32>,
    /// By position: whether the row was done when last filed.
    done: Vec<bool>,
    /// By position: where the row is filed.
    filed: Vec<Slot>,
    /// `(dependency, dependent)`, by position.
    dependents: BTreeSet<(usize, usize)>,
    /// Each seat that owns a row, with its index in `own`, in name order: a sorted list
    /// searched by halves rather than a B-tree keyed by `String`, which would be compiled for
    /// this alone.
    seats: Vec<(String, usize)>,
    /// By seat: its ready in-progress rows, then its ready queued rows.
    own: Vec<[BTreeSet<usize>; 2]>,
    /// The ready queued rows nobody owns.
    free: BTreeSet<usize>,
    /// Rows changed since they were last filed.
    dirty: Vec<usize>,
    /// Some row waits on an id with no row: a row added later with that id would satisfy it
    /// unseen, so the state builds the index again then.
    pub(crate) dangling: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    None,
    /// A seat's row: `own[seat][0]` in progress, `own[seat][1]` queued.
    Own(usize, usize),
    Free,
}

impl Candidates {
    /// The index of `rows`, whose positions by id are `pos`.
    pub(crate) fn build(rows: &[Row], pos: &BTreeMap<u64, usize>) -> Candidates {
        let mut c = Candidates::default();
        for (p, row) in rows.iter().enumerate() {
            c.done.push(row.status == Status::Done);
            c.open.push(0);
            c.filed.push(Slot::None);
            for d in c.positions(pos, &row.after) {
                c.dependents.insert((d, p));
            }
        }
        for (p, row) in rows.iter().enumerate() {
            c.open[p] = c.count_open(pos, &row.after);
            c.file(rows, p);
        }
        c
    }

    /// A new row at the next position.
    pub(crate) fn push(&mut self, rows: &[Row], pos: &BTreeMap<u64, usize>) {
        let p = self.open.len();
        let row = &rows[p];
        self.done.push(row.status == Status::Done);
        self.open.push(0);
        self.filed.push(Slot::None);
        for d in self.positions(pos, &row.after) {
            self.dependents.insert((d, p));
        }
        self.open[p] = self.count_open(pos, &rows[p].after);
        self.file(rows, p);
    }

    /// Row `p` waits on `new` (ids) in place of `old`.
    pub(crate) fn relink(
        &mut self,
        rows: &[Row],
        pos: &BTreeMap<u64, usize>,
        p: usize,
        old: &[u64],
        new: &[u64],
    ) {
        for d in self.positions(pos, old) {
            self.dependents.remove(&(d, p));
        }
        for d in self.positions(pos, new) {
            self.dependents.insert((d, p));
        }
        self.open[p] = self.count_open(pos, new);
        self.file(rows, p);
    }

    /// Row `p`'s status or owner may have changed: it is filed again before the next pick.
    pub(crate) fn touch(&mut self, p: usize) {
        self.dirty.push(p);
    }

    /// The position of the row `next` names for `seat` in `rows`, which this index follows.
    pub(crate) fn pick(&mut self, rows: &[Row], seat: &str) -> Option<usize> {
        while let Some(d) = self.dirty.pop() {
            self.refresh(rows, d);
        }
        let own = self.seat_at(seat).ok().map(|i| &self.own[self.seats[i].1]);
        own.and_then(|[held, queued]| held.first().or(queued.first()))
            .or(self.free.first())
            .copied()
    }

    /// Whether every row that row `p` waits on is done.
    pub(crate) fn ready(&mut self, rows: &[Row], p: usize) -> bool {
        while let Some(d) = self.dirty.pop() {
            self.refresh(rows, d);
        }
        self.open[p] == 0
    }

    /// Files row `p` again, and the rows waiting on it when it became done or stopped being.
    fn refresh(&mut self, rows: &[Row], p: usize) {
        let done = rows[p].status == Status::Done;
        if done != self.done[p] {
            self.done[p] = done;
            let waiting: Vec<usize> = self
                .dependents
                .range((p, 0)..=(p, usize::MAX))
                .map(|&(_, w)| w)
                .collect();
            for w in waiting {
                if done {
                    self.open[w] -= 1;
                } else {
                    self.open[w] += 1;
                }
                self.file(rows, w);
            }
        }
        self.file(rows, p);
    }

    /// Puts row `p` where its status, owner and dependencies say.
    fn file(&mut self, rows: &[Row], p: usize) {
        let row = &rows[p];
        let slot = match (row.status, &row.owner) {
            _ if self.open[p] > 0 => Slot::None,
            (Status::InProgress, Some(o)) => Slot::Own(self.seat(o), 0),
            (Status::Queued, Some(o)) => Slot::Own(self.seat(o), 1),
            (Status::Queued, None) => Slot::Free,
            _ => Slot::None,
        };
        let was = core::mem::replace(&mut self.filed[p], slot);
        if was == slot {
            return;
        }
        match was {
            Slot::Own(s, k) => self.own[s][k].remove(&p),
            Slot::Free => self.free.remove(&p),
            Slot::None => false,
        };
        match slot {
            Slot::Own(s, k) => self.own[s][k].insert(p),
            Slot::Free => self.free.insert(p),
            Slot::None => false,
        };
    }

    fn seat(&mut self, name: &str) -> usize {
        match self.seat_at(name) {
            Ok(i) => self.seats[i].1,
            Err(i) => {
                let s = self.own.len();
                self.own.push(Default::default());
                self.seats.insert(i, (String::from(name), s));
                s
            }
        }
    }

    /// Where `name` stands in `seats`, or where it would.
    fn seat_at(&self, name: &str) -> Result<usize, usize> {
        self.seats.binary_search_by(|(n, _)| n.as_str().cmp(name))
    }

    /// The positions of the rows `ids` names, without repeats; notes an id with no row.
    fn positions(&mut self, pos: &BTreeMap<u64, usize>, ids: &[u64]) -> Vec<usize> {
        // Sorted as u64, the type the core sorts ids in, so that no sort is compiled for
        // usize alone; a position always fits both ways.
        let mut out: Vec<u64> = ids
            .iter()
            .filter_map(|id| pos.get(id).map(|&p| p as u64))
            .collect();
        self.dangling |= out.len() < ids.len();
        out.sort_unstable();
        out.dedup();
        out.into_iter().map(|p| p as usize).collect()
    }

    /// How many of `ids` are not done rows, each id counted once.
    fn count_open(&self, pos: &BTreeMap<u64, usize>, ids: &[u64]) -> u32 {
        let mut ids = ids.to_vec();
        ids.sort_unstable();
        ids.dedup();
        let open = ids
            .iter()
            .filter(|id| pos.get(id).is_none_or(|&d| !self.done[d]))
            .count();
        u32::try_from(open).unwrap_or(u32::MAX)
    }
}

/// Why `next` passed over a row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Why {
    Parked,
    Blocked,
    InReview,
    /// Gated: the row waits on Jason.
    WaitingOnJason,
    /// Another seat owns it.
    Owned(String),
    /// It waits on these rows, not yet done.
    WaitingOn(Vec<u64>),
    /// It could be taken, but the named row comes first by the rule.
    After(u64),
    /// Another seat's leased claim that has not expired: live (with the minutes left of its
    /// lease), quiet (with the minutes it has been silent) or unknown.
    Claimed {
        holder: String,
        state: Liveness,
        minutes: u64,
    },
    /// Another seat's claim expired this many minutes ago: `take` reclaims it, unless
    /// `first`, the row the rule names before it, comes first.
    Expired {
        holder: String,
        minutes: u64,
        first: Option<u64>,
    },
}

impl Why {
    /// A stable one-word code for `--json`.
    pub fn code(&self) -> &'static str {
        match self {
            Why::Parked => "parked",
            Why::Blocked => "blocked",
            Why::InReview => "in-review",
            Why::WaitingOnJason => "gated",
            Why::Owned(_) => "owned",
            Why::WaitingOn(_) => "waiting",
            Why::After(_) => "later",
            Why::Claimed { state, .. } => state.as_str(),
            Why::Expired { .. } => "expired",
        }
    }
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Why::Parked => f.write_str("parked"),
            Why::Blocked => f.write_str("blocked"),
            Why::InReview => f.write_str("in review"),
            Why::WaitingOnJason => f.write_str("gated: waiting on jason"),
            Why::Owned(seat) => write!(f, "owned by {seat}"),
            Why::WaitingOn(ids) => {
                f.write_str("waiting on ")?;
                for (i, id) in ids.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "#{id}")?;
                }
                Ok(())
            }
            Why::After(id) => write!(f, "could be taken, but row {id} comes first"),
            Why::Claimed {
                holder,
                state,
                minutes,
            } => match state {
                Liveness::Live => write!(
                    f,
                    "claim by {holder} is live, its lease ends in {minutes} min"
                ),
                Liveness::Quiet => write!(
                    f,
                    "claim by {holder} is quiet, no sign of life for {minutes} min"
                ),
                _ => write!(
                    f,
                    "claim by {holder}: its signs of life cannot be read, so it does not expire"
                ),
            },
            Why::Expired {
                holder,
                minutes,
                first,
            } => {
                write!(f, "claim by {holder} expired {minutes} min ago")?;
                match first {
                    Some(id) => write!(f, ", but row {id} comes first"),
                    None => Ok(()),
                }
            }
        }
    }
}

/// `next SEAT --explain`: the pick, each open row passed over with why (in queue order), and
/// how many done rows were skipped. `reclaim` says why the pick may be taken when it is
/// another seat's expired claim (`explain_with` only).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explained {
    pub pick: Option<u64>,
    pub passed: Vec<(u64, Why)>,
    pub done: usize,
    pub reclaim: Option<Why>,
}

/// `explain` without the signs of life: every claim by another seat is `owned`.
pub fn explain(rows: &[Row], seat: &str) -> Explained {
    explained(rows, seat, None)
}

/// `explain` judged with the signs of life at `now`, as `next_with` picks: another seat's
/// leased claim is passed over as live, quiet or unknown, and an expired one is the pick or
/// comes after it.
pub fn explain_with(rows: &[Row], seat: &str, signs: &Signs, now: &str) -> Explained {
    explained(rows, seat, Some((signs, now)))
}

fn explained(rows: &[Row], seat: &str, signs: Option<(&Signs, &str)>) -> Explained {
    let found = first(rows, seat, signs);
    let pick = found.as_ref().map(|(r, _)| r.id);
    let done = Done::of(rows);
    let mut out = Explained {
        pick,
        passed: Vec::new(),
        done: 0,
        reclaim: found.and_then(|(r, judged)| Some(expired_why(r, &judged?, None))),
    };
    for row in rows {
        if Some(row.id) == pick {
            continue;
        }
        let owner = row.owner.as_deref();
        let why = match row.status {
            Status::Done => {
                out.done += 1;
                continue;
            }
            Status::Parked => Why::Parked,
            Status::Blocked => Why::Blocked,
            Status::InReview => Why::InReview,
            Status::WaitingOnJason => Why::WaitingOnJason,
            Status::Queued | Status::InProgress => match owner {
                Some(o) if o != seat => claim_why(row, o, &done, signs, pick)
                    .unwrap_or_else(|| Why::Owned(String::from(o))),
                None if row.status == Status::InProgress => Why::Owned(String::from("nobody")),
                _ if !done.ready(row) => Why::WaitingOn(done.open_deps(row)),
                // Ready and the seat's (or free): only the pick can be ahead of it.
                _ => Why::After(pick.unwrap_or(row.id)),
            },
        };
        out.passed.push((row.id, why));
    }
    out
}

/// Why another seat's leased claim on `row` was passed over, judged with the signs; `None`
/// (owned, as before leases) without the signs or a lease, or for a row not in progress.
fn claim_why(
    row: &Row,
    holder: &str,
    done: &Done,
    signs: Option<(&Signs, &str)>,
    pick: Option<u64>,
) -> Option<Why> {
    let (signs, now) = signs?;
    let claim = Claim::of(row).filter(|c| c.lease.is_some())?;
    let judged = judge(&claim, &signs.heartbeat(holder), now);
    Some(match judged.state {
        Liveness::Expired if !done.ready(row) => Why::WaitingOn(done.open_deps(row)),
        Liveness::Expired => expired_why(row, &judged, pick),
        state => Why::Claimed {
            holder: String::from(holder),
            state,
            minutes: match state {
                Liveness::Quiet => judged.silent.unwrap_or(0) / 60,
                // Whole minutes left, rounded up: a live lease never shows 0.
                _ => judged
                    .left
                    .map_or(0, |s| s.max(0).unsigned_abs().div_ceil(60)),
            },
        },
    })
}

fn expired_why(row: &Row, judged: &Judged, first: Option<u64>) -> Why {
    Why::Expired {
        holder: row.owner.clone().unwrap_or_default(),
        minutes: judged.left.map_or(0, |s| s.min(0).unsigned_abs() / 60),
        first,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn row(id: u64, status: Status, owner: Option<&str>) -> Row {
        Row {
            id,
            piece: String::from("p"),
            owner: owner.map(String::from),
            status,
            gate: None,
            issues: Vec::new(),
            closes: Vec::new(),
            closes_narrowed: false,
            reviewers: Vec::new(),
            brief: None,
            note: None,
            blocked_reason: None,
            review: None,
            after: Vec::new(),
            lease: None,
            fenced: Vec::new(),
        }
    }

    fn waiting(mut r: Row, after: &[u64]) -> Row {
        r.after = after.to_vec();
        r
    }

    fn pick(rows: &[Row], seat: &str) -> Option<u64> {
        next(rows, seat).map(|r| r.id)
    }

    #[test]
    fn own_in_progress_comes_before_everything() {
        let rows = [
            row(1, Status::Queued, None),
            row(2, Status::Queued, Some("dw")),
            row(3, Status::InProgress, Some("dw")),
        ];
        assert_eq!(pick(&rows, "dw"), Some(3));
        assert_eq!(take_pick(&rows, "dw"), Pick::Held(3));
    }

    #[test]
    fn own_queued_before_unowned_queued() {
        let rows = [
            row(1, Status::Queued, None),
            row(2, Status::Queued, Some("dw")),
        ];
        assert_eq!(pick(&rows, "dw"), Some(2));
        assert_eq!(pick(&rows, "other"), Some(1));
        assert_eq!(take_pick(&rows, "other"), Pick::Row(1));
    }

    #[test]
    fn queue_order_breaks_ties() {
        let rows = [row(5, Status::Queued, None), row(2, Status::Queued, None)];
        assert_eq!(pick(&rows, "dw"), Some(5));
    }

    #[test]
    fn skips_rows_a_seat_cannot_take() {
        let rows = [
            row(1, Status::Blocked, Some("dw")),
            row(2, Status::Parked, None),
            row(3, Status::Done, Some("dw")),
            row(4, Status::InReview, Some("dw")),
            row(5, Status::WaitingOnJason, Some("dw")),
            row(6, Status::Queued, Some("someone-else")),
            row(7, Status::InProgress, Some("someone-else")),
        ];
        assert_eq!(pick(&rows, "dw"), None);
        assert_eq!(pick(&[], "dw"), None);
        assert_eq!(take_pick(&rows, "dw"), Pick::Nothing);
    }

    #[test]
    fn never_names_a_row_whose_dependencies_are_not_done() {
        let rows = [
            waiting(row(1, Status::Queued, Some("dw")), &[3]),
            waiting(row(2, Status::Queued, None), &[3, 4]),
            row(3, Status::InProgress, Some("other")),
            row(4, Status::Done, None),
            waiting(row(5, Status::Queued, None), &[4]),
        ];
        assert_eq!(pick(&rows, "dw"), Some(5));
        let mut all_done = rows.clone();
        all_done[2].status = Status::Done;
        assert_eq!(pick(&all_done, "dw"), Some(1));
        assert_eq!(pick(&all_done, "new"), Some(2));
        // An own in-progress row that waits is passed over too.
        let held = [
            waiting(row(1, Status::InProgress, Some("dw")), &[2]),
            row(2, Status::Queued, None),
        ];
        assert_eq!(pick(&held, "dw"), Some(2));
    }

    /// The state's index against the straightforward pick over the rows, on random states
    /// changed the ways verbs change them (rows added, statuses and owners changed, rows
    /// replaced, dependencies set, some on rows not there yet), asked after a few changes at a
    /// time.
    #[test]
    fn the_index_picks_what_the_rows_say() {
        use crate::state::{Held, State};
        const SEATS: [Option<&str>; 4] = [None, Some("dw"), Some("huey"), Some("dewey")];
        const STATUSES: [Status; 7] = [
            Status::Queued,
            Status::Queued,
            Status::InProgress,
            Status::Done,
            Status::Parked,
            Status::Blocked,
            Status::InReview,
        ];
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut rand = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let (mut named, mut held) = (0, 0);
        for _ in 0..30 {
            let mut state = State::default();
            for step in 0..400 {
                let n = state.rows.len() as u64;
                let mut after: Vec<u64> = (0..rand(3))
                    .map(|_| 1 + rand(n as usize + 2) as u64)
                    .collect();
                after.sort_unstable();
                after.dedup();
                match rand(10) {
                    0..3 => {
                        // Mostly rows that exist; now and then the next row, not there yet.
                        after.retain(|&id| id <= n);
                        if rand(6) == 0 {
                            after.push(n + 2);
                        }
                        let mut r = row(n + 1, STATUSES[rand(7)], SEATS[rand(4)]);
                        r.after = after;
                        state.put_row(r);
                    }
                    3..7 if n > 0 => {
                        let pos = rand(n as usize);
                        let r = state.row_mut(pos);
                        r.status = STATUSES[rand(7)];
                        r.owner = SEATS[rand(4)].map(String::from);
                    }
                    7 | 8 if n > 0 => {
                        let pos = rand(n as usize);
                        after.retain(|&id| id <= n);
                        let _ = state.set_after(pos, &after, Held::Budget { rev: 1 });
                    }
                    9 if n > 0 => {
                        let id = 1 + rand(n as usize) as u64;
                        let mut r = row(id, STATUSES[rand(7)], SEATS[rand(4)]);
                        r.after = state.row(id).unwrap().after.clone();
                        state.put_row(r);
                    }
                    _ => {}
                }
                if rand(3) != 0 {
                    continue;
                }
                for seat in ["dw", "huey", "dewey", "louie"] {
                    let want = take_pick(&state.rows, seat);
                    assert_eq!(state.take_pick(seat), want, "step {step}, {seat}");
                    named += usize::from(matches!(want, Pick::Row(_)));
                    held += usize::from(matches!(want, Pick::Held(_)));
                }
            }
        }
        assert!(named > 1_000 && held > 1_000, "{named} named, {held} held");
    }

    #[test]
    fn explain_names_every_open_row_passed_over() {
        let rows = [
            row(1, Status::Done, None),
            row(2, Status::Parked, None),
            row(3, Status::Blocked, Some("dw")),
            row(4, Status::InReview, Some("dw")),
            row(5, Status::WaitingOnJason, Some("dw")),
            row(6, Status::Queued, Some("huey")),
            waiting(row(7, Status::Queued, None), &[6, 1]),
            row(8, Status::Queued, None),
            row(9, Status::Queued, None),
        ];
        let got = explain(&rows, "dw");
        assert_eq!(got.pick, Some(8));
        assert_eq!(got.done, 1);
        assert_eq!(
            got.passed,
            vec![
                (2, Why::Parked),
                (3, Why::Blocked),
                (4, Why::InReview),
                (5, Why::WaitingOnJason),
                (6, Why::Owned(String::from("huey"))),
                (7, Why::WaitingOn(vec![6])),
                (9, Why::After(8)),
            ]
        );
        let text: Vec<String> = got
            .passed
            .iter()
            .map(|(_, w)| alloc::format!("{w}"))
            .collect();
        assert_eq!(text[4], "owned by huey");
        assert_eq!(text[5], "waiting on #6");
        assert_eq!(text[6], "could be taken, but row 8 comes first");
    }
}
