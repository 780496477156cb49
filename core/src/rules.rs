//! Input rules shared by every verb: op ids, seat names, privileged actors, table text, brief
//! anchors, timestamps and candidate digests. Replay applies the same rules to every entry,
//! so a hand-written log cannot smuggle in what the CLI refuses.

use alloc::string::String;

use crate::digest::is_hex;
use crate::error::VerbError;

/// The actors allowed everything the matrix marks privileged.
pub const PRIVILEGED: [&str; 2] = ["jason", "sage"];
/// The lead seat (Gitea login `jarvis`).
pub const LEAD: &str = "lead";
/// Longest text a table cell accepts, in characters.
pub const MAX_TEXT_CHARS: usize = 500;

pub fn is_privileged(actor: &str) -> bool {
    PRIVILEGED.contains(&actor)
}

/// The lead seat's Gitea login; every other seat's login is its name.
pub const LEAD_LOGIN: &str = "jarvis";

/// The Gitea login a seat posts and comments as.
pub fn gitea_login(seat: &str) -> &str {
    if seat == LEAD { LEAD_LOGIN } else { seat }
}

/// The lead or a privileged actor.
pub fn is_lead_or_privileged(actor: &str) -> bool {
    actor == LEAD || is_privileged(actor)
}

/// Op ids: 8 to 72 characters of [a-z0-9._-], first a letter or digit, not ending `.outcome`.
pub fn check_op(op: &str) -> Result<(), VerbError> {
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
    if crate::admission::unsafe_to_echo(text) {
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
pub fn is_seat(name: &str) -> bool {
    (1..=32).contains(&name.len())
        && name.as_bytes()[0].is_ascii_lowercase()
        && name
            .bytes()
            .all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'-'))
}

pub fn check_actor(name: &str) -> Result<(), VerbError> {
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
pub fn check_text(field: &'static str, text: &str) -> Result<(), VerbError> {
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
pub fn check_anchor(anchor: &str) -> Result<(), VerbError> {
    check_text("brief", anchor)?;
    if anchor.contains(|c: char| c.is_whitespace() || c == '(' || c == ')') {
        return Err(VerbError::BadText {
            field: "brief",
            why: "contains white space or a parenthesis, which would break the link",
        });
    }
    Ok(())
}

/// Names what in `text` looks like a secret, if anything does. Every table text passes through
/// here on each write and again on each replayed entry, so this is one pass over the bytes with
/// no allocation and almost no unpredictable branches: byte classes come from a table, and the
/// keyword and prefix checks run only where two bytes can begin one of them.
pub fn credential_like(text: &str) -> Option<&'static str> {
    // When a text matches several kinds, the earliest in this list is the one named.
    const WHAT: [&str; 6] = [
        "a PEM header",
        "an Authorization header",
        "a known token prefix",
        "a token after the word token or bearer",
        "a secret assignment",
        "a long mixed-case token-like string",
    ];
    let b = text.as_bytes();
    let mut found = WHAT.len();
    let mut secret_seen = [false; SECRET_KEYS.len()];
    // The run of token-like characters ending at the current byte and the classes it has.
    let mut run_len = 0usize;
    let mut run_classes = 0u8;
    for (i, &c) in b.iter().enumerate() {
        let class = CLASS[usize::from(c)];
        let in_run = class & RUN != 0;
        let long_mixed = run_len >= 32 && run_classes & MIXED == MIXED;
        if !in_run & long_mixed {
            found = found.min(5);
        }
        run_len = if in_run { run_len + 1 } else { 0 };
        run_classes = if in_run { run_classes | class } else { 0 };
        let next = b.get(i + 1).copied().unwrap_or(0);
        if FIRST[usize::from(c)] & SECOND[usize::from(next)] == 0 {
            continue;
        }
        let at = |key: &[u8]| starts_with_ignore_case(b, i, key);
        match c.to_ascii_lowercase() {
            b'-' if at(b"-----begin") => return Some(WHAT[0]),
            b'a' if at(b"authorization:") => found = found.min(1),
            b'a' | b'p' | b's' => {
                for k in 0..SECRET_KEYS.len() {
                    if secret_at(text, i, k, &mut secret_seen) {
                        found = found.min(4);
                    }
                }
            }
            b't' if token_after(b, i, b"token") => found = found.min(3),
            b'b' if token_after(b, i, b"bearer") => found = found.min(3),
            _ => {}
        }
        let word_start = i == 0 || CLASS[usize::from(b[i - 1])] & WORD == 0;
        if word_start
            && PREFIXES.iter().any(|p| at(p))
            && b.get(i..i + 16)
                .is_some_and(|w| w.iter().all(|&c| CLASS[usize::from(c)] & WORD != 0))
        {
            found = found.min(2);
        }
    }
    if run_len >= 32 && run_classes & MIXED == MIXED {
        found = found.min(5);
    }
    WHAT.get(found).copied()
}

// Byte classes for `credential_like`.
/// [A-Za-z0-9+/_=-]: a token-like run.
const RUN: u8 = 0x01;
/// [A-Za-z0-9_-]: a word, for the prefixes.
const WORD: u8 = 0x02;
const LOWER: u8 = 0x04;
const DIGIT: u8 = 0x08;
const UPPER: u8 = 0x20;
const MIXED: u8 = UPPER | LOWER | DIGIT;

static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        let word = b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
        if word || b == b'+' || b == b'/' || b == b'=' {
            t[c] |= RUN;
        }
        if word {
            t[c] |= WORD;
        }
        if b.is_ascii_lowercase() {
            t[c] |= LOWER;
        }
        if b.is_ascii_uppercase() {
            t[c] |= UPPER;
        }
        if b.is_ascii_digit() {
            t[c] |= DIGIT;
        }
        c += 1;
    }
    t
};

