//! Shared by the core's integration tests: the fixture folder, the scenario format that every
//! face (native, wasm, Node) replays, and golden-file comparison.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use mosaic_queue_core::{Command, GenesisArgs, Outcome, Queue, layout};
use serde::Deserialize;

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

/// A scenario: genesis, then commands with the receipt or refusal kind each must give.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Scenario {
    pub name: String,
    pub genesis: GenesisStep,
    pub expect_genesis: String,
    pub steps: Vec<Step>,
}

#[derive(Deserialize)]
pub struct GenesisStep {
    pub op: String,
    pub by: String,
    pub at: String,
    pub args: GenesisArgs,
}

#[derive(Deserialize, Clone)]
pub struct Step {
    pub op: String,
    pub by: String,
    pub at: String,
    pub command: Command,
    pub expect: Expect,
    /// Older semantics replay a step as a historic entry (`append_entry`).
    #[serde(default)]
    pub semantics: Option<u8>,
}

#[derive(Deserialize, Debug, PartialEq, Clone)]
#[serde(rename_all = "camelCase")]
pub enum Expect {
    Receipt(String),
    Refused(String),
}

pub fn load_scenario(name: &str) -> Scenario {
    let path = fixtures().join("scenarios").join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub fn scenario_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixtures().join("scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Runs a scenario, checking every step's receipt or refusal and that each written state
/// re-verifies from its bytes. Returns the final queue.
pub fn run(sc: &Scenario) -> Queue {
    let g = &sc.genesis;
    let (mut queue, receipt) = Queue::genesis(g.args.clone(), &g.op, &g.by, &g.at)
        .unwrap_or_else(|e| panic!("{}: genesis refused: {e}", sc.name));
    assert_eq!(receipt, sc.expect_genesis, "{}: genesis receipt", sc.name);
    for (i, step) in sc.steps.iter().enumerate() {
        let before = queue.to_bytes();
        let before_rows = queue.rows().to_vec();
        let result = match step.semantics {
            None => queue.execute(&step.command, &step.op, &step.by, &step.at),
            Some(sem) => step
                .command
                .normalize(queue.state(), queue.revision() + 1, &step.by, &step.at)
                .and_then(|args| queue.append_entry(args, &step.op, &step.by, &step.at, sem))
                .map(|receipt| Outcome::Applied {
                    rev: queue.revision(),
                    receipt,
                    request: None,
                }),
        };
        let got = match result {
            Ok(outcome) => {
                // A write splices the new entry after the log text it loaded: the same bytes.
                // With the earlier rows (changed rows serialized, the rest copied) and without.
                if matches!(outcome, Outcome::Applied { .. }) {
                    for rows in [&before_rows[..], &[]] {
                        let spliced = layout::appended(queue.file(), &before, rows);
                        assert_eq!(
                            spliced.map(|s| s.to_vec(&before)),
                            Some(queue.to_bytes()),
                            "{} step {}: the spliced file differs ({} earlier rows)",
                            sc.name,
                            i + 1,
                            rows.len()
                        );
                    }
                }
                if matches!(outcome, Outcome::Recorded { .. }) {
                    assert_eq!(
                        queue.to_bytes(),
                        before,
                        "{} step {}: a retry changed the file",
                        sc.name,
                        i + 1
                    );
                }
                Expect::Receipt(outcome.receipt().to_owned())
            }
            Err(e) => {
                assert_eq!(
                    queue.to_bytes(),
                    before,
                    "{} step {}: a refusal changed the file",
                    sc.name,
                    i + 1
                );
                Expect::Refused(e.kind().to_owned())
            }
        };
        assert_eq!(got, step.expect, "{} step {} ({})", sc.name, i + 1, step.op);
        let again = Queue::verify(&queue.to_bytes()).unwrap_or_else(|e| {
            panic!(
                "{} step {}: written file does not verify: {e}",
                sc.name,
                i + 1
            )
        });
        assert_eq!(again.rows(), queue.rows());
    }
    queue
}

/// Compares `actual` with fixtures/golden/<rel>.
pub fn golden(rel: &str, actual: &[u8]) {
    checked_in(&fixtures().join("golden").join(rel), actual);
}

/// Compares `actual` with the checked-in file at `path`, byte for byte. A test never writes
/// what it compares with: a mismatch (or a missing file) leaves the bytes the build made under
/// the test target's scratch folder and fails naming the `cp` that adopts them, for a person to
/// run once they have read the difference.
pub fn checked_in(path: &std::path::Path, actual: &[u8]) {
    let expected = std::fs::read(path);
    if expected.as_deref().ok() == Some(actual) {
        return;
    }
    let root = fixtures().join("..").canonicalize().unwrap();
    let rel = path
        .canonicalize()
        .unwrap_or_else(|_| path.to_path_buf())
        .strip_prefix(&root)
        .map(std::path::Path::to_path_buf)
        .unwrap_or_else(|_| path.to_path_buf());
    let built = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("built")
        .join(&rel);
    std::fs::create_dir_all(built.parent().unwrap()).unwrap();
    std::fs::write(&built, actual).unwrap();
    let why = match expected {
        Ok(_) => "differs from what the build makes".to_owned(),
        Err(e) => e.to_string(),
    };
    panic!(
        "{}: {why}; the build's bytes are in {}: read the difference, and if the build is right, cp {} {}",
        rel.display(),
        built.display(),
        built.display(),
        root.join(&rel).display()
    );
}
