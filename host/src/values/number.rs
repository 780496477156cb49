//! Numbers on the command line (row ids, issues, comment ids, counts) held, where they are
//! parsed, to the limit queue.json's reader enforces (2^53-1). One parser per kind, the same in
//! every verb and list: a value that is no number, or a number too large, is invalid data
//! (exit 2) refused in one line that names the argument, before anything is read or written.

use mosaic_queue_core::{MAX_SAFE_INTEGER, shown};

use crate::reply::Failure;

/// Why a number on the command line was not taken; each message quotes at most the start of a
/// long value and ends with the step to take.
#[derive(Debug, thiserror::Error)]
pub enum NumberError {
    /// Digits for a value queue.json could not hold (kept as given, shortened).
    #[error(
        "{0} is above 9007199254740991 (2^53-1), the largest number queue.json can hold; give the real number"
    )]
    TooLarge(String),
    /// Text that is no whole number, quoted and shortened.
    #[error("{0} is not a whole number; give digits, as in 12")]
    NotANumber(String),
    /// A count that must be 1 or more.
    #[error("0 counts nothing; give 1 or more")]
    Zero,
    /// A number above what the argument takes.
    #[error("{value} is above {max}, the most it takes; give a smaller number")]
    Above { value: u64, max: u64 },
    /// Text that is no number of seconds in the range the argument takes (quoted, shortened).
    #[error("{given} is not a number of seconds; give one from 0 to {max}")]
    NotSeconds { given: String, max: f64 },
}

/// Parses a whole number of at most 2^53-1: digits, with an optional leading `+`.
pub fn parse(text: &str) -> Result<u64, NumberError> {
    let digits = text.strip_prefix('+').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(NumberError::NotANumber(shown(text)));
    }
    match digits.parse::<u64>() {
        Ok(n) if n <= MAX_SAFE_INTEGER => Ok(n),
        _ => Err(NumberError::TooLarge(shortened(digits))),
    }
}

/// A row id or an issue number, as the table and the lists write them: `3` or `#3`, white
/// space around it ignored. Every row id of every verb (positional, `--after`, `set ID after`)
/// and every issue number goes through here.
pub fn id(text: &str) -> Result<u64, NumberError> {
    let trimmed = text.trim();
    parse(trimmed.strip_prefix('#').unwrap_or(trimmed)).map_err(|e| match e {
        // Quote what was given, not what was left after the `#`.
        NumberError::NotANumber(_) => NumberError::NotANumber(shown(text)),
        other => other,
    })
}

/// A count of at least 1 (`log --limit`).
pub fn count(text: &str) -> Result<u64, NumberError> {
    match parse(text)? {
        0 => Err(NumberError::Zero),
        n => Ok(n),
    }
}

/// A number of days (`list --stale`), at most what a `u32` holds.
pub fn days(text: &str) -> Result<u32, NumberError> {
    let n = parse(text)?;
    u32::try_from(n).map_err(|_| NumberError::Above {
        value: n,
        max: u64::from(u32::MAX),
    })
}

/// How far back `list --stale` looks: whole days (`3`, the first form), or hours or minutes
/// (`2h`, `90m`), the lengths leases are counted in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Span {
    Days(u32),
    Hours(u32),
    Minutes(u32),
}

impl Span {
    /// The span in milliseconds.
    pub fn millis(&self) -> i64 {
        match *self {
            Span::Days(n) => i64::from(n) * 86_400_000,
            Span::Hours(n) => i64::from(n) * 3_600_000,
            Span::Minutes(n) => i64::from(n) * 60_000,
        }
    }

    /// As the text of `list --stale` says it: `3 days`, `2h`, `90m`.
    pub fn text(&self) -> String {
        match self {
            Span::Days(n) => format!("{n} days"),
            Span::Hours(n) => format!("{n}h"),
            Span::Minutes(n) => format!("{n}m"),
        }
    }
}

/// `list --stale`'s span: digits alone are days as before; digits then `h` or `m` are hours
/// or minutes, each at most what a `u32` holds.
pub fn span(text: &str) -> Result<Span, NumberError> {
    let unit = match text.as_bytes().last() {
        Some(b'h') => Span::Hours,
        Some(b'm') => Span::Minutes,
        _ => return days(text).map(Span::Days),
    };
    let digits = &text[..text.len() - 1];
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(NumberError::NotANumber(shown(text)));
    }
    days(digits).map(unit)
}

