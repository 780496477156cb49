//! The numbers of a tool call, each read from its exact text (`message::NumberTexts`) by the
//! parse the command line's digits get (`values::number`), before anything else is made of
//! the call: 2^64, 10^30, `days` 2^32 or -1 through MCP is refused with the line the CLI
//! gives for the same value (invalid-value, exit 2). An argument that is a verb's positional
//! or flag is named as the CLI names it (`row id`, `--stale`); the paging arguments and the
//! wait's timeout, which the CLI does not have, by their own names.

use serde_json::{Map, Value};

use super::message::NumberTexts;
use super::tools::MAX_WAIT_SECS;
use crate::reply::Failure;
use crate::values::number::{self, NumberError};

/// How a number argument is read.
#[derive(Clone, Copy)]
enum Parse {
    Whole(fn(&str) -> Result<u64, NumberError>),
    /// Seconds, fractions allowed, from 0 to this many.
    Seconds(u32),
}

/// Each number argument of the tools: its name, its name in a refusal, its parse.
const NUMBERS: &[(&str, &str, Parse)] = &[
    ("id", "row id", Parse::Whole(number::id)),
    ("issue", "--issue", Parse::Whole(number::id)),
    ("comment", "--comment", Parse::Whole(number::parse)),
    ("revision", "--revision-after", Parse::Whole(number::parse)),
    ("days", "--stale", Parse::Whole(days)),
    ("offset", "offset", Parse::Whole(number::parse)),
    ("limit", "limit", Parse::Whole(number::count)),
    ("timeout", "timeout", Parse::Seconds(MAX_WAIT_SECS)),
];

fn days(text: &str) -> Result<u64, NumberError> {
    number::days(text).map(u64::from)
}

/// Refuses the first number among `args` its parse does not take. `texts` holds each
/// number's text as sent; without it (never, from the transport) a number's value is read.
pub fn check(args: &Map<String, Value>, texts: Option<&NumberTexts>) -> Result<(), Failure> {
    for (key, value) in args {
        let Value::Number(n) = value else { continue };
        let Some((_, name, parse)) = NUMBERS.iter().find(|(k, _, _)| k == key) else {
            continue;
        };
        // Of a name given twice, JSON readers keep the last, as the arguments did.
        let sent = texts.and_then(|t| t.0.iter().rev().find(|(k, _)| k == key));
        let text = sent.map_or_else(|| n.to_string(), |(_, t)| t.clone());
        let read = match parse {
            Parse::Whole(parse) => parse(&text).map(drop),
            Parse::Seconds(max) => number::seconds(&text, f64::from(*max)).map(drop),
        };
        read.map_err(|e| number::refused(name, &e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exit::Exit;
    use serde_json::json;

    fn refusal(args: Value, texts: &[(&str, &str)]) -> Option<(Exit, String, &'static str)> {
        let Value::Object(args) = args else { panic!() };
        let texts = NumberTexts(
            texts
                .iter()
                .map(|(k, t)| (k.to_string(), t.to_string()))
                .collect(),
        );
        check(&args, Some(&texts))
            .err()
            .map(|f| (f.exit, f.message.clone(), f.kind_name()))
    }

    #[test]
    fn numbers_are_read_from_their_text_as_the_command_line_reads_them() {
        let big = refusal(json!({"id": 1.8e19}), &[("id", "18446744073709551616")]).unwrap();
        assert_eq!(
            big,
            (
                Exit::Refused,
                String::from(
                    "refused: row id 18446744073709551616 is above 9007199254740991 (2^53-1), the largest number queue.json can hold; give the real number"
                ),
                "invalid-value"
            )
        );
        let days = refusal(json!({"days": 4294967296u64}), &[("days", "4294967296")]).unwrap();
        assert_eq!(
            days.1,
            "refused: --stale 4294967296 is above 4294967295, the most it takes; give a smaller number"
        );
        let zero = refusal(json!({"limit": 0}), &[("limit", "0")]).unwrap();
        assert_eq!(zero.1, "refused: limit 0 counts nothing; give 1 or more");
        let float = refusal(json!({"comment": 1000.0}), &[("comment", "1e3")]).unwrap();
        assert_eq!(
            float.1,
            "refused: --comment \"1e3\" is not a whole number; give digits, as in 12"
        );
        let long = refusal(json!({"timeout": 601}), &[("timeout", "601")]).unwrap();
        assert_eq!(
            long.1,
            "refused: timeout \"601\" is not a number of seconds; give one from 0 to 600"
        );
        // What fits goes on; a string or another argument is not a number to read here.
        assert_eq!(
            refusal(
                json!({"id": 9007199254740991u64, "timeout": 0.5, "text": "1e99", "n": 1e99}),
                &[
                    ("id", "9007199254740991"),
                    ("timeout", "0.5"),
                    ("n", "1e99")
                ]
            ),
            None
        );
        // The last of a name given twice, as the arguments hold it.
        assert_eq!(
            refusal(json!({"id": 3}), &[("id", "-1"), ("id", "3")]),
            None
        );
    }
}
