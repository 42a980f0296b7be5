#!/usr/bin/env bash
# End-to-end test of the real frontend with the real Go bindings: starts
# "wails dev" under Xvfb (it serves the app with live bindings on
# http://127.0.0.1:34115) with a fresh config directory, then drives it in
# Chromium with frontend/e2e/run-flow.mjs: a simulator run is created,
# reviewed and confirmed, completes, and is found in History.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$(go env GOPATH)/bin:$PATH"
export BATON_CONFIG_DIR=$(mktemp -d)
log=$(mktemp)
url=http://127.0.0.1:34115

if curl -s -o /dev/null "$url"; then
  echo "Something already answers on $url; stop it (another wails dev?) before running the end-to-end test." >&2
  exit 1
fi

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
  if curl -s -o /dev/null -w '%{http_code}' "$url" 2>/dev/null | grep -q 200; then
    break
  fi
  if ! kill -0 "$dev" 2>/dev/null; then
    echo "wails dev stopped before serving the app:" >&2
    tail -n 40 "$log" >&2
    exit 1
  fi
  sleep 2
done
if ! curl -s -o /dev/null "$url"; then
  echo "wails dev did not serve the app within 8 minutes:" >&2
  tail -n 40 "$log" >&2
  exit 1
fi

if ! BATON_URL=$url BATON_E2E_FOLDER="$root/backend/console/testdata/sample" BATON_E2E_SHOT="$root/e2e-failure.png" \
  node frontend/e2e/run-flow.mjs; then
  echo "wails dev log:" >&2
  tail -n 40 "$log" >&2
  exit 1
fi
echo "1 passed, 0 failed"
