#!/usr/bin/env bash
# Builds the Debian package latchkey_<version>_<arch>.deb from a staging tree that scripts/install.sh makes
# (DESTDIR, prefix /usr, no manifest: dpkg tracks the files), with dpkg-deb. docs/install.md, "Install and
# uninstall".
#
#   scripts/package-deb.sh [--binary PATH] [--output DIR]
#
#   --binary PATH   an already built `latchkey` (--static-swift-stdlib); without it, install.sh builds one
#   --output DIR    where the .deb is written (default: the current directory)
#
# dpkg-deb's DPKG_DEB_COMPRESSOR_TYPE and DPKG_DEB_COMPRESSOR_LEVEL choose the compression (default xz).
# Install it with `apt install ./latchkey_<version>_<arch>.deb`; `apt purge latchkey` leaves no file.
# Relations: Depends are what the installed ELF files link (dpkg-shlibdeps) plus libsystemd0 and libssl3,
# which the Secret Service and the key code open at run time (dlopen of libsystemd.so.0 and libcrypto.so.3);
# Recommends pinentry for the agent's prompts. No relation with gnome-keyring is needed: the package puts no
# file in a directory the bus reads, so it never claims org.freedesktop.secrets (each user switches, see
# docs/install.md), and both packages can be installed side by side.
set -euo pipefail

repository="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

fail() {
  echo "package-deb.sh: $*" >&2
  exit 1
}

binary=()
output="$PWD"
while (($#)); do
  case "$1" in
  --binary) (($# >= 2)) || fail "--binary needs a path"; binary=(--binary "$2"); shift 2 ;;
  --binary=*) binary=(--binary "${1#--binary=}"); shift ;;
  --output) (($# >= 2)) || fail "--output needs a directory"; output="$2"; shift 2 ;;
  --output=*) output="${1#--output=}"; shift ;;
  -h | --help) sed -n 's/^#   //p' "${BASH_SOURCE[0]}"; exit 0 ;;
  *) fail "unknown argument '$1' (usage: package-deb.sh [--binary PATH] [--output DIR])" ;;
  esac
done
for tool in dpkg-deb dpkg-shlibdeps; do
  command -v "$tool" >/dev/null || fail "$tool is missing: install the Debian package dpkg-dev"
done
mkdir -p "$output" || fail "cannot create the output directory $output"
output="$(cd "$output" && pwd)"

version="$(sed -n 's/^ *static let current = "\([^"]*\)".*/\1/p' "$repository/Sources/latchkey/Support/Version.swift")"
[ -n "$version" ] || fail "no version found in Sources/latchkey/Support/Version.swift"
architecture="$(dpkg --print-architecture)"

work="$(mktemp -d "${TMPDIR:-/tmp}/latchkey-deb.XXXXXX")"
trap 'rm -rf "$work"' EXIT
root="$work/root"
mkdir -m 755 "$root"
DESTDIR="$root" "$repository/scripts/install.sh" --prefix /usr --no-manifest "${binary[@]+"${binary[@]}"}" >/dev/null ||
  fail "scripts/install.sh could not stage the package (output above)"

# What the ELF files link, as package relations with minimum versions (dpkg-shlibdeps reads a debian/control).
elves=()
while IFS= read -r -d '' file; do
  [ "$(head -c 4 "$file" | od -An -c | tr -d ' ')" = '177ELF' ] && elves+=("-e$file")
done < <(find "$root" -type f -print0)
((${#elves[@]})) || fail "no ELF file in the staging tree: install.sh installed no latchkey binary"
mkdir -p "$work/shlibs/debian"
printf 'Source: latchkey\nMaintainer: Latchkey <latchkey@localhost>\n\nPackage: latchkey\nArchitecture: any\n' \
  >"$work/shlibs/debian/control"
linked="$(cd "$work/shlibs" && dpkg-shlibdeps -O "${elves[@]}" 2>"$work/shlibdeps.log")" ||
  fail "dpkg-shlibdeps failed: $(cat "$work/shlibdeps.log")"
linked="$(sed -n 's/^shlibs:Depends=//p' <<<"$linked")"
[ -n "$linked" ] || fail "dpkg-shlibdeps found no library dependency: $(cat "$work/shlibdeps.log")"

mkdir -m 755 "$root/DEBIAN"
installed_size="$(du -sk --exclude=DEBIAN "$root" | cut -f1)"
cat >"$root/DEBIAN/control" <<EOF
Package: latchkey
Version: $version
Architecture: $architecture
Maintainer: ${LATCHKEY_DEB_MAINTAINER:-Latchkey developers <latchkey@localhost>}
Installed-Size: $installed_size
Section: utils
Priority: optional
Depends: $linked, libsystemd0, libssl3
Recommends: pinentry-curses | pinentry
Description: Apple-Keychain-compatible encrypted keychain for Linux
 Latchkey keeps secrets in an encrypted, crash-safe SQLite keychain per user,
 with Apple's Keychain Services semantics, a per-user agent (systemd user
 units with socket activation), a freedesktop Secret Service for libsecret
 clients, and the latchkey command line, modelled on macOS security.
 .
 The package claims org.freedesktop.secrets for nobody: gnome-keyring keeps
 the Secret Service until a user links the files of /usr/share/latchkey into
 their own directories (/usr/share/doc/latchkey/docs/install.md).
EOF
# Purge: what users or the administrator made from the package's files outside its file list goes too.
# `systemctl --global enable` links the units into /etc/systemd/user/*.wants (and may have made that directory:
# it goes when empty, as deb-systemd-helper does). Keychains live in the users' homes and are never touched.
cat >"$root/DEBIAN/postrm" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = purge ]; then
  for link in /etc/systemd/user/*.wants/latchkey-agent.socket /etc/systemd/user/*.wants/latchkey-agent.service; do
    if [ -L "$link" ]; then
      rm -f "$link"
      rmdir --ignore-fail-on-non-empty "${link%/*}"
    fi
  done
fi
exit 0
EOF
chmod 755 "$root/DEBIAN/postrm"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"

package="$output/latchkey_${version}_${architecture}.deb"
dpkg-deb --build --root-owner-group "$root" "$package" >/dev/null || fail "dpkg-deb could not build $package"
echo "$package"
echo "  $(du -k "$package" | cut -f1) KiB; installed size $installed_size KiB; Depends: $linked, libsystemd0, libssl3"
