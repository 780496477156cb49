//! The fast path of canonical parsing: a serde `Deserializer` that accepts only the exact
//! layout `JSON.stringify(v, null, 2) + "\n"` prints, with keys in schema order, so a file is
//! parsed and checked in one pass with no re-serialization. Any refusal here sends the caller
//! to the reference path in `canon` (serde_json, then re-serialize and compare), which decides
//! and explains; this reader never has the last word on an error.

use alloc::string::String;
use core::fmt;
use serde::Deserialize;
use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

use crate::limits::MAX_SAFE_INTEGER;

/// Keys the canonical form leaves out when they hold nothing, by struct: a row's and an
/// `add`'s dependencies (semantics 3); a row's lease and fences, a claim's lease, a take's
/// reclaim and an epoch's lease default (semantics 7); an epoch's replication setting
/// (semantics 8). Each stands after every key that is always written.
const OMITTED_WHEN_EMPTY: &[(&str, &str)] = &[
    ("Row", "after"),
    ("Row", "lease"),
    ("Row", "fenced"),
    ("AddArgs", "after"),
    ("MoveArgs", "lease"),
    ("TakeArgs", "lease"),
    ("TakeArgs", "reclaim"),
    ("EpochState", "leaseDefault"),
    ("EpochState", "replication"),
];

/// Whether `field` of struct `name` is left out when it holds nothing.
fn omitted(name: &str, field: &str) -> bool {
    OMITTED_WHEN_EMPTY.contains(&(name, field))
}

/// Deeper than any queue document; a cap so hostile nesting cannot exhaust the stack.
const MAX_DEPTH: usize = 64;

/// The bytes are not in the canonical layout (or not of type `T`); `canon` says why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reject;

impl fmt::Display for Reject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not in canonical layout")
    }
}

impl core::error::Error for Reject {}

impl de::Error for Reject {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Reject
    }
}

/// Reads a `T` from text that must be exactly its canonical serialization.
pub fn read<'de, T: Deserialize<'de>>(text: &'de str) -> Result<T, Reject> {
    let mut r = Reader {
        bytes: text.as_bytes(),
        text,
        pos: 0,
        depth: 0,
    };
    let value = T::deserialize(&mut r)?;
    r.expect(b"\n")?;
    if r.pos == r.bytes.len() {
        Ok(value)
    } else {
        Err(Reject)
    }
}

struct Reader<'de> {
    text: &'de str,
    bytes: &'de [u8],
    pos: usize,
    /// Containers open around the current position.
    depth: usize,
}

