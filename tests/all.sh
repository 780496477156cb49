#!/usr/bin/env bash
# Every check and test of the workspace: the README's test command, and what .ci/run runs.
# The core is also built for a target with no std, so a dependency that pulls std into it fails
# here; host/build.rs builds it for wasm32 as the sandbox module, once for clippy and the tests.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

step "cargo fmt --check"
cargo fmt --all --check
step "cargo clippy"
# Every target, tests included: a test build always has the fault-injection seams (the host's
# dev-dependency on itself turns them on). Then the shipped build alone, seams compiled out.
cargo clippy --workspace --all-targets -- -D warnings
cargo clippy --workspace -- -D warnings
# The sandbox surface compiles only into the wasm32 module, which the workspace lint never sees.
cargo clippy -p mosaic-queue-wasm --no-default-features --features sandbox \
  --target wasm32-unknown-unknown -- -D warnings
step "core for x86_64-unknown-none (no std)"
cargo build -p mosaic-queue-core --target x86_64-unknown-none
step "tests"
cargo test --workspace
step "the Node module: wasm-pack, profile wasm-release, then binaryen's wasm-opt -Oz"
if ! command -v wasm-pack >/dev/null; then
  echo "wasm-pack is not installed: bash .ci/run installs it (and wasm-bindgen-cli) and runs this" >&2
  exit 1
fi
wasm_opt=node-shim/node_modules/.bin/wasm-opt
if [ ! -x "$wasm_opt" ]; then
  echo "binaryen's wasm-opt is not installed: run npm ci --prefix node-shim (bash .ci/run does)" >&2
  exit 1
fi
wasm-pack build wasm --target nodejs --profile wasm-release --out-dir ../node-shim/pkg
# wasm-pack's own wasm-opt step stays off (wasm/Cargo.toml): the binaryen that `npm ci` put in
# node-shim runs here. The features are the ones rustc enables for wasm32 by default, named
# because wasm-bindgen drops the section that lists them.
module=node-shim/pkg/mosaic_queue_wasm_bg.wasm
"$wasm_opt" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-mutable-globals --enable-reference-types --enable-multivalue "$module" -o "$module"
step "node-shim: node --test, against the binary cargo test built"
MOSAIC_QUEUE_BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/mosaic-queue" npm --prefix node-shim test
