//! bench-deps: what rows that wait on rows, and takes, cost replay. Builds queues of the same
//! number of entries in several shapes (a flat file whose rows all wait on row 1; a deep chain,
//! each row added after the one before; a chain built from its end by `set`; a chain and a lone
//! row, or two chains, made to wait on each other's ends in turn; rows taken and released over
//! and over) and prints `Queue::verify` of each against the flat file, the refusals of
//! `set HEAD after TAIL` on the chain, and `next --explain` on both. Two long chains in
//! ping-pong are refused: under semantics 5 at the first such set, under 4 where the budget
//! runs out (the time to that refusal is printed); the rule's worst accepted case, two chains
//! of 1,001 rows, is printed too. Run:
//! `cargo run --release -p mosaic-queue-core --example bench-deps` (`MOSAIC_BENCH_ENTRIES=10000`
//! for one size).

use std::hint::black_box;
use std::time::{Duration, Instant};

use mosaic_queue_core::{
    AddArgs, Args, Body, CURRENT_SEMANTICS, Command, Entry, GenesisArgs, IdArgs, MapRow, Queue,
    QueueError, QueueFile, ReplayError, SetArgs, SetField, SetValue, State, Status, TakeArgs,
    internal::{self, Ctx},
    pick, sha256, to_canonical,
};

const AT: &str = "2026-11-29T10:00:00.000Z";
const TARGET: f64 = 2.0;

/// A queue built entry by entry through the verbs, without rendering a table per entry (replay
/// does not re-render: each entry's body digest is a stand-in), under `semantics`.
struct Log {
    file: QueueFile,
    state: State,
    semantics: u8,
    /// The first entry the verbs refused, logged all the same for replay to refuse.
    refused: Option<u64>,
}

impl Log {
    fn new() -> Log {
        let row = MapRow {
            id: 1,
            piece: String::from("Piece 1: replay"),
            owner: None,
            status: Status::Queued,
            gate: None,
            issues: vec![1001],
            note: None,
        };
        let args = GenesisArgs {
            branch: String::from("main"),
            root: String::from("/srv/mosaic"),
            source: String::from("0123456789abcdef0123456789abcdef01234567"),
            rows: vec![row],
            legacy_view: String::from("| # | Piece |\n| --- | --- |\n"),
        };
        let (queue, _) = Queue::genesis(args, "jason-genesis-1", "jason", AT)
            .unwrap_or_else(|e| panic!("bench bug: genesis refused: {e}"));
        Log {
            file: queue.file().clone(),
            state: queue.state().clone(),
            semantics: CURRENT_SEMANTICS,
            refused: None,
        }
    }

    fn push(&mut self, args: Args) {
        self.push_by("lead", args);
    }

    /// Appends `args` by `by`; a refusal is logged all the same (`refused`), once.
    fn push_by(&mut self, by: &str, args: Args) {
        let rev = self.file.revision + 1;
        let op = format!("{by}-{}-{rev}", args.verb().as_str());
        let ctx = Ctx {
            rev,
            op: &op,
            by,
            at: AT,
            semantics: self.semantics,
        };
        let receipt = match internal::apply(&mut self.state, &args, &ctx) {
            Ok(receipt) => receipt,
            Err(e) if self.refused.is_none() => {
                self.refused = Some(rev);
                format!("refused: {e}")
            }
            Err(e) => panic!("bench bug: {op} refused after rev {:?}: {e}", self.refused),
        };
        self.file.log.push(Entry {
            rev,
            verb: args.verb(),
            by: String::from(by),
            at: String::from(AT),
            semantics: self.semantics,
            args,
            receipt,
            body: Body::Sha256(sha256(op.as_bytes())),
            op,
        });
        self.file.revision = rev;
    }

