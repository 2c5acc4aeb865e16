#!/usr/bin/env bash
# Host cost of small ops (bench/hostprof/small_ops.c) for one or more builds of libctorch.so,
# measured in one process in alternating rounds:
#   bash bench/hostprof/small_ops.sh cpu|cuda [lib.so ...]   (default: bazel-bin/capi/libctorch.so)
# cuda (GPU host): also the empty-kernel launch floor (bench/floor_kernel.cu, built with nvcc).
set -euo pipefail
D="$(cd "$(dirname "$0")" && pwd)"
R="$(cd "$D/../.." && pwd)"
dev="${1:-cpu}"; shift || true
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
gcc -O2 -I"$R" "$D/small_ops.c" -ldl -lpthread -o "$T/small_ops"
floor=-
if [ "$dev" = cuda ]; then
  NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  if "$NVCC" -O2 -gencode arch=compute_90,code=sm_90 -shared -Xcompiler -fPIC "$R/bench/floor_kernel.cu" -o "$T/floor.so"; then floor="$T/floor.so"; fi
fi
if [ $# -eq 0 ]; then set -- "$R/bazel-bin/capi/libctorch.so"; fi
libs=()
for l in "$@"; do libs+=("$(readlink -f "$l")"); done
"$T/small_ops" "$dev" "$floor" "${libs[@]}"
