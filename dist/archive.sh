#!/usr/bin/env bash
# Builds the release archive (the action of //dist:archive; layout in docs/install.md):
#
#   archive.sh --out OUT.tar.gz --version-py dist/version.py --header capi/ctorch.h
#              --lib libctorch.so --templates ctorch.pc.in ctorchConfig.cmake.in
#              ctorchConfigVersion.cmake.in install.sh --docs README.md docs/*.md
#              [--lang share-tar...]
#
# The archive's single top folder is ctorch-<ver>-linux-x86_64/, <ver> from version.py. Each
# --lang tar is merged in at its members' own paths, which must lie under share/ and must not
# replace a file already there. The tarball is reproducible (sorted, owner 0, mtime 0).
set -euo pipefail

die() { echo "archive.sh: $*" >&2; exit 1; }

out= version_py= header= lib=
templates=() docs=() langs=()
mode=
for a in "$@"; do
  case "$a" in
    --out|--version-py|--header|--lib|--templates|--docs|--lang) mode=$a ;;
    --*) die "unknown option $a" ;;
    *)
      case "$mode" in
        --out) out=$a ;;
        --version-py) version_py=$a ;;
        --header) header=$a ;;
        --lib) lib=$a ;;
        --templates) templates+=("$a") ;;
        --docs) docs+=("$a") ;;
        --lang) langs+=("$a") ;;
        *) die "argument '$a' before any option" ;;
      esac ;;
  esac
done
[ -n "$out" ] && [ -n "$version_py" ] && [ -n "$header" ] && [ -n "$lib" ] || die "--out, --version-py, --header and --lib are required"

for tool in patchelf python3 tar gzip; do
  command -v "$tool" >/dev/null || die "$tool is needed to build the archive (tools/setup.sh installs it)"
done

ver=$(python3 "$version_py" "$header")
major=$(python3 "$version_py" --major "$header")
top="ctorch-$ver-linux-x86_64"

stage=$(mktemp -d "${TMPDIR:-/tmp}/ctorch_dist.XXXXXX")
trap 'rm -rf "$stage"' EXIT
root="$stage/$top"
mkdir -p "$root/include" "$root/lib/pkgconfig" "$root/lib/cmake/ctorch" "$root/share/doc/ctorch"

# The header: self-contained (only <stddef.h> and <stdint.h>), included as <ctorch.h>.
if grep -E '^\s*#\s*include\s*"' "$header" >/dev/null; then
  die "$header includes a file from the source tree; the installed header must stand alone"
fi
install -m 0644 "$header" "$root/include/ctorch.h"

# The library under its full version, with the ABI's major in its soname; the two links.
install -m 0755 "$lib" "$root/lib/libctorch.so.$ver"
patchelf --set-soname "libctorch.so.$major" "$root/lib/libctorch.so.$ver"
ln -s "libctorch.so.$ver" "$root/lib/libctorch.so.$major"
ln -s "libctorch.so.$major" "$root/lib/libctorch.so"

# pkg-config, CMake package and installer, from their templates.
for t in "${templates[@]}"; do
  case "$(basename "$t")" in
    ctorch.pc.in) dest="lib/pkgconfig/ctorch.pc"; mode=0644 ;;
    ctorchConfig.cmake.in) dest="lib/cmake/ctorch/ctorchConfig.cmake"; mode=0644 ;;
    ctorchConfigVersion.cmake.in) dest="lib/cmake/ctorch/ctorchConfigVersion.cmake"; mode=0644 ;;
    install.sh) dest="install.sh"; mode=0755 ;;
    *) die "unknown template $t" ;;
  esac
  sed -e "s/@VERSION@/$ver/g" -e "s/@MAJOR@/$major/g" "$t" > "$root/$dest"
  chmod "$mode" "$root/$dest"
done

# Documents at their paths in the source tree (README.md, docs/*.md), so their links still work.
for d in "${docs[@]}"; do
  case "$d" in /*|*..*) die "document path '$d' must be relative to the workspace" ;; esac
  install -D -m 0644 "$d" "$root/share/doc/ctorch/$d"
done

# The language artifacts (share/java, share/nuget, share/go).
for t in "${langs[@]}"; do
  while IFS= read -r m; do
    m=${m#./}
    case "$m" in
      ""|.|share|share/|share/?*) ;;
      *) die "$t: member '$m' lies outside share/" ;;
    esac
    case "/$m/" in */../*) die "$t: member '$m' contains '..'" ;; esac
    if [ -e "$root/$m" ] && [ ! -d "$root/$m" ]; then die "$t: member '$m' is already in the archive"; fi
  done < <(tar -tf "$t")
  tar -xf "$t" -C "$root" --no-same-owner
done

for d in include lib share; do chmod -R u+w,go-w,a+rX "$root/$d"; done
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 --format=gnu \
  -C "$stage" -cf - "$top" | gzip -n > "$out"
