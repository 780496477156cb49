//! The command JSON `apply` takes, read without serde's buffering of internally tagged enums,
//! which compiles a second deserializer for every command type (a tenth of the module). The
//! verdicts are those of `Command`'s derived `Deserialize`; the tests compare the two.
//!
//! Three passes over the text: `Shape` checks it exactly as the derived code does (each value
//! parsed whole, so syntax and nesting errors land where they did), `members` then finds each
//! member's text, and the variant's own type reads them through serde_json, as the core does.

use mosaic_queue_core::Command;
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;
use std::ops::Range;

/// The verbs as `Command` spells them, in its order (the unknown-verb message lists them): the
/// core's one table.
const VERBS: &[&str] = &mosaic_queue_core::COMMAND_VERBS;

const TAG: &str = "verb";

/// Reads a `Command` from JSON text.
pub fn read(json_text: &str) -> Result<Command, serde_json::Error> {
    let mut json = serde_json::Deserializer::from_slice(json_text.as_bytes());
    let (verb, form) = (&mut json).deserialize_any(Shape)?;
    let mut text = rebuilt(json_text, form);
    let command = loop {
        match variant(verb, &text) {
            Ok(command) => break command,
            Err(e) => match empty_unit(&e, &text) {
                Some(object) => {
                    text = [&text[..object.start], "null", &text[object.end..]].concat()
                }
                None => return Err(as_buffered(&e, &text)),
            },
        }
    };
    json.end()?;
    Ok(command)
}

/// Where serde_json's error `e` in `text` points: one past a byte it peeked at, or the byte it
/// stopped on (its column counts bytes).
fn position(e: &serde_json::Error, text: &str) -> usize {
    let line_start = match e.line() {
        0 | 1 => 0,
        n => text
            .match_indices('\n')
            .nth(n - 2)
            .map_or(0, |(i, _)| i + 1),
    };
    line_start + e.column()
}

/// The buffer reads an empty object as a unit variant's value, as it reads `null`, where
/// serde_json refuses it: the place of the object serde_json refused, if it is empty.
fn empty_unit(e: &serde_json::Error, text: &str) -> Option<Range<usize>> {
    if !e
        .to_string()
        .starts_with("invalid type: map, expected unit")
    {
        return None;
    }
    let start = position(e, text);
    let bytes = text.as_bytes().get(start..)?;
    let space = bytes
        .iter()
        .skip(1)
        .take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        .count();
    (bytes.first() == Some(&b'{') && bytes.get(space + 1) == Some(&b'}'))
        .then_some(start..start + space + 2)
}

/// The derived code reads the variant from a buffer, so its errors carry no position (these
/// come from a rebuilt text, whose positions would mean nothing to the caller). Where serde_json
/// refuses a shape with a syntax error, the buffer answers with a type error; and the buffer
/// refuses an enum written as an object of other than one member before reading that member,
/// where serde_json reads it first. Those are given the buffer's words.
fn as_buffered(e: &serde_json::Error, text: &str) -> serde_json::Error {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full);
    let bytes = text.as_bytes();
    let at = position(e, text);
    if e.is_syntax() {
        let peeked = at
            .checked_sub(1)
            .and_then(|i| bytes.get(i).map(|&b| (i, b)));
        match (message, peeked) {
            // It stopped at the first element a struct read from an array left over, in the
            // innermost array open there: the command's own or one inside a member.
            ("trailing characters", Some((next, _))) => {
                if let Some(open) = members::innermost(text, next) {
                    let elements = members::split(&text[open..]);
                    let read = elements.iter().filter(|m| open + m.at < next).count();
                    return de::Error::invalid_length(elements.len(), &ElementsInSeq(read));
                }
            }
            ("expected value", Some((_, b'}'))) => return single_key(),
            ("expected value", Some((i, b'0'..=b'9' | b'-' | b't' | b'f' | b'n' | b'['))) => {
                if let Ok(value) =
                    Value::deserialize(&mut serde_json::Deserializer::from_slice(&bytes[i..]))
                {
                    return de::Error::invalid_type(unexpected(&value), &"string or map");
                }
            }
            ("expected value", _) if bytes.get(at) == Some(&b',') => return single_key(),
            _ => {}
        }
    } else if message.ends_with("expected unit")
        || (message.starts_with("unknown variant") && follows_key(bytes, at))
    {
        // serde_json refused an enum object's first member: its name (it stopped before the
        // colon) or a unit variant's value. The innermost object open there is that enum.
        if let Some(open) = members::innermost(text, at)
            && bytes[open] == b'{'
            && members::split(&text[open..]).len() != 1
        {
            return single_key();
        }
    }
    de::Error::custom(message)
}

/// Whether the next byte from `at` on, past whitespace, is a colon: what was read is a key.
fn follows_key(bytes: &[u8], at: usize) -> bool {
    bytes
        .get(at..)
        .and_then(|rest| rest.iter().find(|b| !b.is_ascii_whitespace()))
        == Some(&b':')
}

/// An enum written as an object of other than one member.
fn single_key() -> serde_json::Error {
    de::Error::invalid_value(de::Unexpected::Map, &"map with a single key")
}

