//! A trace the real binary wrote (`MOSAIC_IO_TRACE`) read back into the events the library's
//! crash models take (`mosaic_queue::io::crash`, the models the in-memory enumeration runs).

use std::path::Path;

pub use mosaic_queue::io::crash::{Posted, State, Trace, is_receipt};
use mosaic_queue::io::trace::Event;

/// The events of a trace file, one JSON line each.
pub fn events(text: &str) -> Vec<Event> {
    text.lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("a trace line");
            Event::from_json(&v).expect("a trace event")
        })
        .collect()
}

/// The trace of the run that wrote `text`; files the run found are read from `before`, a copy
/// of the checkout taken before the run (same layout under `root`).
pub fn parse(text: &str, root: &Path, before: &Path) -> Trace {
    Trace::new(&events(text), |p| {
        std::fs::read(before.join(p.strip_prefix(root).ok()?)).ok()
    })
}
