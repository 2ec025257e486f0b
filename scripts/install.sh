#!/usr/bin/env bash
# Installs Latchkey under a prefix: a self-contained `latchkey` (the Swift standard library, Foundation and
# Dispatch linked statically: no Swift toolchain at run time), the systemd user units, the Secret Service
# switch (a D-Bus activation file and a unit drop-in, installed where no bus or systemd reads them: each user
# links them in, docs/install.md says why), the PAM module when contrib/pam/pam_latchkey.c exists, and the
# documentation. Prints what it installed and the next steps. docs/install.md, "Install and uninstall".
#
#   scripts/install.sh [--prefix DIR] [--binary PATH] [--pam-dir DIR] [--no-strip] [--no-manifest] [--force]
#   scripts/install.sh --uninstall [--prefix DIR]
#
#   --prefix DIR    where to install (default /usr/local); DESTDIR is put before every path, for packagers
#   --binary PATH   an already built `latchkey` (built with --static-swift-stdlib); without it, this builds one:
#                   swift build -c release --static-swift-stdlib --product latchkey --scratch-path .build-release-static
#   --pam-dir DIR   where pam_latchkey.so goes (default: the multiarch PAM directory, /lib/<multiarch>/security,
#                   for --prefix /usr, else
#                   <prefix>/lib/security, which PAM lines then name by its full path)
#   --no-strip      keep the binary's debug information (by default it is stripped of it: --strip-debug)
#   --no-manifest   write no install manifest and no uninstaller (a package manager tracks the files)
#   --force         overwrite files that exist and were not installed by this script
#   --uninstall     remove what the install under --prefix put there (scripts/uninstall.sh), nothing else
#
# The install manifest, <prefix>/share/latchkey/install-manifest, lists every file (with its SHA-256) and every
# directory the install created; the uninstall removes exactly those, never a keychain (keychains live in each
# user's home, which no install touches).
set -euo pipefail

repository="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

fail() {
  echo "install.sh: $*" >&2
  exit 1
}

usage() {
  sed -n '/^#   scripts/,/^#   --uninstall/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

prefix=/usr/local
binary=""
pam_dir=""
strip_binary=1
write_manifest=1
force=0
uninstall=0
while (($#)); do
  case "$1" in
  --prefix) (($# >= 2)) || fail "--prefix needs a directory"; prefix="$2"; shift 2 ;;
  --prefix=*) prefix="${1#--prefix=}"; shift ;;
  --binary) (($# >= 2)) || fail "--binary needs a path"; binary="$2"; shift 2 ;;
  --binary=*) binary="${1#--binary=}"; shift ;;
  --pam-dir) (($# >= 2)) || fail "--pam-dir needs a directory"; pam_dir="$2"; shift 2 ;;
  --pam-dir=*) pam_dir="${1#--pam-dir=}"; shift ;;
  --no-strip) strip_binary=0; shift ;;
  --no-manifest) write_manifest=0; shift ;;
  --force) force=1; shift ;;
  --uninstall) uninstall=1; shift ;;
  -h | --help) usage; exit 0 ;;
  *) usage >&2; fail "unknown argument '$1' (see the usage above)" ;;
  esac
done

if ((uninstall)); then
  exec "$repository/scripts/uninstall.sh" --prefix "$prefix"
fi

destdir="${DESTDIR:-}"
destdir="${destdir%/}"
case "$prefix" in
/*) ;;
*) fail "--prefix must be an absolute path, not '$prefix'" ;;
esac
[[ "$prefix$destdir$pam_dir" != *[[:space:]]* ]] ||
  fail "the prefix, DESTDIR and --pam-dir must not contain white space (systemd units and D-Bus files name them)"
prefix="${prefix%/}"
[ -n "$prefix" ] || fail "--prefix / is not supported: use --prefix /usr"
bindir="$prefix/bin"

version_file="$repository/Sources/latchkey/Support/Version.swift"
version="$(sed -n 's/^ *static let current = "\([^"]*\)".*/\1/p' "$version_file")"
[ -n "$version" ] || fail "no version found in $version_file (a line 'static let current = \"x.y.z\"')"

# --- The binary --------------------------------------------------------------------------------------------
if [ -z "$binary" ]; then
  command -v swift >/dev/null || fail "swift is not on PATH: install the Swift toolchain to build latchkey (under \
sudo, whose secure_path may hide it: sudo env \"PATH=\$PATH\" scripts/install.sh), or pass --binary with a latchkey \
built elsewhere"
  echo "building latchkey $version (release, Swift standard library linked statically; a clean build takes \
10-20 minutes)..."
  build=(swift build --package-path "$repository" -c release --static-swift-stdlib --product latchkey
    --scratch-path "$repository/.build-release-static")
  "${build[@]}" || fail "the build failed (output above); fix it, or pass --binary with a built latchkey"
  binary="$("${build[@]}" --show-bin-path)/latchkey"
