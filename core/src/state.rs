//! The replayed state: rows in queue order plus the indexes replay and verbs need (row by id,
//! the latest move reason per row, the dependency graph once a `set … after` needs it, and
//! what `next` can name once a take needs it). Built only by applying entries, so it is always
//! what the log says. Op ids live only in the log: replay checks them once over the whole log and a
//! write looks its one op up there, so the state carries no per-entry index of them.

use alloc::borrow::ToOwned;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use crate::entry::{EPOCH_SEMANTICS, LEASE_SEMANTICS, REPLICATION_SEMANTICS};
use crate::epoch::{ArchiveArgs, EpochArgs, archived_in, archived_ranges, range_count};
use crate::error::VerbError;
use crate::model::{ReplicationMode, Row, Status};
use crate::pick::{Candidates, Pick};
use crate::waits::{Refused, Waits};

/// The most rows one `set … after` of semantics 5 may join on each side: it is refused when
/// more rows than this wait on its row and its new dependencies wait on more than this.
pub(crate) const REACH: usize = 1_000;

/// The search steps the sets of older semantics may take in all, up to entry `rev`:
/// `BUDGET_PER_ENTRY * rev + BUDGET_BASE`.
pub(crate) const BUDGET_PER_ENTRY: u64 = 64;
pub(crate) const BUDGET_BASE: u64 = 1_000_000;

/// Why `set_after` refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unlinked {
    /// A row of the list already waits on the row, directly or through others.
    Cycle,
    /// More than `REACH` rows wait on the row and its new dependencies wait on more.
    Reach,
    /// The older sets' search steps would pass this many, their budget at this entry.
    Budget(u64),
}

/// The rules a `set … after` is held to, by the semantics of its entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Held {
    /// Semantics 5: the reach rule.
    Reach,
    /// Semantics 3 and 4, at entry `rev`: the budget of search steps.
    Budget { rev: u64 },
}

#[derive(Clone, Debug, Default)]
pub struct State {
    pub revision: u64,
    pub rows: Vec<Row>,
    /// The branch genesis recorded; `None` before genesis.
    pub branch: Option<String>,
    /// The canonical root genesis recorded; `None` before genesis.
    pub root: Option<String>,
    index: BTreeMap<u64, usize>,
    reasons: BTreeMap<u64, String>,
    /// Built from the rows at the first `set … after` and kept up to date from then on; a row
    /// added with its dependencies needs no cycle check, so a log of adds never builds it.
    waits: Option<Waits>,
    /// Built from the rows at the first take replayed and kept up to date from then on.
    candidates: Option<Candidates>,
    /// The search steps the `set … after` entries of semantics 3 and 4 took so far.
    spent: u64,
    /// Set when replay started from an epoch entry: the `archive` entry the log must hold.
    epoch: Option<alloc::boxed::Box<Seed>>,
    /// Every archive's row ranges, `(first, last, epoch)` ascending: the ids refused as
    /// archived (none from genesis).
    archived: Vec<(u64, u64, u32)>,
    /// The smallest id `add` may give: the epoch's `nextId` (0 from genesis).
    id_floor: u64,
    /// The lease a claim that gives none records (`lease-default`, semantics 7).
    lease_default: Option<u32>,
    /// Whether an entry under semantics 7 was applied (or the epoch started under it): every
    /// later entry must carry 7 too.
    pub(crate) leases: bool,
    /// Whether a change's receipt waits for the follower (`replication`, semantics 8).
    replication: ReplicationMode,
    /// Whether an entry under semantics 8 was applied (or the epoch started under it): every
    /// later entry must carry 8 too.
    pub(crate) replicating: bool,
    /// The semantics of the last entry applied (an epoch's start: the epoch entry's, 6; a
    /// state `from_parts`: the one it is given): the style its table is rendered in.
    pub(crate) semantics: u8,
}

/// What a state started from an epoch entry knows of the cut.
#[derive(Clone, Debug)]
pub(crate) struct Seed {
    pub(crate) epoch: u32,
    /// The arguments the `archive` entry after the window must carry.
    pub(crate) expected: ArchiveArgs,
    /// The revision of that entry, once applied.
    pub(crate) archived_at: Option<u64>,
}

