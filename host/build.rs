//! Builds the zero-import sandbox module (the core compiled to wasm32) and leaves it in OUT_DIR
//! for `include_bytes!`, so `verify --snapshot` needs no file beside the binary. A machine
//! without the wasm32 target still builds the CLI; its `verify --snapshot` then refuses.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

const TARGET: &str = "wasm32-unknown-unknown";
const MODULE: &str = "mosaic_queue_wasm.wasm";

fn main() {
    println!("cargo:rerun-if-env-changed=MOSAIC_SANDBOX_WASM");
    for path in [
        "../core/src",
        "../core/Cargo.toml",
        "../wasm/src",
        "../wasm/Cargo.toml",
    ] {
        println!("cargo:rerun-if-changed={path}");
    }
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let embedded = out.join("sandbox.wasm");
    let bytes = match env::var_os("MOSAIC_SANDBOX_WASM") {
        Some(given) => {
            let given = PathBuf::from(given);
            println!("cargo:rerun-if-changed={}", given.display());
            std::fs::read(&given)
                .unwrap_or_else(|e| panic!("MOSAIC_SANDBOX_WASM={}: {e}", given.display()))
        }
        None if !target_installed() => {
            println!(
                "cargo:warning=the {TARGET} target is not installed, so this build embeds no \
                 sandbox and `verify --snapshot` will refuse; run `rustup target add {TARGET}` \
                 and rebuild"
            );
            Vec::new()
        }
        None => build_module(&out),
    };
    // An empty file is how the runner learns that no module was embedded.
    std::fs::write(&embedded, bytes).expect("write the sandbox module into OUT_DIR");
}

/// Whether the toolchain that builds us has the wasm32 standard library.
fn target_installed() -> bool {
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let Ok(output) = Command::new(rustc)
        .args(["--print", "target-libdir", "--target", TARGET])
        .output()
    else {
        return false;
    };
    let libdir = String::from_utf8_lossy(&output.stdout);
    output.status.success() && Path::new(libdir.trim()).is_dir()
}

/// A nested cargo builds the wasm crate in its own target directory: the outer build holds
/// the lock on its own, and one fixed directory lets check, test and release builds share it.
fn build_module(out: &Path) -> Vec<u8> {
    let target_dir = shared_target_dir(out).join("sandbox-wasm");
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = Path::new(&env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"))
        .join("../wasm/Cargo.toml");
    let status = Command::new(cargo)
        .args(["build", "--release", "--no-default-features", "--features"])
        .arg("sandbox")
        .arg("--target")
        .arg(TARGET)
        .arg("--manifest-path")
        .arg(&manifest)
        .arg("--target-dir")
        .arg(&target_dir)
        // The module's DWARF is megabytes that nothing reads; its name section stays. One
        // codegen unit and LTO cut the code wasmtime compiles on every run by a fifth.
        .args(["--config", "profile.release.debug=0"])
        .args(["--config", "profile.release.strip=\"debuginfo\""])
        .args(["--config", "profile.release.codegen-units=1"])
        .args(["--config", "profile.release.lto=true"])
        // The outer build's flags and clippy's wrapper belong to the host crate, not this one.
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("RUSTFLAGS")
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_TARGET")
        .status()
        .expect("run cargo for the sandbox module");
    assert!(status.success(), "building the sandbox module failed");
    let module = target_dir.join(TARGET).join("release").join(MODULE);
    std::fs::read(&module).unwrap_or_else(|e| panic!("{}: {e}", module.display()))
}

/// The target directory that holds OUT_DIR (cargo marks its root with CACHEDIR.TAG).
fn shared_target_dir(out: &Path) -> PathBuf {
    out.ancestors()
        .find(|dir| dir.join("CACHEDIR.TAG").is_file())
        .unwrap_or(out)
        .to_path_buf()
}