fi
[ -f "$binary" ] && [ -x "$binary" ] || fail "--binary '$binary' is not an executable file"
if ldd "$binary" 2>/dev/null | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime|/opt/swift' >&2; then
  fail "$binary needs the Swift toolchain's libraries at run time (above): build it with --static-swift-stdlib \
(swift build -c release --static-swift-stdlib --product latchkey), or run this script without --binary"
fi
reported="$("$binary" --version 2>&1)" || fail "$binary --version failed: $reported"
[ "$reported" = "latchkey $version" ] ||
  fail "$binary answers '$reported' to --version, but this tree is latchkey $version: rebuild it, or run \
this script without --binary"

# --- What goes where ---------------------------------------------------------------------------------------
stage="$(mktemp -d "${TMPDIR:-/tmp}/latchkey-install.XXXXXX")"
trap 'rm -rf "$stage"' EXIT

targets=() # absolute installed paths (without DESTDIR)
sources=() # the file in $stage or the repository each one is copied from
modes=()
add() { targets+=("$1"); sources+=("$2"); modes+=("$3"); }

# Templates name the installed binary's directory (@BINDIR@); nothing else is substituted.
bindir_replacement="$(printf '%s' "$bindir" | sed 's/[&|\\]/\\&/g')"
template() {
  local source="$repository/$1" output="$stage/$(basename "$1")"
  sed "s|@BINDIR@|$bindir_replacement|g" "$source" >"$output"
  if grep -q '@[A-Z]*@' "$output"; then fail "$1 still holds a placeholder after substitution"; fi
  echo "$output"
}

cp "$binary" "$stage/latchkey"
if ((strip_binary)); then
  command -v strip >/dev/null || fail "strip is missing: install binutils, or pass --no-strip"
  strip --strip-debug "$stage/latchkey"
fi
add "$bindir/latchkey" "$stage/latchkey" 755

units="$prefix/lib/systemd/user"
service="$(template contrib/systemd/latchkey-agent.service)"
socket="$(template contrib/systemd/latchkey-agent.socket)"
add "$units/latchkey-agent.service" "$service" 644
add "$units/latchkey-agent.socket" "$socket" 644
# The Secret Service switch: outside every directory the bus or systemd reads, so that installing Latchkey
# takes org.freedesktop.secrets from nobody (gnome-keyring keeps it until a user switches; docs/install.md).
switch="$prefix/share/latchkey"
dbus_service="$(template contrib/dbus/org.freedesktop.secrets.service)"
drop_in="$(template contrib/dbus/latchkey-agent.service.d/secret-service.conf)"
add "$switch/dbus-1/services/org.freedesktop.secrets.service" "$dbus_service" 644
add "$switch/systemd/user/latchkey-agent.service.d/secret-service.conf" "$drop_in" 644

pam_source="$repository/contrib/pam/pam_latchkey.c"
pam_module=""
if [ -f "$pam_source" ]; then
  if [ -z "$pam_dir" ]; then
    if [ "$prefix" = /usr ]; then
      multiarch="$(${CC:-cc} -print-multiarch 2>/dev/null || true)"
      [ -n "$multiarch" ] || multiarch="$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || true)"
      [ -n "$multiarch" ] || fail "cannot tell the multiarch PAM directory (cc -print-multiarch said nothing): \
pass --pam-dir, e.g. --pam-dir /lib/x86_64-linux-gnu/security"
      # Where Debian 12's libpam-modules and libpam-gnome-keyring put theirs: dpkg then knows the directory as
      # shared and leaves it at a purge (the /usr/lib alias of a merged /usr would be the package's own).
      pam_dir="/lib/$multiarch/security"
    else
      pam_dir="$prefix/lib/security"
    fi
  fi
  pam_dir="${pam_dir%/}"
  command -v "${CC:-cc}" >/dev/null || fail "a C compiler is needed for the PAM module: install gcc (or set CC)"
  # The module runs `latchkey pam-unlock` / `pam-passwd` from here unless its `latchkey=` argument says otherwise.
  "${CC:-cc}" -shared -fPIC -O2 -Wall -Wextra -DLATCHKEY_BINARY="\"$bindir/latchkey\"" -o "$stage/pam_latchkey.so" \
    "$pam_source" || fail "the PAM module did not compile (output above: $pam_source)"
  pam_module="$pam_dir/pam_latchkey.so"
  add "$pam_module" "$stage/pam_latchkey.so" 644
fi

