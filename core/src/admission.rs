//! The rules a new entry meets before it is written, on top of those replay applies to every
//! entry: no invisible or direction-changing characters in table text, one wider credential
//! rule (`secret::credential`) over every text the entry stores (its op id and a manifest's
//! paths included), and caps on a row's lists and on a manifest. Entries written before these
//! rules replay as they were; from semantics 4 replay holds entries to them too
//! (`verbs::apply_into`).

use alloc::string::String;

use crate::entry::{Args, MapRow, SetValue};
use crate::error::{ReviewError, VerbError};
use crate::review::manifest;
use crate::secret::{credential, op_token_like};

/// Most issues one row lists (and so closes), and most rows one row waits on.
pub(crate) const MAX_ISSUES: usize = 64;
/// Most reviewers one row lists.
pub(crate) const MAX_REVIEWERS: usize = 16;

/// Checks every text and list `args` stores, and the op id, against the rules for new entries.
pub(crate) fn check(args: &Args, op: &str) -> Result<(), VerbError> {
    check_new_op(op)?;
    match args {
        Args::Genesis(g) => {
            map_rows(&g.rows)?;
            // The table genesis replaces is stored too, verbatim: only the credential rule.
            if let Some(what) = credential(&g.legacy_view) {
                return Err(VerbError::CredentialLike {
                    field: "the table genesis replaces (legacy view)",
                    what,
                });
            }
        }
        Args::Add(a) => {
            text("piece", &a.piece)?;
            opt("gate", &a.gate)?;
            opt("note", &a.note)?;
            opt("brief", &a.brief)?;
            list("issues", a.issues.len(), MAX_ISSUES)?;
            list("reviewers", a.reviewers.len(), MAX_REVIEWERS)?;
            list("after", a.after.len(), MAX_ISSUES)?;
        }
        Args::Move(m) => {
            opt("--reason", &m.reason)?;
            if let Some(text) = &m.manifest {
                manifest_text(text)?;
            }
        }
        Args::Note(n) => opt("note", &n.text)?,
        Args::Set(s) => {
            opt("--reason", &s.reason)?;
            match &s.value {
                SetValue::Text(t) => opt(s.field.as_str(), t)?,
                SetValue::Numbers(n) => list(s.field.as_str(), n.len(), MAX_ISSUES)?,
                SetValue::Seats(n) => list("reviewers", n.len(), MAX_REVIEWERS)?,
            }
        }
        Args::AcceptHistory(a) => text("--reason", &a.reason)?,
        Args::ReviewOutcome(o) => text("the outcome detail", &o.detail)?,
        Args::ReviewAbandon(a) => text("--reason", &a.reason)?,
        Args::Reclaim(a) => text("--reason", &a.reason)?,
        // The roots are paths, stored as given: only the credential rule, as for genesis's.
        Args::Adopt(a) => {
            for (field, path) in [
                ("adopt's root", &a.root),
                ("adopt's old root", &a.from),
                ("adopt's host", &a.host),
            ] {
                if let Some(what) = credential(path) {
                    return Err(VerbError::CredentialLike { field, what });
                }
            }
        }
        Args::Replication(_)
        | Args::Release(_)
        | Args::Assign(_)
        | Args::ReviewRequest(_)
        | Args::ReviewResolve(_)
        | Args::ReviewRecord(_)
        | Args::Take(_)
        | Args::LeaseDefault(_)
        | Args::Epoch(_)
        | Args::Archive(_) => {}
    }
    Ok(())
}

/// The rows of a migration map, which genesis stores: the host checks them as soon as it has
/// parsed the map, before it looks at the queue.
pub fn map_rows(rows: &[MapRow]) -> Result<(), VerbError> {
    for r in rows {
        text("piece", &r.piece)?;
        opt("gate", &r.gate)?;
        opt("note", &r.note)?;
        list("issues", r.issues.len(), MAX_ISSUES)?;
    }
    Ok(())
}

/// An op id that looks like a token is refused (without repeating it): op ids are committed
/// with the log and printed in every receipt.
pub fn check_new_op(op: &str) -> Result<(), VerbError> {
    match op_token_like(op) {
        Some(what) => Err(VerbError::OpTokenLike { what }),
        None => Ok(()),
    }
}

