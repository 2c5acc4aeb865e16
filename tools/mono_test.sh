#!/bin/bash
# Runs an NUnit 2.6 test assembly with nunit-console under mono (the C# suite's sh_test driver).
# usage: mono_test.sh <libctorch_csharp.so> <Tests.dll> [other assemblies...] [-- nunit-console args]
# Runs in the runfiles root. The assemblies are copied side by side (nunit loads them from one
# folder); the native wrapper stays where Bazel put it, so its RUNPATH still finds libctorch.so,
# and mono finds it through LD_LIBRARY_PATH. The XML result goes to $XML_OUTPUT_FILE.
set -euo pipefail
native="$1"; shift
test_dll="$1"; shift
assemblies=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do assemblies+=("$1"); shift; done
[ $# -gt 0 ] && shift   # the "--"; what follows goes to nunit-console (e.g. -include=gc)
W="${TEST_TMPDIR:-$(mktemp -d)}/mono"
rm -rf "$W"; mkdir -p "$W"
cp -L "$test_dll" "${assemblies[@]}" "$W/"
native_dir="$(cd "$(dirname "$native")" && pwd)"
export LD_LIBRARY_PATH="$native_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export HOME="$W"
cd "$W"
set +e
nunit-console -nologo -noshadow -labels -xml="${XML_OUTPUT_FILE:-$W/TestResult.xml}" "$@" "$(basename "$test_dll")"
rc=$?
set -e
# A plain summary line for CI logs ("N passed, N failed").
result="${XML_OUTPUT_FILE:-$W/TestResult.xml}"
if [ -f "$result" ]; then
  total=$(sed -n 's/.*<test-results[^>]* total="\([0-9]*\)".*/\1/p' "$result" | head -1)
  errors=$(sed -n 's/.*<test-results[^>]* errors="\([0-9]*\)".*/\1/p' "$result" | head -1)
  failures=$(sed -n 's/.*<test-results[^>]* failures="\([0-9]*\)".*/\1/p' "$result" | head -1)
  ignored=$(sed -n 's/.*<test-results[^>]* ignored="\([0-9]*\)".*/\1/p' "$result" | head -1)
  if [ -n "$total" ]; then
    failed=$(( ${errors:-0} + ${failures:-0} ))
    echo "csharp: $(( total - failed )) passed, $failed failed, ${ignored:-0} skipped"
  fi
fi
exit $rc
