#!/usr/bin/env bash
# The README's screenshots of the run flow, from the real app: under
# "wails dev" (scripts/wails-dev.sh), frontend/e2e/screenshots.mjs drives
# the app in Chromium through three simulator runs and writes the PNGs to
# docs/screenshots (or $BATON_SHOTS_DIR).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# A copy of the sample project: the simulator's workers write into it.
project=$(mktemp -d)
trap 'rm -rf "$project"' EXIT
cp -r "$root/backend/console/testdata/sample" "$project/sample"
BATON_SHOTS_DIR=${BATON_SHOTS_DIR:-$root/docs/screenshots} BATON_E2E_FOLDER="$project/sample" \
  "$root/scripts/wails-dev.sh" node "$root/frontend/e2e/screenshots.mjs"
