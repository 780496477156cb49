//! Times as the log writes them (`YYYY-MM-DDTHH:MM:SS.mmmZ`, UTC) as milliseconds and back,
//! for leases: when a claim's lease ends and how long a seat has been silent. Arithmetic on
//! the proleptic Gregorian calendar only; the time itself always comes in as an argument.

use alloc::string::String;

use crate::rules;

/// Milliseconds in a second, a minute.
pub(crate) const SECOND: i64 = 1_000;
pub(crate) const MINUTE: i64 = 60 * SECOND;

/// The first millisecond of year 0 and the last of year 9999 (the years a timestamp holds),
/// counted from 1970-01-01T00:00:00.000Z.
const FIRST: i64 = -62_167_219_200_000;
const LAST: i64 = 253_402_300_799_999;

/// `at` in milliseconds since 1970-01-01T00:00:00.000Z, or `None` when it is not a timestamp
/// of the log's one form with a real calendar date.
pub(crate) fn millis(at: &str) -> Option<i64> {
    rules::check_timestamp(at).ok()?;
    let b = at.as_bytes();
    // The shape is checked: every field is ASCII digits.
    let num = |from: usize, to: usize| {
        b[from..to]
            .iter()
            .fold(0i64, |n, &c| n * 10 + i64::from(c - b'0'))
    };
    let days = days_from_civil(num(0, 4), num(5, 7), num(8, 10));
    let seconds = num(11, 13) * 3_600 + num(14, 16) * 60 + num(17, 19);
    Some((days * 86_400 + seconds) * SECOND + num(20, 23))
}

/// The timestamp of `ms` (milliseconds since 1970), held within years 0 to 9999: a lease that
/// would end after 9999-12-31T23:59:59.999Z ends there.
pub(crate) fn stamp(ms: i64) -> String {
    let ms = ms.clamp(FIRST, LAST);
    let (y, m, d) = civil_from_days(ms.div_euclid(86_400 * SECOND));
    let rest = ms.rem_euclid(86_400 * SECOND);
    let mut out = String::with_capacity(24);
    digits(&mut out, y, 4);
    out.push('-');
    digits(&mut out, m, 2);
    out.push('-');
    digits(&mut out, d, 2);
    out.push('T');
    digits(&mut out, rest / (3_600 * SECOND), 2);
    out.push(':');
    digits(&mut out, rest / MINUTE % 60, 2);
    out.push(':');
    digits(&mut out, rest / SECOND % 60, 2);
    out.push('.');
    digits(&mut out, rest % SECOND, 3);
    out.push('Z');
    out
}

/// `n` (not negative) in exactly `width` decimal digits, zero-padded.
fn digits(out: &mut String, n: i64, width: u32) {
    let mut scale = 10i64.pow(width - 1);
    while scale > 0 {
        out.push(char::from(b'0' + (n / scale % 10) as u8));
        scale /= 10;
    }
}

/// Days since 1970-01-01 of a civil date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date of a day count since 1970-01-01 (`civil_from_days`).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (
        if m <= 2 {
            yoe + era * 400 + 1
        } else {
            yoe + era * 400
        },
        m,
        d,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Known instants, written out by hand (Unix time from a calendar, not from this code).
    #[test]
    fn known_instants_convert_both_ways() {
        for (at, ms) in [
            ("1970-01-01T00:00:00.000Z", 0),
            ("1970-01-01T00:00:01.001Z", 1_001),
            ("2000-03-01T00:00:00.000Z", 951_868_800_000),
            ("2024-02-29T23:59:59.999Z", 1_709_251_199_999),
            ("2026-11-30T09:00:00.000Z", 1_796_029_200_000),
            ("1969-12-31T23:59:59.999Z", -1),
            ("0000-01-01T00:00:00.000Z", FIRST),
            ("9999-12-31T23:59:59.999Z", LAST),
        ] {
            assert_eq!(millis(at), Some(ms), "{at}");
            assert_eq!(stamp(ms), at, "{ms}");
        }
    }

    #[test]
    fn what_is_not_a_timestamp_has_no_time_and_stamps_stay_in_range() {
        for bad in [
            "",
            "2026-02-29T00:00:00.000Z",
            "2026-11-30T24:00:00.000Z",
            "2026-11-30 09:00:00.000Z",
            "2026-11-30T09:00:00Z",
            "+2026-11-30T09:00:00.000Z",
        ] {
            assert_eq!(millis(bad), None, "{bad}");
        }
        assert_eq!(stamp(LAST + 86_400_000), "9999-12-31T23:59:59.999Z");
        assert_eq!(stamp(i64::MIN), "0000-01-01T00:00:00.000Z");
    }

    /// Every day of four centuries round-trips through the day count, one after another.
    #[test]
    fn days_follow_each_other_across_leap_rules() {
        let mut day = days_from_civil(1899, 12, 31);
        for y in 1900..2300 {
            for m in 1..=12 {
                let last = match m {
                    2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
                    2 => 28,
                    4 | 6 | 9 | 11 => 30,
                    _ => 31,
                };
                for d in 1..=last {
                    day += 1;
                    assert_eq!(days_from_civil(y, m, d), day);
                    assert_eq!(civil_from_days(day), (y, m, d));
                }
            }
        }
    }
}
