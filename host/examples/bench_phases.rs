//! bench-phases: where one command's work goes, by phase, for note, take, add and next at
//! 1,000 and 10,000 rows. Instruction counts come from callgrind (they do not move with the
//! machine's load), each phase the inclusive count of the function that does it; syscalls
//! come from `strace -c`. Run: `cargo build --profile profiling -p mosaic-queue`, then
//! `cargo run --release -p mosaic-queue --example bench-phases`. Needs valgrind and strace.
//! Valgrind's CPU has no SHA extensions, so SHA-256 runs its portable code here: its share is
//! larger than on a CPU whose SHA instructions the native binary uses.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use support::bench::{BENCH_QUEUE_MD, Scratch, cleared, queued_checkout, run_ok};

/// The phases, each the inclusive instruction count of functions whose names end so
/// (summed), less the counts of others (a phase that contains another).
const PHASES: &[(&str, &[&str], &[&str])] = &[
    (
        "start, command line, exit",
        &["PROGRAM TOTALS"],
        &["mosaic_queue::engine::run"],
    ),
    (
        "read queue.json and its SHA-256",
        &["mosaic_queue::store::load_unchecked"],
        &["mosaic_queue_core::queue::Queue::verify"],
    ),
    (
        "parse and canonical check",
        &["mosaic_queue_core::canon::parse_canonical"],
        &[],
    ),
    (
        "replay",
        &["mosaic_queue_core::queue::Queue::verify"],
        &["mosaic_queue_core::canon::parse_canonical"],
    ),
    (
        "the witness chain",
        &["mosaic_queue::store::cut::history::check_extends"],
        &[],
    ),
    (
        "the verb",
        &["mosaic_queue::store::cut::history::execute"],
        &[],
    ),
    (
        "the table (check and write)",
        &[
            "mosaic_queue::store::session::open::Session>::table",
            "mosaic_queue::store::write::write_table",
        ],
        &[],
    ),
    (
        "write queue.json, its SHA-256, the witness",
        &["mosaic_queue::store::write::write_durably"],
        &["mosaic_queue::store::write::write_table"],
    ),
];

/// Every SHA-256 block, whatever phase it falls in.
const SHA: &str = "sha2::sha256::compress256";

fn profiling_binary() -> PathBuf {
    let bin = std::env::var_os("MOSAIC_QUEUE_BIN").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/profiling/mosaic-queue"),
        PathBuf::from,
    );
    bin.canonicalize().unwrap_or_else(|_| {
        eprintln!(
            "bench-phases: the binary {} is missing; build it with `cargo build --profile profiling -p mosaic-queue`",
            bin.display()
        );
        std::process::exit(1);
    })
}

/// Exits 2 naming the package when a tool is not on PATH.
fn need(tool: &str, package: &str) {
    let found = Command::new(tool).arg("--version").output().is_ok();
    if !found {
        eprintln!("bench-phases: {tool} is missing; install it (`apt-get install {package}`)");
        std::process::exit(2);
    }
}

/// The inclusive instruction count of each function in a callgrind profile, by name.
fn inclusive(profile: &Path) -> HashMap<String, u64> {
    let out = Command::new("callgrind_annotate")
        .args(["--inclusive=yes", "--threshold=100"])
        .arg(profile)
        .output()
        .expect("callgrind_annotate runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut counts = HashMap::new();
    for line in text.lines() {
        let line = line.trim_start();
        let Some((count, rest)) = line.split_once(' ') else {
            continue;
        };
        let Ok(count) = count.replace(',', "").parse::<u64>() else {
            continue;
        };
        // `N (P%)  file:function [object]`: the function, without its object.
        let Some((_, rest)) = rest.split_once(")  ") else {
            continue;
        };
        let rest = rest.split(" [").next().unwrap_or(rest);
        // The file ends at the first colon; the function's name has colons of its own.
        let name = rest.split_once(':').map_or(rest, |(_, f)| f);
        // A function appears once per file its inlined code came from; the first, largest,
        // line is the function as a whole.
        counts.entry(name.to_owned()).or_insert(count);
    }
    counts
}

fn phase(counts: &HashMap<String, u64>, plus: &[&str], minus: &[&str]) -> Option<u64> {
    let find = |suffix: &str| {
        counts
            .iter()
            .filter(|(name, _)| name.ends_with(suffix))
            .map(|(_, c)| *c)
            .max()
    };
    let mut total = 0u64;
    for name in plus {
        total += find(name)?;
    }
    for name in minus {
        total = total.saturating_sub(find(name).unwrap_or(0));
    }
    Some(total)
}

/// The calls `strace -c -f` counted for one run: all of them and the fsyncs.
fn syscalls(bin: &Path, root: &Path, args: &[String], out: &Path) -> (u64, u64) {
    let status = cleared(Command::new("strace"))
        .args(["-f", "-c", "-o"])
        .arg(out)
        .arg(bin)
        .args(args)
        .current_dir(root)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("strace runs");
    assert!(status.success(), "bench bug: {args:?} failed under strace");
    let text = std::fs::read_to_string(out).expect("strace's summary");
    let (mut all, mut fsyncs) = (0, 0);
    for line in text.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < 5 || fields[0].starts_with('-') || fields[0] == "%" {
            continue;
        }
        let calls: u64 = fields[3].parse().unwrap_or(0);
        match *fields.last().unwrap() {
            "total" => all = calls,
            "fsync" | "fdatasync" => fsyncs += calls,
            _ => {}
        }
    }
    (all, fsyncs)
}

