//! Zero-import exports for the wasmtime sandbox (filled in by the sandbox work).
