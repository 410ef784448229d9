#!/usr/bin/env bash
# Prints a text capture of the explorer: starts `apic explore ARGS...` in a
# detached 100×28 tmux session on a private server, waits until the
# refined answer is on screen (at most 60 s), prints the pane, and ends
# the session. Used by docs/regen.sh for the picture in README.md:
#
#   docs/capture-explorer.sh --system lv --backbone lnp --seed 1
#
# apic is the binary on PATH (regen.sh puts the one it built there), or
# else one built from this tree.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$(command -v apic || true)
tmp=$(mktemp -d)
socket="apic-capture-$$"
cleanup() {
  tmux -L "$socket" kill-server 2> /dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
if [[ -z $bin ]]; then
  (cd "$root" && go build -o "$tmp/apic" .)
  bin=$tmp/apic
fi
# The explorer's own process gets the pane's size; TERM picks 256 colours,
# which capture-pane -p drops, leaving the text.
tmux -L "$socket" new-session -d -s cap -x 100 -y 28 \
  "TERM=xterm-256color $(printf '%q ' "$bin" explore "$@")"
for _ in $(seq 120); do
  sleep 0.5
  if tmux -L "$socket" capture-pane -p -t cap | grep -q 'refined'; then
    sleep 0.5
    tmux -L "$socket" capture-pane -p -t cap
    exit 0
  fi
done
echo "capture-explorer: the explorer showed no refined answer within 60 s" >&2
tmux -L "$socket" capture-pane -p -t cap >&2
exit 1
