#!/bin/bash
# The Java suite on the GPU host with the carried JRE: tools/gpu_pack_java.sh copies this file
# into gpu_java/ as run.sh, next to classes.txt (the suite's test classes, from tests/java/BUILD)
# and junit4_test.sh (tools/junit4_test.sh).
#   bash gpu_java/run.sh
D="$(cd "$(dirname "$0")" && pwd)"
for f in "$D"/*.xz; do [ -e "$f" ] && xz -d -f "$f"; done  # libctorch.so travels compressed
export LD_LIBRARY_PATH="$D${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# one JVM per class, each run by the Bazel tests' driver (tools/junit4_test.sh, carried) with the
# carried JRE
export PATH="$D/jre/bin:$PATH" JUNIT_JVM_FLAGS=-Xcheck:jni
for c in $(cat "$D/classes.txt"); do
  bash "$D/junit4_test.sh" "$D/libctorch_jni.so" "$D/ctorch.jar" "$D/ctorch_java_tests.jar" "$D/junit4.jar" \
    "$D/hamcrest-core.jar" -- "org.ctorch.$c" 2>&1 | grep -E "^OK|^Tests run|^FAIL|^[0-9]+\) " | sed "s/^/$c: /"
done
# the examples (examples.txt: name and main class; each checks its own values and exits 0)
while read -r name cls; do
  [ -n "$name" ] || continue
  java -Xcheck:jni -Djava.library.path="$D" -cp "$D/ctorch.jar:$D/examples/$name.jar" "$cls" > "/tmp/java_example_$name.txt" 2>&1
  r=$?
  if [ $r -eq 0 ]; then echo "example $name: OK"; else echo "example $name: FAIL (exit $r)"; tail -20 "/tmp/java_example_$name.txt"; fi
done < "$D/examples.txt"
