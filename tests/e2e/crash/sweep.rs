//! The I/O-error sweep: one run of a verb per call it makes, that call failed through the
//! fault-injection build's faulting I/O layer with EIO, ENOSPC, EDQUOT, EROFS, EACCES or a
//! short write. Each run must exit with the contract's code, leave no temp file, lose nothing
//! acknowledged, never print a receipt after a failed fsync, and be recovered by its retry or
//! the commands doctor names.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::check::{Remote, Scenario, Verdict, reset};
use super::receipts;
use support::fake_gitea::FakeGitea;
use support::{Repo, run_in};

const FAULTS: [&str; 6] = ["eio", "enospc", "edquot", "erofs", "eacces", "short"];
/// Runs `args` once per call and fault; panics naming every run that broke a rule. `fake` is
/// the Gitea a review request posts to; it is put back to what it held before each run.
/// Returns how many distinct outcomes were healed only by a person's decision (a kind in
/// `person_kinds`), which the caller holds to what its scenario allows: such an outcome is
/// the contract's case, not a recovery by the commands alone.
pub fn sweep(
    verb: &str,
    repo: &Repo,
    args: &[&str],
    env: &[(&str, &str)],
    person_kinds: &[&str],
    fake: Option<&FakeGitea>,
) -> usize {
    // One clock for every run and every command after it (`MOSAIC_NOW_MS`): two faults that
    // leave the same files then leave the same bytes, and their recovery is judged once.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis()
        .to_string();
    let mut env: Vec<(&str, &str)> = env.to_vec();
    env.push(("MOSAIC_NOW_MS", &now));
    let env = env.as_slice();
    let comments_before = fake.map(FakeGitea::comments).unwrap_or_default();
    let pristine = repo.base.join("pristine-sweep");
    reset(&repo.root, &pristine);
    let scenario = Scenario {
        repo,
        pristine: pristine.clone(),
        args: args.iter().map(|s| (*s).to_owned()).collect(),
        env: env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
        before: receipts(repo),
        person_kinds,
        reboot: false,
        remote: fake.map(|fake| Remote {
            fake,
            before: comments_before.clone(),
            after: Vec::new(),
        }),
    };
    let before_queue = std::fs::read(repo.path("docs/plans/queue.json")).ok();
    let before_witness = std::fs::read(repo.path(".git/mosaic-queue.head")).ok();
    let trace_file = repo.base.join("sweep.jsonl");
    // The calls of a clean run, numbered as the faulting layer numbers them.
    let calls = traced(repo, args, env, &trace_file, None);
    let calls: Vec<Value> = calls.into_iter().filter(|v| v["ev"] == "call").collect();
    // Every call with one fault: a short write for a write and the five errors in turn for
    // the others (the in-memory sweep fails every call with every fault).
    let mut runs = 0;
    let mut recovered = 0;
    let mut person = 0;
    let mut broken = Vec::new();
    // Recovery is judged once per distinct outcome: most faults leave the checkout exactly as
    // another run did (nothing written), and the check is deterministic in what it finds.
    let mut judged: BTreeMap<Outcome, Option<String>> = BTreeMap::new();
    for (i, call) in calls.iter().enumerate() {
        let n = i + 1;
        let op = call["op"].as_str().unwrap_or_default();
        let kinds: Vec<&str> = if op == "write" {
            vec!["short"]
        } else {
            vec![FAULTS[i % (FAULTS.len() - 1)]]
        };
        for kind in kinds {
            runs += 1;
            reset(&pristine, &repo.root);
            if let Some(fake) = fake {
                fake.set_comments(comments_before.clone());
            }
            let what = format!(
                "call {n} ({op} {}) {kind}",
                call["path"].as_str().unwrap_or("")
            );
            let fail = format!("{n}:{kind}");
            let (out, events) = run_traced(repo, args, env, &trace_file, &fail);
            let printed: BTreeSet<String> = events
                .iter()
                .filter(|e| e["ev"] == "printed")
                .flat_map(|e| {
                    e["text"]
                        .as_str()
                        .unwrap_or("")
                        .lines()
                        .map(str::to_owned)
                        .collect::<Vec<_>>()
                })
                .filter(|l| super::model::is_receipt(l))
                .collect();
            let rules = || -> Result<(), String> {
                if !events.iter().any(|e| e["ev"] == "fault") {
                    return Err("the fault never fired".to_owned());
                }
                if out.signal.is_some() || out.stderr.contains("panicked") {
                    return Err(format!("crashed: {}", out.stderr));
                }
                match out.code {
                    0 => {}
                    1 | 3 => {
                        let lines = out
                            .stderr
                            .lines()
                            .filter(|l| !l.starts_with("warning: "))
                            .count();
                        if lines != 1 {
                            return Err(format!(
                                "exit {} without one stderr line: {:?}",
                                out.code, out.stderr
                            ));
                        }
                    }
                    c => return Err(format!("exit {c}: {}", out.stderr.trim())),
                }
                if out.code == 1 {
                    let now_queue = std::fs::read(repo.path("docs/plans/queue.json")).ok();
                    let now_witness = std::fs::read(repo.path(".git/mosaic-queue.head")).ok();
                    if now_queue != before_queue || now_witness != before_witness {
                        return Err(format!(
                            "exit 1 but the queue changed: {}",
                            out.stderr.trim()
                        ));
                    }
                }
                // A failed fsync: nothing is acknowledged after it (no receipt printed later).
                if let Some(at) = events.iter().position(|e| e["ev"] == "fault") {
                    let fault = &events[at];
                    let path = fault["path"].as_str().unwrap_or("");
                    let synced = matches!(fault["op"].as_str(), Some("fsync" | "fsync_dir"));
                    // The fsync of .git after an acknowledged write removed its lock holds no
                    // queue data: at worst a dead lock comes back after a crash (`unlock`), so
                    // the review request's outcome write may go on and print its receipt.
                    let releasing = events[..at]
                        .iter()
                        .rev()
                        .find(|e| e["ev"] == "ok")
                        .is_some_and(|e| {
                            e["op"] == "unlink"
                                && e["path"]
                                    .as_str()
                                    .is_some_and(|p| p.ends_with("/.git/mosaic-queue.lock"))
                        });
                    if synced && !releasing && !path.contains(".mosaic-queue.view.") {
                        let later = events[at..].iter().any(|e| {
                            e["ev"] == "printed"
                                && e["text"].as_str().is_some_and(|t| t.starts_with("ok "))
                        });
                        if later {
                            return Err("a receipt printed after a failed fsync".to_owned());
                        }
                    }
                }
                // A temp file stays only when removing it was the call that failed.
                let failed_unlink = events
                    .iter()
                    .find(|e| e["ev"] == "fault" && e["op"] == "unlink")
                    .and_then(|e| e["path"].as_str());
                for left in temps(repo) {
                    let own = failed_unlink == Some(left.as_str());
                    if !own {
                        return Err(format!("left the temp file {left}"));
                    }
                }
                Ok(())
            };
            if let Err(why) = rules() {
                broken.push(format!("{what}: {why}"));
                continue;
            }
            let key = outcome(repo, fake, &printed);
            let verdict = judged.entry(key).or_insert_with(|| {
                recovered += 1;
                match scenario.recover(&printed) {
                    Verdict::Healed(_) => None,
                    Verdict::Person(_) => {
                        person += 1;
                        None
                    }
                    Verdict::Unsafe(why) => Some(why),
                }
            });
            if let Some(why) = verdict {
                broken.push(format!("{what}: not recovered: {why}"));
            }
        }
    }
    eprintln!(
        "io-errors | {verb} | {} calls | {runs} runs | {recovered} distinct outcomes, {person} of them settled by a person | {} broken |",
        calls.len(),
        broken.len()
    );
    reset(&pristine, &repo.root);
    let _ = std::fs::remove_dir_all(&pristine);
    assert!(
        broken.is_empty(),
        "I/O faults handled wrongly:\n{}",
        broken.join("\n")
    );
    person
}

