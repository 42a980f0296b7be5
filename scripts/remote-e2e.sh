#!/usr/bin/env bash
# Baton from a phone, end to end: "baton serve" on loopback with the Claude
# Code CLI host (the pinned CLI, tools/claude-code) and a "baton model-sim"
# as its model, each with its own HOME and configuration; then
# frontend/e2e/remote-phone.mjs drives it in Chromium at a phone's 390×844
# (the access link, a run whose workers ask permission, allowed from the
# Inbox, the Origin check, a new link signing the browser out). The server's
# log must show the refused attempts. Run by make remote-e2e (part of
# make test).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
claude="${BATON_E2E_CLAUDE:-$root/tools/claude-code/node_modules/.bin/claude}"
if [ ! -x "$claude" ]; then
  echo "The pinned Claude Code CLI is not installed at $claude: run make test-deps (npm ci in tools/claude-code)." >&2
  exit 1
fi

tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

# wait_for FILE PATTERN: the first match of PATTERN in FILE, within 30 s.
wait_for() {
  local found=""
  for _ in $(seq 1 150); do
    found=$(grep -o "$2" "$1" 2>/dev/null | head -n 1 || true)
    [ -n "$found" ] && { echo "$found"; return 0; }
    sleep 0.2
  done
  return 1
}

# The binary serves the built frontend it embeds.
(cd "$root/frontend" && npm run build --silent >/dev/null)
go build -o "$tmp/baton" "$root"

"$tmp/baton" model-sim --listen 127.0.0.1:0 >"$tmp/model-sim.out" 2>&1 &
pids+=($!)
sim=$(wait_for "$tmp/model-sim.out" 'http://127\.0\.0\.1:[0-9]*') || { echo "baton model-sim did not start:" >&2; cat "$tmp/model-sim.out" >&2; exit 1; }

# The project: the sample without go.mod, so that no worker runs a test command.
cp -r "$root/backend/console/testdata/sample" "$tmp/project"
rm -f "$tmp/project/go.mod"
mkdir -p "$tmp/config" "$tmp/home" "$tmp/claude-config"

BATON_CONFIG_DIR="$tmp/config" HOME="$tmp/home" ANTHROPIC_BASE_URL="$sim" ANTHROPIC_API_KEY=baton-e2e-model-sim \
  CLAUDE_CONFIG_DIR="$tmp/claude-config" CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
  "$tmp/baton" serve --listen 127.0.0.1:0 >"$tmp/serve.out" 2>"$tmp/serve.log" &
pids+=($!)
login=$(wait_for "$tmp/serve.out" 'http://127\.0\.0\.1:[0-9]*/login?token=[A-Za-z0-9_-]*') || {
  echo "baton serve did not print its link:" >&2; cat "$tmp/serve.out" "$tmp/serve.log" >&2; exit 1; }
url="${login%%login*}"
echo "baton serve at $url"

status=0
BATON_URL="$url" BATON_LOGIN="$login" BATON_E2E_FOLDER="$tmp/project" BATON_E2E_CLAUDE="$claude" \
  BATON_E2E_SHOT="$root/remote-e2e-failure.png" node "$root/frontend/e2e/remote-phone.mjs" || status=$?

# The refusals the test caused are in the server's log.
for want in 'remote access refused a request from another origin' 'reason="wrong or replaced cookie"' 'reason="wrong access token"'; do
  if ! grep -q "$want" "$tmp/serve.log"; then
    echo "The server's log does not say: $want" >&2
    status=1
  fi
done
if [ "$status" -ne 0 ]; then
  echo "--- baton serve's log (last 60 lines):" >&2
  tail -n 60 "$tmp/serve.log" >&2
fi
exit "$status"
