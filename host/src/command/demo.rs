//! `demo`'s steps as the command line takes them: each line of `demo::STEPS` split into words
//! as a shell would, parsed by the CLI's own parser and run by the function its verb calls.
//! The scratch checkout and the transcript are `crate::demo`'s.

use clap::Parser;

use super::grammar::{Cli, Verb};
use super::translate::{Asked, translate};
use crate::change::{change_in, take_in};
use crate::checkout::Paths;
use crate::engine;
use crate::read::explain::next_explained_in;
use crate::reply::{Failure, Replied, Reply};
use crate::values::check_op;

/// One step in the scratch checkout at `paths`, parsed by the CLI's own parser and run by its
/// own path; gives the receipt.
pub fn run_step(paths: &Paths, line: &str, reply: &mut dyn Reply) -> Replied {
    let argv = std::iter::once(String::from("mosaic-queue")).chain(words(line));
    let cli = Cli::try_parse_from(argv).map_err(|e| Failure::usage(e.to_string()))?;
    let (command, change) = match cli.verb {
        Verb::Next {
            seat: Some(seat), ..
        } => return next_explained_in(paths, &seat, reply),
        Verb::Take { change, .. } => {
            let by = change
                .by
                .ok_or_else(|| Failure::usage("a demo step names no actor"))?;
            return take_in(paths, &change.op, &by, reply);
        }
        verb => match translate(verb) {
            Asked::Request(request) => engine::change_command(request)?,
            Asked::Own(_) => return Err(Failure::usage("a demo step is no change")),
        },
    };
    check_op(&change.op)?;
    // Each step names its actor; MOSAIC_AGENT_NAME in the caller's environment plays no part.
    let by = change
        .by
        .as_deref()
        .ok_or_else(|| Failure::usage("a demo step names no actor"))?;
    change_in(paths, &command, &change.op, by, reply)
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
    use crate::demo::STEPS;

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
                engine::change_command(request).unwrap();
            }
        }
    }
}
