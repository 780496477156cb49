//! The queue core for WebAssembly. `node` exports the core API through wasm-bindgen for the
//! Node shim; `sandbox` exports plain functions over byte buffers, with no imports at all, for
//! the host's wasmtime runner. The two are built separately, never into one module.
// std on wasm32-unknown-unknown brings the allocator and panic handler and imports nothing.

#[cfg(feature = "node")]
mod node;
/// The Node module's command reader, for the fuzz target that checks it against serde's.
#[cfg(feature = "node")]
#[doc(hidden)]
pub use node::read_command;
#[cfg(feature = "sandbox")]
pub mod sandbox;
