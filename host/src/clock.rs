//! The wall clock as the log writes it: UTC `YYYY-MM-DDTHH:MM:SS.mmmZ`, like JavaScript's
//! `toISOString`. The core never reads a clock; this is the one place the host does.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, formatted for a log entry.
pub fn now() -> String {
    format_millis(now_millis())
}

/// Now in milliseconds since the Unix epoch (the fault-injection build may be told another).
pub fn now_millis() -> i64 {
    if let Some(ms) = crate::io::seams::now_millis() {
        return ms;
    }
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    since.as_millis() as i64
}

/// Milliseconds since the Unix epoch as UTC ISO-8601 with milliseconds.
pub fn format_millis(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Year, month, day of a day count since 1970-01-01 (proleptic Gregorian calendar).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(format_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_millis(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(format_millis(1_795_972_438_999), "2026-11-29T17:13:58.999Z");
    }

    #[test]
    fn now_passes_the_core_timestamp_rule() {
        mosaic_queue_core::check_timestamp(&now()).unwrap();
    }
}
