//! Numbers on the command line (row ids, issues, comment ids, evidence) held, where they are
//! parsed, to the limit queue.json's reader enforces (2^53-1): a larger one is refused with
//! exit 2 before anything is read or written. The core checks the same limit again.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use mosaic_queue_core::canon::MAX_SAFE_INTEGER;

use super::Failure;

/// Why a number on the command line was not taken.
#[derive(Debug, thiserror::Error)]
pub enum NumberError {
    /// Digits for a value queue.json could not hold (kept as given, shortened).
    #[error(
        "{0} is above 9007199254740991 (2^53-1), the largest number queue.json can hold; give the real number"
    )]
    TooLarge(String),
    #[error("not a whole number")]
    NotANumber,
}

/// Parses a whole number of at most 2^53-1 (clap's value parser for ids and comment ids).
pub fn parse(text: &str) -> Result<u64, NumberError> {
    let digits = text.strip_prefix('+').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(NumberError::NotANumber);
    }
    match digits.parse::<u64>() {
        Ok(n) if n <= MAX_SAFE_INTEGER => Ok(n),
        _ => Err(NumberError::TooLarge(shortened(digits))),
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

/// `parse` for `field`, as a refusal: exit 2 for a number too large, exit 4 for no number.
pub fn field(field: &str, text: &str) -> Result<u64, Failure> {
    parse(text).map_err(|e| match e {
        NumberError::TooLarge(_) => Failure::refused(format!("refused: {field} {e}")),
        NumberError::NotANumber => Failure::usage(format!("{field} {text:?} is not a number")),
    })
}

/// The one-line refusal (exit 2) for a clap error that is a number too large, naming the
/// argument; `None` for every other clap error.
pub fn refusal(e: &clap::Error) -> Option<String> {
    if e.kind() != ErrorKind::ValueValidation {
        return None;
    }
    let too_large = std::error::Error::source(e)?.downcast_ref::<NumberError>()?;
    if !matches!(too_large, NumberError::TooLarge(_)) {
        return None;
    }
    let arg = match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(s)) => s.as_str(),
        _ => "a number",
    };
    // `<ID>` is a row id; a flag is named without its value placeholder.
    let name = match arg.split_once(' ') {
        _ if arg == "<ID>" => "row id",
        Some((flag, _)) => flag,
        None => arg,
    };
    Some(format!("refused: {name} {too_large}"))
}

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
        for bad in ["", "x", "-1", "1.5", "0x10", "+"] {
            assert!(matches!(parse(bad), Err(NumberError::NotANumber)), "{bad}");
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
        assert_eq!(
            field("--issues", "9007199254740992").unwrap_err().exit,
            Exit::Refused
        );
        assert_eq!(field("--issues", "twelve").unwrap_err().exit, Exit::Usage);
    }
}
