#!/usr/bin/env bash
# Every check and test of the workspace: the README's test command, and what .ci/run runs.
# On a machine with only rustup, Node and git it first installs what the build needs: the
# targets rust-toolchain.toml names, wasm-pack and the wasm-bindgen CLI at Cargo.lock's version
# (each only when missing), node-shim's one dev dependency (binaryen's wasm-opt), Debian's
# openssh-server where sshd or ssh is missing (the remote seats' tests run them), and Debian's
# chromium and chromium-driver where either is missing (the board's browser tests).
# The core is also built for a target with no std, so a dependency that pulls std into it fails
# here; host/module's build script builds it for wasm32 as the sandbox module, once for clippy
# and the tests.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each stage says how long the one before it took, and the script ends with the total, so a
# run shows where its time goes (a failed stage's time is printed as the script stops). Beside
# the wall time, the CPU time its processes used (user + system): on a machine whose cores are
# shared, the wall time also counts the waits for them.
started=$(date +%s)
stage=
stage_at=$started
cpu_at=0
# The CPU seconds this script's finished children have used so far: bash's `times`, run in
# this shell (a command substitution's subshell has children of its own).
times_file=$(mktemp)
cpu_now() {
  times >"$times_file"
  awk 'NR == 2 {
    n = split($0, t, " ")
    s = 0
    for (i = 1; i <= n; i++) { split(t[i], p, "m"); s += p[1] * 60 + p[2] }
    printf "%d", s
  }' "$times_file"
}
stage_end() {
  local now cpu
  now=$(date +%s)
  cpu_now >"$times_file.cpu"
  cpu=$(cat "$times_file.cpu")
  [ -z "$stage" ] || printf -- '-- %s: %d s (cpu %d s)\n' "$stage" $((now - stage_at)) $((cpu - cpu_at))
  stage_at=$now
  cpu_at=$cpu
}
step() {
  stage_end
  stage="$*"
  printf '\n== %s\n' "$stage"
}
finish() {
  local code=$?
  # The renewal test started beside the later stages, if the script stops before its end.
  if [ -n "${renewal_dir:-}" ] && [ -s "$renewal_dir/pid" ] && [ ! -s "$renewal_dir/code" ]; then
    kill "$(cat "$renewal_dir/pid")" 2>/dev/null || true
  fi
  stage_end
  printf -- '-- total: %d s (cpu %d s, exit %d)\n' $(($(date +%s) - started)) "$cpu_at" "$code"
  rm -f "$times_file" "$times_file.cpu"
}
trap finish EXIT

step "install what the build needs (only what is missing)"
# rustup installs rust-toolchain.toml's targets with the toolchain; an older rustup, or a
# toolchain installed before the file named them, gets them here (a no-op when present).
if command -v rustup >/dev/null; then
  rustup target add wasm32-unknown-unknown x86_64-unknown-none
fi
# wasm-pack, and the wasm-bindgen CLI at the version Cargo.lock pins: wasm-pack runs a matching
# `wasm-bindgen` from PATH instead of fetching one or building it itself (minutes).
bin="${CARGO_HOME:-$HOME/.cargo}/bin"
export PATH="$bin:$PATH"
command -v wasm-pack >/dev/null || cargo install wasm-pack --locked
bindgen=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3; exit }' Cargo.lock)
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $bindgen" ]; then
  # The lock file published with wasm-bindgen-cli can name versions a registry mirror lacks
  # (0.2.130 pins webpki-roots 1.0.11); then its dependencies are resolved afresh.
  cargo install wasm-bindgen-cli --version "$bindgen" --locked ||
    cargo install wasm-bindgen-cli --version "$bindgen"
fi
# The remote seats' tests run a real OpenSSH server and client (Debian's openssh-server brings
# both); where either is missing they fail, never skip, so it is installed here.
if { [ ! -x /usr/sbin/sshd ] && ! command -v sshd >/dev/null; } || ! command -v ssh >/dev/null; then
  sudo=
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update && $sudo apt-get install -y openssh-server
fi
# Run as root, the test of a .git the user cannot list runs its commands as `nobody` through
# setpriv (root ignores mode bits): Debian 12's util-linux, which is essential, holds it; a
# later Debian may ship it as a package of its own.
if [ "$(id -u)" -eq 0 ] && ! command -v setpriv >/dev/null; then
  apt-get update && { apt-get install -y setpriv || apt-get install -y util-linux; }
