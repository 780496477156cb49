//! `mosaic-queue gate --seat SEAT`: the forced command of one seat's key in `authorized_keys`.
//! It reads `SSH_ORIGINAL_COMMAND`, refuses whatever the key may not do (another program,
//! shell syntax, another actor, a verb kept for others, a file on the host) with exit 2 before
//! anything is read, then runs the MCP server or one verb as the seat, in the checkout the line
//! names, with an environment built from the line alone. docs/remote.md has the set-up.

pub mod args;
pub mod confine;
mod env;
mod error;
mod policy;
mod request;
mod words;

use std::path::{Path, PathBuf};

use self::args::GateArgs;
use self::confine::Confinement;
use self::error::GateError;
use self::request::Request;
use crate::cli::{self, CliResult, Failure, Verb, output};
use crate::mcp;

/// Runs the command the remote side sent, as `args` allow; the process's exit code.
pub fn run(args: &GateArgs) -> i32 {
    let request = match read_request(&args.seat) {
        Ok(request) => request,
        Err(e) => return refuse(e.into(), false),
    };
    let json = match &request {
        Request::Verb(cli) => cli.json,
        Request::Parser(e, json) => return parser(e, *json),
        Request::Mcp => false,
    };
    let confinement = match enter(args.root.as_deref()) {
        Ok(root) => Confinement {
            seat: args.seat.clone(),
            root,
        },
        Err(e) => return refuse(e.into(), json),
    };
    if let Request::Verb(cli) = &request
        && let Err(e) = confine::judge(&confinement, cli)
    {
        return refuse(e.into(), json);
    }
    // Before any thread starts: the MCP server's runtime, a verb's git.
    env::replace(&env::settings(&args.seat, args));
    confine::confine(confinement);
    match request {
        Request::Verb(cli) => verb(*cli, &args.seat),
        _ => finish("mcp", false, mcp::serve_stdio(Some(args.seat.clone()))),
    }
}

/// The command the remote side sent, split and classified; the key's seat checked first.
fn read_request(seat: &str) -> Result<Request, GateError> {
    mosaic_queue_core::rules::check_seat(seat).map_err(|_| GateError::Seat(seat.to_owned()))?;
    let line = match std::env::var_os("SSH_ORIGINAL_COMMAND") {
        None => String::new(),
        Some(v) => v.into_string().map_err(|_| GateError::NotText)?,
    };
    request::classify(words::split(&line)?)
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

/// Runs one verb as the CLI's `main` does, the MCP server for `mcp`.
fn verb(cli: cli::Cli, seat: &str) -> i32 {
    output::set_json(cli.json);
    let (name, change) = (cli.verb.name(), cli.verb.is_change());
    let result = match cli.verb {
        Verb::Mcp { .. } => mcp::serve_stdio(Some(seat.to_owned())),
        _ => cli::run(cli),
    };
    finish(name, change, result)
}

/// The failure's line on stderr, the `--json` document on stdout; the exit code.
fn finish(name: &str, change: bool, result: CliResult) -> i32 {
    if let Err(f) = &result {
        cli::warn(&format!("mosaic-queue: {}", f.message));
    }
    if output::json() {
        output::finish(name, change, &result)
    } else {
        result.err().map_or(0, |f| f.exit.code())
    }
}

/// Ends a command the gate refused: nothing was read or written.
fn refuse(failure: Failure, json: bool) -> i32 {
    output::set_json(json);
    finish("", false, Err(failure))
}

/// What the parser made of the words: help or the version on stdout (exit 0), else its
/// refusal as one line, as the MCP server reports it.
fn parser(e: &clap::Error, json: bool) -> i32 {
    use clap::error::ErrorKind::{DisplayHelp, DisplayVersion};
    if matches!(e.kind(), DisplayHelp | DisplayVersion) {
        return finish("", false, cli::out(&e.render().to_string()));
    }
    refuse(mcp::run::parse_failure(e), json)
}
