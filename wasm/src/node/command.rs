//! The command JSON `apply` takes, read without serde's buffering of internally tagged enums,
//! which compiles a second deserializer for every command type (a tenth of the module). The
//! verdicts are those of `Command`'s derived `Deserialize`; the tests compare the two.
//!
//! Three passes over the text: `shape` checks it exactly as the derived code does (each value
//! parsed whole, so syntax and nesting errors land where they did), `raw` takes each member's
//! text, and the variant's own type reads its members through serde_json, as the core does.

use mosaic_queue_core::Command;
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;
use std::fmt;

/// The verbs as `Command` spells them, in its order (the unknown-verb message lists them).
const VERBS: &[&str] = &[
    "add",
    "move",
    "release",
    "assign",
    "note",
    "set",
    "accept-history",
    "review-request",
    "review-outcome",
    "review-resolve",
    "review-abandon",
    "review-record",
];

const TAG: &str = "verb";

/// Reads a `Command` from JSON text.
pub fn read(bytes: &[u8]) -> Result<Command, serde_json::Error> {
    let mut json = serde_json::Deserializer::from_slice(bytes);
    let (verb, members) = (&mut json).deserialize_any(Shape)?;
    let parts = serde_json::Deserializer::from_slice(bytes).deserialize_any(Raw)?;
    let (text, starts) = parts.text(members);
    let command = variant(verb, &text).map_err(|e| as_buffered(&e, &text, &starts))?;
    json.end()?;
    Ok(command)
}

/// The derived code reads the variant from a buffer, so its errors carry no position (these
/// come from a rebuilt text, whose positions would mean nothing to the caller). Where serde_json
/// refuses a shape with a syntax error, the buffer answers with a type error; those are given
/// the buffer's words. `starts` are the offsets of an array form's elements.
fn as_buffered(e: &serde_json::Error, text: &str, starts: &[usize]) -> serde_json::Error {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full);
    if e.is_syntax() {
        let bytes = text.as_bytes();
        let line_start = match e.line() {
            0 | 1 => 0,
            n => text
                .match_indices('\n')
                .nth(n - 2)
                .map_or(0, |(i, _)| i + 1),
        };
        // serde_json's column is one past a byte it peeked at, or at the byte it stopped on.
        let at = line_start + e.column();
        let peeked = at
            .checked_sub(1)
            .and_then(|i| bytes.get(i).map(|&b| (i, b)));
        match (message, peeked) {
            ("trailing characters", Some((next, _))) => {
                let read = starts.iter().filter(|&&start| start < next).count();
                return de::Error::invalid_length(starts.len(), &ElementsInSeq(read));
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
    }
    de::Error::custom(message)
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

/// The second pass: each member's text, key and value as written, the tag's dropped.
struct Raw;

#[derive(Default)]
struct Parts<'de> {
    members: Vec<(&'de RawValue, &'de RawValue)>,
    elements: Vec<&'de RawValue>,
}

impl Parts<'_> {
    /// The members as a document of their own, for the variant's type to read, and where an
    /// array form's elements start in it.
    fn text(&self, form: Members) -> (String, Vec<usize>) {
        let mut out = String::new();
        let mut starts = Vec::new();
        match form {
            Members::Object => {
                out.push('{');
                for (i, (key, value)) in self.members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(key.get());
                    out.push(':');
                    out.push_str(value.get());
                }
                out.push('}');
            }
            Members::Array => {
                out.push('[');
                for (i, element) in self.elements.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    starts.push(out.len());
                    out.push_str(element.get());
                }
                out.push(']');
            }
        }
        (out, starts)
    }
}

