//! The hostile corpus: the real binary against hostile argv, environment, file contents,
//! filesystem objects and Gitea answers, generated from tables (verbs x fields x values). Each
//! case asserts the exact exit code, its gist (never empty: the refusal's one stderr line, or
//! the answer on stdout), every file byte-identical after a refusal (or the queue still
//! verifying after a write), no Gitea token or other secret in any output or file, no hang (the
//! child is killed at a deadline and the case fails) and bounded memory (RLIMIT_DATA of 1 GiB: a
//! read that grows without bound aborts the child instead of the machine). RLIMIT_DATA rather
//! than RLIMIT_AS because the sandbox reserves address space for its linear memory up front.
//!
//! Cases run on a few worker threads, each with its own scratch checkout (its canonical root
//! is its path, so copies cannot move), restored from a pristine copy after any case that
//! touched it.

mod cases;
mod runner;
mod secrets;

use std::collections::BTreeMap;

use cases::Family;

/// The cases still waiting for their fix (tests/e2e/cli_hostile/unfixed.txt).
const UNFIXED: &str = include_str!("cli_hostile/unfixed.txt");

/// How many cases each family holds, exactly. Adding or removing a case changes this table in
/// the same commit: a corpus that lost cases to a broken table or a filter must not pass.
const COUNTS: [(Family, usize); 5] = [
    (Family::Argv, 386),
    (Family::Env, 34),
    (Family::Files, 75),
    (Family::Filesystem, 193),
    (Family::Gitea, 52),
];

#[test]
fn the_hostile_corpus() {
    let all = cases::all();
    let mut names = std::collections::BTreeSet::new();
    for c in &all {
        assert!(names.insert(c.name.clone()), "case {} twice", c.name);
    }
    let mut by_family: BTreeMap<Family, usize> = BTreeMap::new();
    for c in &all {
        *by_family.entry(c.family).or_default() += 1;
    }
    eprintln!("hostile corpus: {} cases {by_family:?}", all.len());
    assert_eq!(
        by_family,
        BTreeMap::from(COUNTS),
        "the cases per family differ from COUNTS"
    );
    // Cases whose expected behaviour main does not have yet, one name a line; each is removed
    // from the list as its fix lands, and the rest run and must pass.
    let unfixed: std::collections::BTreeSet<&str> = UNFIXED.lines().collect();
    let run: Vec<cases::Case> = all
        .iter()
        .filter(|c| !unfixed.contains(c.name.as_str()))
        .cloned()
        .collect();
    eprintln!(
        "hostile corpus: {} run, {} listed as unfixed",
        run.len(),
        unfixed.len()
    );
    let failures = runner::run_all(&run);
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        run.len(),
        failures.join("\n")
    );
}
