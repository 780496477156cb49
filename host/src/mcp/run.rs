//! The one way a tool call reaches the queue: the CLI verb its arguments name, parsed from an
//! argv by the CLI's own parser and run in this process by the CLI's dispatcher into a
//! `reply::Gathered`, which ends as the document, exit code and warnings the CLI's `--json`
//! gives. No second write path: the store session, op rules, retries and refusals are the
//! CLI's.

use std::ffi::OsString;

use crate::cli::{self, help, usage};
use crate::reply::{Failure, Finished, Gathered};

/// Runs `mosaic-queue ARGV...` with its answer as `--json` gives it, in this thread, on the
/// checkout around the working directory. Blocks for as long as the verb does (a lock wait,
/// `wait`).
pub fn run(argv: &[String]) -> Finished {
    let args: Vec<OsString> = std::iter::once(OsString::from("mosaic-queue"))
        .chain(argv.iter().map(OsString::from))
        .collect();
    let parsed = match help::parse_from(&args) {
        Ok(parsed) => parsed,
        // The arguments are built by the server (argv.rs), never `--help`: whatever the
        // parser says is the refusal the CLI gives for the same command line.
        Err(e) => return refused(usage::failure(&e, &args)),
    };
    // Started by the OpenSSH gate, the server holds each call to the gate's policy.
    if let Err(e) = crate::gate::confine::admit(&parsed) {
        return refused(e.into());
    }
    let (verb, change) = (parsed.verb.name(), parsed.verb.is_change());
    let mut gathered = Gathered::new(true);
    let result = cli::run(parsed, &mut gathered);
    gathered.finish(verb, change, &result)
}

/// A call that never reached a verb, ended as the CLI ends it: its error document and exit.
fn refused(failure: Failure) -> Finished {
    Gathered::new(true).finish("", false, &Err(failure))
}

/// The `{"error": {...}}` document the CLI prints for `failure`, for a refusal the server
/// makes itself (arguments no verb takes, an answer too large to send).
pub fn error_document(failure: &Failure) -> String {
    String::from_utf8_lossy(&failure.document(Vec::new())).into_owned()
}
