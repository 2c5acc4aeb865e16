#!/usr/bin/env bash
# Part of the GPU suite, for one feature's run on the GPU host (tools/gpu_check.sh is the whole):
#   SUITES="scan_test sort_test" COMPARES="scan sort" BENCH="cumsum/|sort/" bash tools/gpu_subset.sh [gpu_artifacts]
# RACE_SPLIT="sort_test ..." runs those suites' racecheck one process a case (CT_TESTS), in parallel.
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
# One compute-sanitizer run: tool, suite, log file (CT_TESTS, when set, picks the suite's cases).
sanitize_one() {
  local tool=$1 t=$2 log=$3 extra=""
  [ "$tool" = memcheck ] && extra="--leak-check full"
  /usr/local/cuda/bin/compute-sanitizer --tool "$tool" $extra --target-processes application-only --error-exitcode 9 "$A/$t" > "$log" 2>&1
}
for t in ${SUITES:-}; do
  for tool in memcheck racecheck; do
    if [ "$tool" = racecheck ] && [ -f "tests/capi/$t.c" ] && [[ " ${RACE_SPLIT:-} " == *" $t "* ]]; then
      # racecheck one process a case, all at once (a whole suite can outlast a device call)
      cases=$(grep -oE 'TEST_CASE\([A-Za-z0-9_]+\)' "tests/capi/$t.c" | sed -E 's/TEST_CASE\((.*)\)/\1/')
      for c in $cases; do CT_TESTS=$c sanitize_one racecheck "$t" "/tmp/cs_racecheck_${t}_$c.txt" & done
      wait
      bad=0
      for c in $cases; do
        f="/tmp/cs_racecheck_${t}_$c.txt"
        grep -qE '^1 passed, 0 failed' "$f" && grep -qE 'RACECHECK SUMMARY: 0 hazards' "$f" || { bad=1; echo "   $c:"; grep -m10 -E "=========|FAIL" "$f"; }
      done
      echo "== compute-sanitizer racecheck $t, $(echo $cases | wc -w) cases one process each: $([ $bad = 0 ] && echo 'every case passed, 0 hazards' || echo FAILED)"
      [ $bad = 0 ] || rc=1
      continue
    fi
    sanitize_one "$tool" "$t" "/tmp/cs_${tool}_$t.txt"
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