docs="$prefix/share/doc/latchkey"
add "$docs/README.md" "$repository/README.md" 644
for page in "$repository"/docs/*.md; do
  add "$docs/docs/$(basename "$page")" "$page" 644
done

manifest="$switch/install-manifest"
uninstaller="$switch/uninstall.sh"
((write_manifest)) && add "$uninstaller" "$repository/scripts/uninstall.sh" 755

# --- Refuse to overwrite what another install put there ----------------------------------------------------
previous=()
if [ -f "$destdir$manifest" ]; then
  while IFS=$'\t' read -r kind _ path; do
    [ "$kind" = file ] && previous+=("$path")
  done <"$destdir$manifest"
fi
if ! ((force)); then
  for target in "${targets[@]}"; do
    [ -e "$destdir$target" ] || [ -L "$destdir$target" ] || continue
    for known in "${previous[@]+"${previous[@]}"}"; do [ "$known" = "$target" ] && continue 2; done
    fail "$destdir$target exists and was not installed by this script (no entry in $destdir$manifest): \
remove it, or pass --force to overwrite it"
  done
fi

# A reinstall first removes the previous install (the files it lists and still holds unchanged), so that
# nothing of an older version stays behind.
if ((${#previous[@]})); then
  echo "removing the previous install listed in $destdir$manifest first"
  DESTDIR="$destdir" "$repository/scripts/uninstall.sh" --prefix "$prefix" --quiet
fi

# --- Install -----------------------------------------------------------------------------------------------
created=()
# Creates the directories of $1 that are missing, recording each one the install created.
make_directory() {
  local directory="$1"
  [ -d "$destdir$directory" ] && return 0
  make_directory "$(dirname "$directory")"
  mkdir -m 755 "$destdir$directory" || fail "cannot create $destdir$directory"
  created+=("$directory")
}

manifest_lines=()
echo "installing latchkey $version under $destdir$prefix:"
for index in "${!targets[@]}"; do
  target="${targets[$index]}"
  make_directory "$(dirname "$target")"
  install -m "${modes[$index]}" "${sources[$index]}" "$destdir$target" || fail "cannot install $destdir$target"
  digest="$(sha256sum "$destdir$target")"
  manifest_lines+=("file"$'\t'"${digest%% *}"$'\t'"$target")
  echo "  $destdir$target"
done

if ((write_manifest)); then
  make_directory "$(dirname "$manifest")"
  {
    echo "# Installed by Latchkey's scripts/install.sh (latchkey $version, prefix $prefix); read by uninstall.sh."
    echo "# file<TAB>sha256<TAB>path: removed when unchanged; dir<TAB>-<TAB>path: created by the install, removed"
    echo "# when empty. Paths are without DESTDIR."
    printf '%s\n' "${manifest_lines[@]}"
    for directory in "${created[@]+"${created[@]}"}"; do printf 'dir\t-\t%s\n' "$directory"; done
  } >"$destdir$manifest"
  chmod 644 "$destdir$manifest"
  echo "  $destdir$manifest (what the uninstall removes)"
fi

# --- Next steps --------------------------------------------------------------------------------------------
[ -n "$destdir" ] && exit 0
cat <<EOF

Next steps (docs/install.md, "Install and uninstall"):
- Check: $bindir/latchkey --version
EOF
case ":$PATH:" in
*":$bindir:"*) ;;
*) echo "- $bindir is not on your PATH: add it (export PATH=\"$bindir:\$PATH\"), or call latchkey by its full path." ;;
esac
cat <<EOF
- For each user, as that user (the agent starts on the first latchkey command):
    systemctl --user daemon-reload && systemctl --user enable --now latchkey-agent.socket
  or for every user at once, as root: systemctl --global enable latchkey-agent.socket
- To make Latchkey a user's Secret Service in place of gnome-keyring (per user; docs/install.md, "Taking over
  org.freedesktop.secrets safely"):
    mkdir -p ~/.local/share/dbus-1/services ~/.config/systemd/user/latchkey-agent.service.d
    ln -sf $switch/dbus-1/services/org.freedesktop.secrets.service ~/.local/share/dbus-1/services/
    ln -sf $switch/systemd/user/latchkey-agent.service.d/secret-service.conf \\
        ~/.config/systemd/user/latchkey-agent.service.d/
EOF
if [ -n "$pam_module" ]; then
  pam_name="pam_latchkey.so"
  case "$pam_dir" in
  /lib/*/security | /usr/lib/*/security | /lib/security | /usr/lib/security) ;;
  *) pam_name="$pam_module" ;;
  esac
  echo "- To unlock at login, add $pam_name to the PAM stacks as docs/install.md, \"Unlock at login (PAM)\", shows."
fi
if ((write_manifest)); then
  echo "- Uninstall: $uninstaller (or scripts/install.sh --uninstall --prefix $prefix); keychains stay."
fi
