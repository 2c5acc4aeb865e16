#!/bin/bash
# Runs JUnit 4 test classes against ctorch's Java binding (an sh_test driver).
#
# usage: junit4_test.sh [--coverage <coverage.py> <ctorch.h> <suite>] <libctorch_jni.so>
#            <classpath entry>... -- <TestClass>...
#
# Paths are relative to the runfiles root (Bazel's cwd for tests) or absolute. The directory
# of libctorch_jni.so goes on java.library.path; libctorch.so resolves through its RUNPATH.
# Extra JVM flags: JUNIT_JVM_FLAGS (e.g. "-Xcheck:jni").
#
# With --coverage the run is traced (CTORCH_TRACE_CALLS, Note [Call trace] in capi/trace.cc)
# and then fails unless the classes together called every public function of ctorch.h
# (tools/abi/coverage.py prints the count and the names not called).
set -eu
coverage=()
if [ "${1:-}" = "--coverage" ]; then
  [ $# -ge 4 ] || { echo "$0: --coverage needs <coverage.py> <ctorch.h> <suite>" >&2; exit 2; }
  coverage=("$2" "$3" "$4")
  shift 4
fi
if [ $# -lt 3 ]; then
  echo "usage: $0 [--coverage <coverage.py> <ctorch.h> <suite>] <libctorch_jni.so>" \
    "<classpath entry>... -- <TestClass>..." >&2
  exit 2
fi
jni="$1"; shift
cp=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  cp="${cp:+$cp:}$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
  shift
done
[ $# -gt 0 ] && shift   # the "--"
if [ $# -eq 0 ]; then
  echo "$0: no test class given" >&2
  exit 2
fi
jni_dir="$(cd "$(dirname "$jni")" && pwd)"
# Some JVMs write hs_err files / caches into the cwd or HOME; keep them in the test's tmpdir.
export HOME="${TEST_TMPDIR:-${HOME:-/tmp}}"
run_junit() {
  # shellcheck disable=SC2086
  java -XX:-UsePerfData ${JUNIT_JVM_FLAGS:-} -Djava.library.path="$jni_dir" -cp "$cp" \
      org.junit.runner.JUnitCore "$@"
}
if [ ${#coverage[@]} -eq 0 ]; then
  run_junit "$@"
  exit
fi
trace="${TEST_TMPDIR:-$(mktemp -d)}/ctorch_calls.trace"
rm -f "$trace"
rc=0
log="${TEST_TMPDIR:-$(mktemp -d)}/junit.log"
set -o pipefail
CTORCH_TRACE_CALLS="$trace" run_junit "$@" 2>&1 | tee "$log" || rc=$?
cov=0
python3 "${coverage[0]}" --header "${coverage[1]}" --suite "${coverage[2]}" "$trace" || cov=$?
# one "N passed, N failed" line for tools/test.sh: JUnit's counts plus the coverage check
if grep -qE '^OK \([0-9]+ tests?\)' "$log"; then
  p=$(sed -nE 's/^OK \(([0-9]+) tests?\).*/\1/p' "$log" | tail -1); q=0
else
  n=$(sed -nE 's/^Tests run: ([0-9]+),  Failures: ([0-9]+).*/\1 \2/p' "$log" | tail -1)
  q=${n#* }; p=$(( ${n% *} - q )); [ -n "$n" ] || { p=0; q=1; }
fi
if [ "$cov" -eq 0 ]; then p=$((p + 1)); else q=$((q + 1)); fi
echo "$p passed, $q failed"
[ "$rc" -ne 0 ] && exit "$rc"
exit "$cov"
