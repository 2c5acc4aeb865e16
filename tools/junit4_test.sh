#!/bin/bash
# Runs JUnit 4 test classes against ctorch's Java binding (an sh_test driver).
#
# usage: junit4_test.sh <libctorch_jni.so> <classpath entry>... -- <TestClass>...
#
# Paths are relative to the runfiles root (Bazel's cwd for tests) or absolute. The directory
# of libctorch_jni.so goes on java.library.path; libctorch.so resolves through its RUNPATH.
# Extra JVM flags: JUNIT_JVM_FLAGS (e.g. "-Xcheck:jni").
set -eu
if [ $# -lt 3 ]; then
  echo "usage: $0 <libctorch_jni.so> <classpath entry>... -- <TestClass>..." >&2
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
# shellcheck disable=SC2086
exec java -XX:-UsePerfData ${JUNIT_JVM_FLAGS:-} -Djava.library.path="$jni_dir" -cp "$cp" \
    org.junit.runner.JUnitCore "$@"
