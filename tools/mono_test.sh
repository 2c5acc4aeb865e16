#!/bin/bash
# Runs an NUnit 2.6 test assembly with nunit-console under mono (the C# suite's sh_test driver).
# usage: mono_test.sh [--coverage <coverage.py> <ctorch.h>] <libctorch_csharp.so> <Tests.dll>
#                     [other assemblies...] [-- nunit-console args]...
# Each "--" starts one nunit-console process with the arguments that follow it (e.g.
# "-- -exclude=gc -- -include=gc": two processes); without any "--", one process runs it all.
# Runs in the runfiles root. The assemblies are copied side by side (nunit loads them from one
# folder); the native wrapper stays where Bazel put it, so its RUNPATH still finds libctorch.so,
# and mono finds it through LD_LIBRARY_PATH. The XML results stay in the work folder.
# With --coverage, every process appends the ct_ functions it calls to one trace file
# (CTORCH_TRACE_CALLS, Note [Call trace] in capi/trace.cc) and coverage.py then fails the test
# when a public function of ctorch.h was not called by any of them.
set -euo pipefail
coverage=() ; [ "${1:-}" = "--coverage" ] && { coverage=("$(pwd)/$2" "$(pwd)/$3"); shift 3; }
native="$1"; shift
test_dll="$1"; shift
assemblies=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do assemblies+=("$1"); shift; done
runs=()   # one string of "\n"-separated arguments per process
[ $# -eq 0 ] && runs=("")
while [ $# -gt 0 ]; do   # $1 is "--"
  shift; args=""
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do args+="$1"$'\n'; shift; done
  runs+=("$args")
done
W="${TEST_TMPDIR:-$(mktemp -d)}/mono"
rm -rf "$W"; mkdir -p "$W"
cp -L "$test_dll" "${assemblies[@]}" "$W/"
native_dir="$(cd "$(dirname "$native")" && pwd)"
export LD_LIBRARY_PATH="$native_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export HOME="$W"
[ ${#coverage[@]} -gt 0 ] && export CTORCH_TRACE_CALLS="$W/calls.trace"
cd "$W"
attr() { sed -n "s/.*<test-results[^>]* $1=\"\([0-9]*\)\".*/\1/p" "$2" | head -1; }
passed=0; failed=0; skipped=0; status=0; n=0
for run in "${runs[@]}"; do
  n=$((n + 1)); xml="$W/result$n.xml"
  mapfile -t args < <(printf '%s' "$run")
  set +e
  nunit-console -nologo -noshadow -labels -xml="$xml" "${args[@]}" "$(basename "$test_dll")"
  rc=$?
  set -e
  [ $rc -ne 0 ] && status=$rc
  # A plain summary line for CI logs ("N passed, N failed").
  if [ -f "$xml" ] && [ -n "$(attr total "$xml")" ]; then
    t=$(attr total "$xml"); e=$(attr errors "$xml"); f=$(attr failures "$xml"); i=$(attr ignored "$xml")
    passed=$((passed + t - ${e:-0} - ${f:-0})); failed=$((failed + ${e:-0} + ${f:-0})); skipped=$((skipped + ${i:-0}))
  else
    echo "csharp (${args[*]}): the runner ended without a result (rc $rc): counted as 1 failed"
    failed=$((failed + 1))
  fi
done
echo "csharp: $passed passed, $failed failed, $skipped skipped"
if [ ${#coverage[@]} -gt 0 ]; then
  python3 "${coverage[0]}" --header "${coverage[1]}" --suite csharp "$CTORCH_TRACE_CALLS" || status=1
fi
exit $status