impl State {
    /// A state rebuilt from what a verified write recorded: the rows in order, the move reasons,
    /// the genesis branch and root. The host's read view uses it so unlocked reads need not
    /// replay the log when nothing changed since that write.
    pub fn from_parts(
        revision: u64,
        rows: Vec<Row>,
        reasons: Vec<(u64, String)>,
        branch: String,
        root: String,
        semantics: u8,
    ) -> State {
        let index = index_of(&rows);
        State {
            revision,
            rows,
            branch: Some(branch),
            root: Some(root),
            index,
            reasons: map_of(reasons),
            waits: None,
            candidates: None,
            spent: 0,
            epoch: None,
            archived: Vec::new(),
            id_floor: 0,
            lease_default: None,
            leases: false,
            replication: ReplicationMode::Off,
            replicating: false,
            semantics,
        }
    }

    /// `from_parts` for a queue cut into epochs: the archived id ranges it refuses as archived
    /// (`archived()` of the state it was recorded from) and the smallest id it may give.
    pub fn with_archived(mut self, archived: Vec<(u64, u64, u32)>, next_id: u64) -> State {
        self.archived = archived;
        self.id_floor = next_id;
        self
    }

    /// The archived id ranges `(first, last, epoch)`, ascending; empty for a queue never cut.
    pub fn archived(&self) -> &[(u64, u64, u32)] {
        &self.archived
    }

    /// The state an epoch entry at `rev` starts replay from (its args already checked);
    /// `epoch_sha` hashes the entry's compact canonical JSON, which the archive entry pins.
    pub(crate) fn from_epoch(args: &EpochArgs, rev: u64, epoch_sha: String) -> State {
        let st = &args.state;
        let index = index_of(&st.rows);
        let last = args.archives.last();
        let before = args
            .archives
            .len()
            .checked_sub(2)
            .map_or(0, |i| args.archives[i].rev);
        let expected = ArchiveArgs {
            before: rev + 1,
            epoch: args.epoch,
            file: last.map(|a| a.file.clone()).unwrap_or_default(),
            sha: last.map(|a| a.sha.clone()).unwrap_or_default(),
            epoch_sha,
            entries: rev - before,
            rows: last.map_or(0, |a| range_count(&a.rows)),
        };
        State {
            revision: rev,
            rows: st.rows.clone(),
            branch: Some(st.branch.clone()),
            root: Some(st.root.clone()),
            index,
            reasons: map_of(st.reasons.iter().cloned()),
            waits: None,
            candidates: None,
            spent: st.spent,
            epoch: Some(alloc::boxed::Box::new(Seed {
                epoch: args.epoch,
                expected,
                archived_at: None,
            })),
            archived: archived_ranges(&args.archives),
            id_floor: st.next_id,
            lease_default: st.lease_default,
            leases: st.semantics >= LEASE_SEMANTICS,
            replication: st.replication,
            replicating: st.semantics >= REPLICATION_SEMANTICS,
            semantics: EPOCH_SEMANTICS,
        }
    }

    /// The semantics of the last entry applied: its table is rendered in that style
    /// (`markdown::render_table`).
    pub fn semantics(&self) -> u8 {
        self.semantics
    }

    /// What the state knows of the cut it started from, if it started from one.
    pub(crate) fn seed(&self) -> Option<&Seed> {
        self.epoch.as_deref()
    }

    pub(crate) fn seed_mut(&mut self) -> Option<&mut Seed> {
        self.epoch.as_deref_mut()
    }

    /// The epoch whose archive holds row `id`, if one does.
    pub fn archived_in(&self, id: u64) -> Option<u32> {
        archived_in(&self.archived, id)
    }

    /// The refusal for a row this state lacks: archived, or no such row.
    pub(crate) fn missing(&self, id: u64) -> VerbError {
        match self.archived_in(id) {
            Some(epoch) => VerbError::RowArchived { id, epoch },
            None => VerbError::NoSuchRow { id },
        }
    }

    /// Every row's move reason, in row-id order.
    pub fn move_reasons(&self) -> impl Iterator<Item = (u64, &str)> {
        self.reasons.iter().map(|(id, r)| (*id, r.as_str()))
    }