impl<'de> Visitor<'de> for Raw {
    type Value = Parts<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("internally tagged enum Command")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Parts<'de>, A::Error> {
        let mut parts = Parts::default();
        while let Some(key) = map.next_key::<&RawValue>()? {
            let value = map.next_value::<&RawValue>()?;
            let name = serde_json::from_slice::<String>(key.get().as_bytes());
            let is_tag = name.is_ok_and(|name| name == TAG);
            if !is_tag {
                parts.members.push((key, value));
            }
        }
        Ok(parts)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Parts<'de>, A::Error> {
        let mut parts = Parts::default();
        // The first element is the verb.
        seq.next_element::<&RawValue>()?;
        while let Some(element) = seq.next_element::<&RawValue>()? {
            parts.elements.push(element);
        }
        Ok(parts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn derived(text: &str) -> Result<Command, String> {
        serde_json::from_slice::<Command>(text.as_bytes()).map_err(|e| e.to_string())
    }

    fn ours(text: &str) -> Result<Command, String> {
        read(text.as_bytes()).map_err(|e| e.to_string())
    }

    /// Commands that apply, and commands malformed in every way found: as objects and arrays,
    /// keys repeated, escaped and out of order, every verb's fields missing, unknown or of the
    /// wrong type, enums as strings, objects, numbers and arrays, trailing text.
    const SAME: &[&str] = &[
        r#"{"verb":"add","piece":"P","issues":[3,1,3]}"#,
        r#"{"verb":"add","piece":"P","status":"parked","extra":1}"#,
        r#"{"piece":"P","verb":"add"}"#,
        r#"{"piece":"P","verb":"add"}"#,
        r#"{"verb":"add","piece":"P","piece":"Q"}"#,
        r#"{"verb":"add","verb":"add","piece":"P"}"#,
        r#"{"verb":"add"}"#,
        r#"{"verb":"fly"}"#,
        r#"{"verb":5}"#,
        r#"{"verb":null}"#,
        r#"{}"#,
        r#"[]"#,
        r#"[1,2]"#,
        r#""move""#,
        r#"{"verb":"#,
        r#"{"verb":"move","id":1,"to":"sideways"}"#,
        r#"{"verb":"move","id":1,"to":5}"#,
        r#"{"verb":"move","id":1,"to":{"done":null}}"#,
        r#"{"verb":"move","id":1,"to":{"done":5}}"#,
        r#"{"verb":"move","id":1}"#,
        r#"{"verb":"move","id":-1,"to":"done"}"#,
        r#"{"verb":"move","id":1.5,"to":"done"}"#,
        r#"{"verb":"move","id":"1","to":"done"}"#,
        r#"{"verb":"move","id":1,"to":"in-progress","bogus":true}"#,
        r#"{"verb":"move","id":1,"to":"in-progress","reason":null}"#,
        r#"{"verb":"move","id":1,"to":"blocked","reason":"r"}"#,
        r#"{"verb":"move","id":1,"id":2,"to":"done"}"#,
        r#"{"verb":"release","id":1}"#,
        r#"{"verb":"release","id":100000000000000000000}"#,
        r#"{"verb":"assign","id":1,"owner":"darkwing"}"#,
        r#"{"verb":"assign","id":1}"#,
        r#"{"verb":"note","id":1,"text":null}"#,
        r#"{"verb":"note","id":1,"text":"hi\nthere"}"#,
        r#"{"verb":"set","id":1,"field":"issues","value":[5,4]}"#,
        r#"{"verb":"set","id":1,"field":"issues","value":"x"}"#,
        r#"{"verb":"set","id":1,"field":"piece","value":7}"#,
        r#"{"verb":"set","id":1,"field":"nope","value":7}"#,
        r#"{"verb":"set","id":1,"field":3,"value":7}"#,
        r#"{"verb":"set","id":1,"field":"reviewers","value":["a","b"]}"#,
        r#"{"verb":"accept-history","reason":"r","yes":true}"#,
        r#"{"verb":"accept-history","reason":"r","yes":true,"oldWitness":{"revision":1,"logDigest":"x","fileSha":"y","at":"2026-12-01T09:00:00.000Z"}}"#,
        r#"{"verb":"accept-history","reason":"r","oldWitness":{"revision":1}}"#,
        r#"{"verb":"accept-history","reason":"r","oldWitness":[1,"x","y","2026-12-01T09:00:00.000Z"]}"#,
        r#"{"verb":"review-request","id":1}"#,
        r#"{"verb":"review-outcome","id":1,"attempt":"a","result":"posted","status":201,"detail":"d","comment":5}"#,
        r#"{"verb":"review-outcome","id":1,"attempt":"a","result":"posted","status":70000,"detail":"d","comment":5}"#,
        r#"{"verb":"review-outcome","id":1,"attempt":"a","result":"lost","status":null,"detail":"d","comment":null}"#,
        r#"{"verb":"review-resolve","id":1,"attempt":"a","comment":3}"#,
        r#"{"verb":"review-abandon","id":1,"attempt":"a","reason":"r","yes":true}"#,
        r#"{"verb":"review-abandon","id":1,"attempt":"a"}"#,
        r#"{"verb":"review-record","id":1,"verdict":"approve","comment":3,"candidate":"c"}"#,
        r#"{"verb":"review-record","id":1,"verdict":"maybe","comment":3,"candidate":"c"}"#,
        r#"{"verb":"genesis","branch":"b"}"#,
        r#"{"verb":"release","id":1}  "#,
        r#"{"verb":"release","id":1} x"#,
        r#"{"ve\u0072b":"release","id":1}"#,
        r#"{"verb":"rel\u0065ase","id":1}"#,
        r#"{"verb":"release","i\u0064":1}"#,
        r#"{"verb":"add","piece":"\ud800"}"#,
        r#"["release", 1]"#,
        r#"["release"]"#,
        r#"["release", 1, 2]"#,
        r#"["move", 1, "done", null, null, null, null, null, 5]"#,
        r#"["move", 1, 5]"#,
        r#"{"verb":"move","id":1,"to":{"done":null,"x":1}}"#,
        r#"{"verb":"move","id":1,"to":{}}"#,
        r#"{"verb":"move","id":1,"to":[1]}"#,
        r#"{"verb":"move","id":1,"to":true}"#,
        r#"{"verb":"move","id":1,"to":-2.5e3}"#,
        r#"{"verb":"move","id":1,"to":null}"#,
        r#"{"verb":"move","id":1,"to":-7}"#,
        r#"{"verb":"move","id":1,"reason":"x",
 "to":
 [1,
 2]}"#,
        r#"{"verb":"move","id":1,"reason":[1,
2],"to":false}"#,
        r#"{"verb":"move","id":1,"to":"done","evidence":{"comment":1,"comment":2}}"#,
        r#"{"verb":"move","id":1,"to":"done","evidence":[1]}"#,
        r#"{"verb":"move","id":1,"to":"done","evidence":5}"#,
        r#"{"verb":"accept-history","reason":"r","oldWitness":{"revision":1,"revision":2}}"#,
        r#"{"verb":"set","id":1,"field":"issues","value":{"a":1,"a":2}}"#,
        r#"{"verb":"release","id":1,"verb":"x"}"#,
        r#"{"id":1,"verb":"release","id":2}"#,
        r#"{"verb":"move","id":1,"to":"done"} x"#,
        r#"{"verb":"move","id":1} x"#,
        r#"{"verb":"move","id":1,"to":5} x"#,
        r#"  {"verb":"release","id":1}"#,
        r#"{"verb":"move","id":1,"to":{"done":null ,"x":1}}"#,
        r#"{"verb":"move","id":1,"to":{ }}"#,
        r#"{"verb":"move","id":1,"to":{"done":null}}"#,
        r#"{"verb":"move",
