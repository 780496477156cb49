//! Candidate manifests. Invariants: a manifest that parses lists at least one file, each with
//! 64 lowercase hex digits and a path that stays inside the tree (not absolute, no `..`, `.`
//! or empty component, no NUL or CR), no path twice; its lines written back are its text; its
//! digest is `sha256:` and 64 hex digits of exactly those bytes.

use std::collections::BTreeSet;

use mosaic_queue_core::digest::{is_hex, sha256_hex};
use mosaic_queue_core::review::manifest;

/// Checks the invariant on one input; panics when it does not hold.
pub fn check(bytes: &[u8]) {
    let Ok(text) = core::str::from_utf8(bytes) else {
        return;
    };
    let digest = manifest::digest(text);
    assert_eq!(digest, format!("sha256:{}", sha256_hex(bytes)));
    let Ok(lines) = manifest::parse(text) else {
        return;
    };
    assert!(!lines.is_empty());
    let mut paths = BTreeSet::new();
    let mut back = String::new();
    for l in &lines {
        assert!(is_hex(l.sha256, 64));
        assert!(!l.path.is_empty() && !l.path.starts_with('/'));
        assert!(!l.path.contains(['\0', '\r', '\n']));
        assert!(
            l.path.split('/').all(|c| !matches!(c, "" | "." | "..")),
            "a path leaves the tree: {:?}",
            l.path
        );
        assert!(paths.insert(l.path), "a path listed twice");
        back.push_str(l.sha256);
        back.push(' ');
        back.push_str(l.path);
        back.push('\n');
    }
    let written = back.strip_suffix('\n').unwrap();
    assert!(
        text == back || text == written,
        "the lines written back differ from the text"
    );
}
