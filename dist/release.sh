#!/usr/bin/env bash
# bazel run //dist:release [-- DIR]: copies the archive built by //dist:archive to
# DIR/ctorch-<ver>-linux-x86_64.tar.gz (DIR: the folder bazel run was called from, by default)
# and prints its path. Bazel names the built file ctorch-linux-x86_64.tar.gz (a rule's output
# name is fixed before the version is read); its top folder already carries the version.
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: release.sh VERSION_PY HEADER ARCHIVE [DIR]" >&2; exit 2; }
version_py=$1 header=$2 archive=$3
dir=${4:-${BUILD_WORKING_DIRECTORY:-.}}
case "$dir" in /*) ;; *) dir="${BUILD_WORKING_DIRECTORY:-$PWD}/$dir" ;; esac
ver=$(python3 "$version_py" "$header")
mkdir -p "$dir"
dest="$dir/ctorch-$ver-linux-x86_64.tar.gz"
cp -f "$archive" "$dest"
chmod 0644 "$dest"
echo "$dest"
