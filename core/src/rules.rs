//! Input rules shared by every verb: op ids, seat names, privileged actors, table text, brief
//! anchors, timestamps and candidate digests. Replay applies the same rules to every entry,
//! so a hand-written log cannot smuggle in what the CLI refuses.

use alloc::string::String;

use crate::error::VerbError;
use crate::hex::is_hex;
use crate::secret::{credential_like, unsafe_to_echo};

/// The actors allowed everything the matrix marks privileged.
pub const PRIVILEGED: [&str; 2] = ["jason", "sage"];
/// The lead seat (Gitea login `jarvis`).
pub const LEAD: &str = "lead";
/// Longest text a table cell accepts, in characters.
pub(crate) const MAX_TEXT_CHARS: usize = 500;

pub fn is_privileged(actor: &str) -> bool {
    PRIVILEGED.contains(&actor)
}

/// The lead seat's Gitea login; every other seat's login is its name.
pub(crate) const LEAD_LOGIN: &str = "jarvis";

/// The Gitea login a seat posts and comments as.
pub fn gitea_login(seat: &str) -> &str {
    if seat == LEAD { LEAD_LOGIN } else { seat }
}

/// The lead or a privileged actor.
pub fn is_lead_or_privileged(actor: &str) -> bool {
    actor == LEAD || is_privileged(actor)
}

/// A new op id: `check_logged_op`'s shape, and not ending in `.epoch`, which the first entry
/// of a cut log takes (an op logged before epochs existed may, and replays as it was).
pub fn check_op(op: &str) -> Result<(), VerbError> {
    check_logged_op(op)?;
    if op.ends_with(crate::epoch::EPOCH_OP_SUFFIX) {
        return Err(VerbError::ReservedOp { op: shown(op) });
    }
    Ok(())
}

/// Op ids as logged: 8 to 72 characters of [a-z0-9._-], first a letter or digit, not ending
/// `.outcome`.
pub(crate) fn check_logged_op(op: &str) -> Result<(), VerbError> {
    let ok = (8..=72).contains(&op.len())
        && op.as_bytes()[0].is_ascii_alphanumeric()
        && op
            .bytes()
            .all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'.' | b'_' | b'-'))
        && !op.ends_with(".outcome");
    if ok {
        Ok(())
    } else {
        Err(VerbError::InvalidOp { op: shown(op) })
    }
}

/// `text` quoted for a refusal that repeats it, unless it looks like a credential: a refusal
/// must not print the secret it refuses. Past `SHOWN_CHARS` characters only the start is
/// quoted, with the length, so a refusal of a huge value stays a readable line.
pub fn shown(text: &str) -> String {
    if unsafe_to_echo(text) {
        return String::from("(not shown: it looks like a credential)");
    }
    let count = text.chars().count();
    if count <= SHOWN_CHARS {
        return alloc::format!("{text:?}");
    }
    let start: String = text.chars().take(SHOWN_CHARS).collect();
    alloc::format!("{start:?}… ({count} characters)")
}

/// Most characters of a refused value a refusal repeats.
pub const SHOWN_CHARS: usize = 40;

/// Seat names: 1 to 32 characters of [a-z0-9-], first a letter.
pub(crate) fn is_seat(name: &str) -> bool {
    (1..=32).contains(&name.len())
        && name.as_bytes()[0].is_ascii_lowercase()
        && name
            .bytes()
            .all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'-'))
}

pub(crate) fn check_actor(name: &str) -> Result<(), VerbError> {
    if is_seat(name) {
        Ok(())
    } else {
        Err(VerbError::InvalidActor { name: shown(name) })
    }
}

pub fn check_seat(name: &str) -> Result<(), VerbError> {
    if is_seat(name) {
        Ok(())
    } else {
        Err(VerbError::InvalidSeat { name: shown(name) })
    }
}

/// Text the table shows. `\` could undo the table's `|` escape and `<` starts raw HTML, so
/// both are refused rather than escaped (the contract's rule); control characters would
/// break the one-line cell.
pub(crate) fn check_text(field: &'static str, text: &str) -> Result<(), VerbError> {
    let bad = |why| Err(VerbError::BadText { field, why });
    if text.is_empty() {
        return bad("is empty");
    }
    if text.trim() != text {
        return bad("starts or ends with white space");
    }
    if text.contains('\\') {
        return bad("contains `\\`, which the table cannot show safely");
    }
    if text.contains('<') {
        return bad("contains `<`, which would start raw HTML in the table");
    }
    if text.chars().any(char::is_control) {
        return bad("contains a control character (a newline or tab, say)");
    }
    if text.chars().count() > MAX_TEXT_CHARS {
        return bad("is longer than 500 characters");
    }
    if let Some(what) = credential_like(text) {
        return Err(VerbError::CredentialLike { field, what });
    }
    Ok(())
}

