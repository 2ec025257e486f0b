#!/usr/bin/env bash
# Removes what scripts/install.sh installed under a prefix, exactly: the files its manifest lists (each only
# while it still holds what was installed: a file changed since is kept and named), then the directories the
# install created, when empty. Never a keychain: keychains live in each user's home, which no install touches.
# install.sh copies this script to <prefix>/share/latchkey/uninstall.sh, so it works without the repository.
#
#   uninstall.sh [--prefix DIR] [--quiet]      (DESTDIR is put before every path, as for install.sh)
#
# docs/install.md, "Install and uninstall".
set -euo pipefail

main() {
  local prefix=/usr/local quiet=0
  while (($#)); do
    case "$1" in
    --prefix) (($# >= 2)) || fail "--prefix needs a directory"; prefix="$2"; shift 2 ;;
    --prefix=*) prefix="${1#--prefix=}"; shift ;;
    --quiet) quiet=1; shift ;;
    -h | --help) sed -n 's/^#   //p' "${BASH_SOURCE[0]}"; return 0 ;;
    *) fail "unknown argument '$1' (usage: uninstall.sh [--prefix DIR] [--quiet])" ;;
    esac
  done
  local destdir="${DESTDIR:-}"
  destdir="${destdir%/}"
  prefix="${prefix%/}"
  local manifest="$destdir$prefix/share/latchkey/install-manifest"
  if [ ! -f "$manifest" ]; then
    if dpkg-query -W -f='${Status}' latchkey 2>/dev/null | grep -q 'install ok installed'; then
      fail "no install by scripts/install.sh under $destdir$prefix ($manifest is missing); the Debian package \
latchkey is installed: remove it with apt remove latchkey (apt purge latchkey to leave nothing)"
    fi
    fail "no install by scripts/install.sh under $destdir$prefix: $manifest is missing (installed with another \
--prefix? pass the same one)"
  fi

  local files=() directories=() kind digest path
  while IFS=$'\t' read -r kind digest path; do
    case "$kind" in
    '' | '#'*) continue ;;
    file | dir) ;;
    *) fail "$manifest: unknown line kind '$kind': the manifest is damaged; nothing was removed" ;;
    esac
    case "$path" in
    /*/../* | /*/.. | */./* | '') fail "$manifest: the path '$path' is not a plain absolute path; nothing was removed" ;;
    /*) ;;
    *) fail "$manifest: the path '$path' is not absolute; nothing was removed" ;;
    esac
    if [ "$kind" = file ]; then files+=("$digest"$'\t'"$path"); else directories+=("$path"); fi
  done <"$manifest"

  local kept=0 entry current
  for entry in "${files[@]+"${files[@]}"}"; do
    digest="${entry%%$'\t'*}"
    path="$destdir${entry#*$'\t'}"
    if [ ! -e "$path" ] && [ ! -L "$path" ]; then
      ((quiet)) || echo "  already gone: $path"
      continue
    fi
    current="$(sha256sum "$path" 2>/dev/null || true)"
    if [ -L "$path" ] || [ "${current%% *}" != "$digest" ]; then
      echo "  kept $path: it changed since the install (remove it yourself if it is not needed)" >&2
      kept=1
      continue
    fi
    rm -f "$path" || fail "cannot remove $path"
    ((quiet)) || echo "  removed $path"
  done
  rm -f "$manifest" || fail "cannot remove $manifest"

  # Deepest first, so that a directory is empty once its subdirectories are gone.
  local ordered
  ordered="$(for path in "${directories[@]+"${directories[@]}"}"; do
    printf '%s\t%s\n' "$(tr -cd / <<<"$path" | wc -c)" "$path"
  done | sort -rn | cut -f2-)"
  while IFS= read -r path; do
    [ -n "$path" ] || continue
    [ -d "$destdir$path" ] || continue
    if rmdir "$destdir$path" 2>/dev/null; then
      ((quiet)) || echo "  removed $destdir$path/"
    else
      echo "  kept $destdir$path/: it holds files the install did not put there" >&2
      kept=1
    fi
  done <<<"$ordered"
  ((quiet)) || echo "latchkey uninstalled from $destdir$prefix$( ((kept)) && echo ' (some files kept, above)')"
}

fail() {
  echo "uninstall.sh: $*" >&2
  exit 1
}

main "$@"
