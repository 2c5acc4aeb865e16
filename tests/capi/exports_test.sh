#!/bin/bash
# Checks that libctorch.so exports only ct_* symbols and needs no CUDA shared library (the CUDA
# runtime is linked statically, so the .so loads on machines without CUDA), and no BLAS or FFT
# library (cuBLAS, cuFFT, OpenBLAS and FFTW are loaded with dlopen at first use), no NCCL and no
# NVML (libnvidia-ml.so.1, the driver's, loaded at the first device figure).
set -u
lib="$1"
fail=0; pass=0
defined=$(nm -D --defined-only "$lib" | awk '{print $3}')
others=$(echo "$defined" | grep -v '^ct_' | grep -v '^$' || true)
n=$(echo "$defined" | grep -c '^ct_')
if [ -n "$others" ]; then echo "FAIL: non-ct_ exports:"; echo "$others" | head; fail=$((fail+1)); else echo "ok: $n exports, all ct_*"; pass=$((pass+1)); fi
if [ "$n" -lt 90 ]; then echo "FAIL: only $n ct_ exports"; fail=$((fail+1)); else pass=$((pass+1)); fi
needed=$(readelf -d "$lib" | grep NEEDED)
if echo "$needed" | grep -qE 'libcuda|libcudart|libcublas|libcufft|libcurand|libnccl|libnvidia-ml'; then echo "FAIL: needs CUDA shared libraries:"; echo "$needed"; fail=$((fail+1)); else echo "ok: no CUDA shared-library dependency"; pass=$((pass+1)); fi
if echo "$needed" | grep -qiE 'blas|lapack|fftw|gfortran'; then echo "FAIL: links a BLAS/FFT library:"; echo "$needed"; fail=$((fail+1)); else echo "ok: no BLAS or FFT library linked (loaded on first use)"; pass=$((pass+1)); fi
for sym in ct_version ct_tensor_release ct_binary ct_reduce ct_cuda_device_count ct_matmul ct_fft_fft ct_rand ct_cuda_add_oom_hook; do
  if echo "$defined" | grep -qx "$sym"; then pass=$((pass+1)); else echo "FAIL: $sym not exported"; fail=$((fail+1)); fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
