#!/bin/bash
# The Java suite on the GPU host with the carried JRE: tools/gpu_pack_java.sh copies this file
# into gpu_java/ as run.sh, next to classes.txt (the suite's test classes, from tests/java/BUILD).
#   bash gpu_java/run.sh
D="$(cd "$(dirname "$0")" && pwd)"
for f in "$D"/*.xz; do [ -e "$f" ] && xz -d -f "$f"; done  # libctorch.so travels compressed
export LD_LIBRARY_PATH="$D${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for c in $(cat "$D/classes.txt"); do
  "$D/jre/bin/java" -Xcheck:jni -Djava.library.path="$D" \
    -cp "$D/ctorch.jar:$D/ctorch_java_tests.jar:$D/junit4.jar:$D/hamcrest-core.jar" \
    org.junit.runner.JUnitCore "org.ctorch.$c" 2>&1 | grep -E "^OK|^Tests run|^FAIL|^[0-9]+\) " | sed "s/^/$c: /"
done