/// Brief anchors go inside a markdown link target: no white space or parentheses either.
pub(crate) fn check_anchor(anchor: &str) -> Result<(), VerbError> {
    check_text("brief", anchor)?;
    if anchor.contains(|c: char| c.is_whitespace() || c == '(' || c == ')') {
        return Err(VerbError::BadText {
            field: "brief",
            why: "contains white space or a parenthesis, which would break the link",
        });
    }
    Ok(())
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ`, as JavaScript's `Date.prototype.toISOString` prints it.
pub fn check_timestamp(at: &str) -> Result<(), VerbError> {
    let b = at.as_bytes();
    // Replay checks every entry's time, so the fields are read without `str::parse`.
    let digits = |r: core::ops::Range<usize>| -> Option<u32> {
        b.get(r)?.iter().try_fold(0u32, |n, &c| {
            c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0'))
        })
    };
    let shape = b.len() == 24
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[13] == b':'
        && b[16] == b':'
        && b[19] == b'.'
        && b[23] == b'Z'
        && digits(20..23).is_some();
    let ok = shape
        && match (digits(0..4), digits(5..7), digits(8..10)) {
            (Some(year), Some(month @ 1..=12), Some(day)) => {
                (1..=days_in(year, month)).contains(&day)
            }
            _ => false,
        }
        && matches!(digits(11..13), Some(0..=23))
        && matches!(digits(14..16), Some(0..=59))
        && matches!(digits(17..19), Some(0..=59));
    if ok {
        Ok(())
    } else {
        Err(VerbError::BadTimestamp {
            at: String::from(at),
        })
    }
}

fn days_in(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Candidate digests: `sha256:<64 hex>` (a manifest) or `git:<40 or 64 hex>` (a commit).
pub(crate) fn check_digest(value: &str) -> Result<(), VerbError> {
    let ok = match value.split_once(':') {
        Some(("sha256", h)) => is_hex(h, 64),
        Some(("git", h)) => is_hex(h, 40) || is_hex(h, 64),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(VerbError::BadDigest {
            value: shown(value),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_ids() {
        for ok in ["darkwing-9-start-1", "12345678", "a.b_c-d0"] {
            assert!(check_op(ok).is_ok(), "{ok}");
        }
        let long = "a".repeat(73);
        for bad in [
            "short",
            "-leading-dash",
            "Upper-case-op",
            "ends.outcome",
            long.as_str(),
            "has space x",
        ] {
            assert!(check_op(bad).is_err(), "{bad}");
        }
        assert!(check_op(&"a".repeat(72)).is_ok());
    }

    #[test]
    fn a_refusal_quotes_at_most_the_start_of_a_long_value() {
        assert_eq!(shown("dark wing"), "\"dark wing\"");
        let edge = "é".repeat(SHOWN_CHARS);
        assert_eq!(shown(&edge), alloc::format!("{edge:?}"));
        let long = alloc::format!("{}é", "x".repeat(500));
        assert_eq!(
            shown(&long),
            alloc::format!("\"{}\"… (501 characters)", "x".repeat(SHOWN_CHARS))
        );
        let Err(e) = check_digest(&long) else {
            panic!("a digest")
        };
        assert_eq!(
            alloc::string::ToString::to_string(&e),
            alloc::format!(
                "candidate \"{}\"… (501 characters) is not a digest: use sha256:<64 hex> or git:<40 hex>",
                "x".repeat(SHOWN_CHARS)
            )
        );
    }

    #[test]
    fn texts() {
        assert!(check_text("note", "wire the | pipe").is_ok());
        for bad in ["", " lead", "a\\b", "a<b", "line\nbreak"] {
            assert!(check_text("note", bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn timestamps() {
        assert!(check_timestamp("2026-11-29T18:13:58.123Z").is_ok());
        assert!(check_timestamp("2028-02-29T00:00:00.000Z").is_ok());
        assert!(check_timestamp("2000-02-29T00:00:00.000Z").is_ok());
        for bad in [
            "2026-11-29T18:13:58Z",
            "2026-13-29T18:13:58.123Z",
            "2026-11-29 18:13:58.123Z",
            "2026-02-31T10:00:01.000Z",
            "2026-02-29T10:00:01.000Z",
            "2100-02-29T10:00:01.000Z",
            "2026-04-31T10:00:01.000Z",
        ] {
            assert!(check_timestamp(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn digests() {
        assert!(check_digest(&alloc::format!("sha256:{}", "a".repeat(64))).is_ok());
        assert!(check_digest(&alloc::format!("git:{}", "0".repeat(40))).is_ok());
        assert!(check_digest("git:abc").is_err());
        assert!(check_digest(&alloc::format!("md5:{}", "a".repeat(32))).is_err());
    }
}
