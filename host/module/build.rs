//! Builds the zero-import sandbox module (the wasm crate with its `sandbox` feature, for
//! wasm32) and passes its path on as `cargo:wasm=PATH`, which cargo gives host/build.rs as
//! `DEP_MOSAIC_QUEUE_SANDBOX_MODULE_WASM`. A toolchain without the wasm32 target gets it from
//! rustup first, as rust-toolchain.toml asks. `MOSAIC_SANDBOX_WASM=FILE` names a module built
//! elsewhere, and then nothing is built here.

use std::env;
use std::path::{Path, PathBuf};
use std::process::{Command, exit};

const TARGET: &str = "wasm32-unknown-unknown";
const MODULE: &str = "mosaic_queue_wasm.wasm";

fn main() {
    println!("cargo:rerun-if-env-changed=MOSAIC_SANDBOX_WASM");
    if let Some(given) = env::var_os("MOSAIC_SANDBOX_WASM") {
        let given = PathBuf::from(given);
        println!("cargo:rerun-if-changed={}", given.display());
        println!("cargo:wasm={}", given.display());
        return;
    }
    for path in [
        "../../core/src",
        "../../core/Cargo.toml",
        "../../wasm/src",
        "../../wasm/Cargo.toml",
    ] {
        println!("cargo:rerun-if-changed={path}");
    }
    if !target_installed() {
        add_target();
    }
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let module = build_module(&out);
    println!("cargo:wasm={}", module.display());
}

/// Stops the build with `why` on stderr, which cargo shows for a failed build script.
fn fail(why: &str) -> ! {
    eprintln!("error: mosaic-queue's sandbox: {why}");
    exit(1)
}

/// Adds the wasm32 target to the toolchain that builds us, as rust-toolchain.toml asks: rustup
/// adds a file's targets only when it installs the toolchain, so a toolchain installed before
/// lacks it, and the README's first command must still build. Only rustup itself is run (an
/// explicit `target add`, which `RUSTUP_AUTO_INSTALL=0` does not forbid); a toolchain that
/// rustup does not manage gets the one line that says what to install.
fn add_target() {
    let missing = format!(
        "the {TARGET} target is not installed, and the binary must carry the sandbox that \
         `verify --snapshot` and `commit` run the core in"
    );
    let Some(toolchain) = env::var_os("RUSTUP_TOOLCHAIN") else {
        fail(&format!(
            "{missing}; this toolchain is not rustup's: install its {TARGET} standard library \
             and build again"
        ));
    };
    println!("cargo:warning=adding the {TARGET} target to this toolchain (rustup target add)");
    let added = Command::new("rustup")
        .args(["target", "add", "--toolchain"])
        .arg(&toolchain)
        .arg(TARGET)
        .status();
    match added {
        Ok(status) if status.success() && target_installed() => {}
        Ok(_) => fail(&format!(
            "{missing}, and `rustup target add {TARGET}` failed (its errors are above): run it \
             by hand and build again"
        )),
        Err(e) => fail(&format!(
            "{missing}, and rustup could not be run ({e}): run `rustup target add {TARGET}` and \
             build again"
        )),
    }
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
fn build_module(out: &Path) -> PathBuf {
    let target_dir = shared_target_dir(out).join("sandbox-wasm");
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = Path::new(&env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"))
        .join("../../wasm/Cargo.toml");
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
        // codegen unit and LTO make less code to compile and run.
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
        .unwrap_or_else(|e| fail(&format!("cannot run cargo to build the module: {e}")));
    if !status.success() {
        fail("building the sandbox module for wasm32 failed (its errors are above)");
    }
    target_dir.join(TARGET).join("release").join(MODULE)
}

/// The target directory that holds OUT_DIR (cargo marks its root with CACHEDIR.TAG).
fn shared_target_dir(out: &Path) -> PathBuf {
    out.ancestors()
        .find(|dir| dir.join("CACHEDIR.TAG").is_file())
        .unwrap_or(out)
        .to_path_buf()
}
