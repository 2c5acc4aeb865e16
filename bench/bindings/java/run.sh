#!/usr/bin/env bash
# Java side of the binding-overhead benchmark: prints "java noop <ns>" and "java small_add <ns>"
# on stdout (bench/bindings/run.sh collects them); everything else goes to stderr.
#
# Builds the binding's jar and JNI library with Bazel (as the C baseline in
# bench/bindings/c), compiles BindingBench.java with javac against the jar into a temporary
# directory and runs it with the JNI library's directory on java.library.path (libctorch.so is
# found through the JNI library's RUNPATH). Not a Bazel target, so not part of `bazel test //...`.
#
# usage: bash bench/bindings/java/run.sh [raw]
#   raw: also print on stderr the same loops through the SWIG layer (org.ctorch.swig) directly.
# Extra JVM flags: JAVA_BENCH_FLAGS (e.g. "-XX:+UseParallelGC").
set -euo pipefail
cd "$(dirname "$0")/../../.."
HERE=bench/bindings/java

bazel build //bindings/java:ctorch.jar //bindings/swig:libctorch_jni.so >&2
B="$(bazel info bazel-bin 2>/dev/null)"
JAR="$B/bindings/java/ctorch.jar"
JNI_DIR="$B/bindings/swig"
[ -f "$JAR" ] && [ -f "$JNI_DIR/libctorch_jni.so" ] || { echo "$0: build outputs missing under $B" >&2; exit 1; }

TMP="$(mktemp -d "${TMPDIR:-/tmp}/ctorch_java_bench.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
javac -J-XX:-UsePerfData --release 17 -encoding UTF-8 -Xlint:all -d "$TMP" -cp "$JAR" \
    "$HERE/BindingBench.java" >&2

# The JVM may write hs_err files or caches into HOME; keep them out of the user's.
# shellcheck disable=SC2086
HOME="$TMP" java -XX:-UsePerfData ${JAVA_BENCH_FLAGS:-} -Djava.library.path="$JNI_DIR" \
    -cp "$TMP:$JAR" BindingBench "$@"
