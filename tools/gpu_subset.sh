#!/usr/bin/env bash
# Part of the GPU suite, for one feature's run on the GPU host (tools/gpu_check.sh is the whole):
#   SUITES="scan_test sort_test" COMPARES="scan sort" BENCH="cumsum/|sort/" bash tools/gpu_subset.sh [gpu_artifacts]
# Runs each C suite of SUITES as it is, then under compute-sanitizer memcheck (leak check on) and
# racecheck (the test process only: indexing_test's children are meant to fail a device assertion),
# each tests/gpu/<c>_compare.py of COMPARES, and bench/run.sh with the filter BENCH
# when it is set. Prints "gpu_subset rc=N" last.
set -uo pipefail
source "$(dirname "$0")/gpu_env.sh" "${1:-gpu_artifacts}" || exit 1
cd "$(dirname "$0")/.."
rc=0
nvidia-smi -L || true
for t in ${SUITES:-}; do echo "== C suite $t"; "$A/$t" || rc=1; done
for t in ${SUITES:-}; do
  for tool in memcheck racecheck; do
    extra=""; [ "$tool" = memcheck ] && extra="--leak-check full"
    /usr/local/cuda/bin/compute-sanitizer --tool "$tool" $extra --target-processes application-only --error-exitcode 9 "$A/$t" > "/tmp/cs_${tool}_$t.txt" 2>&1
    r=$?
    echo "== compute-sanitizer $tool $t: rc=$r, $(grep -E '^[0-9]+ passed' "/tmp/cs_${tool}_$t.txt" | tail -1), $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "/tmp/cs_${tool}_$t.txt" | tail -1)"
    [ $r -eq 0 ] || { rc=1; grep -m20 -E "=========" "/tmp/cs_${tool}_$t.txt"; }
  done
done
for c in ${COMPARES:-}; do
  echo "== ctorch vs torch (tests/gpu/${c}_compare.py)"
  python3 "tests/gpu/${c}_compare.py" "$A/libctorch.so" || rc=1
done
if [ -n "${BENCH:-}" ]; then
  echo "== bench/run.sh '$BENCH'"
  bash bench/run.sh "$A" "$BENCH" > /tmp/bench_subset.txt 2>&1 || rc=1
  grep -E "^\||^matrix:|missed|FAILED" /tmp/bench_subset.txt | tail -80
  [ -n "${OUT:-}" ] && cp /tmp/bench_subset.txt bench/RESULTS.md "$OUT/" 2>/dev/null
fi
echo "gpu_subset rc=$rc"
exit $rc
