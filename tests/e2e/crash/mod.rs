//! Crash states by enumeration on the real binary, as a smoke test of the machinery the
//! in-memory enumeration runs in full (host/src/store/tests): record one run of a verb through
//! the fault-injection build's recording I/O layer, build the states the two crash models allow
//! (`model`), and check a spread sample of them (`check`) with the binary itself.

pub mod check;
pub mod fsyncgate;
pub mod model;
pub mod sweep;

use std::collections::BTreeSet;

use check::{Remote, Scenario, Verdict, reset};

use support::fake_gitea::FakeGitea;
use support::{Repo, run_in};

/// States checked per verb and model.
const SAMPLE: usize = 6;

/// The figures of one verb under one model, as docs/durability.md's table shows them.
#[derive(Debug, Default)]
pub struct Tally {
    pub enumerated: usize,
    pub checked: usize,
    /// States healed after a person's decision the contract leaves to a person.
    pub person: usize,
    pub unsafe_states: Vec<String>,
    /// The most commands doctor named for one state before it was healthy.
    pub most_steps: usize,
}

/// Every receipt in the checkout's log now.
pub fn receipts(repo: &Repo) -> BTreeSet<String> {
    let Ok(text) = std::fs::read_to_string(repo.path("docs/plans/queue.json")) else {
        return BTreeSet::new();
    };
    let queue: serde_json::Value = serde_json::from_str(&text).unwrap();
    queue["log"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["receipt"].as_str().unwrap().to_owned())
        .collect()
}

/// Records `args` run in `repo` (it must exit `code`), then checks its crash states under both
/// models; panics naming the unsafe ones. `fake` is the Gitea a review request posts to.
pub fn enumerate(
    verb: &str,
    repo: &Repo,
    args: &[&str],
    env: &[(&str, &str)],
    code: i32,
    person_kinds: &[&str],
    fake: Option<&FakeGitea>,
) {
    let pristine = repo.base.join("pristine");
    reset(&repo.root, &pristine);
    let before = receipts(repo);
    let trace_file = repo.base.join("trace.jsonl");
    let _ = std::fs::remove_file(&trace_file);
    let mut with_trace: Vec<(&str, &str)> = env.to_vec();
    with_trace.push(("MOSAIC_IO_TRACE", trace_file.to_str().unwrap()));
    let comments_before = fake.map(FakeGitea::comments).unwrap_or_default();
    let out = run_in(&repo.root, args, &with_trace);
    assert_eq!(
        out.code, code,
        "the recorded run: {} {}",
        out.stdout, out.stderr
    );
    let text = std::fs::read_to_string(&trace_file).unwrap();
    let trace = model::parse(&text, &repo.root, &pristine);
    let scenario = Scenario {
        repo,
        pristine: pristine.clone(),
        args: args.iter().map(|s| (*s).to_owned()).collect(),
        env: env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
        before,
        person_kinds,
        reboot: true,
        remote: fake.map(|fake| Remote {
            fake,
            before: comments_before,
            after: fake.comments(),
        }),
    };
    let mut failures = Vec::new();
    for (model, states) in [("ext4", trace.ext4_states()), ("weak", trace.weak_states())] {
        let mut tally = Tally {
            enumerated: states.len(),
            ..Tally::default()
        };
        for i in sample(states.len()) {
            tally.checked += 1;
            match scenario.check(&states[i]) {
                Verdict::Healed(steps) => tally.most_steps = tally.most_steps.max(steps),
                Verdict::Person(steps) => {
                    tally.person += 1;
                    tally.most_steps = tally.most_steps.max(steps);
                }
                Verdict::Unsafe(why) => tally.unsafe_states.push(format!("state {i}: {why}")),
            }
        }
        eprintln!(
            "crash-states | {verb} | {model} | {} | {} | {} | {} | {} |",
            tally.enumerated,
            tally.checked,
            tally.unsafe_states.len(),
            tally.person,
            tally.most_steps
        );
        for u in tally.unsafe_states.iter().take(5) {
            failures.push(format!("{verb} {model} {u}"));
        }
    }
    reset(&pristine, &repo.root);
    let _ = std::fs::remove_dir_all(&pristine);
    assert!(
        failures.is_empty(),
        "unsafe crash states:\n{}",
        failures.join("\n")
    );
}

/// Which of `n` states to check: up to `SAMPLE` spread evenly, first and last included.
fn sample(n: usize) -> Vec<usize> {
    if n <= SAMPLE {
        return (0..n).collect();
    }
    let mut picked: Vec<usize> = (0..SAMPLE).map(|i| i * (n - 1) / (SAMPLE - 1)).collect();
    picked.dedup();
    picked
}
