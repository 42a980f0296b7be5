#!/usr/bin/env bash
# The README's screenshot of a task's diff (docs/screenshots/runs-diff.png):
# a worktree run of the real app on the pinned Claude Code CLI, whose model
# is "baton model-sim" (no AI, real tools on real files), on a small git
# repository. frontend/e2e/diff-shot.mjs drives the app under "wails dev"
# (scripts/wails-dev.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
sim=""
cleanup() { [ -n "$sim" ] && kill "$sim" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

go build -o "$tmp/baton" github.com/baton-app/baton
"$tmp/baton" model-sim --listen 127.0.0.1:0 >"$tmp/sim.out" 2>&1 &
sim=$!
for _ in $(seq 1 50); do grep -q listening "$tmp/sim.out" && break; sleep 0.2; done
url=$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$tmp/sim.out" | head -n1)
[ -n "$url" ] || { echo "model-sim did not start:" >&2; cat "$tmp/sim.out" >&2; exit 1; }

project="$tmp/shop"
cp -r "$root/backend/console/testdata/sample" "$project"
git -C "$project" init -q -b main
git -C "$project" add -A
GIT_AUTHOR_NAME=You GIT_AUTHOR_EMAIL=you@example.com GIT_COMMITTER_NAME=You GIT_COMMITTER_EMAIL=you@example.com \
  git -C "$project" commit -q -m "first"

mkdir -p "$tmp/home"
ANTHROPIC_BASE_URL=$url ANTHROPIC_API_KEY=sk-ant-baton-test CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 HOME="$tmp/home" \
  BATON_SHOTS_DIR=${BATON_SHOTS_DIR:-$root/docs/screenshots} BATON_E2E_FOLDER="$project" \
  BATON_CLAUDE="$root/tools/claude-code/node_modules/.bin/claude" \
  "$root/scripts/wails-dev.sh" node "$root/frontend/e2e/diff-shot.mjs"
