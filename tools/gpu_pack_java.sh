#!/usr/bin/env bash
# Packs the Java suite for the GPU host (which has no Java) into gpu_java/ (git-ignored):
# the jars, the JNI and core libraries, a jlink'ed JRE, and run.sh. Carry gpu_java and run
#   bash gpu_java/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bazel build //tests/java:ctorch_java_tests_jar //bindings/java:ctorch.jar //bindings/swig:libctorch_jni.so //capi:libctorch.so
B=$(bazel info bazel-bin)
rm -rf gpu_java && mkdir -p gpu_java
cp -L "$B/bindings/java/ctorch.jar" "$B/tests/java/ctorch_java_tests.jar" "$B/bindings/swig/libctorch_jni.so" \
      "$B/capi/libctorch.so" /usr/share/java/junit4.jar /usr/share/java/hamcrest-core.jar gpu_java/
chmod u+w gpu_java/*
jlink --add-modules java.base,java.logging,java.management --strip-debug --no-header-files --no-man-pages \
      --compress=2 --output gpu_java/jre
CLASSES=$(sed -n '/^TESTS = \[/,/^\]/p' tests/java/BUILD | grep -o '"[A-Za-z]*"' | tr -d '"' | tr '\n' ' ')
cat > gpu_java/run.sh <<RUN
#!/bin/bash
# The Java suite on the GPU host, with the carried JRE.
D="\$(cd "\$(dirname "\$0")" && pwd)"
export LD_LIBRARY_PATH="\$D\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
for c in $CLASSES; do
  "\$D/jre/bin/java" -Xcheck:jni -Djava.library.path="\$D" \\
    -cp "\$D/ctorch.jar:\$D/ctorch_java_tests.jar:\$D/junit4.jar:\$D/hamcrest-core.jar" \\
    org.junit.runner.JUnitCore org.ctorch.\$c 2>&1 | grep -E "^OK|^Tests run|^FAIL|^[0-9]+\\) " | sed "s/^/\$c: /"
done
RUN
chmod +x gpu_java/run.sh
du -sh gpu_java