    pub fn row(&self, id: u64) -> Result<&Row, VerbError> {
        self.index
            .get(&id)
            .map(|&i| &self.rows[i])
            .ok_or_else(|| self.missing(id))
    }

    /// The position in `rows` of row `id`, done or not: only an outcome entry changes a done row.
    pub(crate) fn pos(&self, id: u64) -> Result<usize, VerbError> {
        self.index.get(&id).copied().ok_or_else(|| self.missing(id))
    }

    /// The position in `rows` of the row to change: it must exist and not be done. Verbs check
    /// everything against `rows[pos]` first and only then change it through `row_mut`, so a
    /// refusal leaves the state as it was without copying the row.
    pub(crate) fn open_pos(&self, id: u64) -> Result<usize, VerbError> {
        let pos = *self.index.get(&id).ok_or_else(|| self.missing(id))?;
        if !self.rows[pos].status.is_open() {
            return Err(VerbError::RowDone { id });
        }
        Ok(pos)
    }

    /// The row to change: it must exist and not be done.
    pub fn open_row(&self, id: u64) -> Result<&Row, VerbError> {
        self.open_pos(id).map(|pos| &self.rows[pos])
    }

    /// The row at `pos`, to change; `next`'s index files it again before its next pick.
    pub(crate) fn row_mut(&mut self, pos: usize) -> &mut Row {
        if let Some(c) = &mut self.candidates {
            c.touch(pos);
        }
        &mut self.rows[pos]
    }

    /// The lease a claim that gives none records: the queue's default, if one is in force.
    pub fn lease_default(&self) -> Option<u32> {
        self.lease_default
    }

    pub(crate) fn set_lease_default(&mut self, lease: Option<u32>) {
        self.lease_default = lease;
    }

    /// Whether a change's receipt waits for the follower to push its revision.
    pub fn replication(&self) -> ReplicationMode {
        self.replication
    }

    pub(crate) fn set_replication(&mut self, mode: ReplicationMode) {
        self.replication = mode;
    }

    /// The queue moves to a standby's checkout: its canonical root from this entry on.
    pub(crate) fn set_root(&mut self, root: &str) {
        self.root = Some(String::from(root));
    }

    /// Whether every row the row at `pos` waits on is done, from the index `take` keeps.
    pub(crate) fn ready(&mut self, pos: usize) -> bool {
        let (rows, index) = (&self.rows, &self.index);
        self.candidates
            .get_or_insert_with(|| Candidates::build(rows, index))
            .ready(rows, pos)
    }

    /// What `take` claims for `seat`: `pick::take_pick` over the rows, from the index.
    pub(crate) fn take_pick(&mut self, seat: &str) -> Pick {
        let (rows, index) = (&self.rows, &self.index);
        let candidates = self
            .candidates
            .get_or_insert_with(|| Candidates::build(rows, index));
        match candidates.pick(rows, seat) {
            None => Pick::Nothing,
            Some(p) if rows[p].status == Status::Queued => Pick::Row(rows[p].id),
            Some(p) => Pick::Held(rows[p].id),
        }
    }

    pub fn has_row(&self, id: u64) -> bool {
        self.index.contains_key(&id)
    }

    /// The id `add` gives next: above every row's, and never one an archive holds.
    pub fn next_id(&self) -> u64 {
        let above = self.index.keys().next_back().map_or(1, |id| id + 1);
        above.max(self.id_floor)
    }

    /// Adds a new row, or replaces the one with its id.
    pub(crate) fn put_row(&mut self, row: Row) {
        match self.index.get(&row.id) {
            Some(&i) => {
                self.rows[i] = row;
                // Read again from the rows when next needed.
                self.waits = None;
                self.candidates = None;
            }
            None => {
                if let Some(waits) = &mut self.waits {
                    waits.push(positions(&self.index, &row.after));
                }
                self.index.insert(row.id, self.rows.len());
                self.rows.push(row);
                if self.candidates.as_ref().is_some_and(|c| c.dangling) {
                    self.candidates = None;
                }
                if let Some(c) = &mut self.candidates {
                    c.push(&self.rows, &self.index);
                }
            }
        }
    }

