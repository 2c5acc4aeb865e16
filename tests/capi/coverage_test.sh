#!/bin/bash
# The C suite reaches every public function (Note [Call trace] in capi/trace.cc): runs each C
# test binary with CTORCH_TRACE_CALLS set, then tools/abi/coverage.py compares the names the
# library recorded with ctorch.h's CT_API declarations. Fails when one was never called.
# usage: coverage_test.sh <ctorch.h> <coverage.py> <test binary>...
set -u
header="$1"; checker="$2"; shift 2
trace="${TEST_TMPDIR:-$(mktemp -d)}/c_calls.txt"
rm -f "$trace"
fail=0
for t in "$@"; do
  if ! CTORCH_TRACE_CALLS="$trace" "$t" > "${TEST_TMPDIR:-/tmp}/$(basename "$t").log" 2>&1; then
    echo "FAIL: $t (its log follows)"; tail -20 "${TEST_TMPDIR:-/tmp}/$(basename "$t").log"; fail=1
  fi
done
python3 "$checker" --header "$header" --suite C "$trace" || fail=1
if [ "$fail" -eq 0 ]; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; fi
exit "$fail"
