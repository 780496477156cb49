//! The workload both benchmarks generate: seats doing plausible things (start, note, block,
//! release, assign, set, add) on a queue, through `Queue::execute`, never refused, from a fixed
//! seed. Shared by `bench-core`, `bench-host`, `bench-faces` and the sandbox's tests, so they
//! measure one log.

use mosaic_queue_core::{
    AssignArgs, Command, GenesisArgs, IdArgs, MapRow, MoveArgs, NewRow, NoteArgs, Outcome, Queue,
    SetArgs, SetField, SetValue, Status,
};

// ---- deterministic inputs: a small PRNG and a clock that prints like toISOString ----

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `pct` percent.
    fn pct(&mut self, pct: u64) -> bool {
        self.next() % 100 < pct
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Milliseconds since 2026-11-29T10:00:00.000Z, printed as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
fn stamp(ms: u64) -> String {
    let (mut year, mut month, mut day) = (2026u64, 11u64, 29u64);
    let total = ms + 10 * 3_600_000;
    for _ in 0..total / 86_400_000 {
        let leap =
            year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
        let len = match month {
            2 if leap => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        day += 1;
        if day > len {
            day = 1;
            month += 1;
            if month > 12 {
                month = 1;
                year += 1;
            }
        }
    }
    let rest = total % 86_400_000;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3_600_000,
        rest / 60_000 % 60,
        rest / 1000 % 60,
        rest % 1000
    )
}

// ---- the generator: plausible seats doing plausible things, never refused ----

const WORKERS: &[&str] = &[
    "darkwing",
    "filbert",
    "flicker",
    "gizmo",
    "launchpad",
    "gosalyn",
    "honker",
    "morgana",
];
const WORDS: &[&str] = &[
    "parser",
    "replay",
    "render",
    "witness",
    "lock file",
    "Node shim",
    "wasm build",
    "review rounds",
    "migration map",
    "CLI flags",
    "docs",
    "fixtures",
];
const NOTES: &[&str] = &[
    "parser handles the three legacy layouts",
    "waiting on CI run for the wasm build",
    "split into two PRs, see #1620",
    "pairing with filbert on the | escape",
    "first draft pushed, tests pending",
    "needs a second look at the receipt text",
    "rebased on main after the model change",
    "benchmarks look fine on the small fixture",
];
const REASONS: &[&str] = &[
    "waiting for review of #1620",
    "needs a decision from jason",
    "CI runner is down",
    "depends on the lock file change",
    "upstream serde_json bug, pinned",
];
const GATES: &[&str] = &["jason", "sage", "CI green", "review by filbert"];

/// How big the queue is: rows at genesis, and `add` growing it to at most `max_rows`, one row
/// every `add_every` steps (`u64::MAX` keeps it flat, so only the log grows).
pub struct Shape {
    pub genesis_rows: u64,
    pub max_rows: usize,
    pub add_every: u64,
}

/// Where the generated queue says it lives: its root, the map's source blob, the legacy view.
pub struct Origin {
    pub root: String,
    pub source: String,
    pub legacy_view: String,
}

pub struct Sim {
    pub queue: Queue,
    shape: Shape,
    rng: Rng,
    clock_ms: u64,
    seq: u64,
}

impl Sim {
    pub fn new(shape: Shape, origin: Origin) -> Sim {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let rows: Vec<MapRow> = (1..=shape.genesis_rows)
            .map(|id| {
                let started = rng.pct(20);
                MapRow {
                    id,
                    piece: format!("Piece {id}: {}", rng.pick(WORDS)),
                    owner: started.then(|| rng.pick(WORKERS).to_string()),
                    status: if started {
                        Status::InProgress
                    } else {
                        Status::Queued
                    },
                    gate: rng.pct(30).then(|| rng.pick(GATES).to_string()),
                    issues: vec![1000 + id],
                    note: rng.pct(25).then(|| rng.pick(NOTES).to_string()),
                }
            })
            .collect();
        let args = GenesisArgs {
            branch: String::from("main"),
            root: origin.root,
            source: origin.source,
            rows,
            legacy_view: origin.legacy_view,
        };
        let (queue, _) = Queue::genesis(args, "jason-genesis-1", "jason", &stamp(0))
            .unwrap_or_else(|e| panic!("bench bug: genesis refused: {e}"));
        Sim {
            queue,
            shape,
            rng,
            clock_ms: 0,
            seq: 1,
        }
    }

    /// Appends exactly one entry.
    pub fn step(&mut self) {
        self.seq += 1;
        let n = self.seq;
        let rows = self.queue.rows();
        if n.is_multiple_of(self.shape.add_every) && rows.len() < self.shape.max_rows {
            let id = rows.iter().map(|r| r.id).max().unwrap_or(0) + 1;
            let cmd = Command::Add(NewRow {
                piece: format!("Piece {id}: {}", self.rng.pick(WORDS)),
                owner: None,
                status: Status::Queued,
                gate: self.rng.pct(30).then(|| self.rng.pick(GATES).to_string()),
                issues: vec![1000 + id, 2000 + id],
                reviewers: Vec::new(),
                brief: self
                    .rng
                    .pct(50)
                    .then(|| format!("docs/plans/queue-as-data.md#piece-{id}")),
                note: self.rng.pct(40).then(|| self.rng.pick(NOTES).to_string()),
                after: Vec::new(),
            });
            return self.run(&cmd, "lead", &format!("lead-add-{n}"));
        }
        let row = &rows[self.rng.below(rows.len())];
        let id = row.id;
        let owner = row.owner.clone();
        let roll = self.rng.below(100);
        let worker = self.rng.pick(WORKERS);
        let mv = |to: Status, reason: Option<String>| {
            Command::Move(MoveArgs {
                id,
                to,
                reason,
                candidate: None,
                manifest: None,
                issue: None,
                evidence: None,
                lease: None,
            })
        };
        let (cmd, by, kind) = match (row.status, owner.as_deref()) {
            (Status::Queued, None) if roll < 75 => (mv(Status::InProgress, None), worker, "start"),
            (Status::Queued, None) => (
                Command::Assign(AssignArgs {
                    id,
                    owner: worker.to_string(),
                }),
                "lead",
                "assign",
            ),
            (Status::Queued, Some(w)) if roll < 80 => (mv(Status::InProgress, None), w, "start"),
            (Status::Queued, Some(_)) => (
                Command::Assign(AssignArgs {
                    id,
                    owner: worker.to_string(),
                }),
                "lead",
                "reassign",
            ),
            (Status::InProgress, Some(w)) => match roll {
                0..30 => (self.note(id, true), w, "note"),
                30..35 => (self.note(id, false), w, "note-clear"),
                35..47 => {
                    let gate = self.rng.pct(80).then(|| self.rng.pick(GATES).to_string());
                    (set(id, SetField::Gate, SetValue::Text(gate)), w, "gate")
                }
                47..55 => {
                    let extra = 3000 + self.rng.below(900) as u64;
                    let issues = SetValue::Numbers(vec![extra, 1000 + id]);
                    (set(id, SetField::Issues, issues), w, "issues")
                }
                55..75 => {
                    let reason = self.rng.pick(REASONS).to_string();
                    (mv(Status::Blocked, Some(reason)), w, "block")
                }
                75..90 => (Command::Release(IdArgs { id }), w, "release"),
                90..95 => (self.note(id, true), "lead", "lead-note"),
                _ => (
                    Command::Assign(AssignArgs {
                        id,
                        owner: worker.to_string(),
                    }),
                    "lead",
                    "reassign",
                ),
            },
            (Status::Blocked, Some(w)) => match roll {
                0..50 => (mv(Status::InProgress, None), w, "unblock"),
                50..70 => {
                    let reason = Some(String::from("unblocked by sage"));
                    (mv(Status::InProgress, reason), "sage", "unblock")
                }
                _ => (self.note(id, true), w, "note"),
            },
            // Nothing else is reachable from the generator; the lead may note any open row.
            _ => (self.note(id, true), "lead", "lead-note"),
        };
        self.run(&cmd, by, &format!("{by}-{id}-{kind}-{n}"));
    }

    fn note(&mut self, id: u64, with_text: bool) -> Command {
        let text = with_text.then(|| format!("{} (step {})", self.rng.pick(NOTES), self.seq));
        Command::Note(NoteArgs { id, text })
    }

    fn run(&mut self, cmd: &Command, by: &str, op: &str) {
        self.clock_ms += 200 + self.rng.below(20_000) as u64;
        let at = stamp(self.clock_ms);
        match self.queue.execute(cmd, op, by, &at) {
            Ok(Outcome::Applied { .. }) => {}
            Ok(Outcome::Recorded { rev, .. }) => {
                panic!("bench bug: {op} was already recorded at rev {rev}")
            }
            Ok(Outcome::NothingToTake { .. }) => panic!("bench bug: {op} took nothing"),
            Err(e) => panic!("bench bug: {op} by {by} refused: {e} ({cmd:?})"),
        }
    }
}

fn set(id: u64, field: SetField, value: SetValue) -> Command {
    Command::Set(SetArgs {
        id,
        field,
        value,
        reason: None,
    })
}
