#!/usr/bin/env bash
# Packs the Java suite for the GPU host (which has no Java) into gpu_java/ (git-ignored):
# the jars, the JNI and core libraries (libctorch.so xz-compressed), a jlink'ed JRE, run.sh
# (tests/gpu/java_run.sh) and the Bazel tests' driver (tools/junit4_test.sh), which run.sh uses.
# Carry gpu_java and run
#   bash gpu_java/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# the examples (examples/java/BUILD's EXAMPLES: name and main class), run after the suite
EXAMPLES=$(sed -n '/^EXAMPLES = {/,/^}/p' examples/java/BUILD | grep -o '"[A-Za-z]*": "[A-Za-z]*"' | tr -d '":')
bazel build //tests/java:ctorch_java_tests_jar //bindings/java:ctorch.jar //bindings/swig:libctorch_jni.so //capi:libctorch.so \
  $(echo "$EXAMPLES" | awk '{print "//examples/java:" $1 "_jar"}')
B=$(bazel info bazel-bin)
rm -rf gpu_java && mkdir -p gpu_java
cp -L "$B/bindings/java/ctorch.jar" "$B/tests/java/ctorch_java_tests.jar" "$B/bindings/swig/libctorch_jni.so" \
      "$B/capi/libctorch.so" /usr/share/java/junit4.jar /usr/share/java/hamcrest-core.jar gpu_java/
chmod u+w gpu_java/*
jlink --add-modules java.base,java.logging,java.management --strip-debug --no-header-files --no-man-pages \
      --compress=2 --output gpu_java/jre
CLASSES=$(sed -n '/^TESTS = \[/,/^\]/p' tests/java/BUILD | grep -o '"[A-Za-z]*"' | tr -d '"' | tr '\n' ' ')
echo "$CLASSES" > gpu_java/classes.txt
mkdir -p gpu_java/examples
echo "$EXAMPLES" > gpu_java/examples.txt
for n in $(echo "$EXAMPLES" | awk '{print $1}'); do cp -L "$B/examples/java/$n.jar" gpu_java/examples/; done
cp tests/gpu/java_run.sh gpu_java/run.sh
cp tools/junit4_test.sh gpu_java/junit4_test.sh  # run.sh runs each class with the Bazel driver
chmod +x gpu_java/run.sh
xz -6 -T2 gpu_java/libctorch.so  # the device tool carries at most 64 MiB; run.sh unpacks it
du -sh gpu_java