fi
# The board's browser tests drive Debian's Chromium through its chromedriver; where either is
# missing they fail, never skip, so both are installed here.
if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
  sudo=
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update && $sudo apt-get install -y chromium chromium-driver
fi
# node-shim's one dev dependency, binaryen's wasm-opt, exactly as its lock file pins it.
wasm_opt=node-shim/node_modules/.bin/wasm-opt
[ -x "$wasm_opt" ] || npm ci --prefix node-shim --no-audit --no-fund

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
# Eight test threads on two cores: the end-to-end tests spend their time waiting on fsync,
# process start-up, git and sshd, not on the CPU (a sample of 53 of them took 96 s with two
# threads and 35-48 s with six to twelve, for the same 14-16 s of CPU), and the in-memory
# tests lose nothing to time slicing. Every test still runs; none is timed.
RUST_TEST_THREADS=8 cargo test --workspace
step "smoke: the shipped binary, built without the fault-injection feature"
# `cargo build` never turns the seams on (only test builds get the feature), so this is the
# binary `cargo install` ships, in the dev profile: the seams are what differ, not the
# optimizer (docs/testing.md). It is copied aside before the smoke target's own build puts
# the test binary back in target/debug; the Node tests below run the copy too. Both builds
# resolve features for the whole workspace, as the tests above did, so each compiles the host
# crate alone and reuses every dependency the tests built (docs/testing.md says how the
# features are kept the same); `-p mosaic-queue` would resolve them for that package alone
# and compile about 90 crates again.
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
cargo build --workspace --bin mosaic-queue
mkdir -p "$target_dir/shipped"
cp "$target_dir/debug/mosaic-queue" "$target_dir/shipped/mosaic-queue"
export MOSAIC_SHIPPED_BIN="$target_dir/shipped/mosaic-queue"
# The MCP server's renewals in real time (tests/smoke/renewal.rs): a claim with a one-minute
# lease held through three leases, then a killed server's claim reclaimed a lease later. It
# takes about four minutes and sleeps through nearly all of them, so it runs beside the stages
# after this one (the fuzz targets and the Node module keep the cores busy anyway) and the
# script waits for it at its end: it adds next to nothing to the total (docs/testing.md). The
# test binary is run by its path, so that it is this script's and not a cargo's.
cargo test --workspace --test smoke --no-run
smoke_bin=$(cargo test --workspace --test smoke --no-run 2>&1 | sed -n 's/^ *Executable .*(\(.*\))$/\1/p')
smoke_bin=$(realpath "$smoke_bin")
renewal_test=renewal::a_server_renews_its_claim_for_three_leases_and_a_killed_one_expires_a_lease_later
renewal_dir=$(mktemp -d)
renewal_at=$(date +%s)
# Disowned, so the fuzz stage's waits do not wait for it; its exit code lands in a file.
(
  cd host
  "$smoke_bin" --exact "$renewal_test" &
  echo $! >"$renewal_dir/pid"
  code=0
  wait $! || code=$?
  echo "$code" >"$renewal_dir/code"
) >"$renewal_dir/log" 2>&1 &
renewal_job=$!
disown "$renewal_job"
cargo test --workspace --test smoke -- --skip renewal::
# The fuzz targets (tests/fuzz) need nightly and cargo-fuzz; each runs briefly over its kept
# corpus and crashers (the stable tests above replay those already). A crash fails this step
# and leaves its input under tests/fuzz/artifacts/<target>/. The seed is fixed so that every run of
# this step explores the same inputs: a finding here is repeatable, never a roll of the dice.
step "fuzz: each target for 20 s, two at a time"
# cargo-fuzz is installed when missing (a few minutes, once); a machine without nightly fails
# here, saying what to install.
if cargo +nightly --version >/dev/null 2>&1; then
  cargo +nightly fuzz --version >/dev/null 2>&1 || cargo install cargo-fuzz --locked
  # The list is read apart from the loop: a failure inside `for ... in $(...)` would escape
  # `set -e` and run no target at all. Every file under fuzz_targets must be a listed target.
  if ! targets=$(cargo +nightly fuzz list --fuzz-dir tests/fuzz); then
    echo "cannot list the fuzz targets of tests/fuzz" >&2
    exit 1
  fi
  if [ -z "$targets" ]; then
    echo "tests/fuzz lists no fuzz target" >&2
    exit 1
  fi
  files=$(cd tests/fuzz/fuzz_targets && ls -- *.rs | sed 's/\.rs$//' | sort)
  if [ "$(sort <<<"$targets")" != "$files" ]; then
    echo "the fuzz targets listed ($(echo $targets)) are not the files under tests/fuzz/fuzz_targets ($(echo $files))" >&2
    exit 1
  fi
  # Built once, then run two at a time: each run is one libFuzzer process on one core for its
  # 20 s, so two cores run two targets side by side with the executions one would get alone.
  cargo +nightly fuzz build --fuzz-dir tests/fuzz -s none
  results=$(mktemp -d)
  fuzz_one() {
    local target=$1 work
    work=$(mktemp -d)
    local seeds=(fixtures/fuzz/"$target"/corpus)
    [ -d fixtures/fuzz/"$target"/crashers ] && seeds+=(fixtures/fuzz/"$target"/crashers)
    mkdir -p tests/fuzz/artifacts/"$target"
    local code=0
    cargo +nightly fuzz run --fuzz-dir tests/fuzz -s none "$target" "$work" "${seeds[@]}" -- \
      -seed=1 -max_total_time=20 -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix=tests/fuzz/artifacts/"$target"/ >"$results/$target.log" 2>&1 || code=$?
    echo "$code" >"$results/$target.code"
    rm -rf "$work"
  }
  running=0
  for target in $targets; do
    if [ "$running" -ge 2 ]; then
      wait -n || true
      running=$((running - 1))
    fi
    fuzz_one "$target" &
    running=$((running + 1))
  done
  wait
  failed=
  for target in $targets; do
    log="$results/$target.log"
    if [ "$(cat "$results/$target.code" 2>/dev/null)" = 0 ]; then
      echo "$target: $(grep -Eo 'Done [0-9]+ runs in [0-9]+ second' "$log" | tail -1)s"
    else
      tail -n 40 "$log" >&2
      echo "fuzz target $target failed; its input is under tests/fuzz/artifacts/$target/" >&2
      failed=1
    fi
  done
  rm -rf "$results"
  [ -z "$failed" ] || exit 1
