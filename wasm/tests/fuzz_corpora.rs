//! The fuzz corpora and crashers under fixtures/fuzz/<target>/, replayed on stable through the
//! same checks the libFuzzer targets run (tests/fuzz/src), so every input the fuzzer kept and
//! every crash it found stays a test in the ordinary suite. It lives in this crate because the
//! checks reach the core and the Node module's command reader.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

#[path = "../../tests/fuzz/src/lib.rs"]
mod checks;

/// Runs `check` over every file of the target's corpus and crashers; names each that fails.
fn replay(target: &str, check: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/fuzz")
        .join(target);
    let mut failed = Vec::new();
    let mut seen = 0;
    for sub in ["corpus", "crashers"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            assert_eq!(sub, "crashers", "{target} has no corpus");
            continue;
        };
        let mut paths: Vec<_> = entries.map(|e| e.unwrap().path()).collect();
        paths.sort();
        for path in paths {
            let bytes = std::fs::read(&path).unwrap();
            seen += 1;
            if catch_unwind(AssertUnwindSafe(|| check(&bytes))).is_err() {
                failed.push(format!(
                    "{sub}/{}",
                    path.file_name().unwrap().to_string_lossy()
                ));
            }
        }
    }
    assert!(
        seen >= 5,
        "{target}: only {seen} inputs under {}",
        dir.display()
    );
    assert!(
        failed.is_empty(),
        "{target}: the invariant fails on {failed:?}"
    );
}

#[test]
fn queue_reader() {
    replay("queue_reader", checks::queue_reader::check);
}

#[test]
fn replay_of_writes() {
    replay("replay", checks::replay::check);
}

#[test]
fn table() {
    replay("table", checks::table::check);
}

#[test]
fn migration_map() {
    replay("migration_map", checks::migration_map::check);
}

#[test]
fn manifest() {
    replay("manifest", checks::manifest::check);
}

#[test]
fn node_command() {
    replay("node_command", checks::node_command::check);
}

#[test]
fn epoch() {
    replay("epoch", checks::epoch::check);
}

#[test]
fn gitea_answer() {
    replay("gitea_answer", checks::gitea_answer::check);
}

#[test]
fn snapshot() {
    replay("snapshot", checks::snapshot::check);
}
