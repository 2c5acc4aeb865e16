#!/usr/bin/env bash
# The GPU suite, run on the GPU host in one command (it has CUDA, g++ and torch, no Bazel):
#   bash tools/gpu_check.sh [gpu_artifacts]
# Runs the C API suite, the core unit tests and the quickstart against the GPU, then prints
# torch's view of the same devices for a side-by-side comparison.
set -uo pipefail
A="${1:-gpu_artifacts}"
export LD_LIBRARY_PATH="$PWD/$A${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for f in "$A"/*.xz; do [ -e "$f" ] && xz -d -f "$f"; done  # gpu_pack.sh compresses the largest
rc=0
echo "== nvidia-smi"; nvidia-smi -L || true
echo "== C API suite (capi_test)"; "$A/capi_test" || rc=1
echo "== CPU/CUDA parity and CUDA behaviour (device_test)"; "$A/device_test" || rc=1
echo "== dtype x layout grid: views, promotion, specials, vector tails, CPU/CUDA parity (layout_test)"
"$A/layout_test" || rc=1
echo "== CUDA runtime API (cuda_test)"; "$A/cuda_test" || rc=1
echo "== cuda_test with CUDA_LAUNCH_BLOCKING=1"; CUDA_LAUNCH_BLOCKING=1 "$A/cuda_test" || rc=1
echo "== caching allocator (memory_test)"; "$A/memory_test" || rc=1
echo "== pluggable allocator (function pointers, then loaded from libmyalloc.so)"
"$A/pluggable_test" || rc=1
"$A/pluggable_test" load "$PWD/$A/libmyalloc.so" || rc=1
echo "== memory_stats, ctorch vs torch (tests/gpu/alloc_compare.py)"
python3 tests/gpu/alloc_compare.py "$A/alloc_trace" || rc=1
echo "== memory_stats with expandable segments, ctorch vs torch"
PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True CTORCH_CUDA_ALLOC_CONF=expandable_segments:True \
  python3 tests/gpu/alloc_compare.py "$A/alloc_trace" || rc=1
echo "== device_test with expandable segments (every CUDA tensor in mapped pages)"
CTORCH_CUDA_ALLOC_CONF=expandable_segments:True "$A/device_test" > /tmp/dev_exp.txt 2>&1 || rc=1
tail -2 /tmp/dev_exp.txt
[ -d "$A/blas" ] && source tools/gpu_blas.sh unpack "$A/blas"  # OpenBLAS, FFTW (gpu_pack.sh)
echo "== matrix products (linalg_test: OpenBLAS and cuBLAS against double-precision references)"
"$A/linalg_test" || rc=1
echo "== matrix products, ctorch vs torch.cuda (tests/gpu/linalg_compare.py)"
python3 tests/gpu/linalg_compare.py "$A/libctorch.so" || rc=1
echo "== FFT (fft_test: FFTW and cuFFT against double-precision DFTs; the plan cache)"
"$A/fft_test" || rc=1
echo "== FFT, ctorch vs torch.cuda (tests/gpu/fft_compare.py)"
python3 tests/gpu/fft_compare.py "$A/libctorch.so" || rc=1
echo "== random numbers (random_test; the CPU half also checks torch's golden vectors)"
"$A/random_test" || rc=1
echo "== random numbers, ctorch vs torch.cuda (tests/gpu/rng_compare.py)"
python3 tests/gpu/rng_compare.py "$A/libctorch.so" || rc=1
echo "== core unit tests"; "$A/core_test" --gtest_brief=1 || rc=1
if [ "${SANITIZE:-1}" = 1 ]; then
  # sanitize TOOL TEST: compute-sanitizer's summary lines, its first findings when it fails
  sanitize() {
    local extra=""; [ "$1" = memcheck ] && extra="--leak-check full"
    echo "== compute-sanitizer $1: $2"
    /usr/local/cuda/bin/compute-sanitizer --tool "$1" $extra --error-exitcode 9 "$A/$2" > "/tmp/cs_$1_$2.txt" 2>&1
    local r=$?
    tail -3 "/tmp/cs_$1_$2.txt"; [ $r -eq 0 ] || { rc=1; grep -m20 -E "=========" "/tmp/cs_$1_$2.txt"; }
  }
  for t in device_test cuda_test random_test layout_test; do sanitize memcheck $t; done
  for t in device_test layout_test; do sanitize racecheck $t; done
