#!/bin/bash
# Runs a Java example: run.sh <jar> <main class> [args...], with ctorch.jar and the example's jar
# on the classpath and libctorch_jni.so's directory on java.library.path (the sh_binary that
# `bazel run //examples/java:quickstart` and `:graphs` start).
set -eu
if [ -n "${RUNFILES_DIR:-}" ] && [ -d "$RUNFILES_DIR/ctorch" ]; then
  R="$RUNFILES_DIR/ctorch"
elif [ -d "$0.runfiles/ctorch" ]; then
  R="$0.runfiles/ctorch"
else
  R="$PWD"   # bazel run starts in the runfiles root
fi
jar=$1 main=$2
shift 2
exec java -XX:-UsePerfData -Djava.library.path="$R/bindings/swig" \
    -cp "$R/bindings/java/ctorch.jar:$R/examples/java/$jar" "$main" "$@"
