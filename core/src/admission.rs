//! The rules a new entry meets before it is written, on top of those replay applies to every
//! entry: no invisible or direction-changing characters in table text, one wider credential
//! rule over every text the entry stores (its op id and a manifest's paths included), and caps
//! on a row's lists and on a manifest. Entries written before these rules replay as they were;
//! from semantics 4 replay holds entries to them too (`verbs::apply_into`).

use alloc::string::String;

use crate::entry::{Args, MapRow, SetValue};
use crate::error::{ReviewError, VerbError};
use crate::review::manifest;
use crate::rules::credential_like;

/// Most issues one row lists (and so closes), and most rows one row waits on.
pub const MAX_ISSUES: usize = 64;
/// Most reviewers one row lists.
pub const MAX_REVIEWERS: usize = 16;

/// Checks every text and list `args` stores, and the op id, against the rules for new entries.
pub fn check(args: &Args, op: &str) -> Result<(), VerbError> {
    check_op(op)?;
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
        Args::Release(_)
        | Args::Assign(_)
        | Args::ReviewRequest(_)
        | Args::ReviewResolve(_)
        | Args::ReviewRecord(_)
        | Args::Take(_) => {}
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
pub fn check_op(op: &str) -> Result<(), VerbError> {
    match op_token_like(op) {
        Some(what) => Err(VerbError::OpTokenLike { what }),
        None => Ok(()),
    }
}

/// Table text: no character that displays otherwise than its bytes, no credential.
pub fn text(field: &'static str, text: &str) -> Result<(), VerbError> {
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

/// The credential rule for every stored text: replay's rule (`rules::credential_like`), then
/// what it misses.
pub fn credential(text: &str) -> Option<&'static str> {
    credential_like(text).or_else(|| more_credentials(text))
}

/// Whether `text`, quoted back in a refusal, would print something that looks like a secret.
pub fn unsafe_to_echo(text: &str) -> bool {
    credential(text).is_some() || op_token_like(text).is_some()
}

/// A token prefix, the least count of characters after it, and which characters those are.
type Prefix = (&'static str, usize, fn(u8) -> bool);

/// Token prefixes replay's rule lacks, each with the least number of characters after it
/// (all from `tail`) that make a token, so that words such as `npm_config_cache` pass.
const PREFIXES: [Prefix; 12] = [
    ("sk_live_", 16, alnum),
    ("sk_test_", 16, alnum),
    ("rk_live_", 16, alnum),
    ("rk_test_", 16, alnum),
    ("whsec_", 16, alnum),
    ("npm_", 30, alnum),
    ("pypi-", 32, word),
    ("shpat_", 32, alnum),
    ("glrt-", 16, word),
    ("xoxa-", 10, word),
    ("xoxr-", 10, word),
    ("xoxs-", 10, word),
];

/// Keys flagged when `=` follows them (after optional spaces) and then a value; a key counts
/// only at the start of a word (`bypass=1` is no password).
const KEYS: [&str; 9] = [
    "pwd",
    "pass",
    "passcode",
    "passphrase",
    "token",
    "auth",
    "access_key",
    "private_key",
    "secret_key",
];

fn alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

fn word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

fn more_credentials(text: &str) -> Option<&'static str> {
    let b = text.as_bytes();
    if url_password(b) {
        return Some("a URL with a user and password");
    }
    for i in 0..b.len() {
        // Only at a word's start, and only where a prefix or key can begin.
        if (i > 0 && b[i - 1].is_ascii_alphanumeric())
            || !matches!(
                b[i] | 0x20,
                b'a' | b'g' | b'n' | b'p' | b'r' | b's' | b't' | b'w' | b'x'
            )
        {
            continue;
        }
        let rest = &b[i..];
        for (prefix, least, tail) in PREFIXES {
            if starts_with_ignore_case(rest, prefix.as_bytes())
                && rest[prefix.len()..]
                    .iter()
                    .take_while(|&&c| tail(c))
                    .count()
                    >= least
            {
                return Some("a known token prefix");
            }
        }
        for key in KEYS {
            if starts_with_ignore_case(rest, key.as_bytes()) && assigned(&rest[key.len()..]) {
                return Some("a secret assignment");
            }
        }
    }
    None
}

fn starts_with_ignore_case(b: &[u8], key: &[u8]) -> bool {
    b.get(..key.len())
        .is_some_and(|s| s.eq_ignore_ascii_case(key))
}

/// `=` (after optional spaces) and then a value that is neither a space nor another `=`.
fn assigned(after: &[u8]) -> bool {
    let gap = after.iter().take_while(|&&c| c == b' ').count();
    after.get(gap) == Some(&b'=')
        && after
            .get(gap + 1..)
            .and_then(|v| v.iter().find(|&&c| c != b' '))
            .is_some_and(|&c| c != b'=')
}

/// `scheme://user:password@host`: a `:` and then an `@` in the authority after `://`.
fn url_password(b: &[u8]) -> bool {
    let mut from = 0;
    while let Some(p) = find(&b[from..], b"://") {
        let authority = &b[from + p + 3..];
        let end = authority
            .iter()
            .position(|&c| matches!(c, b'/' | b'?' | b'#' | b' '))
            .unwrap_or(authority.len());
        let authority = &authority[..end];
        if let Some(at) = authority.iter().rposition(|&c| c == b'@')
            && authority[..at].contains(&b':')
        {
            return true;
        }
        from += p + 3;
    }
    false
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Names what makes `op` look like a token: the credential rule, or a long run of letters and
/// digits with no separator (a random string, not a seat-row-verb name).
pub fn op_token_like(op: &str) -> Option<&'static str> {
    if let Some(what) = credential(op) {
        return Some(what);
    }
    let long_random = op.split(['-', '.', '_']).any(|part| {
        part.len() >= 24
            && part.bytes().any(|c| c.is_ascii_digit())
            && part.bytes().any(|c| c.is_ascii_alphabetic())
    });
    long_random.then_some("a long random-looking run of letters and digits")
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

    #[test]
    fn the_wider_credential_rule() {
        for (text, what) in [
            (
                "clone https://bob:hunter2@git.example.org/r",
                "a URL with a user and password",
            ),
            ("http://u:p@h", "a URL with a user and password"),
            ("key sk_live_abcdefghij0123456789", "a known token prefix"),
            ("SK_TEST_abcdefghijklmnop", "a known token prefix"),
            (
                "npm_abcdefghijklmnopqrstuvwxyz0123456789",
                "a known token prefix",
            ),
            ("xoxs-0123456789", "a known token prefix"),
            ("pwd=hunter2", "a secret assignment"),
            ("db_pass = s3cret", "a secret assignment"),
            ("PWD=x", "a secret assignment"),
            ("token=abc", "a secret assignment"),
            // Replay's own rule still comes first.
            ("password=x", "a secret assignment"),
            ("ghp_0123456789abcdefABCDEF", "a known token prefix"),
        ] {
            assert_eq!(credential(text), Some(what), "{text:?}");
        }
        for fine in [
            "ssh://git@github.com/o/r",
            "https://example.org/a:b@c",
            "see https://example.org:8080/x",
            "npm_config_cache is set",
            "bypass=1",
            "compass=north",
            "the pwd is /home",
            "pass the tests",
            "a == b",
            "pass == fail",
            "sk_live_short",
            "wire the | pipe",
        ] {
            assert_eq!(credential(fine), None, "{fine:?}");
        }
    }

    #[test]
    fn op_ids_that_look_like_tokens() {
        for op in [
            "darkwing-9-start-1",
            "lead-add-160",
            "550e8400-e29b-41d4-a716-446655440000",
            "jason-genesis-1",
            "hostile-op-1",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        ] {
            assert_eq!(op_token_like(op), None, "{op}");
        }
        for (op, what) in [
            ("glpat-abcdefghijklmnopqrst", "a known token prefix"),
            (
                "x-3f2a9c0d1e2b3a4f5e6d7c8b9a0f",
                "a long random-looking run of letters and digits",
            ),
            (
                "npm_abcdefghijklmnopqrstuvwxyz0123456789",
                "a known token prefix",
            ),
            ("sk_live_4ec39hqlyjwdarjtt1zdp7dc", "a known token prefix"),
        ] {
            assert_eq!(op_token_like(op), Some(what), "{op}");
        }
    }
}