/// What `credential_like` looks for by name besides the secret keys and the prefixes.
const NAMED: [&[u8]; 4] = [b"-----begin", b"authorization:", b"token", b"bearer"];

/// The prefixes `credential_like` flags at the start of a word of 16 or more characters.
const PREFIXES: [&[u8]; 9] = [
    b"ghp_",
    b"gho_",
    b"ghs_",
    b"ghu_",
    b"github_pat_",
    b"glpat-",
    b"xoxb-",
    b"xoxp-",
    b"akia",
];

/// The keys `credential_like` flags when `=` or `:` follows them.
const SECRET_KEYS: [&[u8]; 6] = [
    b"password",
    b"passwd",
    b"secret",
    b"api_key",
    b"apikey",
    b"api-key",
];

/// For two bytes `x y` in either case, `FIRST[x] & SECOND[y] != 0` when something
/// `credential_like` looks for starts with them. Each distinct first letter gets one bit.
static FIRST: [u8; 256] = bigram_tables().0;
static SECOND: [u8; 256] = bigram_tables().1;

const fn bigram_tables() -> ([u8; 256], [u8; 256]) {
    let lists: [&[&[u8]]; 3] = [&NAMED, &SECRET_KEYS, &PREFIXES];
    let mut first = [0u8; 256];
    let mut second = [0u8; 256];
    let mut letters = [0u8; 8];
    let mut n = 0;
    let mut l = 0;
    while l < lists.len() {
        let mut k = 0;
        while k < lists[l].len() {
            let (x, y) = (lists[l][k][0], lists[l][k][1]);
            let mut bit = 0;
            while bit < n && letters[bit] != x {
                bit += 1;
            }
            if bit == n {
                // Eight bits hold eight first letters; a ninth fails the build here.
                letters[n] = x;
                n += 1;
            }
            let mask = 1u8 << bit;
            first[x as usize] |= mask;
            first[x.to_ascii_uppercase() as usize] |= mask;
            second[y as usize] |= mask;
            second[y.to_ascii_uppercase() as usize] |= mask;
            k += 1;
        }
        l += 1;
    }
    (first, second)
}

fn starts_with_ignore_case(b: &[u8], i: usize, key: &[u8]) -> bool {
    b.get(i..i + key.len())
        .is_some_and(|s| s.eq_ignore_ascii_case(key))
}

