//! Builds the zero-import sandbox module (the core compiled to wasm32), compiles it ahead of
//! time to native code with wasmtime's Cranelift, and leaves that artifact, packed, in OUT_DIR
//! for `include_bytes!`: the binary carries the sandbox and no compiler. A build that cannot make
//! the module fails and says why; it never embeds an empty one.

use std::env;
use std::path::PathBuf;
use std::process::exit;

#[path = "src/sandbox/engine.rs"]
mod engine;

// The sandbox tests' hand-written modules, compiled here too in builds with the test seams.
#[cfg(feature = "fault-injection")]
#[path = "src/sandbox/tests/modules.rs"]
mod test_modules;

fn main() {
    // host/module's build script compiled the module (or took MOSAIC_SANDBOX_WASM's file) and
    // named it; it ran beside the compile of this script's Cranelift, not after it.
    let module = PathBuf::from(
        env::var_os("DEP_MOSAIC_QUEUE_SANDBOX_MODULE_WASM")
            .unwrap_or_else(|| fail("host/module's build script named no module")),
    );
    println!("cargo:rerun-if-changed={}", module.display());
    println!("cargo:rerun-if-changed=src/sandbox/engine.rs");
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let wasm = std::fs::read(&module)
        .unwrap_or_else(|e| fail(&format!("the sandbox module {}: {e}", module.display())));
    let native = precompile(&wasm);
    #[cfg(feature = "fault-injection")]
    test_modules(&out);
    // Stored LZ4-packed, its length first: native code packs to about half, the binary has a
    // size budget, and LZ4 unpacks in about a millisecond (deflate took nine).
    let packed = lz4_flex::block::compress_prepend_size(&native);
    std::fs::write(out.join("sandbox.cwasm.lz4"), &packed)
        .unwrap_or_else(|e| fail(&format!("cannot write the sandbox into OUT_DIR: {e}")));
    // `--version` prints this, so a binary says that it carries the sandbox.
    println!(
        "cargo:rustc-env=MOSAIC_SANDBOX_SUMMARY=sandbox: wasm32 module of {} KiB, compiled at \
         build time to {} KiB of native code; no compiler in this binary",
        wasm.len().div_ceil(1024),
        native.len().div_ceil(1024)
    );
}

/// Compiles each of the sandbox tests' modules into `OUT_DIR/test-modules/NAME.cwasm`, as the
/// real one is compiled: the tests load them as the runner loads the embedded module.
#[cfg(feature = "fault-injection")]
fn test_modules(out: &std::path::Path) {
    println!("cargo:rerun-if-changed=src/sandbox/tests/modules.rs");
    let dir = out.join("test-modules");
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| fail(&format!("cannot make {}: {e}", dir.display())));
    for (name, text) in test_modules::all() {
        let wasm = wat::parse_str(&text)
            .unwrap_or_else(|e| fail(&format!("the test module {name} does not parse: {e}")));
        std::fs::write(dir.join(format!("{name}.cwasm")), precompile(&wasm))
            .unwrap_or_else(|e| fail(&format!("cannot write the test module {name}: {e}")));
    }
}

/// Stops the build with `why` on stderr, which cargo shows for a failed build script.
fn fail(why: &str) -> ! {
    eprintln!("error: mosaic-queue's sandbox: {why}");
    exit(1)
}

/// The module compiled for the target being built, with the runner's exact configuration. An
/// explicit target keeps Cranelift from using CPU features this build machine happens to have,
/// so the binary runs on any CPU of its architecture.
fn precompile(wasm: &[u8]) -> Vec<u8> {
    let mut config = engine::config();
    let target = env::var("TARGET").expect("cargo sets TARGET");
    if let Err(e) = config.target(&target) {
        fail(&format!("wasmtime cannot compile for {target}: {e}"));
    }
    let engine = wasmtime::Engine::new(&config)
        .unwrap_or_else(|e| fail(&format!("cannot make the wasmtime engine: {e}")));
    engine
        .precompile_module(wasm)
        .unwrap_or_else(|e| fail(&format!("cannot compile the sandbox module: {e}")))
}
