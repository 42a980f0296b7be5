#!/usr/bin/env bash
# Installs what Baton needs on Debian/Ubuntu, and only what is missing:
#   scripts/deps.sh build   apt packages to build and run, the pinned Wails CLI, npm packages
#   scripts/deps.sh test    the same, plus what the tests need (Xvfb, D-Bus, ImageMagick, xdotool,
#                           the package tools: desktop-file-utils, appstream, lintian, dpkg-dev,
#                           openssh-server for the sshd that tests start as "another machine")
#                           and the Claude Code CLI pinned for tests (tools/claude-code)
#   scripts/deps.sh package the build list plus ImageMagick (icons) and dpkg-dev (dpkg-shlibdeps)
#                           for "make package"
#   scripts/deps.sh windows the build list plus mingw-w64 (cgo for Windows) for "make package-windows"
# Go and Node.js cannot be installed by the project; their versions are checked.
set -euo pipefail

mode=${1:-build}
WAILS_VERSION=${WAILS_VERSION:-v2.16.0}
GO_MIN=1.26
NODE_MIN=20.19.0
root=$(cd "$(dirname "$0")/.." && pwd)

build_packages=(libgtk-3-dev libwebkit2gtk-4.1-dev pkg-config chromium)
test_packages=(xvfb xauth dbus dbus-x11 imagemagick xdotool desktop-file-utils appstream lintian dpkg-dev openssh-server)
package_packages=(imagemagick dpkg-dev)
windows_packages=(mingw-w64)

fail() { echo "$*" >&2; exit 1; }

# version_at_least HAVE WANT: true when HAVE >= WANT (dotted versions).
version_at_least() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]; }

check_prerequisites() {
  command -v go >/dev/null 2>&1 ||
    fail "Go $GO_MIN or newer is needed and 'go' is not on PATH: install it from https://go.dev/dl/ and run make again."
  local gov
  gov=$(go env GOVERSION | sed 's/^go//')
  version_at_least "$gov" "$GO_MIN" ||
    fail "Go $GO_MIN or newer is needed, and this machine has Go $gov: install a newer Go from https://go.dev/dl/."
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 ||
    fail "Node.js $NODE_MIN or newer (with npm) is needed and 'node' or 'npm' is not on PATH: install it from https://nodejs.org/."
  local nodev
  nodev=$(node --version | sed 's/^v//')
  version_at_least "$nodev" "$NODE_MIN" ||
    fail "Node.js $NODE_MIN or newer is needed, and this machine has Node.js $nodev: install a newer Node.js from https://nodejs.org/."
}

install_apt_packages() {
  local wanted=("${build_packages[@]}")
  case "$mode" in
    build) ;;
    test) wanted+=("${test_packages[@]}") ;;
    package) wanted+=("${package_packages[@]}") ;;
    windows) wanted+=("${windows_packages[@]}") ;;
    *) fail "usage: scripts/deps.sh build|test|package|windows" ;;
  esac
  local missing=()
  for p in "${wanted[@]}"; do
    dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  command -v apt-get >/dev/null 2>&1 ||
    fail "These system packages are missing and this is not a Debian/Ubuntu system with apt-get: ${missing[*]}. Install them with your package manager."
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 ||
      fail "These system packages are missing and installing them needs root: ${missing[*]}. Run 'apt-get install ${missing[*]}' as root."
    sudo=(sudo)
  fi
  echo "Installing system packages: ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  installed+=("${missing[@]}")
}

install_wails() {
  local bin
  bin="$(go env GOPATH)/bin/wails"
  if [ -x "$bin" ] && "$bin" version 2>/dev/null | grep -x "$WAILS_VERSION" >/dev/null; then
    return 0
  fi
  echo "Installing the Wails CLI $WAILS_VERSION"
  go install "github.com/wailsapp/wails/v2/cmd/wails@$WAILS_VERSION"
  installed+=("wails $WAILS_VERSION")
}

install_npm_packages() {
  local dir="$root/frontend"
  if [ -f "$dir/node_modules/.package-lock.json" ] && [ ! "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    return 0
  fi
  echo "Installing frontend packages (npm ci)"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  installed+=("npm packages")
}

# install_claude_code installs the Claude Code CLI the tests run (the exact
# version of tools/claude-code/package-lock.json) with npm ci, only when it is
# missing or the lock file changed. npm warns EBADENGINE (the package asks for
# Node 22; the CLI is a native binary and Node only runs the installer).
install_claude_code() {
  local dir="$root/tools/claude-code"
  if [ -f "$dir/node_modules/.package-lock.json" ] && [ ! "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ] &&
    [ -x "$dir/node_modules/.bin/claude" ]; then
    return 0
  fi
  echo "Installing the Claude Code CLI for tests (npm ci in tools/claude-code)"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  "$dir/node_modules/.bin/claude" --version >/dev/null ||
    fail "The Claude Code CLI in $dir/node_modules/.bin/claude does not start: remove $dir/node_modules and run make test-deps again."
  installed+=("Claude Code CLI")
}

installed=()
check_prerequisites
install_apt_packages
install_wails
install_npm_packages
if [ "$mode" = test ]; then install_claude_code; fi
if [ ${#installed[@]} -eq 0 ]; then
  echo "Dependencies: everything is already installed."
else
  echo "Dependencies: installed ${installed[*]}."
fi
