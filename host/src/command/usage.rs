//! A command line the parser cannot take, as one line in the house style, the same with or
//! without `--json`. A value an argument refuses (no number or one too large, a shell that is
//! none of the four, bytes that are not UTF-8) is invalid data, exit 2, like every value the
//! verbs check; a command line of the wrong shape (an unknown verb or flag, a missing argument
//! or value, arguments that exclude each other) is usage, exit 4.

use std::ffi::OsString;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use mosaic_queue_core::{SHOWN_CHARS, shown};

use super::help;
use crate::reply::Failure;
use crate::values;
use crate::values::number::{self, NumberError};

/// The failure for a parse error that is neither `--help` nor `--version`; `argv` is the
/// command line as given (the program first), for the verb whose help the line points to.
pub fn failure(e: &clap::Error, argv: &[OsString]) -> Failure {
    match e.kind() {
        // clap says a flag given no value at all is an invalid value with none to choose from:
        // that is a slip of shape, not a value refused.
        ErrorKind::InvalidValue if no_value(e) => usage(e, argv),
        ErrorKind::InvalidUtf8 => values::invalid(format!(
            "refused: {} is not UTF-8; give it as UTF-8 text",
            not_utf8(argv)
        )),
        ErrorKind::ValueValidation | ErrorKind::InvalidValue => refusal(e),
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand | ErrorKind::MissingSubcommand => {
            let path = verb_path(argv);
            Failure::usage(format!("`{path}` needs a verb; `{path} --help` lists them"))
        }
        _ => usage(e, argv),
    }
}

/// A slip of shape: clap's message as one line, then the verb's help to see.
fn usage(e: &clap::Error, argv: &[OsString]) -> Failure {
    Failure::usage(format!(
        "{}; see `{} --help`",
        flatten(&e.render().to_string()),
        verb_path(argv)
    ))
}

/// Whether `e` is clap's word for a flag given no value (`--op` last on the line).
fn no_value(e: &clap::Error) -> bool {
    let given =
        matches!(e.get(ContextKind::InvalidValue), Some(ContextValue::String(v)) if v.is_empty());
    let choices =
        matches!(e.get(ContextKind::ValidValue), Some(ContextValue::Strings(v)) if !v.is_empty());
    given && !choices
}

/// A value the parser refused, named by its argument.
fn refusal(e: &clap::Error) -> Failure {
    let name = match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(arg)) => arg_name(arg),
        _ => String::from("a value"),
    };
    let source = std::error::Error::source(e);
    if let Some(n) = source.and_then(|s| s.downcast_ref::<NumberError>()) {
        return number::refused(&name, n);
    }
    let value = match e.get(ContextKind::InvalidValue) {
        Some(ContextValue::String(v)) => shown(v),
        _ => String::new(),
    };
    let message = match (e.get(ContextKind::ValidValue), source) {
        (Some(ContextValue::Strings(valid)), _) => format!(
            "refused: {name} {value} is not one of {}; give one of them",
            valid.join(", ")
        ),
        (_, Some(why)) => format!("refused: {name} {value}: {why}"),
        _ => format!("refused: {}", flatten(&e.render().to_string())),
    };
    values::invalid(message)
}

/// The argument whose value is not UTF-8 (clap does not say): the flag it follows or that
/// carries it (`--op=...`), else its place on the line.
fn not_utf8(argv: &[OsString]) -> String {
    // The program's own name is not an argument (and has nothing before it).
    let Some(at) = argv.iter().skip(1).position(|a| a.to_str().is_none()) else {
        return String::from("an argument");
    };
    let at = at + 1;
    let bytes = argv[at].as_encoded_bytes();
    if bytes.starts_with(b"--")
        && let Some(eq) = bytes.iter().position(|&b| b == b'=')
    {
        return String::from_utf8_lossy(&bytes[..eq]).into_owned();
    }
    match argv[at - 1].to_str() {
        Some(flag) if flag.starts_with("--") && !flag.contains('=') => flag.to_owned(),
        _ => format!("argument {at}"),
    }
}

/// An argument as clap names it (`--limit <N>`, `<ID>`, `[ID]`, `<SHELL>`) as a refusal names
/// it: a flag by itself, a positional by its value's name, a row's number as `row id`.
fn arg_name(arg: &str) -> String {
    if arg.starts_with('-') {
        return arg.split(' ').next().unwrap_or(arg).to_owned();
    }
    let bare = arg.trim_matches(|c| matches!(c, '<' | '>' | '[' | ']' | '.'));
    match bare {
        "ID" => String::from("row id"),
        other => other.to_lowercase(),
    }
}

