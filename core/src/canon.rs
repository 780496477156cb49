//! Canonical JSON: the bytes `JSON.stringify(value, null, 2) + "\n"` prints for a value whose
//! keys are in schema order. Parsing accepts only bytes that re-serialize to themselves, and
//! says where they first differ, so a hand edit is caught and located.

use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::CanonError;
use crate::limits::MAX_SAFE_INTEGER;
use crate::reader;

/// Serializes any value the way `JSON.stringify(v, null, 2) + "\n"` does.
pub fn to_canonical<T: Serialize>(value: &T) -> Vec<u8> {
    // Serializing the model cannot fail: no maps with non-string keys, no floats.
    let mut out = serde_json::to_vec_pretty(value).expect("model types always serialize");
    out.push(b'\n');
    out
}

/// Compact serialization (`JSON.stringify(v)`), used for digests of single entries.
pub(crate) fn write_compact<T: Serialize>(value: &T, out: &mut Vec<u8>) {
    #[cfg(not(target_family = "wasm"))]
    out.extend(serde_json::to_vec(value).expect("model types always serialize"));
    // In wasm, the canonical text with its layout taken out: the same bytes, and every schema
    // type's serializer compiled once (for the pretty layout) instead of twice.
    #[cfg(target_family = "wasm")]
    squeeze(
        &serde_json::to_vec_pretty(value).expect("model types always serialize"),
        out,
    );
}

/// Appends `pretty` without the whitespace between its tokens. serde_json escapes every
/// control character inside a string, so a newline is always layout, and a space is layout
/// exactly when it stands outside a string.
#[cfg(any(test, target_family = "wasm"))]
fn squeeze(pretty: &[u8], out: &mut Vec<u8>) {
    out.reserve(pretty.len());
    let mut in_string = false;
    let mut escaped = false;
    for &b in pretty {
        if in_string {
            in_string = escaped || b != b'"';
            escaped = !escaped && b == b'\\';
        } else if b == b' ' || b == b'\n' {
            continue;
        } else {
            in_string = b == b'"';
        }
        out.push(b);
    }
}

/// Parses any canonical document (queue file, witness, lock) and checks its bytes. The strict
/// reader accepts canonical bytes in one pass; anything it refuses goes the reference way
/// (serde_json, re-serialize, compare), which gives the precise error.
pub fn parse_canonical<T: DeserializeOwned + Serialize>(bytes: &[u8]) -> Result<T, CanonError> {
    if let Ok(text) = core::str::from_utf8(bytes)
        && let Ok(value) = reader::read(text)
    {
        return Ok(value);
    }
    parse_reference(bytes)
}

/// The reference check: serde_json parses, then the value must re-serialize to the same bytes.
pub fn parse_reference<T: DeserializeOwned + Serialize>(bytes: &[u8]) -> Result<T, CanonError> {
    let value = parse_lenient(bytes)?;
    check_bytes(bytes, &to_canonical(&value))?;
    Ok(value)
}

/// Parses without the byte-for-byte check: UTF-8, integer range and schema only.
pub fn parse_lenient<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, CanonError> {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        return Err(CanonError::ByteOrderMark);
    }
    if let Err(e) = core::str::from_utf8(bytes) {
        let offset = e.valid_up_to();
        let (line, column) = line_col(bytes, offset);
        return Err(CanonError::NotUtf8 {
            offset,
            line,
            column,
        });
    }
    scan_integers(bytes)?;
    serde_json::from_slice(bytes).map_err(|e: serde_json::Error| {
        let offset = offset_of(bytes, e.line(), e.column());
        let message = strip_position(&e);
        let is_json = || serde_json::from_slice::<serde_json::Value>(bytes).is_ok();
        if e.is_data() || (e.is_syntax() && is_json()) {
            CanonError::Schema {
                line: e.line(),
                column: e.column(),
                offset,
                message,
            }
        } else {
            CanonError::Syntax {
                line: e.line(),
                column: e.column(),
                offset,
                message,
            }
        }
    })
}

/// Compares input bytes with their re-serialization and reports the first difference.
pub(crate) fn check_bytes(found: &[u8], expected: &[u8]) -> Result<(), CanonError> {
    if found == expected {
        return Ok(());
    }
    let offset = found
        .iter()
        .zip(expected)
        .position(|(a, b)| a != b)
        .unwrap_or(found.len().min(expected.len()));
    let (line, column) = line_col(found, offset);
    Err(CanonError::NotCanonical {
        offset,
        line,
        column,
        expected: snippet(expected, offset),
        found: snippet(found, offset),
    })
}

