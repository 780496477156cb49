//! The command line face: a parsed command line (`crate::command`) becomes the engine's
//! request, run under the local policy (everything), its answer given to the terminal's
//! printer; the CLI's own verbs (demo, completions, man) are answered here. The faces that
//! serve (mcp, board, gate) are started by the binary, beside this one.

use crate::command::{Asked, Cli, Verb, help, translate};
use crate::engine::{self, Policy};
use crate::reply::{Failure, Replied, Reply};

/// Runs a parsed command, giving its answer to `reply`.
pub fn run(cli: Cli, reply: &mut dyn Reply) -> Replied {
    match translate(cli.verb) {
        Asked::Request(request) => engine::run(request, &Policy::local(), reply),
        Asked::Own(verb) => own(verb, reply),
    }
}

/// The verbs only the command line has.
fn own(verb: Verb, reply: &mut dyn Reply) -> Replied {
    match verb {
        Verb::Demo => engine::demo::demo(&crate::command::demo::run_step, reply),
        Verb::Completions { shell } => help::completions(shell, reply),
        Verb::Man { verb } => help::man(&verb, reply),
        // The faces that serve are started by the binary itself (main.rs), beside this
        // face: a verb run inside a server never starts another.
        Verb::Mcp { .. } => Err(Failure::usage(
            "mcp starts a server from the command line; it is not a verb a server runs",
        )),
        Verb::Board { .. } => Err(Failure::usage(
            "board starts a server from the command line; it is not a verb a server runs",
        )),
        Verb::Follow { .. } => Err(Failure::usage(
            "follow runs from the command line until it is stopped; it is not a verb a server runs",
        )),
        Verb::Gate(_) => Err(Failure::usage(
            "gate runs from an authorized_keys line; it is not a verb a server runs",
        )),
        other => unreachable!("a request, not the command line's own: {}", other.name()),
    }
}
