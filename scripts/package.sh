#!/usr/bin/env bash
# Packages the built binary for Linux:
#   build/dist/baton_<version>_amd64.deb            the Debian/Ubuntu package
#   build/dist/baton_<version>_linux_amd64.tar.gz   the same files under one folder, for ~/.local
# Usage: scripts/package.sh VERSION [BINARY]   (BINARY defaults to build/bin/baton; "make package")
#
# The .deb is built by dpkg-deb, Debian's own packager: it is on every Debian and Ubuntu system
# (dpkg is essential), it writes exactly the format apt and lintian expect, --root-owner-group
# gives root-owned files without fakeroot, and it needs no Go dependency kept up to date in
# go.mod as nfpm would. dpkg-shlibdeps (dpkg-dev) computes the shared-library dependencies from
# the binary, the way Debian's own packages get them. The tarball is written by GNU tar.
# Both are reproducible: file times come from the last commit (SOURCE_DATE_EPOCH).
set -euo pipefail

version=${1:?usage: scripts/package.sh VERSION [BINARY]}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${2:-$root/build/bin/baton}
dist=$root/build/dist
linux=$root/build/linux
arch=amd64
icon_sizes=(16 22 24 32 48 64 128 256 512)
maintainer="The Baton developers <baton-app@users.noreply.github.com>"

fail() { echo "package: $*" >&2; exit 1; }

[[ $version =~ ^[0-9][A-Za-z0-9.+~]*$ ]] || fail "\"$version\" is not a Debian version for a native package"
[ -x "$bin" ] || fail "$bin is not there; build it first with \"make build\""
for tool in dpkg-deb dpkg-shlibdeps strip convert gzip tar; do
  command -v "$tool" >/dev/null 2>&1 || fail "$tool is needed and not installed; \"scripts/deps.sh package\" installs it"
done

export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)}
release_date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)
umask 022
mkdir -p "$dist"
stage=$(mktemp -d "$dist/.stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT
# The tree laid out as in a Debian source package's build (debian/<package>), where
# dpkg-shlibdeps expects the binaries it reads.
pkg=$stage/src/debian/baton
share=$pkg/usr/share

# The files, as the .deb installs them.
install -D -m 0755 "$bin" "$pkg/usr/bin/baton"
# As dh_strip does for Debian's packages: no compiler version comments in the installed binary.
strip --remove-section=.comment --remove-section=.note "$pkg/usr/bin/baton"
install -D -m 0644 "$linux/baton.desktop" "$share/applications/baton.desktop"
metainfo=io.github.baton_app.baton.metainfo.xml
mkdir -p "$share/metainfo"
sed -e "s/@VERSION@/$version/g" -e "s/@DATE@/$release_date/g" "$linux/$metainfo" >"$share/metainfo/$metainfo"
for s in "${icon_sizes[@]}"; do
  dir=$share/icons/hicolor/${s}x${s}/apps
  mkdir -p "$dir"
  # -strip and no date chunks: the same PNG bytes on every build.
  convert "$root/build/appicon.png" -resize "${s}x${s}" -strip -define png:exclude-chunks=date,time "PNG32:$dir/baton.png"
done
install -D -m 0644 "$root/build/appicon.svg" "$share/icons/hicolor/scalable/apps/baton.svg"
mkdir -p "$share/man/man1" "$share/doc/baton"
# The manual page is written by the binary itself from its table of commands, the one "baton
# help" prints, so the two cannot disagree.
"$bin" help --man | gzip -9n >"$share/man/man1/baton.1.gz"
[ -s "$share/man/man1/baton.1.gz" ] || fail "$bin help --man wrote no manual page"
install -m 0644 "$linux/copyright" "$share/doc/baton/copyright"
{
  echo "baton ($version) unstable; urgency=medium"
  echo
  echo "  * Baton $version."
  echo
  echo " -- $maintainer  $(date -u -R -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n >"$share/doc/baton/changelog.gz"
install -D -m 0644 "$linux/lintian-overrides" "$share/lintian/overrides/baton"

# The control file. dpkg-shlibdeps reads the binary's NEEDED libraries and names the packages
# that provide them (libc6, libgtk-3-0, libwebkit2gtk-4.1-0, ...) with their minimum versions.
mkdir -p "$pkg/DEBIAN"
printf 'Source: baton\n\nPackage: baton\nArchitecture: %s\n' "$arch" >"$stage/src/debian/control"
shlibs=$(cd "$stage/src" && dpkg-shlibdeps -O debian/baton/usr/bin/baton) || fail "dpkg-shlibdeps could not read $bin"
depends=$(sed -n 's/^shlibs:Depends=//p' <<<"$shlibs")
[ -n "$depends" ] || fail "dpkg-shlibdeps found no dependencies for $bin"
for want in libgtk-3-0 libwebkit2gtk-4.1-0; do
  grep -q "\b$want\b" <<<"$depends" || fail "$bin does not link $want (Depends: $depends); was it built with -tags webkit2_41?"
done
cat >"$pkg/DEBIAN/control" <<EOF
Package: baton
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk "$pkg/usr" | cut -f1)
Depends: $depends
Recommends: chromium | chromium-browser
Section: devel
Priority: optional
Homepage: https://github.com/baton-app/baton
Description: run one large request as many Claude Code sessions in parallel
 Baton is a desktop application that runs one large piece of work, such as
 documenting a codebase or adding tests to every package, as many Claude Code
 sessions working in parallel. It plans the work with one session, hands each
 task to its own worker session, watches them all, and brings their results
 back together into one report.
 .
 It drives Claude Desktop over the Chrome DevTools Protocol and comes with a
 simulator, run in Chromium, to try every workflow without an AI.
EOF
(cd "$pkg" && find usr -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum) >"$pkg/DEBIAN/md5sums"
chmod 0644 "$pkg/DEBIAN/control" "$pkg/DEBIAN/md5sums"
find "$pkg" -type d -exec chmod 0755 {} +
find "$pkg" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

deb=$dist/baton_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$pkg" "$deb" >/dev/null

# The tarball: the same /usr tree under baton_<version>_linux_amd64/, without what only dpkg
# reads, so "tar -xzf … --strip-components=1 -C ~/.local" gives a menu entry too.
name=baton_${version}_linux_${arch}
mkdir -p "$stage/tar/$name"
cp -a "$pkg/usr/." "$stage/tar/$name/"
rm -rf "$stage/tar/$name/share/lintian"
touch -h -d "@$SOURCE_DATE_EPOCH" "$stage/tar/$name"
tarball=$dist/$name.tar.gz
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
  -C "$stage/tar" -cf - "$name" | gzip -9n >"$tarball"

echo "Built ${deb#"$root"/} and ${tarball#"$root"/}"
