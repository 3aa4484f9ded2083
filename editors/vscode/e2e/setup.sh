#!/usr/bin/env bash
# Installs what the VS Code end-to-end test needs, offline except for the npm registry and
# Debian: code-server 4.99.4 (the last release for node 20) and playwright-core from
# package-lock.json, Debian's Chromium, and ripgrep.
#
# code-server's own postinstall cannot run here: @vscode/ripgrep's postinstall downloads a
# binary from GitHub. So this does the postinstall's steps by hand (STACK.md, "code-server"):
# install with --ignore-scripts, put Debian's rg where @vscode/ripgrep expects it, rebuild the
# native modules (node-gyp uses the node headers in /usr, npm's `nodedir`), make the symlinks
# postinstall.sh makes, install the built-in extensions' dependencies.
set -euo pipefail
cd "$(dirname "$0")"
E2E=$PWD
VSCODE_DIR=node_modules/code-server/lib/vscode
MARKER=node_modules/.reductio-e2e-ready

need_apt=()
command -v rg >/dev/null || need_apt+=(ripgrep)
[ -x /usr/lib/chromium/chromium ] || need_apt+=(chromium)
command -v make >/dev/null && command -v g++ >/dev/null || need_apt+=(build-essential)
for pkg in libkrb5-dev libxkbfile-dev libsecret-1-dev; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
if [ ${#need_apt[@]} -gt 0 ]; then
    echo "-- apt-get install ${need_apt[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if [ -f "$MARKER" ] && [ "$MARKER" -nt package-lock.json ]; then
    echo "-- code-server already set up"
    exit 0
fi

echo "-- npm ci --ignore-scripts (code-server, playwright-core)"
npm ci --no-audit --no-fund --ignore-scripts --loglevel=error

echo "-- code-server: VS Code's dependencies"
(cd "$VSCODE_DIR" && npm install --no-audit --no-fund --ignore-scripts --omit=dev --loglevel=error)
mkdir -p "$VSCODE_DIR/node_modules/@vscode/ripgrep/bin"
cp "$(command -v rg)" "$VSCODE_DIR/node_modules/@vscode/ripgrep/bin/rg"
echo "-- code-server: native modules (node-gyp, about a minute)"
(cd "$VSCODE_DIR" && npm_config_yes=true npm rebuild --loglevel=error >/dev/null)
test -f "$VSCODE_DIR/node_modules/node-pty/build/Release/pty.node"
test -f "$VSCODE_DIR/node_modules/@vscode/spdlog/build/Release/spdlog.node"
# postinstall.sh's symlinks
ln -sfn node_modules "$VSCODE_DIR/node_modules.asar"
ln -sfn code-linux.sh "$VSCODE_DIR/bin/remote-cli/code-server"
ln -sfn browser-linux.sh "$VSCODE_DIR/bin/helpers/browser.sh"
(cd "$VSCODE_DIR/extensions" && npm install --no-audit --no-fund --omit=dev --loglevel=error)
echo "-- code-server: argon2"
npm_config_yes=true npm rebuild argon2 --loglevel=error >/dev/null
node_modules/.bin/code-server --version | head -n 1
touch "$MARKER"
echo "-- code-server ready in $E2E/node_modules"