/// Refuses integers JavaScript cannot hold exactly, before serde sees them. Strings are
/// skipped; outside them each number token is read whole (sign, integer part, fraction,
/// exponent) and only an integer part past 2^53-1 is refused here: fractions and exponents
/// are left for the schema, which accepts integers only.
fn scan_integers(bytes: &[u8]) -> Result<(), CanonError> {
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'-' | b'0'..=b'9' => {
                let start = i;
                if b == b'-' {
                    i += 1;
                }
                let mut value: u64 = 0;
                let mut overflow = false;
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    let d = u64::from(bytes[i] - b'0');
                    match value.checked_mul(10).and_then(|v| v.checked_add(d)) {
                        Some(v) if v <= MAX_SAFE_INTEGER => value = v,
                        _ => overflow = true,
                    }
                    i += 1;
                }
                if overflow {
                    let (line, column) = line_col(bytes, start);
                    return Err(CanonError::UnsafeInteger {
                        offset: start,
                        line,
                        column,
                    });
                }
                while i < bytes.len()
                    && matches!(bytes[i], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
                {
                    i += 1;
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

/// 1-based line and column of a byte offset.
pub(crate) fn line_col(bytes: &[u8], offset: usize) -> (usize, usize) {
    let upto = &bytes[..offset.min(bytes.len())];
    let line = upto.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = upto.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    (line, offset - line_start + 1)
}

fn offset_of(bytes: &[u8], line: usize, column: usize) -> usize {
    if line == 0 {
        return 0;
    }
    let mut start = 0;
    for _ in 1..line {
        match bytes[start..].iter().position(|&b| b == b'\n') {
            Some(p) => start += p + 1,
            None => return bytes.len(),
        }
    }
    (start + column.saturating_sub(1)).min(bytes.len())
}

/// serde_json appends " at line L column C"; the error variants carry those numbers already.
/// Its messages quote keys and values from the input, so control characters are escaped to
/// keep the message on one line.
fn strip_position(e: &serde_json::Error) -> String {
    let full = alloc::format!("{e}");
    let message = match full.rfind(" at line ") {
        Some(p) => &full[..p],
        None => &full,
    };
    one_line(message)
}

/// `text` with control characters escaped (`\n`, `\u{1b}`), for messages that quote input.
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Up to 24 bytes from `offset`, escaped so control bytes and newlines stay on one line.
fn snippet(bytes: &[u8], offset: usize) -> String {
    let start = offset.min(bytes.len());
    let end = (start + 24).min(bytes.len());
    if start == end {
        return String::from("end of file");
    }
    let text = String::from_utf8_lossy(&bytes[start..end]);
    alloc::format!("{:?}", text.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    struct Doc {
        a: u64,
        b: Vec<String>,
        c: Option<String>,
    }

    #[test]
    fn matches_json_stringify_layout() {
        let d = Doc {
            a: 1,
            b: vec![],
            c: Some(String::from("é\u{1}\"\\\t")),
        };
        let out = String::from_utf8(to_canonical(&d)).unwrap();
        assert_eq!(
            out,
            "{\n  \"a\": 1,\n  \"b\": [],\n  \"c\": \"é\\u0001\\\"\\\\\\t\"\n}\n"
        );
    }

    #[test]
    fn refuses_and_locates_a_difference() {
        let err = parse_canonical::<Doc>(b"{\n  \"a\": 1,\n  \"b\": [],\n  \"c\":  null\n}\n")
            .unwrap_err();
        match err {
            CanonError::NotCanonical { line, column, .. } => assert_eq!((line, column), (4, 8)),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn refuses_unsafe_integers_but_not_digits_in_strings() {
        let ok = b"{\n  \"a\": 9007199254740991,\n  \"b\": [\n    \"99999999999999999999\"\n  ],\n  \"c\": null\n}\n";
        assert!(parse_canonical::<Doc>(ok).is_ok());
        let bad = b"{\n  \"a\": 9007199254740992,\n  \"b\": [],\n  \"c\": null\n}\n";
        assert!(matches!(
            parse_canonical::<Doc>(bad),
            Err(CanonError::UnsafeInteger { line: 2, .. })
        ));
        let fraction = b"{\n  \"a\": 1.12345678901234567890,\n  \"b\": [],\n  \"c\": null\n}\n";
        assert!(matches!(
            parse_canonical::<Doc>(fraction),
            Err(CanonError::Schema { .. })
        ));
        let negative = b"{\n  \"a\": -99999999999999999999,\n  \"b\": [],\n  \"c\": null\n}\n";
        assert!(matches!(
            parse_canonical::<Doc>(negative),
            Err(CanonError::UnsafeInteger { .. })
        ));
    }

    #[test]
    fn squeezed_canonical_text_is_the_compact_serialization() {
        let docs = [
            Doc {
                a: 1,
                b: vec![],
                c: None,
            },
            Doc {
                a: 9007199254740991,
                b: vec![
                    String::from(" a \" b "),
                    String::from("\\"),
                    String::from("x\n\""),
                ],
                c: Some(String::from("é\u{1}\"\\\t : , [ ] { }")),
            },
        ];
        for doc in &docs {
            let mut squeezed = Vec::new();
            squeeze(&to_canonical(doc), &mut squeezed);
            assert_eq!(squeezed, serde_json::to_vec(doc).unwrap());
        }
    }

    #[test]
    fn line_col_counts_from_one() {
        assert_eq!(line_col(b"ab\ncd", 4), (2, 2));
        assert_eq!(line_col(b"", 0), (1, 1));
    }
}
