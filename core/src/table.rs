//! `QUEUE.md` around the generated body: finding the markers, swapping the body, and judging a
//! body current (the last entry rendered it), stale (an earlier entry did) or unknown (none did).

use alloc::string::String;
use serde::Serialize;

use crate::body::Body;
use crate::digest::sha256;
use crate::entry::Entry;
use crate::error::TableError;

pub const BEGIN: &str = "<!-- mosaic-queue:begin -->";
pub const END: &str = "<!-- mosaic-queue:end -->";

/// Where the body lies in a QUEUE.md text: the bytes after the begin marker's line and before
/// the end marker's line.
pub fn body_range(md: &str) -> Result<core::ops::Range<usize>, TableError> {
    let line_at = |text: &str, marker: &str| -> Result<Option<usize>, TableError> {
        let mut found = None;
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            if line.trim_end_matches(['\n', '\r']) == marker {
                if found.is_some() {
                    return Err(TableError::Markers {
                        why: "has a marker twice",
                    });
                }
                found = Some(offset);
            }
            offset += line.len();
        }
        Ok(found)
    };
    let begin = line_at(md, BEGIN)?.ok_or(TableError::Markers {
        why: "has no begin marker line",
    })?;
    let end = line_at(md, END)?.ok_or(TableError::Markers {
        why: "has no end marker line",
    })?;
    let start = md[begin..]
        .find('\n')
        .map(|p| begin + p + 1)
        .ok_or(TableError::Markers {
            why: "ends on the begin marker",
        })?;
    if end < start {
        return Err(TableError::Markers {
            why: "has the end marker before the begin marker",
        });
    }
    Ok(start..end)
}

/// The body between the markers.
pub fn body(md: &str) -> Result<&str, TableError> {
    Ok(&md[body_range(md)?])
}

/// QUEUE.md with its body replaced; the hand-written text around it is kept byte for byte.
pub fn splice(md: &str, new_body: &str) -> Result<String, TableError> {
    let range = body_range(md)?;
    let mut out = String::with_capacity(md.len() + new_body.len());
    out.push_str(&md[..range.start]);
    out.push_str(new_body);
    out.push_str(&md[range.end..]);
    Ok(out)
}

/// How a body on disk relates to the log.
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum BodyStatus {
    /// The last entry rendered exactly this body.
    Current,
    /// An earlier entry rendered it: the table is behind the log.
    Stale { rev: u64 },
    /// No entry rendered it: a hand edit, or a table from elsewhere.
    Unknown,
}

/// Judges `body` against the `body` hashes the log recorded.
pub(crate) fn body_status(log: &[Entry], body: &str) -> BodyStatus {
    let hash = Body::Sha256(sha256(body.as_bytes()));
    match log.last() {
        Some(last) if last.body == hash => BodyStatus::Current,
        _ => log
            .iter()
            .rev()
            .find(|e| e.body == hash)
            .map_or(BodyStatus::Unknown, |e| BodyStatus::Stale { rev: e.rev }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MD: &str =
        "# Queue\n\n<!-- mosaic-queue:begin -->\nold\n<!-- mosaic-queue:end -->\ntail\n";

    #[test]
    fn finds_and_replaces_the_body() {
        assert_eq!(body(MD).unwrap(), "old\n");
        assert_eq!(
            splice(MD, "new\nbody\n").unwrap(),
            "# Queue\n\n<!-- mosaic-queue:begin -->\nnew\nbody\n<!-- mosaic-queue:end -->\ntail\n"
        );
    }

    #[test]
    fn refuses_missing_repeated_or_reversed_markers() {
        for bad in [
            "no markers\n",
            "<!-- mosaic-queue:begin -->\nx\n",
            "<!-- mosaic-queue:end -->\n<!-- mosaic-queue:begin -->\n",
            "<!-- mosaic-queue:begin -->\n<!-- mosaic-queue:begin -->\n<!-- mosaic-queue:end -->\n",
        ] {
            assert!(body(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_marker_inside_a_line_is_not_a_marker() {
        let md = "see <!-- mosaic-queue:begin --> here\n<!-- mosaic-queue:begin -->\nb\n<!-- mosaic-queue:end -->\n";
        assert_eq!(body(md).unwrap(), "b\n");
    }
}
