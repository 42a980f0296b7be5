#!/usr/bin/env bash
# End-to-end test of the real frontend with the real Go bindings: under
# "wails dev" (scripts/wails-dev.sh), frontend/e2e/run-flow.mjs drives the
# app in Chromium: a simulator run is created, reviewed and confirmed,
# completes, and is found in History.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
BATON_E2E_FOLDER="$root/backend/console/testdata/sample" BATON_E2E_SHOT="$root/e2e-failure.png" \
  "$root/scripts/wails-dev.sh" node "$root/frontend/e2e/run-flow.mjs"
echo "1 passed, 0 failed"