/// A number of seconds, fractions allowed, from 0 to `max` (`wait --timeout`, the MCP
/// `wait`'s `timeout`).
pub fn seconds(text: &str, max: f64) -> Result<f64, NumberError> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && (0.0..=max).contains(&s) => Ok(s),
        _ => Err(NumberError::NotSeconds {
            given: shown(text),
            max,
        }),
    }
}

/// At most 40 digits of a hostile number, so the refusal stays one readable line.
fn shortened(digits: &str) -> String {
    if digits.len() <= 40 {
        digits.to_owned()
    } else {
        format!("{}… ({} digits)", &digits[..40], digits.len())
    }
}

/// The refusal (exit 2) of `e` for the argument `name` (`row id`, `--issues`, ...).
pub fn refused(name: &str, e: &NumberError) -> Failure {
    Failure::refused(format!("refused: {name} {e}")).kind(INVALID_VALUE)
}

/// The kind `--json` gives every value the command line refused before anything was read.
pub const INVALID_VALUE: &str = "invalid-value";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exit::Exit;

    #[test]
    fn numbers_stop_at_the_readers_limit() {
        assert_eq!(parse("9007199254740991").unwrap(), MAX_SAFE_INTEGER);
        assert_eq!(parse("+7").unwrap(), 7);
        for big in ["9007199254740992", "18446744073709551616", &"9".repeat(400)] {
            assert!(matches!(parse(big), Err(NumberError::TooLarge(_))), "{big}");
        }
        for bad in ["", "x", "-1", "1.5", "0x10", "+", "#3"] {
            assert!(
                matches!(parse(bad), Err(NumberError::NotANumber(_))),
                "{bad}"
            );
        }
        let long = "9".repeat(400);
        let Err(e) = parse(&long) else { panic!() };
        assert_eq!(
            e.to_string(),
            format!(
                "{}… (400 digits) is above 9007199254740991 (2^53-1), the largest number queue.json can hold; give the real number",
                "9".repeat(40)
            )
        );
        let words = refused("--issues", &parse("twelve").unwrap_err());
        assert_eq!(
            (words.exit, words.message.as_str()),
            (
                Exit::Refused,
                "refused: --issues \"twelve\" is not a whole number; give digits, as in 12"
            )
        );
    }

    #[test]
    fn ids_take_a_hash_and_space_and_quote_what_was_given() {
        for (given, n) in [("3", 3), ("#3", 3), (" #3 ", 3), ("+3", 3)] {
            assert_eq!(id(given).unwrap(), n, "{given:?}");
        }
        let e = id("#x").unwrap_err();
        assert_eq!(
            e.to_string(),
            "\"#x\" is not a whole number; give digits, as in 12"
        );
        let e = id(&"x".repeat(400)).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "\"{}\"… (400 characters) is not a whole number; give digits, as in 12",
                "x".repeat(40)
            )
        );
        assert!(matches!(count("0"), Err(NumberError::Zero)));
        assert_eq!(count("5").unwrap(), 5);
        assert_eq!(days("4294967295").unwrap(), u32::MAX);
        assert_eq!(
            days("4294967296").unwrap_err().to_string(),
            "4294967296 is above 4294967295, the most it takes; give a smaller number"
        );
    }

    #[test]
    fn seconds_take_fractions_up_to_their_bound() {
        assert_eq!(seconds("0.25", 600.0).unwrap(), 0.25);
        assert_eq!(seconds("600", 600.0).unwrap(), 600.0);
        for bad in ["600.5", "-1", "inf", "NaN", "1e30", "x", ""] {
            assert!(
                matches!(seconds(bad, 600.0), Err(NumberError::NotSeconds { .. })),
                "{bad}"
            );
        }
        assert_eq!(
            seconds("1e30", 600.0).unwrap_err().to_string(),
            "\"1e30\" is not a number of seconds; give one from 0 to 600"
        );
    }
}
