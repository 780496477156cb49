//! queue.json's reader and verify. Invariants: the one-pass reader and the reference check
//! (serde_json, re-serialize, compare) give the same verdict and value; whatever is accepted
//! re-serializes to the same bytes; whatever verify accepts replays to the same rows and
//! revision, and its own bytes verify again. Witnesses go through the same reader.

use mosaic_queue_core::{
    MAX_SAFE_INTEGER, Queue, QueueFile, Witness, internal, parse_canonical, parse_reference,
    replay, to_canonical,
};

/// Checks the invariant on one input; panics when it does not hold.
pub fn check(bytes: &[u8]) {
    let canonical = parse_canonical::<QueueFile>(bytes);
    let reference = parse_reference::<QueueFile>(bytes);
    assert_eq!(canonical.is_ok(), reference.is_ok(), "the readers disagree");
    if let Ok(text) = core::str::from_utf8(bytes)
        && let Ok(strict) = internal::read::<QueueFile>(text)
    {
        // The fast reader never accepts what the reference refuses.
        assert_eq!(
            Some(&strict),
            reference.as_ref().ok(),
            "the strict reader accepted alone"
        );
    }
    if let (Ok(a), Ok(b)) = (&canonical, &reference) {
        assert_eq!(a, b);
        assert_eq!(
            to_canonical(a),
            bytes,
            "accepted bytes re-serialize differently"
        );
        assert!(a.revision <= MAX_SAFE_INTEGER);
        assert!(a.log.iter().all(|e| e.rev <= MAX_SAFE_INTEGER));
        assert!(a.rows.iter().all(|r| r.id <= MAX_SAFE_INTEGER));
    }
    if let Ok(queue) = Queue::verify(bytes) {
        let file = canonical.expect("verify accepted what the reader refused");
        let state = replay(&file).expect("verify accepted what replay refuses");
        assert_eq!(state.rows, file.rows, "replay gave other rows");
        assert_eq!(state.revision, file.revision);
        assert_eq!(queue.rows(), &file.rows[..]);
        assert_eq!(queue.to_bytes(), bytes, "a verified queue's bytes changed");
        let again = Queue::verify(&queue.to_bytes()).expect("its own bytes refused");
        assert_eq!(again.rows(), queue.rows());
        // Rendering and picking a row never fail on a verified queue.
        let body = queue.render_body();
        let _ = queue.body_status(&body);
        let _ = queue.next("darkwing");
    }
    if let Ok(w) = parse_canonical::<Witness>(bytes) {
        assert_eq!(
            to_canonical(&w),
            bytes,
            "a witness re-serializes differently"
        );
    }
}