    /// Adds the next row, waiting on `after`; its id.
    fn add(&mut self, after: Vec<u64>) -> u64 {
        let id = self.state.next_id();
        self.push(Args::Add(Box::new(AddArgs {
            id,
            piece: format!("Piece {id}: replay"),
            owner: None,
            status: Status::Queued,
            gate: None,
            issues: vec![1000 + id],
            reviewers: Vec::new(),
            brief: None,
            note: None,
            after,
        })));
        id
    }

    fn set_after(&mut self, id: u64, after: Vec<u64>) {
        self.push(Args::Set(Box::new(SetArgs {
            id,
            field: SetField::After,
            value: SetValue::Numbers(after),
            reason: None,
        })));
    }

    fn entries(&self) -> u64 {
        self.file.revision
    }

    fn bytes(mut self) -> Vec<u8> {
        self.file.rows.clone_from(&self.state.rows);
        to_canonical(&self.file)
    }
}

/// Every row waits on row 1.
fn flat(entries: u64) -> Vec<u8> {
    let mut log = Log::new();
    while log.entries() < entries {
        log.add(vec![1]);
    }
    log.bytes()
}

/// Each row added after the one before: 1 <- 2 <- ... <- N.
fn chain(entries: u64) -> Vec<u8> {
    let mut log = Log::new();
    while log.entries() < entries {
        let last = log.state.next_id() - 1;
        log.add(vec![last]);
    }
    log.bytes()
}

/// Rows added plain, then from the end down each made to wait on the next one (`set K after
/// K+1`, K falling): every set names a row that stands after it and waits on all the rest.
fn backwards(entries: u64) -> Vec<u8> {
    let mut log = Log::new();
    for _ in 0..entries / 2 {
        log.add(Vec::new());
    }
    let mut k = log.state.next_id() - 2;
    while log.entries() < entries {
        log.set_after(k, vec![k + 1]);
        k -= 1;
    }
    log.bytes()
}

/// Two chains of a quarter of the entries each, then rounds of `set A1 after BN`, clear,
/// `set B1 after AN`, clear: each set reverses which chain stands first. Under semantics 4,
/// since 5 refuses the first set; the budget refuses a later one, and the file ends there.
fn two_chains(entries: u64) -> Vec<u8> {
    chains_of(entries, entries / 4, 4)
}

/// The same with chains of 1,001 rows under semantics 5: 1,000 rows wait on each chain's head
/// and each chain's end waits on 1,000, the most the rule lets a set join.
fn two_short_chains(entries: u64) -> Vec<u8> {
    chains_of(entries, 1_001, CURRENT_SEMANTICS)
}

fn chains_of(entries: u64, len: u64, semantics: u8) -> Vec<u8> {
    let mut log = Log::new();
    log.semantics = semantics;
    let (a1, b1) = (1, len + 1);
    for id in 2..=2 * len {
        log.add(if id == b1 { Vec::new() } else { vec![id - 1] });
    }
    let (an, bn) = (len, 2 * len);
    let round = [(a1, vec![bn]), (a1, vec![]), (b1, vec![an]), (b1, vec![])];
    for (id, after) in round.iter().cycle() {
        if log.entries() >= entries || log.refused.is_some() {
            break;
        }
        log.set_after(*id, after.clone());
    }
    log.bytes()
}

/// Half the entries add rows, every other one waiting on the row before (never done); then
/// four seats in turn each take the row `next` names and release it.
fn takes(entries: u64) -> Vec<u8> {
    const SEATS: [&str; 4] = ["darkwing", "launchpad", "gosalyn", "honker"];
    let mut log = Log::new();
    while log.entries() < entries / 2 {
        let last = log.state.next_id() - 1;
        log.add(if last % 2 == 1 {
            vec![last]
        } else {
            Vec::new()
        });
    }
    for seat in SEATS.iter().cycle() {
        if log.entries() + 2 > entries {
            break;
        }
        let pick::Pick::Row(id) = pick::take_pick(&log.state.rows, seat) else {
            panic!("bench bug: nothing for {seat} to take");
        };
        log.push_by(
            seat,
            Args::Take(Box::new(TakeArgs {
                id,
                lease: None,
                reclaim: None,
            })),
        );
        log.push_by(seat, Args::Release(IdArgs { id }));
    }
    log.bytes()
}

