//! The sandbox's snapshot input: queue.json, QUEUE.md and an optional base, as the host hands
//! them to `verify_snapshot` (separated here by two NULs, which no canonical file holds).
//! Invariants: a passing snapshot's queue verifies at the revision reported, its table is the
//! current render, and its log extends the base's entry for entry; a failing one names why
//! in one line.

use mosaic_queue_core::{BodyStatus, Queue, markdown, verify_snapshot};

/// Checks the invariant on one input; panics when it does not hold.
pub fn check(bytes: &[u8]) {
    let mut parts = bytes.split(|&b| b == 0).filter(|p| !p.is_empty());
    // Empty pieces between the two NULs are skipped, so `a\0\0b` is two parts.
    let (Some(json), Some(md)) = (parts.next(), parts.next()) else {
        return;
    };
    let base = parts.next();
    match verify_snapshot(json, md, base) {
        Ok(v) => {
            let queue = Queue::verify(json).expect("passed a queue that does not verify");
            assert_eq!(v.revision, queue.revision());
            let md = core::str::from_utf8(md).expect("passed a table that is not UTF-8");
            let body = markdown::body(md).expect("passed a table without markers");
            assert_eq!(queue.body_status(body), BodyStatus::Current);
            match (base, v.base_revision) {
                (None, None) => {}
                (Some(b), Some(rev)) => {
                    let base = Queue::verify(b).expect("passed against an invalid base");
                    assert_eq!(base.revision(), rev);
                    assert!(rev <= v.revision);
                    let n = base.file().log.len();
                    assert_eq!(&queue.file().log[..n], &base.file().log[..]);
                }
                other => panic!("the base and the verdict disagree: {other:?}"),
            }
        }
        Err(e) => {
            let text = e.to_string();
            assert!(
                !text.is_empty() && !text.contains('\n'),
                "not one line: {text:?}"
            );
            assert!(!e.kind().is_empty());
        }
    }
}
