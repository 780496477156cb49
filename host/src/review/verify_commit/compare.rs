//! The comparisons verify-commit makes once git has answered: each manifest line against REF's
//! entry and blob digest, each path a commit candidate changed against REF's entry. Pure over
//! the listings `objects` reads, so the verb only fetches and prints.

use std::collections::BTreeMap;
use std::fmt;

use mosaic_queue_core::manifest::Listed;

use super::objects::{Entry, Kind, PathChange};

/// Why one path in REF does not match the candidate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Why {
    Missing,
    Directory,
    Submodule,
    Content,
    /// The same blob under another mode: REF's, then the candidate's.
    Mode {
        found: String,
        want: String,
    },
    ContentAndMode {
        found: String,
        want: String,
    },
    /// A path the candidate deleted that REF still has.
    Present,
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Why::Missing => f.write_str("missing"),
            Why::Directory => f.write_str("a directory, not a file"),
            Why::Submodule => f.write_str("a submodule, not a file"),
            Why::Content => f.write_str("different content"),
            Why::Mode { found, want } => write!(f, "different mode {found}, candidate {want}"),
            Why::ContentAndMode { found, want } => {
                write!(f, "different content and mode {found}, candidate {want}")
            }
            Why::Present => f.write_str("should be deleted"),
        }
    }
}

/// One path that does not match, as the candidate names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub path: Vec<u8>,
    pub why: Why,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Quoted, so spaces, commas and control characters in a name cannot blur the line.
        let path = String::from_utf8_lossy(&self.path);
        write!(f, "{path:?} ({})", self.why)
    }
}

/// Every manifest line checked against REF, in manifest order: the path must be a blob there
/// and `hash` (given the blob ids of all such lines at once) must give the listed digest.
pub fn manifest<E>(
    listed: &[Listed<'_>],
    tree: &BTreeMap<Vec<u8>, Entry>,
    hash: impl FnOnce(&[&str]) -> Result<Vec<String>, E>,
) -> Result<Vec<Mismatch>, E> {
    let found: Vec<Result<&str, Why>> = listed
        .iter()
        .map(|line| match tree.get(line.path.as_bytes()) {
            None => Err(Why::Missing),
            Some(e) if e.kind == Kind::Tree => Err(Why::Directory),
            Some(e) if e.kind == Kind::Submodule => Err(Why::Submodule),
            Some(e) => Ok(e.oid.as_str()),
        })
        .collect();
    let oids: Vec<&str> = found
        .iter()
        .filter_map(|f| f.as_ref().ok().copied())
        .collect();
    let mut digests = hash(&oids)?.into_iter();
    let mut wrong = Vec::new();
    for (line, found) in listed.iter().zip(found) {
        let why = match found {
            Err(why) => why,
            Ok(_) if digests.next().as_deref() == Some(line.sha256) => continue,
            Ok(_) => Why::Content,
        };
        let path = line.path.as_bytes().to_vec();
        wrong.push(Mismatch { path, why });
    }
    Ok(wrong)
}

/// Every path a commit candidate changed, checked against REF: added and modified paths by
/// blob and mode, deleted paths absent. A tree where a deleted file was is absence: the
/// candidate itself may have put a directory there.
pub fn candidate_paths(changes: &[PathChange], tree: &BTreeMap<Vec<u8>, Entry>) -> Vec<Mismatch> {
    let mut wrong = Vec::new();
    for change in changes {
        let found = tree.get(&change.path);
        let why = match (&change.after, found) {
            (None, None) => None,
            (None, Some(e)) if e.kind == Kind::Tree => None,
            (None, Some(_)) => Some(Why::Present),
            (Some(_), None) => Some(Why::Missing),
            (Some(_), Some(e)) if e.kind == Kind::Tree => Some(Why::Directory),
            (Some((mode, oid)), Some(e)) => match (e.oid == *oid, e.mode == *mode) {
                (true, true) => None,
                (true, false) => Some(Why::Mode {
                    found: e.mode.clone(),
                    want: mode.clone(),
                }),
                (false, true) => Some(Why::Content),
                (false, false) => Some(Why::ContentAndMode {
                    found: e.mode.clone(),
                    want: mode.clone(),
                }),
            },
        };
        if let Some(why) = why {
            wrong.push(Mismatch {
                path: change.path.clone(),
                why,
            });
        }
    }
    wrong
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(mode: &str, kind: Kind, oid: &str) -> Entry {
        Entry {
            mode: mode.into(),
            kind,
            oid: oid.into(),
        }
    }

    fn tree() -> BTreeMap<Vec<u8>, Entry> {
        BTreeMap::from([
            (b"f".to_vec(), entry("100644", Kind::Blob, "a1")),
            (b"x".to_vec(), entry("100755", Kind::Blob, "b2")),
            (b"d".to_vec(), entry("040000", Kind::Tree, "c3")),
            (b"s".to_vec(), entry("160000", Kind::Submodule, "d4")),
        ])
    }

    fn changed(path: &str, after: Option<(&str, &str)>) -> PathChange {
        PathChange {
            path: path.as_bytes().to_vec(),
            after: after.map(|(m, o)| (m.into(), o.into())),
        }
    }

    #[test]
    fn commit_paths_match_by_blob_and_mode_and_deletions_by_absence() {
        let changes = [
            changed("f", Some(("100644", "a1"))),
            changed("x", Some(("100644", "b2"))),
            changed("f", Some(("100755", "zz"))),
            changed("f", Some(("100644", "zz"))),
            changed("gone", None),
            changed("d", None),
            changed("x", None),
            changed("new", Some(("100644", "e5"))),
            changed("d", Some(("100644", "e5"))),
            changed("s", Some(("160000", "d4"))),
        ];
        let whys: Vec<String> = candidate_paths(&changes, &tree())
            .iter()
            .map(|m| m.to_string())
            .collect();
        assert_eq!(
            whys,
            [
                "\"x\" (different mode 100755, candidate 100644)",
                "\"f\" (different content and mode 100644, candidate 100755)",
                "\"f\" (different content)",
                "\"x\" (should be deleted)",
                "\"new\" (missing)",
                "\"d\" (a directory, not a file)",
            ]
        );
    }

    #[test]
    fn manifest_lines_need_a_blob_at_their_path_with_the_listed_digest() {
        let listed = [
            Listed {
                sha256: "h1",
                path: "f",
            },
            Listed {
                sha256: "h1",
                path: "d",
            },
            Listed {
                sha256: "h1",
                path: "s",
            },
            Listed {
                sha256: "h1",
                path: "nope",
            },
            Listed {
                sha256: "h1",
                path: "x",
            },
        ];
        let mut asked = Vec::new();
        let wrong = manifest(&listed, &tree(), |oids| {
            asked = oids.iter().map(|o| o.to_string()).collect();
            Ok::<_, ()>(vec!["h1".to_owned(), "h2".to_owned()])
        })
        .unwrap();
        assert_eq!(asked, ["a1", "b2"]);
        let wrong: Vec<String> = wrong.iter().map(|m| m.to_string()).collect();
        assert_eq!(
            wrong,
            [
                "\"d\" (a directory, not a file)",
                "\"s\" (a submodule, not a file)",
                "\"nope\" (missing)",
                "\"x\" (different content)",
            ]
        );
        assert_eq!(
            manifest(&listed, &tree(), |_| Err("git failed")),
            Err("git failed")
        );
    }
}
