#!/usr/bin/env bash
# The queue's snapshot check for CI (docs/ci.md): the committed queue files of HEAD, unpacked
# outside any repository, are checked by `mosaic-queue verify --snapshot` against the queue.json
# of BASE, with a binary built from HEAD's archived source (or the one MOSAIC_QUEUE_BIN names).
# Run from the repository's top level. Exit codes are the tool's: 0 the snapshot is valid and
# extends the base, 1 the check could not run, 2 the snapshot is invalid or does not extend it.
#
#   BASE                 the commit to check against: the push's old head or the pull request's
#                        base; empty or all zeros means HEAD's first parent (none at a root)
#   MOSAIC_QUEUE_BIN     a mosaic-queue binary to run instead of building one
#   MOSAIC_QUEUE_SOURCE  the directory of HEAD's tree that holds the tool's workspace (default .)
set -euo pipefail

fail() {
  echo "queue snapshot check: $*" >&2
  exit 1
}

git rev-parse --verify -q HEAD >/dev/null || fail "not in a git checkout with a HEAD; run it from the repository's top level"
if ! git cat-file -e HEAD:docs/plans/queue.json 2>/dev/null; then
  echo "queue snapshot check: HEAD holds no docs/plans/queue.json; nothing to check"
  exit 0
fi

base=${BASE:-}
if [ -z "$base" ] || [ -z "${base//0/}" ]; then
  base=$(git rev-parse --verify -q 'HEAD^' || true)
fi

# Everything the check reads lives outside any repository, so neither git nor the tool can find
# this checkout from there.
work=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/queue-snapshot.XXXXXX")
trap 'rm -rf "$work"' EXIT
if git -C "$work" rev-parse --git-dir >/dev/null 2>&1; then
  fail "$work lies inside a git repository; set RUNNER_TEMP or TMPDIR to a directory outside one"
fi
mkdir "$work/snapshot"
git archive --format=tar HEAD docs/plans/queue.json docs/plans/QUEUE.md | tar -x -C "$work/snapshot" ||
  fail "cannot unpack HEAD's queue files; check that HEAD holds docs/plans/QUEUE.md too"

args=(verify --snapshot "$work/snapshot/docs/plans")
if [ -n "$base" ]; then
  git rev-parse --verify -q "$base^{commit}" >/dev/null ||
    fail "the base $base is not a commit here; fetch the history (fetch-depth: 0) and run it again"
  if git cat-file -e "$base:docs/plans/queue.json" 2>/dev/null; then
    git cat-file blob "$base:docs/plans/queue.json" >"$work/base.json"
    args+=(--base "$work/base.json")
  fi
fi

bin=${MOSAIC_QUEUE_BIN:-}
if [ -z "$bin" ]; then
  source=${MOSAIC_QUEUE_SOURCE:-.}
  mkdir "$work/source"
  git archive --format=tar "HEAD:$source" | tar -x -C "$work/source" ||
    fail "HEAD holds no tool source at $source; set MOSAIC_QUEUE_SOURCE or MOSAIC_QUEUE_BIN"
  # A release build without whole-program LTO: the check runs once, so the link time LTO
  # costs would not pay for itself.
  (cd "$work/source" && CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    cargo build --release --locked -q -p mosaic-queue) ||
    fail "building mosaic-queue from HEAD's source failed (its errors are above)"
  bin="$work/source/target/release/mosaic-queue"
fi
case $bin in
  */*) bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin") ;;
  *) bin=$(command -v "$bin") || fail "no mosaic-queue binary named $bin on PATH" ;;
esac

cd "$work"
"$bin" "${args[@]}"
