//! QUEUE.md's body parser (the markers, the body between them, splice). The input is the
//! markdown, then a NUL, then a new body. Invariants: the body found is the text between the
//! marker lines; splicing the body back gives the same text; splicing a new body keeps every
//! byte outside the markers and reads back as that body; a body's status against a log
//! follows its hash.

use mosaic_queue_core::{markdown, markdown::BEGIN, markdown::END};

/// Whether `text` can stand between the markers and be found again: it ends a line (or is
/// empty) and has no line that is a marker.
fn splices_cleanly(text: &str) -> bool {
    (text.is_empty() || text.ends_with('\n'))
        && text
            .split_inclusive('\n')
            .map(|l| l.trim_end_matches(['\n', '\r']))
            .all(|l| l != BEGIN && l != END)
}

/// Checks the invariant on one input; panics when it does not hold.
pub fn check(bytes: &[u8]) {
    let Ok(input) = core::str::from_utf8(bytes) else {
        return;
    };
    let (md, new) = input.split_once('\0').unwrap_or((input, ""));
    let Ok(range) = markdown::body_range(md) else {
        assert!(
            markdown::splice(md, new).is_err(),
            "splice accepted what body refused"
        );
        return;
    };
    let body = &md[range.clone()];
    assert_eq!(markdown::body(md).unwrap(), body);
    // The body starts right after the begin marker's line and ends where the end marker's does.
    let before = &md[..range.start];
    let begin_line = before
        .strip_suffix('\n')
        .expect("the body starts after a newline");
    let begin_line = begin_line.rsplit('\n').next().unwrap();
    assert_eq!(begin_line.trim_end_matches('\r'), BEGIN);
    let end_line = md[range.end..].split('\n').next().unwrap();
    assert_eq!(end_line.trim_end_matches('\r'), END);
    assert!(range.end == 0 || md.as_bytes()[range.end - 1] == b'\n');
    assert_eq!(
        markdown::splice(md, body).unwrap(),
        md,
        "splicing the same body changed the text"
    );
    if splices_cleanly(new) {
        let spliced = markdown::splice(md, new).unwrap();
        assert_eq!(
            markdown::body(&spliced).unwrap(),
            new,
            "the new body reads back otherwise"
        );
        assert_eq!(&spliced[..range.start], before);
        assert_eq!(&spliced[range.start + new.len()..], &md[range.end..]);
    }
}
