//! JSON text handled as text, so a document keeps its members in the CLI's order: whitespace
//! outside strings removed, long strings cut, and a document's top-level members listed.

use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

/// `text` with every space, tab and line break outside a string removed: the same JSON value
/// in fewer bytes.
pub fn minify(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(|c: char| c == '"' || c.is_ascii_whitespace()) {
        out.push_str(&rest[..at]);
        if rest.as_bytes()[at] == b'"' {
            let end = string_end(rest, at);
            out.push_str(&rest[at..end]);
            rest = &rest[end..];
        } else {
            rest = &rest[at + 1..];
        }
    }
    out.push_str(rest);
    out
}

/// The index just past the string token that opens at `start` (a `"`), or the text's end.
fn string_end(text: &str, start: usize) -> usize {
    let bytes = text.as_bytes();
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// `text` (minified JSON) with each string token longer than `over` bytes cut to about `keep`
/// bytes of its content and a note of how long it was; also how many were cut. A cut never
/// splits a character, an escape or a surrogate pair.
pub fn cut_strings(text: &str, over: usize, keep: usize) -> (String, usize) {
    let mut out = String::with_capacity(text.len().min(1 << 20));
    let mut cuts = 0;
    let mut rest = text;
    while let Some(at) = rest.find('"') {
        out.push_str(&rest[..at]);
        let end = string_end(rest, at);
        let token = &rest[at..end];
        if token.len() > over && token.len() >= 2 {
            let inner = &token[1..token.len() - 1];
            out.push('"');
            out.push_str(&inner[..cut_point(inner, keep)]);
            out.push_str(&format!("...[{} bytes cut]\"", inner.len()));
            cuts += 1;
        } else {
            out.push_str(token);
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    (out, cuts)
}

/// The largest index at most `keep` (or the first unit's end) that ends a whole unit of a
/// string's content: a character, a two-byte escape, a `\uXXXX` escape or a pair of them.
fn cut_point(inner: &str, keep: usize) -> usize {
    let bytes = inner.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let unit = match bytes[i] {
            b'\\' if bytes.get(i + 1) == Some(&b'u') => {
                let high = inner.get(i + 2..i + 6).is_some_and(|h| {
                    u16::from_str_radix(h, 16).is_ok_and(|v| (0xD800..0xDC00).contains(&v))
                });
                if high && inner.get(i + 6..i + 8) == Some("\\u") {
                    12
                } else {
                    6
                }
            }
            b'\\' => 2,
            _ => inner[i..].chars().next().map_or(1, char::len_utf8),
        };
        if i + unit > keep {
            break;
        }
        i += unit;
    }
    i.min(bytes.len())
}

/// A JSON object's members in order, each value as its own text.
pub struct Members(pub Vec<(String, Box<RawValue>)>);

impl<'de> serde::Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Members, D::Error> {
        struct Ordered;
        impl<'de> Visitor<'de> for Ordered {
            type Value = Members;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = map.next_entry::<String, Box<RawValue>>()? {
                    members.push(member);
                }
                Ok(Members(members))
            }
        }
        d.deserialize_map(Ordered)
    }
}

/// `"key"` as JSON text.
pub fn quoted(key: &str) -> String {
    serde_json::to_string(key).unwrap_or_else(|_| String::from("\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minify_keeps_strings_and_order() {
        let text = "{\n  \"b\": \"a \\\" b\",\n  \"a\": [\n    1,\n    2\n  ]\n}\n";
        assert_eq!(minify(text), "{\"b\":\"a \\\" b\",\"a\":[1,2]}");
    }

    #[test]
    fn cuts_never_split_a_unit() {
        let (out, n) = cut_strings("[\"abcdef\",\"ab\"]", 6, 3);
        assert_eq!((out.as_str(), n), ("[\"abc...[6 bytes cut]\",\"ab\"]", 1));
        // An escape, a two-byte character and a surrogate pair each stay whole.
        let (out, _) = cut_strings("\"a\\u00e9bcdef\"", 4, 4);
        assert_eq!(out, "\"a...[12 bytes cut]\"");
        let (out, _) = cut_strings("\"aéé\"", 3, 2);
        assert_eq!(out, "\"a...[5 bytes cut]\"");
        let (out, _) = cut_strings("\"\\ud83d\\ude00xyz\"", 4, 11);
        assert_eq!(out, "\"...[15 bytes cut]\"");
        let (out, _) = cut_strings("\"x\\\\yz\"", 3, 2);
        assert_eq!(out, "\"x...[5 bytes cut]\"");
    }

    #[test]
    fn members_keep_their_order() {
        let m: Members = serde_json::from_str("{\"z\": 1, \"a\": [2]}").unwrap();
        let keys: Vec<&str> = m.0.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["z", "a"]);
        assert_eq!(m.0[1].1.get(), "[2]");
    }
}
