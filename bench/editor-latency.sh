#!/usr/bin/env bash
# Editor latency through real editors (issue 21): first diagnostics of a fixture after the
# editor starts the server, and save -> diagnostics on a 3-5k-line file of a real project.
#   nvim:   headless Neovim with editors/nvim (bench/nvim-latency.lua)
#   vscode: code-server + Chromium (editors/vscode/e2e/vscode.e2e.mjs --latency FILE); needs
#           editors/vscode/e2e/setup.sh and editors/vscode/reductio.vsix
# Usage: bench/editor-latency.sh [nvim|vscode]... (default both)
# Env: REDUCTIO_BIN (default target/release/reductio), NVIM (default editors/.venv/bin/nvim),
#      FILE (default bench-data/realcode/src/libevent/buffer.c), SAVES (default 20),
#      FUNCTION (the function to edit; default the first one at or after the file's middle),
#      LINE (the leaking line goes after the first statement at or after this line instead
#      of 9 lines into the function, e.g. past an `#if 0` arm).
# The project of FILE (its directory) is copied to a scratch directory: nothing is written
# into bench-data.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
BIN=${REDUCTIO_BIN:-${CARGO_TARGET_DIR:-$REPO/target}/release/reductio}
NVIM=${NVIM:-$REPO/editors/.venv/bin/nvim}
FILE=$(realpath "${FILE:-bench-data/realcode/src/libevent/buffer.c}")
SAVES=${SAVES:-20}
FIXTURE=$REPO/test-fixtures/idioms/error-path-leak.c
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(nvim vscode)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for t in "${targets[@]}"; do
    case $t in
        nvim)
            echo "== Neovim ($("$NVIM" --version | head -n 1)), server $BIN"
            mkdir -p "$work/fixture" "$work/real"
            cp "$FIXTURE" "$work/fixture/"
            cp -rL "$(dirname "$FILE")" "$work/real/"
            copy="$work/real/$(basename "$(dirname "$FILE")")/$(basename "$FILE")"
            : > "$(dirname "$copy")/reductio.toml"   # the root marker: the project is the workspace
            XDG_STATE_HOME=$work/state XDG_DATA_HOME=$work/data XDG_CONFIG_HOME=$work/config \
            REDUCTIO_BIN=$BIN REDUCTIO_FIXTURE=$work/fixture/$(basename "$FIXTURE") \
            REDUCTIO_FILE=$copy REDUCTIO_SAVES=$SAVES REDUCTIO_FUNCTION=${FUNCTION:-} REDUCTIO_LINE=${LINE:-} \
                timeout 600 "$NVIM" --headless --clean --cmd "set rtp^=$REPO/editors/nvim" \
                -l "$REPO/bench/nvim-latency.lua" </dev/null
            ;;
        vscode)
            echo "== VS Code (code-server), server $BIN"
            REDUCTIO_BIN=$BIN REDUCTIO_E2E_FUNCTION=${FUNCTION:-} REDUCTIO_E2E_LINE=${LINE:-} timeout 900 \
                node editors/vscode/e2e/vscode.e2e.mjs --latency "$FILE" --saves "$SAVES"
            ;;
        *) echo "unknown target $t (nvim, vscode)"; exit 2 ;;
    esac
done
