#!/usr/bin/env bash
# The GPU benchmark, ctorch against torch, in one command on the GPU host (issue 7):
#   bash bench/run.sh [gpu_artifacts] [filter]
# gpu_artifacts/ is the GPU bundle (tools/gpu_pack.sh here: libctorch.so, the Go test binary). Builds
# bench/gpu_bench.cc there against libtorch and libctorch.so (one process, both libraries,
# alternating rounds, CUDA-event timing, medians: see that file), runs the Go binding's host-cost
# benchmark, prints the table with the ratios last, and appends it to bench/RESULTS.md (also
# copied to $OUT when the device tool runs this). A filter (substrings separated by '|') runs only matching rows:
# "/" the whole matrix of issue 12 (rows op/dtype/layout, GPU and cpu/...), "add/" its add
# rows, "cpu/" its CPU rows (gpu_bench.cc's header lists ops, dtypes and layouts); "i21:" issue 21's
# ops in that matrix alone (about 370 rows, about 3-4 minutes on an H100 besides the build).
# The filter "csan" runs issue 17's bench/csan_bench.c alone (the stream sanitizer's host cost per
# small add, off and on; targets: off unchanged, on <= 2x off).
# Targets (ratio = ctorch time / torch time): matrix rows on the GPU <= 1.05, "cpu/" rows
# <= 1.25; small CUDA adds (small_add_host, small_add_host_f16) ctorch <= 1.1x the launch
# floor, the general path's (small_add_bcast_host) <= 1.3x small_add_host's ctorch time; the
# rows of issue 7 keep theirs. The last lines say "matrix: N rows, M met, K missed" and list
# the missed rows (a row that failed to run counts as missed).
# The filter "graph" (or any filter starting with it, passed on as a substring of the row names)
# runs issue 15's benchmark alone instead: bench/graph_bench.cc, built the same way (a chain of 100
# small elementwise ops, eager and as a CUDA graph, ctorch's graphs against torch's; rows graph_*,
# listed in that file). Targets: ctorch's replay >= 10x cheaper on the host per op than its eager
# chain (graph_replay_host_*), and its replay's GPU time <= 1.05x torch's (graph_replay_gpu_*);
# the last lines then say "graphs: N rows with a target, M met, K missed".
# The filter "comm" runs issue 16's benchmark alone: bench/comm/comm_bench.py (ctorch's NCCL
# communicator against torch.distributed's all_reduce, one process a GPU, 1 MiB to 1 GiB and
# 8 B / 1 KiB latency; torch.cuda.comm.broadcast/reduce_add against ctorch's). Target >= 0.95x
# torch; it prints and appends its own table (rows nccl_*, cuda_comm_*).
set -uo pipefail
FILTER="${2:-}"
source "$(dirname "$0")/../tools/gpu_env.sh" "${1:-gpu_artifacts}" || exit 1  # A, LD_LIBRARY_PATH
cd "$(dirname "$0")/.."
case "$FILTER" in comm*) python3 bench/comm/comm_bench.py "$A/libctorch.so"; exit $? ;; esac
# The filter "csan": the stream sanitizer's host cost per op, off and on (bench/csan_bench.c)
case "$FILTER" in csan*)
  # A/baseline/libctorch.so.xz (optional, put there by hand): the library built before the
  # sanitizer, for the cost of having it at all; processes alternate between the two libraries
  gcc -O2 -I. bench/csan_bench.c -o /tmp/csan_bench -L"$A" -lctorch -ldl || exit 1
  [ -f "$A/baseline/libctorch.so.xz" ] && xz -d -f "$A/baseline/libctorch.so.xz"
  : > /tmp/csan_bench.txt; r=0
  for i in 1 2; do
    [ -f "$A/baseline/libctorch.so" ] && LD_LIBRARY_PATH="$A/baseline" /tmp/csan_bench baseline >> /tmp/csan_bench.txt
    LD_LIBRARY_PATH="$A" /tmp/csan_bench >> /tmp/csan_bench.txt || r=1
  done
  { echo; echo "## $(date -u +%F), $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), \`bash bench/run.sh gpu_artifacts csan\` (bench/csan_bench.c)"
    echo "The stream sanitizer's host cost per small CUDA add (1024 float32): modes interleaved in one process, medians of 7 rounds of 20000 calls, two processes each (the baseline rows: the library built before the sanitizer, in processes of their own alternating with the others); targets: off as the baseline, on <= 2x off."
    echo "| benchmark | us/op | unit | ratio to off |"; echo "|---|---|---|---|"
    grep '^| csan_' /tmp/csan_bench.txt | sed 's/ | vs off / | /'; grep '^csan_bench:' /tmp/csan_bench.txt | tail -1; } | tee -a bench/RESULTS.md
  [ -n "${OUT:-}" ] && cp bench/RESULTS.md "$OUT/RESULTS.md"
  exit $r ;;
esac
# BENCH_TMP: a folder kept between calls (bench/ncu.sh): the benchmark is built there once
T="${BENCH_TMP:-$(mktemp -d)}"; mkdir -p "$T"
TP=$(python3 -c "import torch, os; print(os.path.dirname(torch.__file__))")
ABI=$(python3 -c "import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))")
case "$FILTER" in graph*) BIN=graph_bench ;; *) BIN=gpu_bench ;; esac
# compile SOURCES... : bench/$BIN.cc and the objects given, against libctorch.so and libtorch
compile() {
  g++ -O2 -std=c++17 -D_GLIBCXX_USE_CXX11_ABI=$ABI -I. -I"$TP/include" -I/usr/local/cuda/include \
    "$@" -o "$T/$BIN" -L"$A" -lctorch -Wl,-rpath,"$A" \
    -L"$TP/lib" -Wl,-rpath,"$TP/lib" -ltorch -ltorch_cpu -ltorch_cuda -lc10 -lc10_cuda \
    -L/usr/local/cuda/lib64 -lcudart 2> "$T/gxx.txt" || { tail -30 "$T/gxx.txt"; exit 1; }
}
if [ ! -x "$T/$BIN" ]; then
  if [ "$BIN" = gpu_bench ]; then
    /usr/local/cuda/bin/nvcc -O2 -gencode arch=compute_90,code=sm_90 -c bench/floor_kernel.cu -o "$T/floor.o" || exit 1
    compile bench/gpu_bench.cc "$T/floor.o"
  else
    compile "bench/$BIN.cc"
  fi
fi
# BENCH_WRAP (a command prefix, e.g. bench/ncu.sh's profiler) runs the benchmark under it and
# stops there: no table, no RESULTS.md
if [ -n "${BENCH_WRAP:-}" ]; then $BENCH_WRAP "$T/$BIN" $FILTER; exit $?; fi
"$T/$BIN" $FILTER | tee "$T/bench.txt"
# The Go binding's host cost per small CUDA op over C's, from the carried test binary:
# BenchmarkSmallAddCUDAOverC times the Go loop and the same loop in C (one cgo call) side by
# side in this one process (tests/go/bench_test.go), 7 times; and the no-op call.
if [ -x "$A/go_ctorch.test" ] && [ -z "$FILTER" -o "$FILTER" = go ]; then
  "$A/go_ctorch.test" -test.run '^$' -test.bench 'BenchmarkSmallAddCUDA$|BenchmarkSmallAddCUDAOverC$|BenchmarkNoop$' \
    -test.count 7 > "$T/go.txt" 2>&1 || tail -5 "$T/go.txt"
fi
python3 bench/report.py "$T"
rm -rf "$T"
