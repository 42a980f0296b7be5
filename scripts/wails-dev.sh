#!/usr/bin/env bash
# Runs a command against the real app: starts "wails dev" under Xvfb and
# D-Bus (the frontend with live Go bindings on http://127.0.0.1:34115, on
# the embedded simulator) with a fresh config directory, waits until it
# serves the app, then runs the command with BATON_URL set. The wails dev
# log is shown when either fails. Used by e2e.sh and screenshots.sh.
#   scripts/wails-dev.sh COMMAND [ARG...]
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: scripts/wails-dev.sh COMMAND [ARG...]" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$(go env GOPATH)/bin:$PATH"
export BATON_CONFIG_DIR=$(mktemp -d)
export BATON_URL=http://127.0.0.1:34115
log=$(mktemp)

if curl -s -o /dev/null "$BATON_URL"; then
  echo "Something already answers on $BATON_URL; stop it (another wails dev?) first." >&2
  exit 1
fi

echo "starting wails dev (the first build takes a few minutes); log: $log"
setsid xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- \
  wails dev -tags webkit2_41 -skipbindings -noreload -loglevel Warning >"$log" 2>&1 &
dev=$!
cleanup() {
  kill -- -"$dev" 2>/dev/null || true
  wait "$dev" 2>/dev/null || true
  rm -rf "$BATON_CONFIG_DIR"
}
trap cleanup EXIT

for _ in $(seq 1 240); do
  curl -s -o /dev/null -w '%{http_code}' "$BATON_URL" 2>/dev/null | grep -q 200 && break
  if ! kill -0 "$dev" 2>/dev/null; then
    echo "wails dev stopped before serving the app:" >&2
    tail -n 40 "$log" >&2
    exit 1
  fi
  sleep 2
done
if ! curl -s -o /dev/null "$BATON_URL"; then
  echo "wails dev did not serve the app within 8 minutes:" >&2
  tail -n 40 "$log" >&2
  exit 1
fi

if ! "$@"; then
  echo "wails dev log:" >&2
  tail -n 40 "$log" >&2
  exit 1
fi
