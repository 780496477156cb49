//! What looks like a secret in a text. Replay's rule (`credential_like`) holds every table
//! text of every entry; the wider rule (`credential`) holds what a new entry stores, and
//! `op_token_like` an op id; `unsafe_to_echo` keeps a refusal from printing what it refuses.
//! Nothing here knows a verb: `rules` and `admission` call in with the text.

/// Names what in `text` looks like a secret, if anything does. Every table text passes through
/// here on each write and again on each replayed entry, so this is one pass over the bytes with
/// no allocation and almost no unpredictable branches: byte classes come from a table, and the
/// keyword and prefix checks run only where two bytes can begin one of them.
pub(crate) fn credential_like(text: &str) -> Option<&'static str> {
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

/// The credential rule for every stored text: replay's rule (`credential_like`), then
/// what it misses.
pub fn credential(text: &str) -> Option<&'static str> {
    credential_like(text).or_else(|| more_credentials(text))
}

/// Whether `text`, quoted back in a refusal, would print something that looks like a secret.
pub(crate) fn unsafe_to_echo(text: &str) -> bool {
    credential(text).is_some() || op_token_like(text).is_some()
}

/// A token prefix, the least count of characters after it, and which characters those are.
type Prefix = (&'static str, usize, fn(u8) -> bool);

/// Token prefixes replay's rule lacks, each with the least number of characters after it
/// (all from `tail`) that make a token, so that words such as `npm_config_cache` pass.
const MORE_PREFIXES: [Prefix; 12] = [
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
const ASSIGNED_KEYS: [&str; 9] = [
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
        for (prefix, least, tail) in MORE_PREFIXES {
            if starts_with_ignore_case(rest, 0, prefix.as_bytes())
                && rest[prefix.len()..]
                    .iter()
                    .take_while(|&&c| tail(c))
                    .count()
                    >= least
            {
                return Some("a known token prefix");
            }
        }
        for key in ASSIGNED_KEYS {
            if starts_with_ignore_case(rest, 0, key.as_bytes()) && assigned(&rest[key.len()..]) {
                return Some("a secret assignment");
            }
        }
    }
    None
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
pub(crate) fn op_token_like(op: &str) -> Option<&'static str> {
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
    use alloc::string::String;

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
