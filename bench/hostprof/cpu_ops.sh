#!/usr/bin/env bash
# Host cost of small CPU ops (bench/hostprof/cpu_ops.c), here or on any machine with a build:
#   bash bench/hostprof/cpu_ops.sh [lib.so ...]   (default: this checkout's bazel-bin/capi/libctorch.so)
# Several libraries (e.g. a saved build before a change and the current one) are measured in
# one process, in alternating rounds.
set -euo pipefail
D="$(cd "$(dirname "$0")" && pwd)"
R="$(cd "$D/../.." && pwd)"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
gcc -O2 -I"$R" "$D/cpu_ops.c" -ldl -lpthread -o "$T/cpu_ops"
if [ $# -eq 0 ]; then set -- "$R/bazel-bin/capi/libctorch.so"; fi
libs=()
for l in "$@"; do libs+=("$(readlink -f "$l")"); done
"$T/cpu_ops" "${libs[@]}"
