//! `read` against the derived `Deserialize` of `Command`: the same value or the same error
//! text for every command here, the buffer's words included where serde_json alone words it
//! otherwise (enum objects of several members, arrays too long inside a member).

use super::*;

fn derived(text: &str) -> Result<Command, String> {
    serde_json::from_slice::<Command>(text.as_bytes()).map_err(|e| e.to_string())
}

fn ours(text: &str) -> Result<Command, String> {
    read(text).map_err(|e| e.to_string())
}

/// Commands that apply, and commands malformed in every way found: as objects and arrays,
/// keys repeated, escaped and out of order, every verb's fields missing, unknown or of the
/// wrong type, enums as strings, objects, numbers and arrays, trailing text.
const SAME: &[&str] = &[
    r#"{ "verb" : "release" , "id" : 1 }"#,
    r#"[ "release" , 1 ]"#,
    "{\t\"verb\":\r\n\"move\",\"id\":1,\"to\":\"done\",\"reason\":\"r\" }",
    r#"{"verb":"move","id":1,"to":"done","reason":"q\"]},[{\\"}"#,
    r#"{"verb":"move","id":1,"reason":["]",{"}":"["}],"to":"done"}"#,
    r#"{"verb":"add","pie\"ce":1,"piece":"P"}"#,
    r#"{"verb":"add","piece":"P","note":"\u0022verb\u0022"}"#,
    r#"{"verb":"add","piece":"é ✓ 𝄞","gate":"x"}"#,
    r#"{"verb":"set","id":1,"field":"issues","value":[ 1 , 2 ]}"#,
    r#"{"verb":"set","id":1,"field":"piece","value":{"a":[1,{"b":"}"}]}}"#,
    r#"{"verb":"release","id":1e0}"#,
    r#"{"verb":"release","id":-0}"#,
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
        let text = format!(r#"{{"verb":"{verb}"}}"#);
        // `take` has no members, so it alone reads; the others miss a required one.
        let answer = derived(&text);
        assert!(
            answer
                .as_ref()
                .err()
                .is_none_or(|e| !e.contains("unknown variant")),
            "{verb}"
        );
        assert_eq!(ours(&text), answer, "{verb}");
    }
    let unknown = r#"{"verb":"fly"}"#;
    assert_eq!(ours(unknown), derived(unknown));
}

const SINGLE_KEY: &str = "invalid value: map, expected map with a single key";

/// The buffer counts an enum object's members before reading the first; serde_json reads the
/// first and would refuse its name or its value in their own words.
#[test]
fn an_enum_object_of_several_members_is_refused_by_its_count() {
    for text in [
        r#"{"verb":"move","id":1,"to":{"nope":null,"x":1}}"#,
        r#"{"verb":"move","id":1,"to":{"nope" :null,"x":1}}"#,
        r#"{"verb":"move","id":1,"to":{"done":5,"x":1}}"#,
        r#"{"verb":"move","id":1,"to":{"done":"x","x":1}}"#,
        r#"{"verb":"move","id":1,"to":{"done":{"a":1},"x":1}}"#,
        r#"{"verb":"move","id":1,"to":{"done":[1,
2],"x":1}}"#,
        r#"{"verb":"move","id":1,"to":{"done":null,"x":1}}"#,
        r#"{"verb":"move","id":1,"to":{"nope":null,"nope":null}}"#,
        r#"["move", 1, {"nope":null,"a":1}]"#,
        r#"{"verb":"add","piece":"P","status":{"queued":true,"x":1}}"#,
        r#"{"verb":"set","id":1,"field":{"nope":null,"x":1},"value":"x"}"#,
        r#"{"verb":"review-outcome","id":1,"attempt":"a","result":{"lost":null,"x":1},"status":null,"detail":"d","comment":null}"#,
        r#"{"verb":"review-record","id":1,"verdict":{"approve":-1.5,"x":1},"comment":3,"candidate":"c"}"#,
    ] {
        assert_eq!(ours(text).unwrap_err(), SINGLE_KEY, "{text}");
        assert_eq!(ours(text), derived(text), "{text}");
    }
    // One member is read as it is, and an enum written as a string is no object at all.
    for (text, words) in [
        (
            r#"{"verb":"move","id":1,"to":{"nope":null}}"#,
            "unknown variant `nope`, expected one of",
        ),
        (
            r#"{"verb":"move","id":1,"to":{"done":5}}"#,
            "invalid type: integer `5`, expected unit",
        ),
        (
            r#"{"verb":"move","to":"nope","id":1}"#,
            "unknown variant `nope`, expected one of",
        ),
        (
            r#"["move", 1, "nope", null]"#,
            "unknown variant `nope`, expected one of",
        ),
    ] {
        assert!(ours(text).unwrap_err().starts_with(words), "{text}");
        assert_eq!(ours(text), derived(text), "{text}");
    }
}

