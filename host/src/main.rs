//! The `mosaic-queue` binary: parse, run, and turn the outcome into the contract's exit code
//! (clap's usage errors are `Exit::Usage`; `--help` and `--version` exit 0). The only place
//! the process exits with a number. With `--json` the one JSON document goes to stdout as well
//! as the failure's line to stderr.

use clap::error::ErrorKind;
use mosaic_queue::cli::{self, Failure, output};
use mosaic_queue::exit::Exit;

fn main() {
    // Asked for before parsing, so a usage error can answer in JSON too.
    let json = std::env::args_os()
        .skip(1)
        .take_while(|a| a != "--")
        .any(|a| a == "--json");
    let parsed = match cli::help::parse_from(std::env::args_os()) {
        Ok(c) => c,
        Err(e) => {
            // A number queue.json could not hold is refused data (exit 2), not a usage slip.
            if let Some(line) = cli::number::refusal(&e) {
                cli::warn(&format!("mosaic-queue: {line}"));
                std::process::exit(Exit::Refused.code());
            }
            let usage = !matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion);
            if json && usage {
                // One line, as every other failure: clap's first, without its `error: `.
                let text = e.render().to_string();
                let line = text.lines().next().unwrap_or("invalid arguments");
                let line = line.strip_prefix("error: ").unwrap_or(line);
                let failure = Failure::usage(format!("{line}; see --help"));
                cli::warn(&format!("mosaic-queue: {}", failure.message));
                output::set_json(true);
                std::process::exit(output::finish("", false, &Err(failure)));
            }
            // Help and version are an answer on stdout: one that cannot be written fails the
            // command, as every other answer does (docs/limits.md). A usage message that cannot
            // be written to stderr is lost and changes nothing.
            let printed = e.print();
            if usage {
                std::process::exit(Exit::Usage.code());
            }
            if let Err(why) = printed {
                cli::warn(&format!("mosaic-queue: cannot write to stdout: {why}"));
                std::process::exit(Exit::Failed.code());
            }
            std::process::exit(0);
        }
    };
    output::set_json(parsed.json);
    let (verb, change) = (parsed.verb.name(), parsed.verb.is_change());
    let result = match parsed.verb {
        // The MCP server runs the other verbs; it is started here, beside the dispatcher.
        cli::Verb::Mcp { seat } => mosaic_queue::mcp::serve_stdio(seat),
        // sshd's forced command: it judges and runs the command the remote side sent itself.
        cli::Verb::Gate(args) => std::process::exit(mosaic_queue::gate::run(&args)),
        _ => cli::run(parsed),
    };
    if let Err(f) = &result {
        cli::warn(&format!("mosaic-queue: {}", f.message));
    }
    let code = if output::json() {
        output::finish(verb, change, &result)
    } else {
        result.err().map_or(0, |f| f.exit.code())
    };
    std::process::exit(code);
}
