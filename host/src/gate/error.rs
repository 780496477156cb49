//! Why the gate refused a command: each a refusal (exit 2) with its own stable kind, decided
//! before the checkout is read or written.

use thiserror::Error;

use super::lexer::WordsError;
use crate::engine::PolicyError;
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
    /// What the key may not do (`engine::Policy`).
    #[error(transparent)]
    Policy(#[from] PolicyError),
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
            GateError::Policy(e) => e.kind(),
            GateError::Seat(_) | GateError::Root { .. } => "gate-config",
        }
    }
}

impl From<GateError> for Failure {
    fn from(e: GateError) -> Failure {
        Failure::refused(e.to_string()).kind(e.kind())
    }
}