/// The buffer reads an empty object as a unit variant's value, as it reads `null`; serde_json
/// alone refuses it.
#[test]
fn a_unit_variant_may_hold_an_empty_object() {
    for (text, as_null) in [
        (
            r#"{"verb":"move","id":1,"to":{"done":{}}}"#,
            r#"{"verb":"move","id":1,"to":{"done":null}}"#,
        ),
        (
            "{\"verb\":\"move\",\"id\":1,\"to\":{\"done\" :\t{ \r\n\t}\n}}",
            r#"{"verb":"move","id":1,"to":"done"}"#,
        ),
        (
            r#"["add", "P", null, {"parked":{}}]"#,
            r#"["add", "P", null, "parked"]"#,
        ),
        (
            r#"{"verb":"review-outcome","id":1,"attempt":"a","result":{"failed":{}},"status":null,"detail":"d","comment":null}"#,
            r#"{"verb":"review-outcome","id":1,"attempt":"a","result":"failed","status":null,"detail":"d","comment":null}"#,
        ),
        (
            r#"{"verb":"move","to":{"done":{}}}"#,
            r#"{"verb":"move","to":"done"}"#,
        ),
    ] {
        assert_eq!(ours(text), ours(as_null), "{text}");
        assert_eq!(ours(text), derived(text), "{text}");
    }
    assert!(ours(r#"{"verb":"move","id":1,"to":{"done":{}}}"#).is_ok());
    for text in [
        r#"{"verb":"move","id":1,"to":{"done":{"a":1}}}"#,
        r#"{"verb":"move","id":1,"to":{"done":[]}}"#,
        r#"{"verb":"move","id":1,"to":{"done":{},"x":1}}"#,
        r#"{"verb":"move","id":1,"to":{"nope":{}}}"#,
        r#"{"verb":"add","piece":"P","status":{"parked":{}},"status":"done"}"#,
    ] {
        assert!(ours(text).is_err(), "{text}");
        assert_eq!(ours(text), derived(text), "{text}");
    }
}

/// The buffer counts the elements of the array a struct was read from, wherever it is; serde_json
/// stops at the first one left over.
#[test]
fn an_array_too_long_is_counted_where_it_is() {
    for (text, words) in [
        (
            r#"{"verb":"accept-history","reason":"r","oldWitness":[1,"x","y","z",5,6]}"#,
            "invalid length 6, expected 4 elements in sequence",
        ),
        (
            r#"["accept-history", "r", [1, "x", "y", "z",
 [5]], true, 9]"#,
            "invalid length 5, expected 4 elements in sequence",
        ),
        (
            r#"{"verb":"move","id":1,"to":"done","evidence":[1,2,"c",{}]}"#,
            "invalid length 4, expected 3 elements in sequence",
        ),
        (
            r#"["move", 1, "done", null, null, null, null, [1, 2, "c"], 3600, 5]"#,
            "invalid length 9, expected 8 elements in sequence",
        ),
        (
            r#"["release", 1, 2]"#,
            "invalid length 2, expected 1 element in sequence",
        ),
    ] {
        assert_eq!(ours(text).unwrap_err(), words, "{text}");
        assert_eq!(ours(text), derived(text), "{text}");
    }
}
