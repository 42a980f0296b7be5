#!/usr/bin/env bash
# End-to-end test of the real frontend with the real Go bindings: under
# "wails dev" (scripts/wails-dev.sh), frontend/e2e/run-flow.mjs drives the
# app in Chromium: a simulator run is created, reviewed and confirmed,
# completes, and is found in History. Then frontend/e2e/window.mjs: a run
# whose sessions ask before writing (the cards follow the answers, the Inbox
# keeps its items in place), axe-core over every view, History's fit and the
# focus ring. Then, in the same app,
# frontend/e2e/run-flow-cli.mjs picks the host "Claude Code (CLI)" in
# Settings with the pinned CLI (tools/claude-code, installed by
# make test-deps), runs the documentation template on a copy of the sample
# project and checks the workers' files in it; the CLIs' model is a
# "baton model-sim" this script starts (ANTHROPIC_BASE_URL in the app's
# environment, which every CLI inherits; CLAUDE_CONFIG_DIR keeps them away
# from the user's own Claude Code settings).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
claude="${BATON_E2E_CLAUDE:-$root/tools/claude-code/node_modules/.bin/claude}"
if [ ! -x "$claude" ]; then
  echo "The pinned Claude Code CLI is not installed at $claude: run make test-deps (npm ci in tools/claude-code)." >&2
  exit 1
fi

tmp=$(mktemp -d)
sim=""
cleanup() {
  if [ -n "$sim" ]; then kill "$sim" 2>/dev/null || true; wait "$sim" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# The model for the Claude Code pass.
go build -o "$tmp/baton" "$root"
"$tmp/baton" model-sim --listen 127.0.0.1:0 >"$tmp/model-sim.out" 2>&1 &
sim=$!
url=""
for _ in $(seq 1 50); do
  url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$tmp/model-sim.out" | head -n 1 || true)
  [ -n "$url" ] && break
  sleep 0.2
done
if [ -z "$url" ]; then
  echo "baton model-sim did not start:" >&2
  cat "$tmp/model-sim.out" >&2
  exit 1
fi

# The simulator pass's project: a copy of the sample, as the simulator's
# workers write their pages into it.
cp -r "$root/backend/console/testdata/sample" "$tmp/sim-project"
cp -r "$root/backend/console/testdata/sample" "$tmp/window-project"
# The Claude Code pass's project: the sample without go.mod, so that no
# worker runs a test command.
cp -r "$root/backend/console/testdata/sample" "$tmp/cli-project"
rm -f "$tmp/cli-project/go.mod"
mkdir -p "$tmp/claude-config"

ANTHROPIC_BASE_URL="$url" ANTHROPIC_API_KEY=baton-e2e-model-sim CLAUDE_CONFIG_DIR="$tmp/claude-config" \
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
  BATON_E2E_FOLDER="$tmp/sim-project" BATON_E2E_SHOT="$root/e2e-failure.png" \
  BATON_E2E_WINDOW_FOLDER="$tmp/window-project" \
  BATON_E2E_CLI_FOLDER="$tmp/cli-project" BATON_E2E_CLAUDE="$claude" \
  "$root/scripts/wails-dev.sh" sh -c 'node "$0/frontend/e2e/run-flow.mjs" && node "$0/frontend/e2e/window.mjs" && node "$0/frontend/e2e/run-flow-cli.mjs"' "$root"
echo "3 passed, 0 failed"
