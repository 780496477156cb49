//! Writes and replay. The input is one step per line (`{"op","by","at","command"}`, the
//! scenarios' shape), applied to a scenario's genesis through `Queue::execute`. Invariants:
//! every acknowledged write leaves bytes that verify and replay to the same rows, revision and
//! table (a queue that takes a write it cannot read back is bricked); a retried op changes
//! nothing and answers its first receipt.

use mosaic_queue_core::{Command, GenesisArgs, Outcome, Queue};
use serde_json::Value;

const SCENARIOS: [&str; 2] = [
    include_str!("../../../fixtures/scenarios/basic.json"),
    include_str!("../../../fixtures/scenarios/review.json"),
];

fn genesis(which: u8) -> Queue {
    let scenario: Value = serde_json::from_str(SCENARIOS[usize::from(which) % 2]).unwrap();
    let g = &scenario["genesis"];
    let args: GenesisArgs = serde_json::from_value(g["args"].clone()).unwrap();
    let text = |k: &str| g[k].as_str().unwrap().to_owned();
    Queue::genesis(args, &text("op"), &text("by"), &text("at"))
        .unwrap()
        .0
}

struct Step {
    op: String,
    by: String,
    at: String,
    command: Command,
}

fn step(line: &[u8]) -> Option<Step> {
    let v: Value = serde_json::from_slice(line).ok()?;
    let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    Some(Step {
        op: text("op")?,
        by: text("by")?,
        at: text("at")?,
        command: serde_json::from_value(v.get("command")?.clone()).ok()?,
    })
}

/// Checks the invariant on one input; panics when it does not hold.
pub fn check(bytes: &[u8]) {
    let Some((&which, rest)) = bytes.split_first() else {
        return;
    };
    let steps: Vec<Step> = rest.split(|&b| b == b'\n').filter_map(step).collect();
    let mut queue = genesis(which);
    let mut applied = Vec::new();
    for s in &steps {
        let before = queue.to_bytes();
        match queue.execute(&s.command, &s.op, &s.by, &s.at) {
            Ok(Outcome::Applied { rev, receipt, .. }) => {
                assert_eq!(rev, queue.revision());
                applied.push((s, receipt));
            }
            Ok(Outcome::Recorded { .. } | Outcome::NothingToTake { .. }) | Err(_) => {
                assert_eq!(
                    queue.to_bytes(),
                    before,
                    "a refusal or a retry changed the file"
                );
            }
        }
    }
    let bytes = queue.to_bytes();
    let read = match Queue::verify(&bytes) {
        Ok(q) => q,
        Err(e) => panic!("an acknowledged write left a queue that does not verify: {e}"),
    };
    assert_eq!(read.rows(), queue.rows(), "replay gave other rows");
    assert_eq!(read.revision(), queue.revision());
    assert_eq!(
        read.render_body(),
        queue.render_body(),
        "replay renders another table"
    );
    let mut again = read;
    for (s, receipt) in applied {
        match again.execute(&s.command, &s.op, &s.by, &s.at) {
            Ok(Outcome::Recorded { receipt: r, .. }) => assert_eq!(r, receipt),
            other => panic!("a retried op {:?} answered {other:?}", s.op),
        }
    }
    assert_eq!(again.to_bytes(), bytes, "retries changed the file");
}