impl<'de> Reader<'de> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn expect(&mut self, token: &[u8]) -> Result<(), Reject> {
        if self.bytes[self.pos..].starts_with(token) {
            self.pos += token.len();
            Ok(())
        } else {
            Err(Reject)
        }
    }

    /// Whether the member here is key `name` (its quotes and colon included).
    fn at_key(&self, name: &str) -> bool {
        let rest = &self.bytes[self.pos..];
        rest.len() > name.len() + 2
            && rest[0] == b'"'
            && rest[1..].starts_with(name.as_bytes())
            && rest[name.len() + 1..].starts_with(b"\":")
    }

    fn indent(&mut self, level: usize) -> Result<(), Reject> {
        let n = level * 2;
        let end = self.pos + n;
        if end <= self.bytes.len() && self.bytes[self.pos..end].iter().all(|&b| b == b' ') {
            self.pos = end;
            Ok(())
        } else {
            Err(Reject)
        }
    }

    /// Enters a container after its opening byte: `Ok(false)` for an empty one (`[]`, `{}`).
    fn open(&mut self, close: u8) -> Result<bool, Reject> {
        if self.peek() == Some(close) {
            self.pos += 1;
            return Ok(false);
        }
        self.expect(b"\n")?;
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Reject);
        }
        Ok(true)
    }

    /// Between members: `Ok(true)` after `,\n` and the indent, `Ok(false)` after the close.
    fn next_member(&mut self, first: bool, close: u8) -> Result<bool, Reject> {
        if !first {
            if self.peek() == Some(b',') {
                self.expect(b",\n")?;
            } else {
                self.expect(b"\n")?;
                self.depth -= 1;
                self.indent(self.depth)?;
                return self.expect(&[close]).map(|()| false);
            }
        }
        self.indent(self.depth)?;
        Ok(true)
    }

    fn integer(&mut self) -> Result<u64, Reject> {
        let start = self.pos;
        let mut value: u64 = 0;
        while let Some(b @ b'0'..=b'9') = self.peek() {
            value = value * 10 + u64::from(b - b'0');
            if value > MAX_SAFE_INTEGER {
                return Err(Reject);
            }
            self.pos += 1;
        }
        let digits = self.pos - start;
        let leading_zero = digits > 1 && self.bytes[start] == b'0';
        if digits == 0 || leading_zero {
            return Err(Reject);
        }
        Ok(value)
    }

    /// A string whose escapes are exactly the ones JSON.stringify writes. Returns the raw
    /// slice when it has no escapes, else the decoded text.
    fn string(&mut self) -> Result<Str<'de>, Reject> {
        self.expect(b"\"")?;
        let start = self.pos;
        let mut owned: Option<String> = None;
        let mut run = start;
        loop {
            let b = *self.bytes.get(self.pos).ok_or(Reject)?;
            match b {
                b'"' => {
                    let tail = &self.text[run..self.pos];
                    self.pos += 1;
                    return Ok(match owned {
                        None => Str::Borrowed(tail),
                        Some(mut s) => {
                            s.push_str(tail);
                            Str::Owned(s)
                        }
                    });
                }
                b'\\' => {
                    let s = owned.get_or_insert_with(String::new);
                    s.push_str(&self.text[run..self.pos]);
                    let c = self.escape()?;
                    s.push(c);
                    run = self.pos;
                }
                0x00..=0x1f => return Err(Reject),
                _ => self.pos += 1 + plain_run(&self.bytes[self.pos + 1..]),
            }
        }
    }

    /// One escape after its backslash; only the canonical spelling of each character passes.
    fn escape(&mut self) -> Result<char, Reject> {
        let code = *self.bytes.get(self.pos + 1).ok_or(Reject)?;
        self.pos += 2;
        Ok(match code {
            b'"' => '"',
            b'\\' => '\\',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hex = self.bytes.get(self.pos..self.pos + 4).ok_or(Reject)?;
                let digit = |b: u8| match b {
                    b'0'..=b'9' => Ok(b - b'0'),
                    b'a'..=b'f' => Ok(b - b'a' + 10),
                    _ => Err(Reject),
                };
                if &hex[..2] != b"00" {
                    return Err(Reject);
                }
                let value = digit(hex[2])? * 16 + digit(hex[3])?;
                if value >= 0x20 || matches!(value, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d) {
                    return Err(Reject);
                }
                self.pos += 4;
                char::from(value)
            }
            _ => return Err(Reject),
        })
    }
}