/// One chain of half the entries and one lone row, then rounds of `set A1 after LONE`, clear,
/// `set LONE after AN`, clear: each set moves the lone row from one end of the chain to the other.
fn chain_and_lone(entries: u64) -> Vec<u8> {
    let mut log = Log::new();
    let len = entries / 2;
    for id in 2..len {
        log.add(vec![id - 1]);
    }
    let lone = log.add(Vec::new());
    let an = len - 1;
    let round = [
        (1, vec![lone]),
        (1, vec![]),
        (lone, vec![an]),
        (lone, vec![]),
    ];
    for (id, after) in round.iter().cycle() {
        if log.entries() >= entries {
            break;
        }
        log.set_after(*id, after.clone());
    }
    log.bytes()
}

/// The median of `runs` runs after one warm-up; what `f` returns is dropped off the clock.
fn median_of<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    drop(black_box(f()));
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            let out = black_box(f());
            let elapsed = t.elapsed();
            drop(out);
            elapsed
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn verify_ms(bytes: &[u8], runs: usize) -> f64 {
    ms(median_of(runs, || {
        Queue::verify(bytes).unwrap_or_else(|e| panic!("bench bug: does not verify: {e}"))
    }))
}

fn mib(bytes: usize) -> String {
    format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20))
}

/// The flat file's verify: its time and size, to scale to another file's size (verify of a
/// flat file is linear in its bytes).
#[derive(Clone, Copy)]
struct Flat {
    ms: f64,
    bytes: usize,
}

impl Flat {
    fn ms_for(self, bytes: usize) -> f64 {
        self.ms * bytes as f64 / self.bytes as f64
    }
}

/// Generates one shape, verifies it against the flat file's time and prints the line.
fn row(name: &str, entries: u64, build: fn(u64) -> Vec<u8>, flat: Flat, runs: usize) {
    let started = Instant::now();
    let bytes = build(entries);
    let built = started.elapsed().as_secs_f64();
    let native = verify_ms(&bytes, runs);
    let ratio = native / flat.ms_for(bytes.len());
    let verdict = if ratio <= TARGET { "met" } else { "NOT met" };
    println!(
        "  {name:<34} {entries:>7}  {:>9}  {native:>10.1}  {ratio:>6.2}x ({verdict}; built in {built:.1} s)",
        mib(bytes.len()),
    );
}

/// A shape whose file is refused at some entry: the time `Queue::verify` takes to refuse it,
/// against the flat file's for the same bytes.
fn refused_row(name: &str, entries: u64, build: fn(u64) -> Vec<u8>, flat: Flat, runs: usize) {
    let bytes = build(entries);
    let mut why = None;
    let native = ms(median_of(runs, || match Queue::verify(&bytes) {
        Err(QueueError::Replay(ReplayError::Refused { rev, source })) => {
            why = Some((rev, source.kind()));
        }
        other => panic!("bench bug: {name}: {other:?}"),
    }));
    let (rev, kind) = why.unwrap_or_default();
    let ratio = native / flat.ms_for(bytes.len());
    let verdict = if ratio <= TARGET { "met" } else { "NOT met" };
    println!(
        "  {name:<34} {entries:>7}  {:>9}  {native:>10.1}  {ratio:>6.2}x ({verdict}; {kind} at rev {rev})",
        mib(bytes.len()),
    );
}

