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
use crate::cli::output::{Printed, warn};
use crate::cli::{self, Verb};
use crate::mcp;
use crate::reply::{Failure, Replied, Reply};

/// Runs the command the remote side sent, as `args` allow; the process's exit code.
pub fn run(args: &GateArgs) -> i32 {
    let request = match read_request(&args.seat) {
        Ok(request) => request,
        Err((e, json)) => return refuse(e.into(), json),
    };
    // `None`: the MCP server.
    let cli = match request {
        Request::Help(text) => return help(&text),
        Request::Refused(failure, json) => return refuse(failure, json),
        Request::Verb(cli) => Some(cli),
        Request::Mcp => None,
    };
    let json = cli.as_ref().is_some_and(|cli| cli.json);
    let confinement = match enter(args.root.as_deref()) {
        Ok(root) => Confinement {
            seat: args.seat.clone(),
            root,
        },
        Err(e) => return refuse(e.into(), json),
    };
    if let Some(cli) = &cli
        && let Err(e) = confine::judge(&confinement, cli)
    {
        return refuse(e.into(), json);
    }
    // Before any thread starts: the MCP server's runtime, a verb's git.
    env::replace(&env::settings(&args.seat, args));
    confine::confine(confinement);
    match cli {
        Some(cli) => verb(*cli, &args.seat),
        None => finish(
            Printed::new(false),
            "mcp",
            false,
            mcp::serve_stdio(Some(args.seat.clone())),
        ),
    }
}

/// The command the remote side sent, split and classified; the key's seat checked first. A
/// refusal comes with whether the line asked for `--json`, told from the words read before
/// it stopped (`words::before_stop`), so its error document is printed as asked.
fn read_request(seat: &str) -> Result<Request, (GateError, bool)> {
    let line = match std::env::var_os("SSH_ORIGINAL_COMMAND") {
        None => Ok(String::new()),
        // Told apart by its words with each byte that is not UTF-8 read as U+FFFD.
        Some(v) => v
            .into_string()
            .map_err(|v| v.to_string_lossy().into_owned()),
    };
    let json = match &line {
        Ok(text) | Err(text) => words::asks_json(&words::before_stop(text)),
    };
    let refused = |e: GateError| (e, json);
    mosaic_queue_core::check_seat(seat).map_err(|_| refused(GateError::Seat(seat.to_owned())))?;
    let line = line.map_err(|_| refused(GateError::NotText))?;
    let words = words::split(&line).map_err(|e| refused(e.into()))?;
    request::classify(words).map_err(refused)
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
    let mut printed = Printed::new(cli.json);
    let (name, change) = (cli.verb.name(), cli.verb.is_change());
    let result = match cli.verb {
        Verb::Mcp { .. } => mcp::serve_stdio(Some(seat.to_owned())),
        _ => cli::run(cli, &mut printed),
    };
    finish(printed, name, change, result)
}

/// The failure's line on stderr, the `--json` document on stdout; the exit code.
fn finish(printed: Printed, name: &str, change: bool, result: Replied) -> i32 {
    if let Err(f) = &result {
        warn(&format!("mosaic-queue: {}", f.message));
    }
    printed.finish(name, change, &result)
}

/// Ends a command the gate refused: nothing was read or written.
fn refuse(failure: Failure, json: bool) -> i32 {
    finish(Printed::new(json), "", false, Err(failure))
}

/// Help or the version, asked for: on stdout, exit 0 (or 1 when stdout cannot take it).
fn help(text: &str) -> i32 {
    let mut printed = Printed::new(false);
    let result = printed.text(text);
    finish(printed, "help", false, result)
}
