//! The `mosaic-queue` binary: parse, run (a verb through the command line face, or one of the
//! faces that serve: the MCP server, the OpenSSH gate, the board), and turn the outcome into
//! the contract's exit code (a command line the parser refuses is one line, exit 2 or 4;
//! `--help` and `--version` exit 0). The only place the process exits with a number, and the
//! one place that picks a face. With `--json` the one JSON document goes to stdout as well as
//! the failure's line to stderr.

use clap::error::ErrorKind;
use mosaic_queue::command::output::{Printed, warn};
use mosaic_queue::command::{Replica, Verb, help, usage};
use mosaic_queue::engine::Policy;
use mosaic_queue::exit::Exit;
use mosaic_queue::gate::{self, Gated};
use mosaic_queue::{board, cli, follow, mcp};

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
            // of shape 4 (command/usage.rs).
            let failure = usage::failure(&e, &argv);
            std::process::exit(Printed::new(json).end("", false, &Err(failure)));
        }
    };
    let mut printed = Printed::new(parsed.json);
    let (verb, change) = (parsed.verb.name(), parsed.verb.is_change());
    let result = match parsed.verb {
        // The faces that serve start here, beside the command line's.
        Verb::Mcp { seat } => mcp::serve_stdio(seat, Policy::local()),
        Verb::Board { listen } => board::serve(Some(listen.as_str())),
        Verb::Follow {
            to,
            replica: Replica {
                reference,
                git_timeout,
            },
        } => follow::serve(&to, &reference, git_timeout, parsed.json),
        // sshd's forced command judges and runs the command the remote side sent, or asks
        // for the MCP server under the key's policy.
        Verb::Gate(args) => match gate::run(&args) {
            Gated::Exit(code) => std::process::exit(code),
            Gated::Serve { seat, policy, json } => {
                let served = mcp::serve_stdio(Some(seat), policy);
                std::process::exit(Printed::new(json).end("mcp", false, &served))
            }
        },
        _ => cli::run(parsed, &mut printed),
    };
    std::process::exit(printed.end(verb, change, &result));
}
