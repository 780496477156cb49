//! The bad-input corpus in fixtures/bad (written by generate.mjs): every file must be refused
//! by `Queue::verify` with exactly the kind expected.json names and a one-line message, and a
//! million-deep nesting, built here rather than committed, must be refused without a crash.

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use mosaic_queue_core::{Queue, QueueError, ReplayError};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expected {
    kind: String,
    why: String,
    /// For `entry-refused`: the kind of the verb refusal replay reports.
    #[serde(default)]
    refused: Option<String>,
}

fn corpus_dir() -> PathBuf {
    common::fixtures().join("bad")
}

fn load_expected() -> BTreeMap<String, Expected> {
    let path = corpus_dir().join("expected.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn corpus_files() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(corpus_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "generate.mjs" && n != "expected.json")
        .collect();
    names.sort();
    names
}

/// The verb refusal inside an `entry-refused` error.
fn refusal_kind(err: &QueueError) -> Option<&'static str> {
    match err {
        QueueError::Replay(ReplayError::Refused { source, .. }) => Some(source.kind()),
        _ => None,
    }
}

#[test]
fn corpus_and_expected_json_name_the_same_files() {
    let expected = load_expected();
    let files = corpus_files();
    let listed: Vec<&String> = expected.keys().collect();
    let missing: Vec<&String> = files
        .iter()
        .filter(|f| !expected.contains_key(*f))
        .collect();
    let stale: Vec<&&String> = listed.iter().filter(|n| !files.contains(n)).collect();
    assert!(missing.is_empty(), "not in expected.json: {missing:?}");
    assert!(stale.is_empty(), "in expected.json but no file: {stale:?}");
    assert!(files.len() >= 110, "only {} corpus files", files.len());
    for (name, e) in &expected {
        assert!(!e.why.is_empty() && !e.why.contains('\n'), "{name}: why");
        assert_eq!(
            e.refused.is_some(),
            e.kind == "entry-refused",
            "{name}: `refused` goes with kind entry-refused and only there"
        );
    }
}

#[test]
fn every_corpus_file_is_refused_with_its_kind() {
    let expected = load_expected();
    let mut failures = Vec::new();
    for name in corpus_files() {
        let Some(want) = expected.get(&name) else {
            continue;
        };
        let bytes = std::fs::read(corpus_dir().join(&name)).unwrap();
        let err = match Queue::verify(&bytes) {
            Ok(_) => {
                failures.push(format!("{name}: accepted ({})", want.why));
                continue;
            }
            Err(e) => e,
        };
        if err.kind() != want.kind {
            failures.push(format!(
                "{name}: kind {} but expected {} ({}): {err}",
                err.kind(),
                want.kind,
                want.why
            ));
            continue;
        }
        if let Some(refused) = &want.refused
            && refusal_kind(&err) != Some(refused.as_str())
        {
            failures.push(format!(
                "{name}: refused as {:?}, expected {refused}: {err}",
                refusal_kind(&err)
            ));
        }
        if err.to_string().contains('\n') {
            failures.push(format!("{name}: message is not one line: {err:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Nesting deep enough that a recursive parser without a limit would overflow the stack.
const MILLION: usize = 1_000_000;

#[test]
fn a_million_nested_arrays_are_refused_without_a_crash() {
    let mut bytes = Vec::with_capacity(2 * MILLION + 1);
    bytes.resize(MILLION, b'[');
    bytes.resize(2 * MILLION, b']');
    bytes.push(b'\n');
    // The first `[` already stands where an object belongs, so this is a schema refusal before
    // any nesting is read.
    let err = Queue::verify(&bytes).unwrap_err();
    assert_eq!(err.kind(), "schema", "{err}");
    assert!(!err.to_string().contains('\n'));
}

#[test]
fn a_million_nested_arrays_inside_a_set_value_hit_the_recursion_limit() {
    // `set`'s value is read as an untyped JSON value, the one place the file's nesting is
    // followed; serde_json stops at 128 levels and reports it as a syntax error.
    let golden = std::fs::read_to_string(common::fixtures().join("golden/basic/queue.json"))
        .expect("golden queue");
    let target = "\"value\": \"docs/plans/queue.md#data\"";
    assert_eq!(golden.matches(target).count(), 1);
    let deep = format!("\"value\": {}{}", "[".repeat(MILLION), "]".repeat(MILLION));
    let bytes = golden.replace(target, &deep);
    let err = Queue::verify(bytes.as_bytes()).unwrap_err();
    assert_eq!(err.kind(), "json-syntax", "{err}");
    assert!(err.to_string().contains("recursion limit"), "{err}");
    assert!(!err.to_string().contains('\n'));
}