/// `set 1 after N` on the chain as a write meets it (the queue just verified, the first set it
/// sees, which builds the dependency graph): refused by the reach rule; and the same set
/// appended under semantics 4, refused as a cycle with the path in the message.
fn cycle_check(chain: &[u8], flat: Flat, runs: usize) {
    let tail = Queue::verify(chain).unwrap().state().next_id() - 1;
    let value = SetValue::Numbers(vec![tail]);
    let args = SetArgs {
        id: 1,
        field: SetField::After,
        value,
        reason: None,
    };
    let set = Command::Set(args.clone());
    for semantics in [CURRENT_SEMANTICS, 4] {
        let mut message = String::new();
        let mut times: Vec<Duration> = (0..runs)
            .map(|_| {
                let mut queue = Queue::verify(chain).unwrap();
                let t = Instant::now();
                let refused = if semantics == CURRENT_SEMANTICS {
                    queue.execute(&set, "lead-set-cycle", "lead", AT).map(drop)
                } else {
                    let args = Args::Set(Box::new(args.clone()));
                    queue
                        .append_entry(args, "lead-set-cycle", "lead", AT, semantics)
                        .map(drop)
                };
                let elapsed = t.elapsed();
                match refused {
                    Err(e) => message = format!("{} {e}", e.kind()),
                    Ok(()) => panic!("bench bug: set 1 after {tail} was not refused"),
                }
                elapsed
            })
            .collect();
        times.sort();
        let t = ms(times[runs / 2]);
        let kind = message.split(' ').next().unwrap_or("");
        println!(
            "  set 1 after {tail} on the chain, semantics {semantics}: {kind} in {t:.2} ms = {:.3}x \
             the flat file's verify; the message is {} bytes",
            t / flat.ms_for(chain.len()),
            message.len() - kind.len() - 1
        );
    }
}

fn explain_ms(bytes: &[u8], runs: usize) -> f64 {
    let queue = Queue::verify(bytes).unwrap();
    ms(median_of(runs, || pick::explain(queue.rows(), "darkwing")))
}

fn main() {
    let sizes: Vec<u64> = match std::env::var("MOSAIC_BENCH_ENTRIES") {
        Ok(v) => vec![v.parse().expect("MOSAIC_BENCH_ENTRIES is a number")],
        Err(_) => vec![10_000, 50_000],
    };
    println!("bench-deps: Queue::verify of each shape / of a flat file (every row waits on row 1)");
    println!(
        "of as many entries, its time scaled to the shape's bytes; medians; target <= {TARGET}x"
    );
    for entries in sizes {
        let runs = if entries <= 10_000 { 9 } else { 5 };
        let flat_bytes = flat(entries);
        let flat_ms = verify_ms(&flat_bytes, runs);
        let reference = Flat {
            ms: flat_ms,
            bytes: flat_bytes.len(),
        };
        println!();
        println!(
            "  {:<34} {:>7}  {:>9}  {:>10}  {:>6}",
            "shape", "entries", "file", "verify ms", "ratio"
        );
        println!(
            "  {:<34} {entries:>7}  {:>9}  {flat_ms:>10.1}  {:>6}",
            "flat (every row after row 1)",
            mib(flat_bytes.len()),
            "1.00x"
        );
        row(
            "deep chain (add after the last)",
            entries,
            chain,
            reference,
            runs,
        );
        row(
            "chain set from its end",
            entries,
            backwards,
            reference,
            runs,
        );
        row(
            "a chain and a lone row, ping-pong",
            entries,
            chain_and_lone,
            reference,
            runs,
        );
        row(
            "two chains of 1,001 rows, ping-pong",
            entries,
            two_short_chains,
            reference,
            runs,
        );
        refused_row(
            "two long chains, ping-pong, sem. 4",
            entries,
            two_chains,
            reference,
            runs,
        );
        row(
            "take and release, four seats",
            entries,
            takes,
            reference,
            runs,
        );
        let chain_bytes = chain(entries);
        cycle_check(&chain_bytes, reference, runs);
        let (deep, wide) = (
            explain_ms(&chain_bytes, runs),
            explain_ms(&flat_bytes, runs),
        );
        println!(
            "  next --explain (core): chain {deep:.2} ms, flat {wide:.2} ms = {:.2}x",
            deep / wide
        );
    }
}
