//! Candidate manifests: one `<sha256 hex> <path>` line per file. The digest a round freezes is
//! `sha256:` over the manifest's bytes; `review verify-commit` later hashes each listed path.
//! Paths stay inside the tree: absolute paths, `..`, empty or `.` components and NUL refuse.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use crate::digest::sha256_hex;
use crate::error::ReviewError;
use crate::hex::is_hex;

/// One manifest line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Listed<'a> {
    pub sha256: &'a str,
    pub path: &'a str,
}

/// The most bytes a manifest holds: its text is stored in the log for good (about 60,000
/// files' lines). The host reads no more than this from a `--candidate` file.
pub const MAX_BYTES: usize = 4 << 20;

/// The candidate digest of a manifest's text.
pub fn digest(text: &str) -> String {
    let mut d = String::from("sha256:");
    d.push_str(&sha256_hex(text.as_bytes()));
    d
}

/// The lines of a manifest, each checked; at least one, no path twice.
pub fn parse(text: &str) -> Result<Vec<Listed<'_>>, ReviewError> {
    let bad = |line: usize, why| ReviewError::Manifest { line, why };
    let body = text.strip_suffix('\n').unwrap_or(text);
    if body.is_empty() {
        return Err(bad(1, "the manifest lists no files"));
    }
    let mut out: Vec<Listed<'_>> = Vec::new();
    // A set, not a scan of `out`: a manifest may list tens of thousands of files. Kept as a
    // map from each path to its line, the type map drift counts lines in, so that the wasm
    // modules compile one B-tree for both instead of two.
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, line) in body.split('\n').enumerate() {
        let n = i + 1;
        let (sha256, path) = line
            .split_once(' ')
            .ok_or_else(|| bad(n, "write `<sha256 hex> <path>`"))?;
        if !is_hex(sha256, 64) {
            return Err(bad(n, "the digest is not 64 lowercase hex characters"));
        }
        check_path(path).map_err(|why| bad(n, why))?;
        if seen.insert(path, n).is_some() {
            return Err(bad(n, "the path is listed twice"));
        }
        out.push(Listed { sha256, path });
    }
    Ok(out)
}

/// A path relative to the repository root that cannot name anything outside it.
fn check_path(path: &str) -> Result<(), &'static str> {
    if path.is_empty() {
        return Err("the path is empty");
    }
    if path.contains('\0') {
        return Err("the path holds a NUL byte");
    }
    if path.contains('\r') {
        return Err("the path holds a carriage return (CRLF line endings?)");
    }
    if path.starts_with('/') {
        return Err("the path is absolute; list paths relative to the repository root");
    }
    for part in path.split('/') {
        match part {
            "" => return Err("the path has an empty component"),
            "." => return Err("the path has a `.` component"),
            ".." => return Err("the path escapes the tree with `..`"),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

    #[test]
    fn lines_are_read_with_spaces_kept_in_paths() {
        let text = alloc::format!("{A} src/a b.rs\n{A} README.md\n");
        let lines = parse(&text).unwrap();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].path, "src/a b.rs");
        assert_eq!(lines[1].sha256, A);
    }

    #[test]
    fn paths_that_leave_the_tree_refuse() {
        for (path, line_why) in [
            ("/etc/passwd", "absolute"),
            ("../x", "`..`"),
            ("a/../../x", "`..`"),
            ("a//b", "empty component"),
            ("./a", "`.` component"),
            ("a\0b", "NUL"),
            ("", "empty"),
        ] {
            let text = alloc::format!("{A} {path}\n");
            let err = parse(&text).unwrap_err();
            assert!(
                alloc::format!("{err}").contains(line_why),
                "{path:?}: {err}"
            );
        }
    }

    #[test]
    fn malformed_manifests_refuse() {
        for text in [
            "",
            "\n",
            "no-space\n",
            "ABCD x\n",
            &alloc::format!("{A} x\n{A} x\n"),
            &alloc::format!("{A} x\n\n"),
            &alloc::format!("{A} x\r\n"),
        ] {
            assert!(parse(text).is_err(), "{text:?}");
        }
    }

    #[test]
    fn the_digest_hashes_the_bytes() {
        assert_eq!(
            digest(""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
