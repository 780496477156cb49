//! Candidate manifests, checked against a model written here from the rules' statement rather
//! than from the core's code: the bytes split at every LF after one final LF is dropped; each
//! line is 64 lowercase hex digits, one space and a path that stays inside the tree (not empty,
//! not absolute, no NUL or CR, no empty, `.` or `..` component), no path twice, at least one
//! line. The core must accept exactly what the model accepts, with the same lines, refuse the
//! rest at the model's line, and give as digest `sha256:` and the hex of SHA-256 over the bytes
//! as given (computed here with sha2 and formatted here, not through the core's helpers).

use std::collections::HashSet;
use std::fmt::Write;

use mosaic_queue_core::{ReviewError, manifest};
use sha2::{Digest, Sha256};

/// Checks the invariant on one input; panics when it does not hold.
pub fn check(bytes: &[u8]) {
    let Ok(text) = core::str::from_utf8(bytes) else {
        return;
    };
    assert_eq!(manifest::digest(text), expected_digest(bytes));
    match (manifest::parse(text), model(bytes)) {
        (Ok(lines), Ok(expected)) => {
            let got: Vec<Line<'_>> = lines
                .iter()
                .map(|l| (l.sha256.as_bytes(), l.path.as_bytes()))
                .collect();
            assert_eq!(got, expected, "the lines differ from the model's");
        }
        (Err(ReviewError::Manifest { line, .. }), Err(at)) => {
            assert_eq!(line, at, "refused at another line than the model");
        }
        (Err(e), Err(at)) => panic!("refused as {e:?}, not as a bad line {at}"),
        (Ok(_), Err(at)) => panic!("accepted a manifest the model refuses at line {at}"),
        (Err(e), Ok(_)) => panic!("refused a manifest the model accepts: {e}"),
    }
}

/// `sha256:` and 64 lowercase hex digits of SHA-256 over `bytes`.
fn expected_digest(bytes: &[u8]) -> String {
    let mut out = String::from("sha256:");
    for b in Sha256::digest(bytes) {
        write!(out, "{b:02x}").unwrap();
    }
    out
}

/// One line as the model reads it: the digest's bytes and the path's.
type Line<'a> = (&'a [u8], &'a [u8]);

/// The manifest's lines, or the 1-based number of the first bad line.
fn model(bytes: &[u8]) -> Result<Vec<Line<'_>>, usize> {
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    if body.is_empty() {
        return Err(1);
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (i, line) in body.split(|&b| b == b'\n').enumerate() {
        let number = i + 1;
        let space = line.iter().position(|&b| b == b' ').ok_or(number)?;
        let (digest, path) = (&line[..space], &line[space + 1..]);
        let lower_hex = |b: &u8| b.is_ascii_digit() || (b'a'..=b'f').contains(b);
        let digest_ok = digest.len() == 64 && digest.iter().all(lower_hex);
        if !digest_ok || !inside_tree(path) || !seen.insert(path) {
            return Err(number);
        }
        out.push((digest, path));
    }
    Ok(out)
}

/// A relative path that names nothing outside the tree.
fn inside_tree(path: &[u8]) -> bool {
    !path.is_empty()
        && path[0] != b'/'
        && !path.iter().any(|&b| b == 0 || b == b'\r')
        && path
            .split(|&b| b == b'/')
            .all(|part| !part.is_empty() && part != b"." && part != b"..")
}
