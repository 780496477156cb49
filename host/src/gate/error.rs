//! Why the gate refused a command: each a refusal (exit 2) with its own stable kind, decided
//! before the checkout is read or written.

use thiserror::Error;

use super::words::WordsError;
use crate::reply::Failure;

#[derive(Debug, Error)]
pub enum GateError {
    #[error("refused: SSH_ORIGINAL_COMMAND is not UTF-8; send the verb and its arguments as text")]
    NotText,
    #[error("refused: {0}")]
    Shell(#[from] WordsError),
    #[error(
        "refused: this key runs mosaic-queue verbs only, not {0:?}; send a verb (ssh HOST list), or nothing or `mcp` for the MCP server"
    )]
    Program(String),
    /// `flag` is what named the other actor: `--by`, or `mcp --seat`'s `--seat`.
    #[error(
        "refused: this key acts as {seat} only, not {given}; leave {flag} out, since every command through it acts as {seat}"
    )]
    Actor {
        seat: String,
        given: String,
        flag: &'static str,
    },
    #[error("refused: {verb} is for {who}, and this key acts as {seat}; ask one of them to run it")]
    Privileged {
        verb: &'static str,
        who: &'static str,
        seat: String,
    },
    #[error("refused: {verb} {why}")]
    Local {
        verb: &'static str,
        why: &'static str,
    },
    #[error(
        "refused: --candidate {0:?} names a file on the queue host, which a remote seat cannot hand over; send the manifest's text with --manifest-stdin (ssh HOST move ... --manifest-stdin < MANIFEST) or --manifest-text, or name a commit"
    )]
    File(String),
    #[error(
        "refused: {flag} {value:?} starts with `-` and would reach git as an option; name a branch, tag or commit id"
    )]
    Dash { flag: &'static str, value: String },
    #[error(
        "refused: a remote wait needs --timeout SECONDS, at most {max}, so it cannot outlive its connection; call it again to wait longer"
    )]
    Unbounded { max: u32 },
    #[error(
        "refused: the seat {0:?} in this key's forced command is not a seat name; fix the authorized_keys line"
    )]
    Seat(String),
    #[error(
        "refused: the checkout {path} named by this key's forced command cannot be entered ({why}); fix --root in the authorized_keys line"
    )]
    Root { path: String, why: String },
}

impl GateError {
    /// The stable kind `--json` and the MCP server print.
    pub fn kind(&self) -> &'static str {
        match self {
            GateError::NotText | GateError::Shell(_) => "shell-syntax",
            GateError::Program(_) => "not-a-verb",
            GateError::Actor { .. } => "actor-pinned",
            GateError::Privileged { .. } => "privileged-verb",
            GateError::Local { .. } => "local-only",
            GateError::File(_) => "file-argument",
            GateError::Dash { .. } => "option-injection",
            GateError::Unbounded { .. } => "wait-unbounded",
            GateError::Seat(_) | GateError::Root { .. } => "gate-config",
        }
    }
}

impl From<GateError> for Failure {
    fn from(e: GateError) -> Failure {
        Failure::refused(e.to_string()).kind(e.kind())
    }
}
