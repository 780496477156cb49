//! No code: this crate exists for its build script, which compiles the core to the sandbox's
//! wasm32 module and names the file for `host/build.rs`. Being a dependency of its own, that
//! build starts at once, beside the compile of Cranelift that host/build.rs needs, instead of
//! after it.
#![no_std]
