//! Help built from the clap definitions: the top-level help's verb groups and exit codes, the
//! parser `main` runs, and the shell completions and man pages generated from the same
//! definitions, so none of them can drift from what the binary accepts.

use clap::{ArgMatches, Command, CommandFactory, FromArgMatches};

use super::grammar::{Cli, Shell};
use crate::reply::{Failure, Replied, Reply};

/// The verb groups of the top-level help, in order. A test holds every verb to exactly one.
pub const GROUPS: &[(&str, &[&str])] = &[
    (
        "Reads",
        &[
            "list",
            "show",
            "next",
            "log",
            "prime",
            "wait",
            "verify",
            "map-check",
        ],
    ),
    (
        "Changes (one log entry each, with --op ID and --by NAME)",
        &[
            "add",
            "move",
            "take",
            "release",
            "assign",
            "note",
            "set",
            "reclaim",
            "lease-default",
            "genesis",
        ],
    ),
    ("Signs of life (no log entry, no lock)", &["heartbeat"]),
    (
        "Replication through git (docs/replication.md)",
        &["follow", "replication", "adopt"],
    ),
    ("Review", &["review"]),
    ("Git", &["commit", "guard", "install-hook", "snapshot"]),
    (
        "Recovery",
        &[
            "doctor",
            "sync",
            "render",
            "unlock",
            "accept-history",
            "archive",
        ],
    ),
    (
        "Setting up",
        &["demo", "board", "mcp", "gate", "completions", "man", "help"],
    ),
];

const EXIT_CODES: &str = "\
Exit codes: 0 ok; 1 the operation failed; 2 invalid data or refused (nothing changed);
3 uncertain (written or sent, not acknowledged: run the same command with the same --op again;
for a review request, not known to be posted); 4 usage. A failure is one line on stderr.";

/// The command line as the binary parses it: the derived definitions with the grouped verb
/// list in place of clap's flat one, and the exit codes after.
pub fn command() -> Command {
    let mut cmd = parser();
    cmd.build();
    cmd
}

/// `command()` before clap's build of every verb: what `parse_from` runs, since clap builds
/// the verb it matches when it matches it, and building all of them first cost a tenth of
/// a millisecond on every run.
fn parser() -> Command {
    let cmd = Cli::command();
    let groups = grouped(&cmd);
    cmd.help_template(format!(
        "{{about-with-newline}}\n{{usage-heading}} {{usage}}\n\n{groups}Options:\n{{options}}{{after-help}}"
    ))
    .after_help(EXIT_CODES)
}

/// The description of clap's own `help` verb, which it adds only when it builds a command:
/// taken from a built command of one verb, so the grouped list shows clap's words.
fn help_about() -> String {
    let mut probe = Command::new("probe").subcommand(Command::new("verb"));
    probe.build();
    probe
        .find_subcommand("help")
        .and_then(Command::get_about)
        .map(|a| a.to_string())
        .unwrap_or_default()
}

/// Each group's verbs with the first line of their description, aligned.
fn grouped(cmd: &Command) -> String {
    let width = cmd
        .get_subcommands()
        .map(|s| s.get_name().len())
        .max()
        .unwrap_or(0);
    let mut text = String::new();
    for (title, verbs) in GROUPS {
        text.push_str(&format!("{title}:\n"));
        for name in *verbs {
            let about = match cmd.find_subcommand(name) {
                Some(sub) => sub.get_about().map(|a| a.to_string()).unwrap_or_default(),
                None if *name == "help" => help_about(),
                None => String::new(),
            };
            let first = about.lines().next().unwrap_or("");
            text.push_str(&format!("  {name:width$}  {first}\n"));
        }
        text.push('\n');
    }
    text
}

/// Parses `args` (the program name first) with `command()`.
pub fn parse_from<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let matches: ArgMatches = parser().try_get_matches_from(args)?;
    Cli::from_arg_matches(&matches)
}

/// `completions SHELL`: the script on stdout.
pub fn completions(shell: Shell, reply: &mut dyn Reply) -> Replied {
    use clap_complete::Shell as S;
    let shell = match shell {
        Shell::Bash => S::Bash,
        Shell::Zsh => S::Zsh,
        Shell::Fish => S::Fish,
        Shell::Powershell => S::PowerShell,
    };
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command(), "mosaic-queue", &mut script);
    reply.text(&String::from_utf8_lossy(&script))
}