/// The argv of the `n`th run of `verb`, each change with an op of its own.
fn argv(verb: &str, n: usize) -> Vec<String> {
    let s = |v: &[&str]| v.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>();
    match verb {
        "note" => s(&[
            "note",
            "1",
            &format!("phase note {n}"),
            "--op",
            &format!("lead-note-{n}"),
            "--by",
            "lead",
        ]),
        "take" => s(&[
            "take",
            "--op",
            &format!("seat-{n}-take-1"),
            "--by",
            &format!("seat-{n}"),
        ]),
        "add" => s(&[
            "add",
            "--piece",
            &format!("phase piece {n}"),
            "--op",
            &format!("lead-add-{n}"),
            "--by",
            "lead",
        ]),
        _ => s(&["next", "darkwing", "--json"]),
    }
}

fn main() {
    need("valgrind", "valgrind");
    need("strace", "strace");
    let bin = profiling_binary();
    println!("bench-phases: {}", bin.display());
    let mut n = 0;
    for rows in [1000u64, 10_000] {
        let scratch = Scratch::new(&format!("bench-phases-{rows}"));
        let root = queued_checkout(&bin, &scratch.0, rows, BENCH_QUEUE_MD);
        println!("\n{rows} rows: instructions (millions) by phase, one run each under callgrind");
        let mut header = String::from("| verb | total |");
        for (name, _, _) in PHASES {
            header.push_str(&format!(" {name} |"));
        }
        header.push_str(" SHA-256, in all phases | syscalls | fsyncs |");
        println!("{header}");
        println!("|{}", " --- |".repeat(PHASES.len() + 5));
        for verb in ["note", "take", "add", "next"] {
            // One run first, so each measured run finds the read view and the table as a
            // run before it left them.
            n += 1;
            run_ok(
                &bin,
                &root,
                &argv(verb, n).iter().map(String::as_str).collect::<Vec<_>>(),
            );
            n += 1;
            let profile = scratch.0.join(format!("{verb}.callgrind"));
            let status = cleared(Command::new("valgrind"))
                .arg("--tool=callgrind")
                .arg(format!("--callgrind-out-file={}", profile.display()))
                .arg(&bin)
                .args(argv(verb, n))
                .current_dir(&root)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .expect("valgrind runs");
            assert!(status.success(), "bench bug: {verb} failed under callgrind");
            let counts = inclusive(&profile);
            let m = |c: Option<u64>| c.map_or("-".to_owned(), |c| format!("{:.2}", c as f64 / 1e6));
            let mut line = format!("| {verb} | {} |", m(counts.get("PROGRAM TOTALS").copied()));
            for (_, plus, minus) in PHASES {
                line.push_str(&format!(" {} |", m(phase(&counts, plus, minus))));
            }
            line.push_str(&format!(" {} |", m(phase(&counts, &[SHA], &[]))));
            n += 1;
            let (all, fsyncs) = syscalls(&bin, &root, &argv(verb, n), &scratch.0.join("strace"));
            line.push_str(&format!(" {all} | {fsyncs} |"));
            println!("{line}");
        }
    }
}
