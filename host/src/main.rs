//! The `mosaic-queue` binary: parse, run (a verb through the CLI, or one of the faces that
//! serve: the MCP server, the OpenSSH gate, the board), and turn the outcome into the contract's exit
//! code (a command line the parser refuses is one line, exit 2 or 4; `--help` and
//! `--version` exit 0). The only place the process exits with a number. With `--json` the one JSON document
//! goes to stdout as well as the failure's line to stderr.

use clap::error::ErrorKind;
use mosaic_queue::cli::output::{Printed, warn};
use mosaic_queue::cli::{self, help, usage};
use mosaic_queue::exit::Exit;

fn main() {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // Asked for before parsing, so a command line the parser refuses can answer in JSON too.
    let json = argv
        .iter()
        .skip(1)
        .take_while(|a| *a != "--")
        .any(|a| a == "--json");
    let parsed = match help::parse_from(&argv) {
        Ok(c) => c,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            // Help and version are an answer on stdout: one that cannot be written fails the
            // command, as every other answer does (docs/limits.md).
            if let Err(why) = e.print() {
                warn(&format!("mosaic-queue: cannot write to stdout: {why}"));
                std::process::exit(Exit::Failed.code());
            }
            std::process::exit(0);
        }
        Err(e) => {
            // One line whether or not --json was asked for: a refused value exits 2, a slip
            // of shape 4 (cli/usage.rs).
            let failure = usage::failure(&e, &argv);
            warn(&format!("mosaic-queue: {}", failure.message));
            std::process::exit(Printed::new(json).finish("", false, &Err(failure)));
        }
    };
    let mut printed = Printed::new(parsed.json);
    let (verb, change) = (parsed.verb.name(), parsed.verb.is_change());
    let result = match parsed.verb {
        // The faces that serve start here, beside the CLI's dispatcher, since each runs the
        // other verbs through it (cli -> mcp -> cli would be a cycle).
        cli::Verb::Mcp { seat } => mosaic_queue::mcp::serve_stdio(seat),
        cli::Verb::Board { listen } => mosaic_queue::board::serve(Some(listen.as_str())),
        // sshd's forced command judges, runs and prints the command the remote side sent.
        cli::Verb::Gate(args) => std::process::exit(mosaic_queue::gate::run(&args)),
        _ => cli::run(parsed, &mut printed),
    };
    if let Err(f) = &result {
        warn(&format!("mosaic-queue: {}", f.message));
    }
    std::process::exit(printed.finish(verb, change, &result));
}
