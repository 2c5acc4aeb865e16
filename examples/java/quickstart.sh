#!/bin/bash
# Runs the Java quickstart with ctorch.jar on the classpath and libctorch_jni.so's directory
# on java.library.path (the target of `bazel run //examples/java:quickstart`).
set -eu
if [ -n "${RUNFILES_DIR:-}" ] && [ -d "$RUNFILES_DIR/ctorch" ]; then
  R="$RUNFILES_DIR/ctorch"
elif [ -d "$0.runfiles/ctorch" ]; then
  R="$0.runfiles/ctorch"
else
  R="$PWD"   # bazel run starts in the runfiles root
fi
exec java -XX:-UsePerfData -Djava.library.path="$R/bindings/swig" \
    -cp "$R/bindings/java/ctorch.jar:$R/examples/java/quickstart.jar" Quickstart "$@"
