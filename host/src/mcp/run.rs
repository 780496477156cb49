//! The one way a tool call reaches the queue: the CLI verb its arguments name, parsed from an
//! argv by the CLI's own parser and run in this process by the CLI's dispatcher with `--json`,
//! its stdout, stderr and exit code kept for the answer instead of printed. No second write
//! path: the store session, op rules, retries and refusals are the CLI's.

use mosaic_queue_core::canon::to_canonical;
use serde::Serialize;

use crate::cli::output::{self, Captured, ErrorJson};
use crate::cli::{self, Failure, help, number};

/// What one verb printed and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ran {
    /// The process exit code the CLI would have ended with.
    pub exit: i32,
    /// The one JSON document `--json` prints.
    pub stdout: String,
    /// The lines the CLI would have written to stderr.
    pub stderr: String,
}

/// Runs `mosaic-queue --json ARGV...` in this thread, on the checkout around the working
/// directory. Blocks for as long as the verb does (a lock wait, `wait`).
pub fn run(argv: &[String]) -> Ran {
    let (exit, Captured { stdout, stderr }) = output::captured(|| {
        output::set_json(true);
        // `--json` first: it is global, and a positional after `--` must be the last.
        let args = ["mosaic-queue", "--json"]
            .into_iter()
            .map(String::from)
            .chain(argv.iter().cloned());
        let parsed = match help::parse_from(args) {
            Ok(parsed) => parsed,
            Err(e) => return refuse(parse_failure(&e)),
        };
        // Started by the OpenSSH gate, the server holds each call to the gate's policy.
        if let Err(e) = crate::gate::confine::admit(&parsed) {
            return refuse(e.into());
        }
        let (verb, change) = (parsed.verb.name(), parsed.verb.is_change());
        let result = cli::run(parsed);
        if let Err(f) = &result {
            cli::warn(&format!("mosaic-queue: {}", f.message));
        }
        output::finish(verb, change, &result)
    });
    Ran {
        exit,
        stdout,
        stderr,
    }
}

/// What the CLI makes of arguments its parser refuses: a number queue.json could not hold is
/// refused data (exit 2), anything else a usage error with clap's first line.
pub(crate) fn parse_failure(e: &clap::Error) -> Failure {
    if let Some(line) = number::refusal(e) {
        return Failure::refused(line);
    }
    let text = e.render().to_string();
    let line = text.lines().next().unwrap_or("invalid arguments");
    let line = line.strip_prefix("error: ").unwrap_or(line);
    Failure::usage(format!("{line}; see --help"))
}

/// Ends a run that never reached a verb as the CLI ends it: the line, then the document.
fn refuse(failure: Failure) -> i32 {
    cli::warn(&format!("mosaic-queue: {}", failure.message));
    output::finish("", false, &Err(failure))
}

#[derive(Serialize)]
struct ErrorDoc<'a> {
    error: ErrorJson<'a>,
}

/// The `{"error": {...}}` document the CLI prints for `failure`, for a refusal the server
/// makes itself (arguments no verb takes, an answer too large to send).
pub fn error_document(failure: &Failure) -> String {
    let doc = to_canonical(&ErrorDoc {
        error: ErrorJson::new(failure),
    });
    String::from_utf8_lossy(&doc).into_owned()
}
