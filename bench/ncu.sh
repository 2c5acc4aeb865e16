#!/usr/bin/env bash
# Nsight Compute profiles of ctorch's and torch's kernels for matrix rows, on the GPU host:
#   bash bench/ncu.sh [gpu_artifacts] ROW... 
# Runs bench/run.sh's benchmark for each ROW (a row filter, e.g. add/u8/contig) under ncu,
# profiling NCU_COUNT (default 8) launches after skipping NCU_SKIP (default 4: the inputs'
# set-up) of kernels whose names match NCU_KERNELS (default: all), and writes the report text to
# $OUT/ncu/<row>.txt (./ncu/ without the device tool). Rows alternate ctorch and torch rounds
# after a warm-up of both, so both libraries' kernels appear.
set -uo pipefail
A="${1:-gpu_artifacts}"; shift
cd "$(dirname "$0")/.."
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute*/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
[ -n "$NCU" ] || { echo "ncu not found"; exit 1; }
D="${OUT:-.}/ncu"; mkdir -p "$D"
export BENCH_TMP="${BENCH_TMP:-$(mktemp -d)}"
for row in "$@"; do
  R="$D/$(echo "$row" | tr '/' '_').txt"
  BENCH_WRAP="$NCU --launch-skip ${NCU_SKIP:-4} --launch-count ${NCU_COUNT:-8} -k regex:${NCU_KERNELS:-.} \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis" \
    bash bench/run.sh "$A" "$row" > "$R" 2>&1
  echo "$row: ncu rc $?, $(grep -cE '^  [A-Za-z_].*\(' "$R") kernel reports"
done