/// Table text: no character that displays otherwise than its bytes, no credential.
pub(crate) fn text(field: &'static str, text: &str) -> Result<(), VerbError> {
    if let Some((c, what)) = invisible(text) {
        return Err(VerbError::Invisible {
            field,
            code: u32::from(c),
            what,
        });
    }
    if let Some(what) = credential(text) {
        return Err(VerbError::CredentialLike { field, what });
    }
    Ok(())
}

fn opt(field: &'static str, t: &Option<String>) -> Result<(), VerbError> {
    t.as_deref().map_or(Ok(()), |t| text(field, t))
}

fn list(field: &'static str, count: usize, max: usize) -> Result<(), VerbError> {
    if count > max {
        return Err(VerbError::ListTooLong { field, count, max });
    }
    Ok(())
}

/// A manifest's text is stored in the log: at most `manifest::MAX_BYTES`, and each path meets
/// the rules table text does (a path is shown by `review verify-commit` and the review comment).
/// The host checks a `--candidate` file with this before it parses it.
pub fn manifest_text(body: &str) -> Result<(), ReviewError> {
    if body.len() > manifest::MAX_BYTES {
        return Err(ReviewError::ManifestTooLarge { bytes: body.len() });
    }
    for (i, line) in body.lines().enumerate() {
        let path = line.split_once(' ').map_or(line, |(_, p)| p);
        if let Some((c, what)) = invisible(path) {
            return Err(ReviewError::ManifestInvisible {
                line: i + 1,
                code: u32::from(c),
                what,
            });
        }
        if let Some(what) = credential(path) {
            return Err(ReviewError::ManifestCredential { line: i + 1, what });
        }
    }
    Ok(())
}

/// The first character in `text` that displays differently from its bytes (a line or
/// paragraph separator, a bidirectional control, a zero-width or other invisible format
/// character), with what it is.
pub fn invisible(text: &str) -> Option<(char, &'static str)> {
    // Table text is mostly ASCII, which holds none of them.
    if text.is_ascii() {
        return None;
    }
    text.chars().find_map(|c| kind(c).map(|what| (c, what)))
}

fn kind(c: char) -> Option<&'static str> {
    Some(match u32::from(c) {
        0x2028 | 0x2029 => "a line or paragraph separator",
        0x202a..=0x202e | 0x2066..=0x2069 | 0x200e | 0x200f | 0x061c => "a bidirectional control",
        0x200b..=0x200d | 0x2060 | 0xfeff => "a zero-width character",
        // The rest of Unicode's format characters (Cf), and the fillers that draw nothing.
        0x00ad
        | 0x034f
        | 0x0600..=0x0605
        | 0x06dd
        | 0x070f
        | 0x0890..=0x0891
        | 0x08e2
        | 0x115f
        | 0x1160
        | 0x17b4
        | 0x17b5
        | 0x180b..=0x180f
        | 0x2061..=0x2065
        | 0x206a..=0x206f
        | 0x3164
        | 0xfe00..=0xfe0f
        | 0xffa0
        | 0xfff9..=0xfffb
        | 0x110bd
        | 0x110cd
        | 0x13430..=0x1343f
        | 0x1bca0..=0x1bca3
        | 0x1d173..=0x1d17a
        | 0xe0001
        | 0xe0020..=0xe007f
        | 0xe0100..=0xe01ef => "an invisible format character",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisible_characters_are_named() {
        for (text, what) in [
            ("a\u{2028}b", "a line or paragraph separator"),
            ("a\u{2029}", "a line or paragraph separator"),
            ("\u{202e}gnp.exe", "a bidirectional control"),
            ("x\u{2066}y", "a bidirectional control"),
            ("x\u{2069}", "a bidirectional control"),
            ("x\u{200f}", "a bidirectional control"),
            ("zero\u{200b}width", "a zero-width character"),
            ("\u{200d}", "a zero-width character"),
            ("\u{2060}", "a zero-width character"),
            ("bom\u{feff}", "a zero-width character"),
            ("soft\u{ad}hyphen", "an invisible format character"),
            ("tag\u{e0041}", "an invisible format character"),
            ("filler\u{3164}", "an invisible format character"),
            ("selector\u{fe0f}", "an invisible format character"),
        ] {
            assert_eq!(invisible(text).map(|(_, w)| w), Some(what), "{text:?}");
        }
        for fine in [
            "plain",
            "é ß 日本 🦆",
            "a | b",
            "em — dash",
            "naïve café",
            "",
        ] {
            assert_eq!(invisible(fine), None, "{fine:?}");
        }
    }
}
