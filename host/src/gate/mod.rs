//! `mosaic-queue gate --seat SEAT`: the forced command of one seat's key in `authorized_keys`.
//! It reads `SSH_ORIGINAL_COMMAND` once, lexes it (`lexer`), parses it with the command line's
//! grammar and translates it into the engine's request, then runs that one request as the
//! seat under the key's policy, in the checkout the line names, with an environment built
//! from the line alone; or hands the binary the MCP server to start under the same policy.
//! Whatever the key may not do (another program, shell syntax, another actor, a verb kept for
//! others, a file on the host) is refused with exit 2 before anything is read: by the gate
//! for the line, by the engine's policy for the request. docs/remote.md has the set-up.

mod classify;
mod env;
mod error;
mod lexer;

use std::path::{Path, PathBuf};

use self::classify::Sent;
use self::error::GateError;
use crate::command::gate_args::GateArgs;
use crate::command::output::Printed;
use crate::command::{Asked, Verb, translate};
use crate::engine::{self, Policy, PolicyError};
use crate::reply::{Failure, Reply};

/// What the gate leaves the binary to do.
pub enum Gated {
    /// The command ran or was refused: the process's exit code.
    Exit(i32),
    /// Serve MCP as `seat` under `policy` (the binary starts the server, a face of its own);
    /// `json`: the line asked for `--json`, so a refused start prints its error document.
    Serve {
        seat: String,
        policy: Policy,
        json: bool,
    },
}

/// Runs the command the remote side sent, as `args` allow.
pub fn run(args: &GateArgs) -> Gated {
    let (sent, json) = read_sent(&args.seat);
    let cli = match sent {
        Err(e) => return Gated::Exit(refuse(e.into(), json)),
        Ok(Sent::Help(text)) => return Gated::Exit(help(&text)),
        Ok(Sent::Refused(failure)) => return Gated::Exit(refuse(failure, json)),
        Ok(Sent::Verb(cli)) => Some(cli),
        Ok(Sent::Mcp) => None,
    };
    let policy = match enter(args.root.as_deref()) {
        Ok(root) => Policy::remote(args.seat.clone(), root),
        Err(e) => return Gated::Exit(refuse(e.into(), json)),
    };
    // `None`: the MCP server.
    let request = match cli.map(|cli| judge(&args.seat, cli.verb)) {
        None | Some(Ok(None)) => None,
        Some(Ok(Some(request))) => Some(request),
        Some(Err(e)) => return Gated::Exit(refuse(e.into(), json)),
    };
    // Before any thread starts: the MCP server's runtime, a verb's git.
    env::replace(&env::settings(&args.seat, args));
    policy.commit_process();
    match request {
        Some(request) => Gated::Exit(verb(request, json, &policy)),
        None => Gated::Serve {
            seat: args.seat.clone(),
            policy,
            json,
        },
    }
}

/// The request `verb` asks for, which the engine judges by the key's policy before it reads
/// anything; `None` for the MCP server. The faces' own verbs are refused here: each is about
/// the machine that runs it (`mcp --seat` naming another seat, the key's actor).
fn judge(seat: &str, verb: Verb) -> Result<Option<engine::Request>, GateError> {
    let own = match translate(verb) {
        Asked::Request(request) => return Ok(Some(request)),
        Asked::Own(own) => own,
    };
    let why = match own {
        Verb::Mcp { seat: Some(given) } if given != seat => {
            return Err(PolicyError::Actor {
                seat: seat.to_owned(),
                given,
                flag: "--seat",
            }
            .into());
        }
        Verb::Mcp { .. } => return Ok(None),
        Verb::Demo => "builds a scratch checkout for whoever runs it; run it on your own machine",
        Verb::Completions { .. } | Verb::Man { .. } => {
            "prints for the machine that runs it; run it where mosaic-queue is installed"
        }
        Verb::Gate(_) => "is what this key already runs; send the verb itself",
        Verb::Board { .. } => {
            "serves web pages on the queue host's loopback; run it there and reach it with ssh -L"
        }
        Verb::Follow { .. } => {
            "pushes the queue host's revisions with the host's own git credentials; run it there (docs/replication.md)"
        }
        // Every other verb is a request, answered above; a verb added without its line here
        // is refused rather than run.
        _ => "runs on the queue host only; run it there",
    };
    Err(PolicyError::Local {
        verb: own.name(),
        why,
    }
    .into())
}

/// The command the remote side sent, split and classified, the key's seat checked first; and
/// whether the line asked for `--json`, told once from its words (those read before the split
/// stopped, `lexer::before_stop`, for a line refused there), so every answer and refusal is
/// printed as asked.
fn read_sent(seat: &str) -> (Result<Sent, GateError>, bool) {
    let line = match std::env::var_os("SSH_ORIGINAL_COMMAND") {
        None => Ok(String::new()),
        // Told apart by its words with each byte that is not UTF-8 read as U+FFFD.
        Some(v) => v
            .into_string()
            .map_err(|v| v.to_string_lossy().into_owned()),
    };
    let json = match &line {
        Ok(text) | Err(text) => lexer::asks_json(&lexer::before_stop(text)),
    };
    let sent = || {
        mosaic_queue_core::check_seat(seat).map_err(|_| GateError::Seat(seat.to_owned()))?;
        let line = line.map_err(|_| GateError::NotText)?;
        classify::classify(lexer::split(&line)?)
    };
    (sent(), json)
}

/// Changes to `root` (when the line names one); the working directory the verbs run in.
fn enter(root: Option<&Path>) -> Result<PathBuf, GateError> {
    let failed = |path: &Path, e: std::io::Error| GateError::Root {
        path: path.display().to_string(),
        why: e.to_string(),
    };
    if let Some(dir) = root {
        std::env::set_current_dir(dir).map_err(|e| failed(dir, e))?;
    }
    std::env::current_dir().map_err(|e| failed(Path::new("."), e))
}

/// Runs one request through the engine under the key's policy, printed as the CLI prints.
fn verb(request: engine::Request, json: bool, policy: &Policy) -> i32 {
    let mut printed = Printed::new(json);
    let (name, change) = (request.name(), request.is_change());
    let result = engine::run(request, policy, &mut printed);
    printed.end(name, change, &result)
}

/// Ends a command the gate refused: nothing was read or written.
fn refuse(failure: Failure, json: bool) -> i32 {
    Printed::new(json).end("", false, &Err(failure))
}

/// Help or the version, asked for: on stdout, exit 0 (or 1 when stdout cannot take it).
fn help(text: &str) -> i32 {
    let mut printed = Printed::new(false);
    let result = printed.text(text);
    printed.end("help", false, &result)
}

#[cfg(test)]
mod tests;
