//! Snapshot verification on the golden files: a pair passes, with or without a base it
//! extends; a hand-edited or stale table, an invalid base, a base ahead of the snapshot and
//! a base from another history each fail with their own kind.

mod common;

use mosaic_queue_core::{Certified, SnapshotError, verify_snapshot};

fn golden(name: &str, file: &str) -> Vec<u8> {
    std::fs::read(common::fixtures().join("golden").join(name).join(file)).unwrap()
}

fn md(body: &[u8]) -> Vec<u8> {
    let mut out = b"# Queue\n\n<!-- mosaic-queue:begin -->\n".to_vec();
    out.extend_from_slice(body);
    out.extend_from_slice(b"<!-- mosaic-queue:end -->\n");
    out
}

#[test]
fn a_golden_pair_passes_and_extends_its_own_prefix() {
    let json = golden("basic", "queue.json");
    let table = md(&golden("basic", "body.md"));
    assert_eq!(
        verify_snapshot(&json, &table, None),
        Ok(Certified {
            revision: 16,
            base_revision: None
        })
    );
    let mut sc = common::load_scenario("basic");
    sc.steps.truncate(6);
    let base = common::run(&sc).to_bytes();
    let verdict = verify_snapshot(&json, &table, Some(&base)).unwrap();
    assert_eq!(verdict.revision, 16);
    assert!(verdict.base_revision.is_some_and(|b| b < 16));
}

#[test]
fn each_failure_has_its_kind() {
    let json = golden("basic", "queue.json");
    let table = md(&golden("basic", "body.md"));
    let other = golden("genesis-only", "queue.json");
    let kind = |r: Result<Certified, SnapshotError>| r.unwrap_err().kind();
    assert_eq!(
        kind(verify_snapshot(&json, &md(b"| edited |\n"), None)),
        "table-unknown"
    );
    assert_eq!(
        kind(verify_snapshot(&json, b"no markers\n", None)),
        "table-markers"
    );
    assert_eq!(
        kind(verify_snapshot(&json, &table, Some(b"{}"))),
        "base-invalid"
    );
    assert_eq!(
        kind(verify_snapshot(&json, &table, Some(&other))),
        "snapshot-diverged"
    );
    let other_table = md(&golden("genesis-only", "body.md"));
    assert_eq!(
        kind(verify_snapshot(&other, &other_table, Some(&json))),
        "snapshot-behind"
    );
    assert_eq!(kind(verify_snapshot(b"{", &table, None)), "json-syntax");
    let mut sc = common::load_scenario("basic");
    sc.steps.truncate(6);
    let early = common::run(&sc);
    let stale = md(early.render_body().as_bytes());
    assert_eq!(kind(verify_snapshot(&json, &stale, None)), "table-stale");
}