/// `man [VERB...]`: the top-level page, or the page of the verb the words name
/// (`review request`), in roff.
pub fn man(words: &[String], reply: &mut dyn Reply) -> Replied {
    let mut cmd = command();
    for word in words {
        cmd = cmd.find_subcommand(word).cloned().ok_or_else(|| {
            Failure::usage(format!(
                "no verb {}; `mosaic-queue --help` lists them",
                mosaic_queue_core::shown(&words.join(" "))
            ))
        })?;
    }
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd)
        .render(&mut page)
        .map_err(|e| Failure::failed(format!("cannot render the man page: {e}")))?;
    reply.text(&String::from_utf8_lossy(&page))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every subcommand, nested ones too, with its path (`review request`).
    fn walk(cmd: &Command, path: &str, out: &mut Vec<(String, Command)>) {
        // clap's `help` subcommands mirror the real ones; they are its own, not ours.
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            let name = format!("{path}{}", sub.get_name());
            out.push((name.clone(), sub.clone()));
            walk(sub, &format!("{name} "), out);
        }
    }

    fn verbs() -> Vec<(String, Command)> {
        let mut all = Vec::new();
        walk(&command(), "", &mut all);
        all
    }

    /// The words of an example line after `mosaic-queue` (env assignments before it, and a
    /// redirection or pipe after it, are the shell's), split as the demo splits its steps.
    fn example_args(line: &str) -> Option<Vec<String>> {
        let start = line.find("mosaic-queue ")?;
        let mut rest = &line[start..];
        for cut in [" > ", " | "] {
            if let Some(i) = rest.find(cut) {
                rest = &rest[..i];
            }
        }
        Some(super::super::demo::words(rest))
    }

    #[test]
    fn every_argument_of_every_verb_says_what_it_takes() {
        let mut missing = Vec::new();
        for (name, cmd) in verbs() {
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if id == "help" || id == "version" {
                    continue;
                }
                match arg.get_help().map(|h| h.to_string()) {
                    Some(h) if !h.trim().is_empty() => {}
                    _ => missing.push(format!("{name} {id}")),
                }
            }
            if cmd.get_about().is_none() {
                missing.push(format!("{name} (no description)"));
            }
        }
        assert_eq!(missing, Vec::<String>::new());
    }

    #[test]
    fn every_verb_ends_its_help_with_examples_that_parse() {
        for (name, mut cmd) in verbs() {
            let help = cmd.render_long_help().to_string();
            let (_, examples) = help
                .rsplit_once("Example")
                .unwrap_or_else(|| panic!("{name}: no example in\n{help}"));
            let lines: Vec<&str> = examples
                .lines()
                .skip(1)
                .filter(|l| l.starts_with("  "))
                .collect();
            assert!(!lines.is_empty(), "{name}: an empty example section");
            for line in lines {
                let args = example_args(line).unwrap_or_else(|| panic!("{name}: {line}"));
                let parsed = parse_from(&args);
                assert!(parsed.is_ok(), "{name}: {line}: {:?}", parsed.err());
                assert!(
                    args.join(" ").contains(&name),
                    "{name}: the example {line:?} runs another verb"
                );
            }
        }
    }

    #[test]
    fn the_top_level_help_groups_every_verb_once_and_names_the_exit_codes() {
        let cmd = command();
        let mut grouped: Vec<&str> = GROUPS.iter().flat_map(|(_, v)| v.iter().copied()).collect();
        grouped.sort_unstable();
        let mut all: Vec<&str> = cmd.get_subcommands().map(Command::get_name).collect();
        all.sort_unstable();
        assert_eq!(grouped, all);
        let help = command().render_long_help().to_string();
        for (title, _) in GROUPS {
            assert!(help.contains(&format!("\n{title}:\n")), "{title}\n{help}");
        }
        assert!(
            help.contains("  accept-history  Accept the file as it is"),
            "{help}"
        );
        assert!(
            help.contains("Exit codes: 0 ok; 1 the operation failed; 2 invalid data or refused")
        );
        assert!(help.contains("--json"), "{help}");
    }
}
