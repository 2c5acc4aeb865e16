#!/usr/bin/env bash
# The unpacked GPU bundle, ready to run (sourced on the GPU host by tools/gpu_check.sh,
# bench/run.sh and bench/hostprof/run.sh):
#   source tools/gpu_env.sh [gpu_artifacts]
# Sets A to the bundle's absolute path, unpacks the files the bundle carries xz-compressed, puts
# A on LD_LIBRARY_PATH (libctorch.so) and unpacks OpenBLAS and FFTW from A/blas
# (tools/gpu_blas.sh).
A="$(cd "${1:-gpu_artifacts}" && pwd)" || return 1
for f in "$A"/*.xz; do [ -e "$f" ] && xz -d -f "$f"; done
export LD_LIBRARY_PATH="$A${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [ -d "$A/blas" ]; then
  source "$(dirname "${BASH_SOURCE[0]}")/gpu_blas.sh" unpack "$A/blas"
fi
