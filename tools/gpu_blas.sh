#!/usr/bin/env bash
# OpenBLAS for the CPU matrix products on the GPU host, which may not have it (libctorch.so
# loads it with dlopen: docs/linalg.md).
#   here:      bash tools/gpu_blas.sh pack          -> gpu_blas/ (git-ignored, ~5 MB, xz)
#   GPU host:  source tools/gpu_blas.sh unpack      -> /tmp/ctblas on LD_LIBRARY_PATH
# Carry gpu_blas next to gpu_java or gpu_csharp (gpu_pack.sh puts its own copy, gzip'ed, in
# gpu_artifacts/blas, which tools/gpu_check.sh unpacks).
case "${1:-}" in
  pack)
    set -e
    cd "$(dirname "${BASH_SOURCE[0]}")/.."
    rm -rf gpu_blas && mkdir -p gpu_blas
    for f in libopenblas.so.0 libgfortran.so.5 libquadmath.so.0 libfftw3.so.3 libfftw3f.so.3; do
      p=$(ldconfig -p | awk -v n="$f" '$1 == n && /x86-64/ {print $NF; exit}')
      [ -n "$p" ] && xz -9 -T2 -c "$(readlink -f "$p")" > "gpu_blas/$f.xz"
    done
    du -sh gpu_blas
    ;;
  unpack)
    mkdir -p /tmp/ctblas
    for f in gpu_blas/*.xz; do xz -dc "$f" > "/tmp/ctblas/$(basename "$f" .xz)"; done
    export LD_LIBRARY_PATH="/tmp/ctblas${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    ;;
  *) echo "usage: tools/gpu_blas.sh pack | source tools/gpu_blas.sh unpack" >&2 ;;
esac
