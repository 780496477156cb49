//! The crash checks' judgement of doctor's findings, shared by the in-memory enumeration and
//! the real binary's: each thing the files call for must be named by one of its kinds, and
//! nothing else named but the findings the files alone cannot tell.

use std::collections::BTreeSet;

/// Findings no state of the files calls for, since only a person, git or the clock can tell
/// them: a stale table, an op never acknowledged, genesis not committed, a request to settle,
/// a claim whose lease ran out (or whose heartbeat cannot be read) by the time doctor looks.
const UNSEEN: &[&str] = &[
    "table-stale",
    "unacknowledged",
    "genesis-not-committed",
    "review-unresolved",
    "claim-expired",
    "claim-unknown",
];

/// Checks `named` (the kinds doctor gave) against `wanted` (what the files call for, each
/// with the kinds that may name it).
pub fn recognized(wanted: &[(&str, &[&str])], named: &BTreeSet<&str>) -> Result<(), String> {
    for (what, kinds) in wanted {
        if !kinds.iter().any(|k| named.contains(k)) {
            return Err(format!(
                "doctor did not recognize {what} (expected one of {kinds:?}, named {named:?})"
            ));
        }
    }
    for kind in named {
        let called = wanted.iter().any(|(_, kinds)| kinds.contains(kind));
        if !called && !UNSEEN.contains(kind) {
            return Err(format!(
                "doctor named {kind}, which the files do not call for"
            ));
        }
    }
    Ok(())
}
