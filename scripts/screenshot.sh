#!/usr/bin/env bash
# Opens the built Baton under Xvfb and saves a screenshot of the screen.
#   scripts/screenshot.sh OUT.png [VIEW] [dark]
# VIEW is a sidebar view (runs, new-run, inbox, templates, sessions, history,
# settings) clicked with xdotool; "dark" starts GTK with its dark theme.
set -euo pipefail
out=${1:?usage: scripts/screenshot.sh OUT.png [VIEW] [dark]}
view=${2:-runs}
theme=${3:-light}
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "$out")
export BATON_VIEW=$view BATON_OUT=$out BATON_BIN=$root/build/bin/baton
[ "$theme" = dark ] && export GTK_THEME=Adwaita:dark
exec xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- bash -c '
  "$BATON_BIN" >/tmp/baton-screenshot.log 2>&1 & pid=$!
  for _ in $(seq 1 50); do xdotool search --name "^Baton$" >/dev/null 2>&1 && break; sleep 0.2; done
  sleep 2
  case "$BATON_VIEW" in
    runs) y=0 ;; new-run) y=1 ;; inbox) y=2 ;; templates) y=3 ;; sessions) y=4 ;; history) y=5 ;; settings) y=6 ;; *) y=0 ;;
  esac
  if [ "$y" -gt 0 ]; then
    win=$(xdotool search --name "^Baton$" | head -n1)
    xdotool mousemove --window "$win" 90 $((74 + y * 34)) click 1
    sleep 1
  fi
  import -window root "$BATON_OUT"
  kill $pid; wait $pid 2>/dev/null || true
'