/// clap's rendered error as one line: its message and the lines it lists, then its tips in
/// parentheses; the usage and the pointer to `--help` are left out (the line ends with its own).
/// A quoted value longer than the house's limit is quoted only in part.
pub fn flatten(rendered: &str) -> String {
    let mut line = String::new();
    let mut tips: Vec<&str> = Vec::new();
    for raw in rendered.lines() {
        let text = raw.trim();
        if text.starts_with("Usage:") {
            break;
        }
        if text.is_empty() || text.starts_with("For more information") {
            continue;
        }
        if let Some(tip) = text.strip_prefix("tip: ") {
            tips.push(tip);
            continue;
        }
        let text = text.strip_prefix("error: ").unwrap_or(text);
        if !line.is_empty() {
            line.push_str(if line.ends_with(':') { " " } else { ", " });
        }
        line.push_str(text);
    }
    if !tips.is_empty() {
        line.push_str(&format!(" ({})", tips.join(", ")));
    }
    mosaic_queue_core::one_line(&capped_quotes(&line))
}

/// `line` with every single-quoted part longer than `SHOWN_CHARS` characters cut to its start,
/// its length after the closing quote.
fn capped_quotes(line: &str) -> String {
    let mut out = String::new();
    let mut length: Option<String> = None;
    for (i, part) in line.split('\'').enumerate() {
        if i > 0 {
            out.push('\'');
            out.extend(length.take());
        }
        let count = part.chars().count();
        if i % 2 == 1 && count > SHOWN_CHARS {
            out.extend(part.chars().take(SHOWN_CHARS));
            out.push('…');
            length = Some(format!(" ({count} characters)"));
        } else {
            out.push_str(part);
        }
    }
    out.extend(length);
    out
}

/// `mosaic-queue` and the verbs `argv` names (`mosaic-queue review record`): whose `--help` the
/// line points to.
fn verb_path(argv: &[OsString]) -> String {
    let mut cmd = help::command();
    let mut path = String::from("mosaic-queue");
    for word in argv.iter().skip(1).filter_map(|a| a.to_str()) {
        if word == "--" {
            break;
        }
        if word == "help" {
            continue;
        }
        if let Some(sub) = cmd.find_subcommand(word).cloned() {
            path.push(' ');
            path.push_str(word);
            cmd = sub;
        }
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exit::Exit;

    fn parsed(args: &[&str]) -> Failure {
        let argv: Vec<OsString> = std::iter::once("mosaic-queue")
            .chain(args.iter().copied())
            .map(OsString::from)
            .collect();
        let e = help::parse_from(&argv).unwrap_err();
        failure(&e, &argv)
    }

    #[test]
    fn a_bad_value_is_refused_in_one_line_whatever_its_spelling() {
        for args in [
            &["show", "abc"][..],
            &["show", "--", "abc"],
            &["log", "abc"],
            &["wait", "abc", "--status", "done"],
        ] {
            let f = parsed(args);
            assert_eq!(
                (f.exit, f.message.as_str(), f.kind_name()),
                (
                    Exit::Refused,
                    "refused: row id \"abc\" is not a whole number; give digits, as in 12",
                    "invalid-value"
                ),
                "{args:?}"
            );
        }
        for args in [&["log", "--limit", "0"][..], &["log", "--limit=0"]] {
            assert_eq!(
                parsed(args).message,
                "refused: --limit 0 counts nothing; give 1 or more"
            );
        }
        let f = parsed(&["completions", "tcsh"]);
        assert_eq!(
            (f.exit, f.message.as_str()),
            (
                Exit::Refused,
                "refused: shell \"tcsh\" is not one of bash, zsh, fish, powershell; give one of them"
            )
        );
    }

    #[test]
    fn a_slip_of_shape_is_usage_in_one_line_naming_the_verbs_help() {
        for (args, line) in [
            (
                &["note", "1", "t", "--by", "darkwing"][..],
                "the following required arguments were not provided: --op <ID>; see `mosaic-queue note --help`",
            ),
            (
                &["lst"],
                "unrecognized subcommand 'lst' (a similar subcommand exists: 'list'); see `mosaic-queue --help`",
            ),
            (
                &[],
                "`mosaic-queue` needs a verb; `mosaic-queue --help` lists them",
            ),
            (
                &["review"],
                "`mosaic-queue review` needs a verb; `mosaic-queue review --help` lists them",
            ),
            (
                &["note", "1", "t", "--by", "darkwing", "--op"],
                "a value is required for '--op <ID>' but none was supplied; see `mosaic-queue note --help`",
            ),
            (
                &["verify", "--current", "--snapshot", "x"],
                "the argument '--current' cannot be used with '--snapshot <DIR>'; see `mosaic-queue verify --help`",
            ),
        ] {
            let f = parsed(args);
            assert_eq!(
                (f.exit, f.message.as_str()),
                (Exit::Usage, line),
                "{args:?}"
            );
        }
    }

    #[test]
    fn a_long_quoted_value_is_quoted_in_part() {
        let long = "x".repeat(400);
        assert_eq!(
            flatten(&format!(
                "error: unexpected argument '{long}' found\n\nUsage: x\n"
            )),
            format!(
                "unexpected argument '{}…' (400 characters) found",
                "x".repeat(40)
            )
        );
    }
}