/// Whether `key` starts at `i` and is followed, past spaces, `:` and `=`, by 20 or more
/// token characters.
fn token_after(b: &[u8], i: usize, key: &[u8]) -> bool {
    if !starts_with_ignore_case(b, i, key) {
        return false;
    }
    let after = &b[i + key.len()..];
    let gap = after
        .iter()
        .take_while(|&&c| matches!(c, b' ' | b':' | b'='))
        .count();
    let run = after[gap..]
        .iter()
        .take(20)
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
        .count();
    run >= 20
}

/// Whether secret key `k` starts at `i` for the first time in the text and is assigned there
/// (white space, then `=` or `:`). Only a key's first occurrence is looked at, as the rule
/// always has.
fn secret_at(text: &str, i: usize, k: usize, seen: &mut [bool; SECRET_KEYS.len()]) -> bool {
    let key = SECRET_KEYS[k];
    if seen[k] || !starts_with_ignore_case(text.as_bytes(), i, key) {
        return false;
    }
    seen[k] = true;
    // The key is ASCII, so the byte after it starts a character.
    text[i + key.len()..].trim_start().starts_with(['=', ':'])
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
pub fn check_digest(value: &str) -> Result<(), VerbError> {
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
    fn credentials_are_spotted_but_commit_ids_pass() {
        for secret in [
            "-----BEGIN OPENSSH PRIVATE KEY-----",
            "Authorization: token abc",
            "token 0123456789abcdef0123456789abcdef01234567",
            "ghp_abcdefghijklmnopqrstuvwxyz0123",
            "password=hunter2hunter2",
            "see aGVsbG8gd29ybGQgdGhpcyBpcyBhIHRlc3Q0MjQy",
        ] {
            assert!(credential_like(secret).is_some(), "{secret}");
        }
        for fine in [
            "fixed in 3f2a9c0d1e2b3a4f5e6d7c8b9a0f1e2d3c4b5a69",
            "tokens are read by scripts/gitea-api.sh",
            "docs/plans/queue-as-data-plan-2026-09-26.md",
        ] {
            assert!(credential_like(fine).is_none(), "{fine}");
        }
    }

    /// The rule as written before the single pass (lowercased copy, one search per keyword).
    /// The single pass must name the same thing for every text.
    fn credential_like_reference(text: &str) -> Option<&'static str> {
        let lower = text.to_ascii_lowercase();
        if lower.contains("-----begin") {
            return Some("a PEM header");
        }
        if lower.contains("authorization:") {
            return Some("an Authorization header");
        }
        const PREFIXES: [&str; 9] = [
            "ghp_",
            "gho_",
            "ghs_",
            "ghu_",
            "github_pat_",
            "glpat-",
            "xoxb-",
            "xoxp-",
            "akia",
        ];
        for word in lower.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-')) {
            if word.len() >= 16 && PREFIXES.iter().any(|p| word.starts_with(p)) {
                return Some("a known token prefix");
            }
        }
        for key in ["token", "bearer"] {
            let mut rest = lower.as_str();
            while let Some(p) = rest.find(key) {
                let after = rest[p + key.len()..].trim_start_matches([' ', ':', '=']);
                let run = after
                    .bytes()
                    .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
                    .count();
                if run >= 20 {
                    return Some("a token after the word token or bearer");
                }
                rest = &rest[p + key.len()..];
            }
        }
        for key in [
            "password", "passwd", "secret", "api_key", "apikey", "api-key",
        ] {
            if let Some(p) = lower.find(key) {
                let after = lower[p + key.len()..].trim_start();
                if after.starts_with('=') || after.starts_with(':') {
                    return Some("a secret assignment");
                }
            }
        }
        let token_char =
            |c: char| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '_' | '-' | '=');
        for run in text.split(|c: char| !token_char(c)) {
            if run.len() >= 32
                && run.bytes().any(|b| b.is_ascii_uppercase())
                && run.bytes().any(|b| b.is_ascii_lowercase())
                && run.bytes().any(|b| b.is_ascii_digit())
            {
                return Some("a long mixed-case token-like string");
            }
        }
        None
    }

    #[test]
    fn credential_edges() {
        let cases: &[(&str, Option<&str>)] = &[
            // Keywords match in any ASCII case.
            ("-----begin rsa", Some("a PEM header")),
            ("x -----BeGiN", Some("a PEM header")),
            ("----BEGIN", None),
            ("AUTHORIZATION:", Some("an Authorization header")),
            ("send authorization: later", Some("an Authorization header")),
            ("authorization", None),
            ("Authorization : x", None),
            // Known prefixes need a word of 16 or more characters.
            ("GHP_abcdefghijkl", Some("a known token prefix")),
            ("ghp_abcdefghijk", None),
            ("see github_pat_12345 now", Some("a known token prefix")),
            ("glpat-xxxxxxxxxx", Some("a known token prefix")),
            ("AKIAIOSFODNN7EXA", Some("a known token prefix")),
            ("xghp_abcdefghijklmn", None),
            ("é-xoxb-01234567890", None),
            ("é xoxb-0123456789", None),
            ("é xoxb-01234567890", Some("a known token prefix")),
            // token / bearer then 20 or more token characters, after spaces, `:` or `=`.
            (
                "token: abcdefghij0123456789",
                Some("a token after the word token or bearer"),
            ),
            ("token= :abcdefghij012345678", None),
            (
                "Bearer abcdefghij.123456789",
                Some("a token after the word token or bearer"),
            ),
            (
                "mytoken=abcdefghij_123456789",
                Some("a token after the word token or bearer"),
            ),
            ("tokens abcdefghij0123456789", None),
            (
                "token token abcdefghij0123456789",
                Some("a token after the word token or bearer"),
            ),
            ("at the end: token", None),
            ("at the end: bearer", None),
            // Secret assignments: the key, optional white space, then `=` or `:`.
            ("password=x", Some("a secret assignment")),
            ("Secret: x", Some("a secret assignment")),
            ("API-KEY =x", Some("a secret assignment")),
            ("passwd\u{3000}:x", Some("a secret assignment")),
            ("the password", None),
            ("ends with secret", None),
            ("secret word", None),
            // Only a key's first occurrence counts, as it always has.
            ("password reset, password=x", None),
            ("password reset, passwd=x", Some("a secret assignment")),
            // 32+ characters of [A-Za-z0-9+/_=-] mixing upper, lower and digits.
            (
                "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaA1",
                Some("a long mixed-case token-like string"),
            ),
            ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaA1", None),
            ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1", None),
            (
                "x aaaa/aaaa+aaaa=aaaa_aaaa-aaaaaA1",
                Some("a long mixed-case token-like string"),
            ),
            ("aaaaaaaaaaaaaaaaéaaaaaaaaaaaaaaA1", None),
            // The most specific kind is named when several match.
            ("password=1 -----BEGIN", Some("a PEM header")),
            (
                "ghp_abcdefghijklmnop Authorization:",
                Some("an Authorization header"),
            ),
            ("", None),
        ];
        for &(text, want) in cases {
            assert_eq!(credential_like(text), want, "{text:?}");
            assert_eq!(credential_like_reference(text), want, "reference: {text:?}");
        }
    }

    #[test]
    fn credential_single_pass_agrees_with_the_reference() {
        const PIECES: [&str; 40] = [
            "token",
            "TOKEN",
            "Bearer",
            "bearer",
            "-----",
            "BEGIN",
            "begin",
            "authorization",
            "Authorization:",
            ":",
            "=",
            " ",
            "  ",
            "\u{3000}",
            "é",
            "ghp_",
            "GHO_",
            "github_pat_",
            "glpat-",
            "xoxb-",
            "XOXP-",
            "akia",
            "password",
            "passwd",
            "secret",
            "api_key",
            "apikey",
            "api-key",
            "API",
            "_",
            "-",
            ".",
            "+",
            "/",
            "abcdefghij",
            "ABCDEFGHIJ",
            "0123456789",
            "aB3",
            "Zz9Yy8Xx7",
            "|",
        ];
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut text = String::new();
        for _ in 0..40_000 {
            text.clear();
            for _ in 0..next() % 12 {
                text.push_str(PIECES[(next() % PIECES.len() as u64) as usize]);
            }
            assert_eq!(
                credential_like(&text),
                credential_like_reference(&text),
                "{text:?}"
            );
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
