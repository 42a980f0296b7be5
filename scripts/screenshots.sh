#!/usr/bin/env bash
# The README's screenshots of the run flow, from the real app: starts
# "wails dev" under Xvfb (the app with live Go bindings on
# http://127.0.0.1:34115, on the embedded simulator) with a fresh config
# directory, like scripts/e2e.sh, then frontend/e2e/screenshots.mjs drives it
# in Chromium and writes the PNGs to docs/screenshots (or $BATON_SHOTS_DIR).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$(go env GOPATH)/bin:$PATH"
export BATON_CONFIG_DIR=$(mktemp -d)
log=$(mktemp)
url=http://127.0.0.1:34115
shots=${BATON_SHOTS_DIR:-$root/docs/screenshots}

if curl -s -o /dev/null "$url"; then
  echo "Something already answers on $url; stop it (another wails dev?) first." >&2
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
  curl -s -o /dev/null -w '%{http_code}' "$url" 2>/dev/null | grep -q 200 && break
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

if ! BATON_URL=$url BATON_SHOTS_DIR=$shots BATON_E2E_FOLDER="$root/backend/console/testdata/sample" \
  node frontend/e2e/screenshots.mjs; then
  echo "wails dev log:" >&2
  tail -n 40 "$log" >&2
  exit 1
fi
