#!/usr/bin/env bash
# Host-side cost of small calls on the GPU host (no perf there): per-call timings of a few
# C API calls (prof.c), CUDA runtime call costs (rt.cu), and a SIGPROF sampling profile of
# CUDA create+free (sampler.c; resolve the printed libctorch.so offsets here with
# `addr2line -f -C -e gpu_artifacts/libctorch.so 0x...`).
#   usage (GPU host): bash bench/hostprof/run.sh gpu_artifacts [create|add]
set -euo pipefail
D="$(cd "$(dirname "$0")" && pwd)"
source "$D/../../tools/gpu_env.sh" "${1:-gpu_artifacts}"  # A, LD_LIBRARY_PATH
R="$(cd "$D/../.." && pwd)"
T=$(mktemp -d)
gcc -O2 -I"$R" "$D/prof.c" -L"$A" -lctorch -Wl,-rpath,"$A" -o "$T/prof" && "$T/prof"
nvcc -O2 "$D/rt.cu" -o "$T/rt" && "$T/rt"
gcc -O2 -I"$R" "$D/sampler.c" -L"$A" -lctorch -Wl,-rpath,"$A" -ldl -o "$T/sampler" && "$T/sampler" "${2:-create}"
rm -rf "$T"
