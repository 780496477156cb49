//! The strict one-pass reader must agree with the reference check (serde_json, re-serialize,
//! compare) on every input: it accepts exactly the canonical files, with the same value. Run
//! over the goldens, the bad-input corpus, and random byte edits of a golden file.

mod common;

use mosaic_queue_core::{QueueFile, Witness, internal, parse_reference, to_canonical};
use proptest::prelude::*;

/// Both parsers on the same bytes: equal verdicts, and equal values when they accept.
fn agree(bytes: &[u8]) -> Result<bool, String> {
    let fast = std::str::from_utf8(bytes)
        .ok()
        .and_then(|t| internal::read::<QueueFile>(t).ok());
    let reference = parse_reference::<QueueFile>(bytes).ok();
    match (fast, reference) {
        (Some(a), Some(b)) if a == b => Ok(true),
        (None, None) => Ok(false),
        (a, b) => Err(format!(
            "reader {} but reference {}",
            if a.is_some() { "accepts" } else { "refuses" },
            if b.is_some() { "accepts" } else { "refuses" }
        )),
    }
}

fn golden_files() -> Vec<Vec<u8>> {
    common::scenario_names()
        .iter()
        .map(|n| {
            std::fs::read(common::fixtures().join("golden").join(n).join("queue.json")).unwrap()
        })
        .collect()
}

#[test]
fn the_reader_accepts_every_golden_file() {
    for bytes in golden_files() {
        assert_eq!(agree(&bytes), Ok(true));
    }
}

/// The cut queue and its archives (semantics 6: the epoch entry, its tuples, ranges and the
/// filter's base64), and every hand edit of them.
#[test]
fn the_reader_accepts_the_epoch_fixtures_and_agrees_on_their_edits() {
    let dir = common::fixtures().join("epochs");
    for rel in [
        "queue.json",
        "archive/epoch-0001.json",
        "archive/epoch-0002.json",
    ] {
        let bytes = std::fs::read(dir.join(rel)).unwrap();
        assert_eq!(agree(&bytes), Ok(true), "{rel}");
    }
    for entry in std::fs::read_dir(dir.join("bad")).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        assert!(agree(&bytes).is_ok(), "{}", path.display());
    }
}

#[test]
fn the_reader_agrees_on_every_corpus_file() {
    let dir = common::fixtures().join("bad");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") && !path.ends_with("expected.json") {
            let bytes = std::fs::read(&path).unwrap();
            agree(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            checked += 1;
        }
    }
    assert!(checked >= 100);
}

#[test]
fn the_reader_reads_other_documents_too() {
    let w = Witness {
        revision: 3,
        log_digest: "ab".repeat(32),
        file_sha: "cd".repeat(32),
        at: "2026-11-29T12:00:00.000Z".into(),
    };
    let bytes = to_canonical(&w);
    assert_eq!(
        internal::read::<Witness>(std::str::from_utf8(&bytes).unwrap()),
        Ok(w)
    );
}

#[test]
fn control_characters_round_trip_through_their_canonical_escapes() {
    let mut file: QueueFile = parse_reference(&golden_files()[0]).unwrap();
    let text: String = (0u8..0x20)
        .map(char::from)
        .chain("\"\\é\u{7f}\u{2028}".chars())
        .collect();
    file.canonical_root = text;
    let bytes = to_canonical(&file);
    assert_eq!(agree(&bytes), Ok(true));
}

/// One edit to a byte string: replace, insert or delete at a position.
fn edit(bytes: &[u8], kind: u8, at: usize, byte: u8) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let at = at % (out.len() + 1);
    match kind % 3 {
        0 if at < out.len() => out[at] = byte,
        1 => out.insert(at, byte),
        _ if at < out.len() => {
            out.remove(at);
        }
        _ => out.push(byte),
    }
    out
}

const INTERESTING: &[u8] = b" \n\t\r\"\\/,:{}[]0123456789-.eEnulltrufas\x00\x1f\x7f\xc3\xa9";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_edits_get_the_same_verdict(
        file in 0usize..3,
        edits in proptest::collection::vec((0u8..3, any::<usize>(), any::<prop::sample::Index>()), 1..4),
    ) {
        let goldens = golden_files();
        let mut bytes = goldens[file % goldens.len()].clone();
        for (kind, at, pick) in edits {
            bytes = edit(&bytes, kind, at, INTERESTING[pick.index(INTERESTING.len())]);
        }
        prop_assert_eq!(agree(&bytes).map(|_| ()), Ok(()));
    }
}