"id":1,
"reason":"a\nb",
"to":
7}"#,
        r#"{"verb":"move",
"id":1,
"reason":[
1],
"to":
[
7]}"#,
        r#"["move"]"#,
        r#"["move", 1]"#,
        r#"["move", 1, "done"]"#,
        r#"["move", 1, "done", null, null, null, null, null]"#,
        r#"["move", 1, "done", null, null, null, null, null, 5, 6]"#,
        r#"["move", 1, {}]"#,
        r#"["move", 1, {"done":null,"a":1}]"#,
        r#"["release", 1, [1,
 2]]"#,
        r#"["add", "P"]"#,
        r#"["add", "P", null, "queued", null, [], [], null, null, 9]"#,
        r#"{"verb":"set","id":1,"field":{"piece":null},"value":"x"}"#,
        r#"{"verb":"set","id":1,"field":{},"value":"x"}"#,
        r#"{"verb":"review-outcome","id":1,"attempt":"a","result":-0,"status":null,"detail":"d","comment":null}"#,
        r#"{"verb":"review-outcome","id":1,"attempt":"a","result":1.0e400,"status":null,"detail":"d","comment":null}"#,
        r#"{"verb":"review-record","id":1,"verdict":[],"comment":3,"candidate":"c"}"#,
        r#"{"verb":"review-record","id":1,"verdict":false,"comment":3,"candidate":"c"}"#,
        r#"{"verb":"move","id":1,"to":"done","evidence":{"comment":1,"round":1,"candidate":"x","candidate":"y"}}"#,
        r#"{"verb":"accept-history","reason":"r","oldWitness":{"revision":1,"logDigest":"a","fileSha":"b","at":"c"},"yes":true}"#,
        r#"{"verb":"accept-history","reason":"r","oldWitness":{"revision":1,"logDigest":"a","fileSha":"b","at":"c","x":1}}"#,
        r#"{"$serde_json::private::RawValue":1,"verb":"release","id":1}"#,
        r#"{"verb":"add","piece":"caf\u00e9 \"q\""}"#,
    ];

    #[test]
    fn answers_as_the_derived_code_does() {
        for text in SAME {
            assert_eq!(ours(text), derived(text), "{text}");
        }
    }

    #[test]
    fn nesting_is_refused_where_the_derived_code_refuses_it() {
        let deep = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        for depth in [126, 127, 128, 200] {
            for text in [
                format!(r#"{{"verb":"release","id":{}}}"#, deep(depth)),
                format!(r#"{{"verb":"add","piece":"P","extra":{}}}"#, deep(depth)),
                format!(r#"["add","P",null,"queued",null,{}]"#, deep(depth)),
            ] {
                assert_eq!(ours(&text), derived(&text), "depth {depth}: {text}");
            }
        }
    }

    #[test]
    fn the_verbs_are_the_commands_verbs() {
        for verb in VERBS {
            let answer = derived(&format!(r#"{{"verb":"{verb}"}}"#));
            assert!(!answer.unwrap_err().contains("unknown variant"), "{verb}");
        }
        let unknown = r#"{"verb":"fly"}"#;
        assert_eq!(ours(unknown), derived(unknown));
    }

    /// The one difference known: an enum written as an object of several members, whose first
    /// member is itself wrong, is worded by that member rather than by the member count.
    #[test]
    fn an_enum_object_of_several_members_is_worded_by_its_first_member() {
        let text = r#"{"verb":"move","id":1,"to":{"nope":null,"x":1}}"#;
        assert_eq!(
            derived(text).unwrap_err(),
            "invalid value: map, expected map with a single key"
        );
        assert!(
            ours(text)
                .unwrap_err()
                .starts_with("unknown variant `nope`, expected one of")
        );
        let text = r#"{"verb":"move","id":1,"to":{"done":5,"x":1}}"#;
        assert_eq!(
            ours(text).unwrap_err(),
            "invalid type: integer `5`, expected unit"
        );
        let single = r#"{"verb":"move","id":1,"to":{"done":null,"x":1}}"#;
        assert_eq!(ours(single), derived(single));
    }
}
