#!/usr/bin/env bash
# OpenBLAS and FFTW for the CPU matrix products and FFTs on the GPU host, which may not have
# them (libctorch.so loads them with dlopen: docs/linalg.md, docs/fft.md), xz-compressed.
#   here:      bash tools/gpu_blas.sh pack [dir]      -> dir (default gpu_blas, git-ignored, ~6 MB)
#   GPU host:  source tools/gpu_blas.sh unpack [dir]  -> /tmp/ctblas on LD_LIBRARY_PATH
# The GPU bundle (//tests/gpu:bundle, unpacked by tools/gpu_pack.sh) holds them in
# gpu_artifacts/blas and tools/gpu_check.sh unpacks them; carry gpu_blas next to gpu_java or
# gpu_csharp.
case "${1:-}" in
  pack)
    (
      set -e
      d="${2:-gpu_blas}"
      rm -rf "$d" && mkdir -p "$d"
      for f in libopenblas.so.0 libgfortran.so.5 libquadmath.so.0 libfftw3.so.3 libfftw3f.so.3; do
        p=$(PATH="$PATH:/usr/sbin:/sbin" ldconfig -p | awk -v n="$f" '$1 == n && /x86-64/ {print $NF; exit}')
        [ -n "$p" ] && xz -9 -T2 -c "$(readlink -f "$p")" > "$d/$f.xz"
      done
      du -sh "$d"
    )
    ;;
  unpack)
    mkdir -p /tmp/ctblas
    for f in "${2:-gpu_blas}"/*.xz; do xz -dc "$f" > "/tmp/ctblas/$(basename "$f" .xz)"; done
    export LD_LIBRARY_PATH="/tmp/ctblas${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    ;;
  *) echo "usage: tools/gpu_blas.sh pack [dir] | source tools/gpu_blas.sh unpack [dir]" >&2 ;;
esac
