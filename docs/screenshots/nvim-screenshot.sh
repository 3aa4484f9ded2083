#!/usr/bin/env bash
# Takes docs/screenshots/nvim-leak-trace.png: Neovim in tmux on a leaking fixture, with the leak
# diagnostic (virtual text, statusline count), :ReductioTrace's quickfix list and the
# :ReductioProve float. Needs tmux, editors/.venv/bin/nvim (editors/test.sh installs it), REDUCTIO_BIN, and
# pyte + Pillow for the renderer.
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
PY=${PYTHON:-python3}
COLS=118 ROWS=38
S=reductio-shot-$$
XDG=$(mktemp -d)
trap 'tmux kill-session -t $S 2>/dev/null || true; rm -rf "$XDG"' EXIT
tmux new-session -d -s $S -x $COLS -y $ROWS \
  "env TERM=tmux-256color COLORTERM=truecolor XDG_STATE_HOME=$XDG XDG_DATA_HOME=$XDG REDUCTIO_BIN=$REDUCTIO_BIN \
   $REPO/editors/.venv/bin/nvim --clean -u $REPO/docs/screenshots/nvim-init.lua \
   +25 $REPO/test-fixtures/idioms/error-path-leak.c"
tmux set -t $S -g default-terminal tmux-256color >/dev/null
sleep 3   # the server starts and publishes the diagnostic
tmux send-keys -t $S ':15' Enter 'zt' ':25' Enter '9|'
sleep 0.3
tmux send-keys -t $S ':ReductioTrace' Enter
sleep 1
tmux send-keys -t $S ':ReductioProve' Enter
sleep 1.5
tmux capture-pane -t $S -e -p > "$XDG/capture.txt"
"$PY" docs/screenshots/render_ansi.py "$XDG/capture.txt" docs/screenshots/nvim-leak-trace.png $COLS $ROWS
echo "wrote docs/screenshots/nvim-leak-trace.png"
