#!/bin/sh
# Installs this ctorch release under a prefix:  install.sh [--prefix DIR]   (default /usr/local)
# Copies include/, lib/ (symlinks kept) and share/ into DIR. The pkg-config and CMake files
# find everything relative to themselves, so nothing is rewritten. See share/doc/ctorch/docs/install.md.
set -eu

usage() {
  echo "usage: install.sh [--prefix DIR]   (default: /usr/local)" >&2
  exit "${1:-2}"
}

prefix=/usr/local
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) [ $# -ge 2 ] && [ -n "$2" ] || usage; prefix=$2; shift 2 ;;
    --prefix=?*) prefix=${1#--prefix=}; shift ;;
    -h|--help) usage 0 ;;
    *) echo "install.sh: unknown argument '$1'" >&2; usage ;;
  esac
done

here=$(cd "$(dirname "$0")" && pwd)
for d in include lib share; do
  [ -d "$here/$d" ] || { echo "install.sh: $here/$d is missing: run install.sh from the unpacked archive" >&2; exit 1; }
done

mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
# tar keeps the symlinks (libctorch.so -> libctorch.so.M -> libctorch.so.M.m.p) and replaces
# the files of an earlier install.
(cd "$here" && tar -cf - include lib share) | (cd "$prefix" && tar -xf - --no-same-owner)

echo "ctorch installed under $prefix"
echo "  C/C++:  pkg-config --cflags --libs ctorch   (PKG_CONFIG_PATH=$prefix/lib/pkgconfig)"
echo "          find_package(ctorch)                (CMAKE_PREFIX_PATH=$prefix)"
echo "  run time: link with -Wl,-rpath,$prefix/lib, or set LD_LIBRARY_PATH=$prefix/lib,"
echo "            or run ldconfig if $prefix/lib is in /etc/ld.so.conf (e.g. /usr/local/lib)"