fi
echo "== quickstart"; "$A/quickstart" || rc=1
if [ -x "$A/go_ctorch.test" ]; then
  echo "== Go binding suite on the GPU"
  "$A/go_ctorch.test" -test.v -test.count=1 > /tmp/go_gpu.txt 2>&1 || rc=1
  [ -n "${OUT:-}" ] && cp /tmp/go_gpu.txt "$OUT/"  # the whole log comes back from the device tool
  grep -E "^--- FAIL|^(ok|FAIL|PASS)$|^panic" /tmp/go_gpu.txt | head -20
  echo "go: $(grep -c '^--- PASS' /tmp/go_gpu.txt) passed, $(grep -c '^--- FAIL' /tmp/go_gpu.txt) failed, $(grep -c '^--- SKIP' /tmp/go_gpu.txt) skipped"
  grep -A3 "^--- SKIP" /tmp/go_gpu.txt | grep -v "^--" | head -10
fi
echo "== torch, same devices"
python3 - <<'PY' || rc=1
import torch
print("torch", torch.__version__, "cuda available:", torch.cuda.is_available(), "count:", torch.cuda.device_count())
for d in range(torch.cuda.device_count()):
    p = torch.cuda.get_device_properties(d)
    print(f"  cuda:{d} name='{p.name}' capability={p.major}.{p.minor} total_memory={p.total_memory} "
          f"multiprocessors={p.multi_processor_count} l2={p.L2_cache_size}")
# The reprs and dtype rules the C suite asserts, checked against torch itself.
nan, inf = float('nan'), float('inf')
cases = [
  (torch.tensor([1., 2.]), "tensor([1., 2.])"),
  (torch.tensor([1.5, -2.25, 3]), "tensor([ 1.5000, -2.2500,  3.0000])"),
  (torch.tensor([1, -20, 3]), "tensor([  1, -20,   3])"),
  (torch.tensor([True, False]), "tensor([ True, False])"),
  (torch.tensor([1e-5, 1.]), "tensor([1.0000e-05, 1.0000e+00])"),
  (torch.tensor([1., 10000.]), "tensor([1.0000e+00, 1.0000e+04])"),
  (torch.tensor([0., nan, inf, -1.]), "tensor([ 0., nan, inf, -1.])"),
  (torch.tensor([0.5], dtype=torch.float16), "tensor([0.5000], dtype=torch.float16)"),
  (torch.tensor([[[1, 2]], [[3, 4]]]), "tensor([[[1, 2]],\n\n        [[3, 4]]])"),
  (torch.zeros(2, 0, dtype=torch.int64), "tensor([], size=(2, 0), dtype=torch.int64)"),
  (torch.tensor([1+2j, -1.5-0.5j], dtype=torch.complex128), "tensor([ 1.0000+2.0000j, -1.5000-0.5000j], dtype=torch.complex128)"),
  (torch.arange(2000), "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"),
  (torch.arange(30.), "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n        14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25., 26., 27.,\n        28., 29.])"),
  (torch.tensor([1., 2.], device='cuda') if torch.cuda.is_available() else torch.tensor([1.]), None),
]
bad = 0
for t, want in cases:
    got = repr(t)
    if want is not None and got != want:
        bad += 1; print("REPR MISMATCH\n got:", got, "\nwant:", want)
print("torch cuda repr:", repr(cases[-1][0]))
i32 = torch.tensor([1, 2, 3], dtype=torch.int32)
checks = [
  ((i32 + 2.5).dtype, torch.float32), ((i32 + 2).dtype, torch.int32),
  ((torch.tensor([1.], dtype=torch.float16) + 2.5).dtype, torch.float16),
  ((i32 + torch.tensor(0.5, dtype=torch.float64)).dtype, torch.float64),
  ((torch.tensor([1.]) + torch.tensor(0.5, dtype=torch.float64)).dtype, torch.float32),
  ((torch.tensor([250, 5], dtype=torch.uint8) + torch.tensor([10, -10], dtype=torch.int8)).tolist(), [260, -5]),
  (torch.floor_divide(torch.tensor([7, -7, 7, -7]), torch.tensor([2, 2, -2, -2])).tolist(), [3, -4, -4, 3]),
  (torch.remainder(torch.tensor([7.5, -7.5]), 2).tolist(), [1.5, 0.5]),
  (torch.linspace(0, 1, 5).tolist(), [0, 0.25, 0.5, 0.75, 1]),
  (torch.tensor([1.5, -2, 0.1, 65504, 1e6], dtype=torch.float64).to(torch.bfloat16).float().tolist(), [1.5, -2, 0.10009765625, 65536, 999424]),
]
for got, want in checks:
    if got != want:
        bad += 1; print("MISMATCH", got, want)
print(f"torch reference checks: {len(cases) - 1 + len(checks) - bad} passed, {bad} failed")
sys_exit = 1 if bad else 0
raise SystemExit(sys_exit)
PY
echo "gpu_check rc=$rc"
exit $rc