/// What a faulted run left: every file of the queue, the lock and the gate (temp files
/// included), the receipts it printed, and the comments on Gitea.
type Outcome = (Vec<(String, Vec<u8>)>, BTreeSet<String>, Vec<String>);

fn outcome(repo: &Repo, fake: Option<&FakeGitea>, printed: &BTreeSet<String>) -> Outcome {
    let mut files = Vec::new();
    for dir in ["docs/plans", ".git"] {
        let Ok(entries) = std::fs::read_dir(repo.path(dir)) else {
            continue;
        };
        for e in entries {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            let ours = dir == "docs/plans" || name.contains("mosaic-queue");
            if ours && e.file_type().unwrap().is_file() {
                // The read view names the inode of the file it verified, new in every run; it
                // counts by its presence.
                let bytes = if name == "mosaic-queue.view" {
                    Vec::new()
                } else {
                    std::fs::read(e.path()).unwrap()
                };
                files.push((format!("{dir}/{name}"), bytes));
            }
        }
    }
    files.sort();
    let comments = fake
        .map(|f| f.comments().into_iter().map(|c| c.body).collect())
        .unwrap_or_default();
    (files, printed.clone(), comments)
}

fn traced(
    repo: &Repo,
    args: &[&str],
    env: &[(&str, &str)],
    trace: &std::path::Path,
    fail: Option<&str>,
) -> Vec<Value> {
    let _ = std::fs::remove_file(trace);
    let mut all: Vec<(&str, &str)> = env.to_vec();
    all.push(("MOSAIC_IO_TRACE", trace.to_str().unwrap()));
    if let Some(f) = fail {
        all.push(("MOSAIC_IO_FAIL", f));
    }
    let out = run_in(&repo.root, args, &all);
    if fail.is_none() {
        assert_eq!(out.code, 0, "the clean run: {}", out.stderr);
    }
    read_trace(trace)
}

fn run_traced(
    repo: &Repo,
    args: &[&str],
    env: &[(&str, &str)],
    trace: &std::path::Path,
    fail: &str,
) -> (support::Out, Vec<Value>) {
    let _ = std::fs::remove_file(trace);
    let mut all: Vec<(&str, &str)> = env.to_vec();
    all.push(("MOSAIC_IO_TRACE", trace.to_str().unwrap()));
    all.push(("MOSAIC_IO_FAIL", fail));
    let out = run_in(&repo.root, args, &all);
    (out, read_trace(trace))
}

fn read_trace(trace: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(trace)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Every temp file a writer, the lock or the gate makes, as absolute paths.
fn temps(repo: &Repo) -> Vec<String> {
    let mut found = Vec::new();
    for dir in ["docs/plans", ".git"] {
        let Ok(entries) = std::fs::read_dir(repo.path(dir)) else {
            continue;
        };
        for e in entries {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            let temp = name.ends_with(".tmp")
                && [
                    ".queue.json.",
                    ".QUEUE.md.",
                    ".mosaic-queue.",
                    "mosaic-queue.",
                ]
                .iter()
                .any(|p| name.starts_with(p));
            if temp {
                found.push(repo.path(&format!("{dir}/{name}")).display().to_string());
            }
        }
    }
    found
}