/// A non-string, non-object value as the buffer describes it.
fn unexpected(value: &Value) -> de::Unexpected<'_> {
    match value {
        Value::Null => de::Unexpected::Unit,
        Value::Bool(b) => de::Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => de::Unexpected::Unsigned(u),
            (None, Some(i)) => de::Unexpected::Signed(i),
            _ => de::Unexpected::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => de::Unexpected::Str(s),
        Value::Array(_) => de::Unexpected::Seq,
        Value::Object(_) => de::Unexpected::Map,
    }
}

/// serde's words for how many elements a struct read from an array.
struct ElementsInSeq(usize);

impl de::Expected for ElementsInSeq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            1 => f.write_str("1 element in sequence"),
            n => write!(f, "{n} elements in sequence"),
        }
    }
}

/// Through `from_slice`, as the core reads files, so each type's reader is the core's.
fn variant(verb: usize, text: &str) -> Result<Command, serde_json::Error> {
    let bytes = text.as_bytes();
    Ok(match VERBS.get(verb).copied().unwrap_or_default() {
        "add" => Command::Add(serde_json::from_slice(bytes)?),
        "move" => Command::Move(serde_json::from_slice(bytes)?),
        "release" => Command::Release(serde_json::from_slice(bytes)?),
        "assign" => Command::Assign(serde_json::from_slice(bytes)?),
        "note" => Command::Note(serde_json::from_slice(bytes)?),
        "set" => Command::Set(serde_json::from_slice(bytes)?),
        "accept-history" => Command::AcceptHistory(serde_json::from_slice(bytes)?),
        "review-request" => Command::ReviewRequest(serde_json::from_slice(bytes)?),
        "review-outcome" => Command::ReviewOutcome(serde_json::from_slice(bytes)?),
        "review-resolve" => Command::ReviewResolve(serde_json::from_slice(bytes)?),
        "review-abandon" => Command::ReviewAbandon(serde_json::from_slice(bytes)?),
        "review-record" => Command::ReviewRecord(serde_json::from_slice(bytes)?),
        "take" => Command::Take(serde_json::from_slice(bytes)?),
        "lease-default" => Command::LeaseDefault(serde_json::from_slice(bytes)?),
        "reclaim" => Command::Reclaim(serde_json::from_slice(bytes)?),
        "replication" => Command::Replication(serde_json::from_slice(bytes)?),
        "adopt" => Command::Adopt(serde_json::from_slice(bytes)?),
        other => return Err(de::Error::unknown_variant(other, VERBS)),
    })
}

/// How the variant's members were written: `{…}`, or `[verb, …]` (serde reads both).
#[derive(Clone, Copy)]
enum Members {
    Object,
    Array,
}

/// The first pass: the verb's index and the members' form, with the derived code's checks.
struct Shape;

impl<'de> Visitor<'de> for Shape {
    type Value = (usize, Members);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("internally tagged enum Command")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut verb = None;
        while let Some(is_tag) = map.next_key_seed(Key)? {
            if !is_tag {
                map.next_value::<Value>()?;
            } else if verb.is_some() {
                return Err(de::Error::duplicate_field(TAG));
            } else {
                verb = Some(map.next_value_seed(Verb)?);
            }
        }
        let verb = verb.ok_or_else(|| de::Error::missing_field(TAG))?;
        Ok((verb, Members::Object))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let verb = seq
            .next_element_seed(Verb)?
            .ok_or_else(|| de::Error::missing_field(TAG))?;
        while seq.next_element::<Value>()?.is_some() {}
        Ok((verb, Members::Array))
    }
}

/// A member's key: whether it is the tag.
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<bool, E> {
        Ok(v == TAG)
    }
}

/// The tag's value: the index of a verb in `VERBS`.
struct Verb;

impl<'de> DeserializeSeed<'de> for Verb {
    type Value = usize;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for Verb {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("variant identifier")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<usize, E> {
        VERBS
            .iter()
            .position(|&verb| verb == v)
            .ok_or_else(|| de::Error::unknown_variant(v, VERBS))
    }
}

/// The members of `text` as written, the tag's dropped, as a document of their own for the
/// variant's type to read.
fn rebuilt(text: &str, form: Members) -> String {
    let mut out = String::new();
    let is_tag =
        |key: &str| serde_json::from_slice::<String>(key.as_bytes()).is_ok_and(|k| k == TAG);
    let (open, close) = match form {
        Members::Object => ('{', '}'),
        Members::Array => ('[', ']'),
    };
    out.push(open);
    let mut first = true;
    for (i, member) in members::split(text).into_iter().enumerate() {
        match (form, member.key) {
            (Members::Object, Some(key)) if is_tag(key) => continue,
            // The first element is the verb.
            (Members::Array, _) if i == 0 => continue,
            _ => {}
        }
        if !first {
            out.push(',');
        }
        first = false;
        if let Some(key) = member.key {
            out.push_str(key);
            out.push(':');
        }
        out.push_str(member.value);
    }
    out.push(close);
    out
}

mod members;
#[cfg(test)]
mod tests;
