//! `demo`'s steps as the command line takes them: each line of `engine::demo::STEPS` split
//! into words as a shell would, parsed by the CLI's own parser and translated into the
//! request the engine runs in the scratch checkout (`engine::demo`).

use clap::Parser;

use super::grammar::Cli;
use super::translate::{Asked, translate};
use crate::engine::demo::{self, Paths};
use crate::reply::{Failure, Replied, Reply};

/// One step in the scratch checkout at `paths`, parsed by the CLI's own parser; gives the
/// receipt.
pub fn run_step(paths: &Paths, line: &str, reply: &mut dyn Reply) -> Replied {
    let argv = std::iter::once(String::from("mosaic-queue")).chain(words(line));
    let cli = Cli::try_parse_from(argv).map_err(|e| Failure::usage(e.to_string()))?;
    match translate(cli.verb) {
        Asked::Request(request) => demo::run_step(paths, request, reply),
        Asked::Own(_) => Err(Failure::usage("a demo step is no request")),
    }
}

/// Splits a step into words at spaces; single quotes group words (`''` is an empty word), as
/// in a shell.
pub fn words(line: &str) -> Vec<String> {
    let (mut out, mut word, mut quoted, mut started) = (Vec::new(), String::new(), false, false);
    for c in line.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                started = true;
            }
            ' ' if !quoted => {
                if started {
                    out.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            c => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        out.push(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::Verb;
    use crate::engine::demo::STEPS;

    #[test]
    fn words_group_quoted_text() {
        assert_eq!(
            words("add --piece 'Node shim'  --op x"),
            ["add", "--piece", "Node shim", "--op", "x"]
        );
        assert_eq!(words("note 3 '' --op x"), ["note", "3", "", "--op", "x"]);
    }

    #[test]
    fn every_step_parses() {
        for (_, step) in STEPS {
            let argv = std::iter::once(String::from("mosaic-queue")).chain(words(step));
            let cli = Cli::try_parse_from(argv).unwrap();
            if !matches!(cli.verb, Verb::Next { .. } | Verb::Take { .. }) {
                let Asked::Request(request) = translate(cli.verb) else {
                    panic!("{step}: a face's own verb");
                };
                crate::engine::change_command(request).unwrap();
            }
        }
    }
}