    /// Makes the row at `pos` wait on `after` (rows that exist) in place of what it waited on,
    /// unless some row of `after` already waits on it, directly or through others, or the
    /// rules `held` names refuse (docs/coordination.md, "What the checks cost").
    pub(crate) fn set_after(
        &mut self,
        pos: usize,
        after: &[u64],
        held: Held,
    ) -> Result<(), Unlinked> {
        if self.waits.is_some() || !after.is_empty() {
            let (rows, index) = (&self.rows, &self.index);
            let waits = self.waits.get_or_insert_with(|| {
                Waits::build(rows.iter().map(|r| positions(index, &r.after)).collect())
            });
            let limit = match held {
                Held::Reach => {
                    // Only the rows it adds: dropping dependencies costs nothing. Lists are
                    // kept ascending.
                    let old = &rows[pos].after;
                    let added: Vec<u64> = after
                        .iter()
                        .copied()
                        .filter(|id| old.binary_search(id).is_err())
                        .collect();
                    if !added.is_empty()
                        && waits.joins_more_than(pos, &positions(index, &added), REACH)
                    {
                        return Err(Unlinked::Reach);
                    }
                    u64::MAX
                }
                Held::Budget { rev } => budget(rev).saturating_sub(self.spent),
            };
            let steps = waits
                .relink(pos, positions(index, after), limit)
                .map_err(|e| match (e, held) {
                    (Refused::Budget, Held::Budget { rev }) => Unlinked::Budget(budget(rev)),
                    _ => Unlinked::Cycle,
                })?;
            if let Held::Budget { .. } = held {
                self.spent += steps;
            }
        }
        let old = core::mem::replace(&mut self.rows[pos].after, after.to_vec());
        if let Some(c) = &mut self.candidates {
            c.relink(&self.rows, &self.index, pos, &old, after);
        }
        Ok(())
    }

    /// The reason given with the move that set the row's current status, if any.
    pub fn move_reason(&self, id: u64) -> Option<&str> {
        self.reasons.get(&id).map(String::as_str)
    }

    /// The search steps the older sets took so far (an epoch carries them on).
    pub(crate) fn spent(&self) -> u64 {
        self.spent
    }

    /// Every row stands after the rows it waits on in the graph's order, if there is one.
    #[cfg(test)]
    pub(crate) fn waits_ordered(&self) -> bool {
        self.waits.as_ref().is_none_or(Waits::is_ordered)
    }

    pub(crate) fn set_move_reason(&mut self, id: u64, reason: Option<&str>) {
        match reason {
            Some(r) => match self.reasons.get_mut(&id) {
                Some(kept) => r.clone_into(kept),
                None => {
                    self.reasons.insert(id, String::from(r));
                }
            },
            None => {
                self.reasons.remove(&id);
            }
        }
    }
}

/// The search steps the older sets may take up to entry `rev`.
fn budget(rev: u64) -> u64 {
    BUDGET_PER_ENTRY
        .saturating_mul(rev)
        .saturating_add(BUDGET_BASE)
}

/// The positions of the rows `ids` names; an id with no row (which no replayed state holds)
/// is left out.
/// Each row's id to its place. Built by inserting, as `map_of` builds the reasons, not by
/// `collect()`, which compiles a sort and a deduplicating builder for every key, value and
/// iterator type it is called with; a queue's rows are few, and insert is compiled anyway.
fn index_of(rows: &[Row]) -> BTreeMap<u64, usize> {
    map_of(rows.iter().enumerate().map(|(i, r)| (r.id, i)))
}

/// A map of `pairs`, a later pair for a key replacing an earlier one (as `collect()` does).
fn map_of<V>(pairs: impl IntoIterator<Item = (u64, V)>) -> BTreeMap<u64, V> {
    let mut map = BTreeMap::new();
    for (k, v) in pairs {
        map.insert(k, v);
    }
    map
}

fn positions(index: &BTreeMap<u64, usize>, ids: &[u64]) -> Vec<usize> {
    ids.iter().filter_map(|id| index.get(id).copied()).collect()
}
