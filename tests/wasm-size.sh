#!/usr/bin/env bash
# The size budgets of the two wasm modules the project ships, and the check of a built module
# against its own: `tests/wasm-size.sh node FILE` (the Node module, after wasm-opt),
# `tests/wasm-size.sh sandbox FILE` (the zero-import module `verify --snapshot` embeds), and
# `tests/wasm-size.sh self-test`, which proves the check refuses one byte over each budget and
# passes a file exactly at it. tests/all.sh runs all three in its Node module stage.
set -euo pipefail

# Bytes, each the one place its budget is set. The Node module's goal is 500,000 bytes
# (docs/migration.md) and it does not meet it yet: until the readers are redesigned its budget
# is a ceiling at its size when the budget was set (681,880) with about 1% of headroom, so the
# module can only shrink, and the check prints how far it stands from the goal. The sandbox
# module's (its name section included, as host/module builds it) is its size when the budget
# was set with about a tenth of headroom, so that growth past that is a decision.
NODE_GOAL=500000
NODE_BUDGET=690000
SANDBOX_BUDGET=796000

budget_of() {
  case "$1" in
  node) echo "$NODE_BUDGET" ;;
  sandbox) echo "$SANDBOX_BUDGET" ;;
  *)
    echo "tests/wasm-size.sh: no module named '$1' (node or sandbox)" >&2
    return 4
    ;;
  esac
}

# check NAME FILE: prints the module's size against its budget; fails, saying both, when over.
check() {
  local name=$1 file=$2 budget size
  budget=$(budget_of "$name")
  if [ ! -f "$file" ]; then
    echo "the $name module $file does not exist: build it first" >&2
    return 1
  fi
  size=$(wc -c <"$file")
  size=$((size))
  if [ "$size" -gt "$budget" ]; then
    echo "the $name module is $size bytes, over its budget of $budget bytes by $((size - budget)) ($file)" >&2
    return 1
  fi
  echo "the $name module: $size bytes, budget $budget ($((budget - size)) to spare)"
  if [ "$name" = node ] && [ "$size" -gt "$NODE_GOAL" ]; then
    echo "the node module is $((size - NODE_GOAL)) bytes over its goal of $NODE_GOAL (docs/migration.md)"
  fi
}

# For each budget, a file exactly at it must pass and one a byte over must fail.
self_test() {
  local dir name budget failed=0
  dir=$(mktemp -d)
  for name in node sandbox; do
    budget=$(budget_of "$name")
    head -c "$budget" /dev/zero >"$dir/at.wasm"
    head -c "$((budget + 1))" /dev/zero >"$dir/over.wasm"
    if ! check "$name" "$dir/at.wasm" >/dev/null; then
      echo "self-test: a $name file of exactly $budget bytes failed the check" >&2
      failed=1
    fi
    if check "$name" "$dir/over.wasm" >/dev/null 2>&1; then
      echo "self-test: a $name file of $((budget + 1)) bytes passed the check" >&2
      failed=1
    fi
  done
  rm -rf "$dir"
  [ "$failed" = 0 ] || return 1
  echo "self-test: each budget passes a file at it and refuses one a byte over"
}

case "${1:-}" in
node | sandbox)
  [ $# -eq 2 ] || { echo "usage: tests/wasm-size.sh node|sandbox FILE | self-test" >&2; exit 4; }
  check "$1" "$2"
  ;;
self-test) self_test ;;
*)
  echo "usage: tests/wasm-size.sh node|sandbox FILE | self-test" >&2
  exit 4
  ;;
esac
