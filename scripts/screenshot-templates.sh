#!/usr/bin/env bash
# Opens the built Baton under Xvfb on the Templates view and saves a series
# of screenshots of the template editor:
#   scripts/screenshot-templates.sh OUTDIR [dark]
# It copies the custom templates of scripts/testdata/templates into a fresh
# BATON_CONFIG_DIR: the first has schema errors, the second is valid.
# It writes OUTDIR/templates-{form,json,resolved,delete}[-dark].png.
set -euo pipefail
outdir=$(realpath -m "${1:?usage: scripts/screenshot-templates.sh OUTDIR [dark]}")
theme=${2:-light}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$outdir"
config=$(mktemp -d)
trap 'rm -rf "$config"' EXIT
mkdir -m 700 "$config/templates"
install -m 600 "$root"/scripts/testdata/templates/*.json "$config/templates/"
export BATON_CONFIG_DIR=$config
suffix=""
if [ "$theme" = dark ]; then export GTK_THEME=Adwaita:dark; suffix=-dark; fi
export BATON_OUTDIR=$outdir BATON_SUFFIX=$suffix BATON_BIN=$root/build/bin/baton
xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- bash -c '
  "$BATON_BIN" >/tmp/baton-screenshot-templates.log 2>&1 & pid=$!
  for _ in $(seq 1 50); do xdotool search --name "^Baton$" >/dev/null 2>&1 && break; sleep 0.2; done
  sleep 2
  win=$(xdotool search --name "^Baton$" | head -n1)
  click() { xdotool mousemove --window "$win" "$1" "$2" click 1; sleep "${3:-1}"; }
  shot() { import -window root "$BATON_OUTDIR/templates-$1$BATON_SUFFIX.png"; }
  click 90 176 3                # sidebar: Templates (after Runs, New run, Inbox)
  shot form
  # Coordinates are in the window (1200x780), for the fixture of
  # scripts/testdata: an invalid first template (so its tabs sit below the
  # problem list) and a valid second one.
  click 570 177 2                 # the JSON tab of the invalid template
  shot json
  click 320 202 2                 # the second template of the list
  click 652 140 2                 # its Resolved tab
  shot resolved
  click 1042 96 1                 # Delete asks first
  shot delete
  xdotool key --window "$win" Escape; sleep 0.5
  kill $pid; wait $pid 2>/dev/null || true
'
