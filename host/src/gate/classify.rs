//! What a remote command asks for: the MCP server (no command, `mcp`, `mosaic-queue mcp`) or
//! one verb, parsed by the CLI's own parser. The first word that is no flag (after an optional
//! `mosaic-queue`) must be a verb: anything else names another program, refused before any
//! parsing.

use std::ffi::OsString;

use clap::error::ErrorKind;

use super::error::GateError;
use crate::command::{Cli, help, usage};
use crate::reply::Failure;

/// A command the gate may run, once the policy has judged it.
#[derive(Debug)]
pub enum Sent {
    /// No command at all: what `ssh -T HOST` sends, and what an MCP client starts.
    Mcp,
    /// The words parsed as `mosaic-queue WORDS...`.
    Verb(Box<Cli>),
    /// `--help` or `--version`: the parser's answer, printed as it is.
    Help(String),
    /// Words the parser refused (an unknown flag, a value refused), as the CLI refuses them.
    Refused(Failure),
}

/// Whether `word` is a verb, or clap's `help`. No global flag takes a value, so the first word
/// that is no flag is the verb.
fn is_verb(word: &str) -> bool {
    word == "help"
        || help::command()
            .get_subcommands()
            .any(|verb| verb.get_name() == word)
}

/// Classifies `words` (split from `SSH_ORIGINAL_COMMAND`).
pub fn classify(mut words: Vec<String>) -> Result<Sent, GateError> {
    if words.is_empty() {
        return Ok(Sent::Mcp);
    }
    if words[0] == "mosaic-queue" {
        words.remove(0);
    }
    match words.iter().find(|w| !w.starts_with('-')) {
        Some(first) if !is_verb(first) => return Err(GateError::Program(first.clone())),
        _ => {}
    }
    let argv: Vec<OsString> = std::iter::once(String::from("mosaic-queue"))
        .chain(words)
        .map(OsString::from)
        .collect();
    Ok(match help::parse_from(&argv) {
        Ok(cli) => Sent::Verb(Box::new(cli)),
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            Sent::Help(e.render().to_string())
        }
        Err(e) => Sent::Refused(usage::failure(&e, &argv)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::Verb;

    fn words(line: &str) -> Vec<String> {
        super::super::lexer::split(line).unwrap()
    }

    #[test]
    fn no_command_is_the_mcp_server_and_mcp_is_a_verb() {
        assert!(matches!(classify(words("")), Ok(Sent::Mcp)));
        for line in ["mcp", "mosaic-queue mcp", "mcp --seat darkwing"] {
            match classify(words(line)) {
                Ok(Sent::Verb(cli)) => assert!(matches!(cli.verb, Verb::Mcp { .. }), "{line}"),
                other => panic!("{line}: {other:?}"),
            }
        }
    }

    #[test]
    fn another_program_is_refused_by_its_first_word() {
        for (line, first) in [
            ("/bin/sh", "/bin/sh"),
            ("sh -c id", "sh"),
            ("cat /etc/passwd", "cat"),
            ("mosaic-queue cat", "cat"),
            ("/usr/bin/mosaic-queue list", "/usr/bin/mosaic-queue"),
            ("git-upload-pack 'repo.git'", "git-upload-pack"),
            ("scp -t /tmp", "scp"),
            ("MOSAIC_AGENT_NAME=jason list", "MOSAIC_AGENT_NAME=jason"),
            ("mosaic-queue mosaic-queue list", "mosaic-queue"),
            ("--json cat /etc/passwd", "cat"),
            ("mosaic-queue --json /bin/sh", "/bin/sh"),
        ] {
            match classify(words(line)) {
                Err(GateError::Program(p)) => assert_eq!(p, first, "{line}"),
                other => panic!("{line}: {other:?}"),
            }
        }
        assert_eq!(
            classify(words("cat /etc/passwd")).unwrap_err().to_string(),
            "refused: this key runs mosaic-queue verbs only, not \"cat\"; send a verb (ssh HOST list), or nothing or `mcp` for the MCP server"
        );
    }

    #[test]
    fn the_parser_answers_help_and_usage_slips() {
        for line in ["--help", "list --help", "--version"] {
            assert!(matches!(classify(words(line)), Ok(Sent::Help(_))), "{line}");
        }
        for (line, exit) in [
            ("list --bogus", 4),
            ("--json list --bogus", 4),
            ("mosaic-queue", 4),
            ("show 99999999999999999999", 2),
        ] {
            match classify(words(line)) {
                Ok(Sent::Refused(f)) => assert_eq!(f.exit.code(), exit, "{line}"),
                other => panic!("{line}: {other:?}"),
            }
        }
        assert!(matches!(classify(words("--json list")), Ok(Sent::Verb(_))));
    }
}
