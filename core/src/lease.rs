//! A claim's lease: the one parser of its length (`90s`, `45m`, `2h`) that every face uses,
//! its bounds, and how receipts and messages write it back. A lease is kept in seconds.

use alloc::string::String;

use crate::error::ClaimError;
use crate::rules;

/// The shortest lease: a minute. Below it a lock wait or one slow git call outlasts it, and a
/// renewal every third of the lease would run every few seconds.
pub const MIN_LEASE: u32 = 60;

/// The longest lease: a day. A lease is how long a claim may stay silent, not how long its
/// work may take (every sign of life renews it); a seat silent for longer is gone, and a
/// claim that should never expire carries no lease at all.
pub const MAX_LEASE: u32 = 86_400;

/// The default length docs/coordination.md recommends to a queue's lead (`lease-default
/// 2h`); the core sets no default of its own.
pub const RECOMMENDED_LEASE: u32 = 7_200;

/// Parses a lease as a person or an agent writes it: a whole number without a sign or a
/// leading zero, then `s`, `m` or `h`; bounded by `MIN_LEASE` and `MAX_LEASE`.
pub fn parse_lease(text: &str) -> Result<u32, ClaimError> {
    let form = || ClaimError::LeaseForm {
        text: rules::shown(text),
    };
    let unit = match text.as_bytes().last() {
        Some(b's') => 1,
        Some(b'm') => 60,
        Some(b'h') => 3_600,
        _ => return Err(form()),
    };
    let digits = &text[..text.len() - 1];
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return Err(form());
    }
    if digits.len() > 1 && digits.starts_with('0') {
        return Err(form());
    }
    // More than ten digits is out of bounds whatever the unit; fewer fit a u64 times 3600.
    let seconds = match digits.len() {
        11.. => u64::MAX,
        _ => digits
            .bytes()
            .fold(0u64, |n, c| n * 10 + u64::from(c - b'0'))
            .saturating_mul(unit),
    };
    check_lease(seconds)
}

/// A lease in seconds within the bounds, as a command or an entry carries it.
pub fn check_lease(seconds: u64) -> Result<u32, ClaimError> {
    match u32::try_from(seconds) {
        Ok(s) if (MIN_LEASE..=MAX_LEASE).contains(&s) => Ok(s),
        _ => Err(ClaimError::LeaseRange { seconds }),
    }
}

/// A lease as receipts and messages write it: in the largest unit that divides it (`2h`,
/// `90m`, `75s`), which `parse_lease` reads back to the same seconds.
pub fn lease_text(seconds: u32) -> String {
    match seconds {
        s if s % 3_600 == 0 && s > 0 => alloc::format!("{}h", s / 3_600),
        s if s % 60 == 0 && s > 0 => alloc::format!("{}m", s / 60),
        s => alloc::format!("{s}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leases_parse_in_seconds_minutes_and_hours() {
        for (text, seconds) in [
            ("90s", 90),
            ("60s", 60),
            ("1m", 60),
            ("45m", 2_700),
            ("2h", 7_200),
            ("24h", 86_400),
            ("1440m", 86_400),
            ("86400s", 86_400),
        ] {
            assert_eq!(parse_lease(text), Ok(seconds), "{text}");
        }
    }

    #[test]
    fn anything_else_is_refused_by_form_or_by_bounds() {
        for bad in [
            "", "s", "2", "2 h", " 2h", "2h ", "2H", "2d", "1h30m", "-5m", "+5m", "05m", "1.5h",
            "２h", "0x10s", "h2",
        ] {
            let got = parse_lease(bad).map_err(|e| e.kind());
            assert_eq!(got, Err("lease-form"), "{bad:?}");
        }
        for (bad, seconds) in [
            ("0s", 0),
            ("59s", 59),
            ("25h", 90_000),
            ("86401s", 86_401),
            ("4294967296s", 4_294_967_296),
            ("99999999999h", u64::MAX),
            ("18446744073709551616s", u64::MAX),
        ] {
            assert_eq!(
                parse_lease(bad),
                Err(ClaimError::LeaseRange { seconds }),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_lease_is_written_back_in_its_largest_unit() {
        for (seconds, text) in [
            (60, "1m"),
            (75, "75s"),
            (5_400, "90m"),
            (7_200, "2h"),
            (86_400, "24h"),
        ] {
            assert_eq!(lease_text(seconds), text);
            assert_eq!(parse_lease(text), Ok(seconds));
        }
        for seconds in MIN_LEASE..=MAX_LEASE {
            assert_eq!(parse_lease(&lease_text(seconds)), Ok(seconds));
        }
    }
}