else
  # The fuzz targets are part of the test command: without nightly it fails, never passes
  # unrun.
  echo "the fuzz step needs a nightly toolchain: rustup toolchain install nightly" >&2
  exit 1
fi
step "the Node module: wasm-pack, profile wasm-release, then binaryen's wasm-opt -Oz; both modules' sizes"
wasm-pack build wasm --target nodejs --profile wasm-release --out-dir ../node-shim/pkg
# wasm-pack writes pkg/.gitignore holding `*`, which npm pack also obeys: the package would
# ship without its module. The repository's own .gitignore keeps pkg/ out of git.
rm -f node-shim/pkg/.gitignore
# wasm-pack's own wasm-opt step stays off (wasm/Cargo.toml): the binaryen that `npm ci` put in
# node-shim runs here. The features are the ones rustc enables for wasm32 by default, named
# because wasm-bindgen drops the section that lists them.
module=node-shim/pkg/mosaic_queue_wasm_bg.wasm
"$wasm_opt" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-mutable-globals --enable-reference-types --enable-multivalue "$module" -o "$module"
# Both wasm modules against their size budgets (tests/wasm-size.sh holds them): first the check
# itself, on files at and one byte over each budget; then the Node module just built, and the
# sandbox module that the test stage's build of host/module made (or MOSAIC_SANDBOX_WASM names).
tests/wasm-size.sh self-test
tests/wasm-size.sh sandbox \
  "${MOSAIC_SANDBOX_WASM:-$target_dir/sandbox-wasm/wasm32-unknown-unknown/release/mosaic_queue_wasm.wasm}"
tests/wasm-size.sh node "$module"
step "node-shim: node --test, against the shipped binary the smoke stage built"
# The Node face drives the binary a user installs, so its tests run that one, not the test
# build with the seams.
MOSAIC_QUEUE_BIN="$target_dir/shipped/mosaic-queue" npm --prefix node-shim test
step "the MCP renewal test in real time, begun with the smoke stage"
# This stage's time is how long the script waited for it after the others.
while [ ! -s "$renewal_dir/code" ] && kill -0 "$renewal_job" 2>/dev/null; do sleep 1; done
cat "$renewal_dir/log"
echo "the renewal test ran $(($(date +%s) - renewal_at)) s, beside the stages since smoke"
renewal_code=$(cat "$renewal_dir/code" 2>/dev/null || echo "none: it ended without one")
rm -rf "$renewal_dir"
renewal_dir=
if [ "$renewal_code" != 0 ]; then
  echo "the MCP renewal test failed (exit $renewal_code; tests/smoke/renewal.rs)" >&2
  exit 1
fi
