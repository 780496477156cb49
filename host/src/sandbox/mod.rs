//! The wasmtime sandbox that `verify --snapshot` (and `commit`'s step 4) run the core in: the
//! zero-import module, compiled at build time and embedded, no WASI, a memory cap and a fuel
//! cap. The checker touches nothing but the bytes it is handed; docs/sandbox.md has the design.

mod answer;
mod caps;
mod engine;
mod runner;

#[cfg(test)]
mod tests;

pub use answer::{Answer, Reason, Refusal, native};
pub use caps::Caps;
pub use mosaic_queue_core::sandbox::Malformed;
pub use runner::{Inputs, Sandbox, Usage};

use thiserror::Error;

use crate::exit::Exit;

/// The module `host/build.rs` built from wasm/ and compiled to native code for this target,
/// LZ4-packed after its length (u32, little-endian); `runner` unpacks it once per process
/// that verifies.
static PRECOMPILED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/sandbox.cwasm.lz4"));

/// The most the embedded module may unpack to: many times its size today, so that only a
/// broken build (never an input) can reach it.
const PRECOMPILED_MAX: usize = 64 << 20;

/// What `--version` says about the sandbox: host/build.rs words it once it has compiled the
/// module (a build that could not stops there, so every binary carries one).
pub const SUMMARY: &str = env!("MOSAIC_SANDBOX_SUMMARY");

/// Why the sandbox gave no verdict.
#[derive(Debug, Error)]
pub enum SandboxError {
    /// The module ran past its instruction budget.
    #[error(
        "verify --snapshot: the sandbox ran out of fuel (cap {cap}) before a verdict, so the \
         snapshot is not certified: the cap is many times what a 100k-entry queue needs, so \
         check that these are the files you meant"
    )]
    OutOfFuel { cap: u64 },
    /// The module asked for more linear memory than the cap.
    #[error(
        "verify --snapshot: the sandbox ran out of memory (cap {} MiB) before a verdict, so the \
         snapshot is not certified: the cap is many times what a 100k-entry queue needs, so \
         check that these are the files you meant", cap >> 20
    )]
    OutOfMemory { cap: usize },
    /// The module trapped for another reason (a panic in the core, a stack overflow).
    #[error("verify --snapshot: the sandbox stopped ({0}), so the snapshot is not certified")]
    Trapped(String),
    /// The module could not be compiled or run, or answered in a shape the host cannot read.
    #[error("verify --snapshot: the sandbox failed: {0}")]
    Broken(String),
}

impl SandboxError {
    /// Running out of a cap or trapping is a refusal of these bytes (2); a broken module says
    /// nothing about them, so the command failed (1).
    pub fn exit(&self) -> Exit {
        match self {
            SandboxError::OutOfFuel { .. }
            | SandboxError::OutOfMemory { .. }
            | SandboxError::Trapped(_) => Exit::Refused,
            SandboxError::Broken(_) => Exit::Failed,
        }
    }
}

/// The embedded module run on a snapshot with the shipped caps: what the CLI calls.
pub fn verify(inputs: Inputs<'_>) -> Result<Answer, SandboxError> {
    Sandbox::embedded()?.verify_inputs(Caps::shipped(), inputs)
}