/// How many leading bytes need no attention inside a string: none of `"`, `\\` or a control
/// byte. Eight bytes at a time, since strings are most of a queue file.
fn plain_run(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let flags = |w: u64| {
        let below = |n: u64| w.wrapping_sub(ONES * n) & !w & HIGHS;
        let equal = |c: u64| {
            let x = w ^ (ONES * c);
            x.wrapping_sub(ONES) & !x & HIGHS
        };
        below(0x20) | equal(u64::from(b'"')) | equal(u64::from(b'\\'))
    };
    let mut n = 0;
    while let Some(chunk) = bytes.get(n..n + 8) {
        let w = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        let f = flags(w);
        if f != 0 {
            // The lowest flagged byte is exact; borrows only disturb bytes above it.
            return n + (f.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    n
}

enum Str<'de> {
    Borrowed(&'de str),
    Owned(String),
}

impl<'de> Str<'de> {
    fn visit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Reject> {
        match self {
            Str::Borrowed(s) => visitor.visit_borrowed_str(s),
            Str::Owned(s) => visitor.visit_string(s),
        }
    }
}

struct Members<'a, 'de> {
    r: &'a mut Reader<'de>,
    name: &'static str,
    fields: &'static [&'static str],
    next: usize,
    open: bool,
}

impl<'de> MapAccess<'de> for Members<'_, 'de> {
    type Error = Reject;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Reject> {
        if !self.open {
            return Ok(None);
        }
        let first = self.next == 0;
        if self.next == self.fields.len() {
            // Every field was read; the object must close here.
            if self.r.next_member(first, b'}')? {
                return Err(Reject);
            }
            self.open = false;
            return Ok(None);
        }
        if !self.r.next_member(first, b'}')? {
            // The object closed early: only trailing keys written when not empty may be absent.
            if self.fields[self.next..]
                .iter()
                .all(|f| omitted(self.name, f))
            {
                self.open = false;
                return Ok(None);
            }
            return Err(Reject);
        }
        // Keys left out when empty are passed over until the key written here.
        while omitted(self.name, self.fields[self.next]) && !self.r.at_key(self.fields[self.next]) {
            self.next += 1;
            if self.next == self.fields.len() {
                return Err(Reject);
            }
        }
        let name = self.fields[self.next];
        self.r.expect(b"\"")?;
        self.r.expect(name.as_bytes())?;
        self.r.expect(b"\": ")?;
        self.next += 1;
        seed.deserialize(BorrowedStrDeserializer::new(name))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Reject> {
        seed.deserialize(&mut *self.r)
    }
}

struct Elements<'a, 'de> {
    r: &'a mut Reader<'de>,
    first: bool,
    open: bool,
}

impl<'de> SeqAccess<'de> for Elements<'_, 'de> {
    type Error = Reject;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Reject> {
        if !self.open {
            return Ok(None);
        }
        if !self.r.next_member(self.first, b']')? {
            self.open = false;
            return Ok(None);
        }
        self.first = false;
        seed.deserialize(&mut *self.r).map(Some)
    }
}

impl<'de> Reader<'de> {
    fn seq<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, Reject> {
        self.expect(b"[")?;
        let open = self.open(b']')?;
        let mut access = Elements {
            r: self,
            first: true,
            open,
        };
        let value = visitor.visit_seq(&mut access)?;
        // A tuple or fixed-size array (the ranges and pairs of an epoch entry) reads its
        // elements and stops: the array must close right after them.
        if access.open && access.r.next_member(access.first, b']')? {
            return Err(Reject);
        }
        Ok(value)
    }
}

impl<'de> de::Deserializer<'de> for &mut Reader<'de> {
    type Error = Reject;

    /// Only for values typed at run time (a `set` value): scalars and arrays. Objects have no
    /// schema order to check against, and no such value holds one, so they are refused.
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Reject> {
        match self.peek().ok_or(Reject)? {
            b'"' => self.string()?.visit(visitor),
            b'[' => self.seq(visitor),
            b'0'..=b'9' => visitor.visit_u64(self.integer()?),
            b't' | b'f' => self.deserialize_bool(visitor),
            b'n' => {
                self.expect(b"null")?;
                visitor.visit_unit()
            }
            _ => Err(Reject),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Reject> {
        if self.expect(b"true").is_ok() {
            visitor.visit_bool(true)
        } else {
            self.expect(b"false")?;
            visitor.visit_bool(false)
        }
    }

    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Reject> {
        visitor.visit_u64(self.integer()?)
    }

    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Reject> {
        visitor.visit_u64(self.integer()?)
    }

    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Reject> {
        visitor.visit_u64(self.integer()?)
    }

    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Reject> {
        visitor.visit_u64(self.integer()?)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Reject> {
        self.string()?.visit(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Reject> {
        self.string()?.visit(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Reject> {
        if self.expect(b"null").is_ok() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Reject> {
        self.seq(visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Reject> {
        self.expect(b"{")?;
        let open = self.open(b'}')?;
        if open == fields.is_empty() {
            return Err(Reject);
        }
        let mut access = Members {
            r: self,
            name,
            fields,
            next: 0,
            open,
        };
        let value = visitor.visit_map(&mut access)?;
        if access.open {
            return Err(Reject);
        }
        Ok(value)
    }

    /// Unit variants only (statuses, verbs, fields), spelled without escapes.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Reject> {
        match self.string()? {
            Str::Borrowed(s) => visitor.visit_enum(BorrowedStrDeserializer::new(s)),
            Str::Owned(_) => Err(Reject),
        }
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Reject> {
        self.deserialize_str(visitor)
    }

    serde::forward_to_deserialize_any! {
        i8 i16 i32 i64 i128 u128 f32 f64 char bytes byte_buf unit unit_struct
        newtype_struct tuple tuple_struct map ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::plain_run;

    #[test]
    fn plain_run_stops_at_the_first_byte_that_needs_attention() {
        assert_eq!(plain_run(b""), 0);
        assert_eq!(
            plain_run(b"abc"),
            0,
            "a tail shorter than a word is left to the byte loop"
        );
        assert_eq!(plain_run(b"abcdefgh"), 8);
        for (i, stop) in [b'"', b'\\', 0x00, 0x1f].into_iter().enumerate() {
            for at in 0..16 {
                let mut text = *b"0123456789abcdefghijklmnopqrstuv";
                text[at] = stop;
                assert_eq!(plain_run(&text), at, "case {i} at {at}");
            }
        }
        let utf8 = "ééééééééé\"".as_bytes();
        assert_eq!(plain_run(utf8), 16, "bytes above 0x7f are plain");
        assert_eq!(plain_run(b"\x7f\x20!#[]~\x80\x1f"), 8);
    }
}
