#!/usr/bin/env bash
# Runs a command against the real app: starts "wails dev" under Xvfb and
# D-Bus (the frontend with live Go bindings on http://127.0.0.1:PORT, on
# the embedded simulator) with a fresh config directory, waits until it
# serves the app, then runs the command with BATON_URL set. The wails dev
# log is shown when either fails. Used by e2e.sh and screenshots.sh.
# PORT is BATON_DEV_PORT when set, else the first free port from 34115 on,
# so two passes (two clones, e2e beside screenshots) do not collide.
#   scripts/wails-dev.sh COMMAND [ARG...]
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: scripts/wails-dev.sh COMMAND [ARG...]" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$(go env GOPATH)/bin:$PATH"
export BATON_CONFIG_DIR=$(mktemp -d)
log=$(mktemp)

# answers PORT: true when something listens on 127.0.0.1:PORT.
answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
if [ -n "${BATON_DEV_PORT:-}" ]; then
  port=$BATON_DEV_PORT
  if answers "$port"; then
    echo "Something already answers on 127.0.0.1:$port (BATON_DEV_PORT); stop it or choose another port." >&2
    exit 1
  fi
else
  port=34115
  while answers "$port"; do
    port=$((port + 1))
    [ "$port" -lt 34215 ] || { echo "No free port in 34115-34214 for wails dev." >&2; exit 1; }
  done
fi
export BATON_URL=http://127.0.0.1:$port

echo "starting wails dev (the first build takes a few minutes); log: $log"
setsid xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- \
  wails dev -tags webkit2_41 -devserver "127.0.0.1:$port" -skipbindings -noreload -loglevel Warning >"$log" 2>&1 &
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
