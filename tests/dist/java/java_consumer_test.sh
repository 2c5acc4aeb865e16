#!/bin/bash
# The Java consumer test (issue 14): the release jar used from outside the workspace, without
# Bazel, with only what a user has: the archive and a JDK.
#
# usage: java_consumer_test.sh <archive.tar[.gz]> <the jar's path in it> <App.java>
#   <the jar's path in it>  a path or shell pattern matching one member, e.g.
#                           'share/java/ctorch-[0-9]*[0-9].jar' (the version is in the name)
# The ctorch.library.path / CTORCH_LIBRARY_PATH cases use a directory holding copies of the
# jar's own libraries (the JNI library's RUNPATH $ORIGIN finds libctorch.so beside it).
# Unpacks the archive into $TEST_TMPDIR (or mktemp -d), compiles App.java there with
# `javac -cp <jar>` and runs `java -cp <jar>:. App` with an empty environment but PATH and
# HOME (no LD_LIBRARY_PATH, no java.library.path): App prints a tensor and exits 1 on a wrong
# value. Then: the jar's files (natives, RUNPATH, pom, sources, javadoc), the per-user cache
# (reused, safe with concurrent JVMs, a temporary directory when unusable), the override
# (property over variable) and the errors of a wrong override and of a jar without natives.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 <archive> <jar path in it> <App.java>" >&2; exit 2; }
archive="$(realpath "$1")"; member="$2"; app="$(realpath "$3")"
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/java_consumer.XXXXXX")"
failures=0; passes=0
ok() { echo "ok: $*"; passes=$((passes + 1)); }
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

mkdir -p "$T/prefix" "$T/app"
tar -xf "$archive" -C "$T/prefix"
cd "$T/prefix"
# shellcheck disable=SC2206
jars=($member)
[ ${#jars[@]} -eq 1 ] && [ -f "${jars[0]}" ] || { echo "FAIL: '$member' matches ${jars[*]} in $archive" >&2; exit 1; }
jar="$T/prefix/${jars[0]}"
java_dir="$(dirname "$jar")"
base="$(basename "$jar" .jar)"          # ctorch-<ver>
version="${base#ctorch-}"
echo "jar: ${jars[0]} (version $version)"

# --- the files of share/java ------------------------------------------------------------------
for f in "$base.jar" "$base-sources.jar" "$base-javadoc.jar" "$base.pom"; do
  [ -f "$java_dir/$f" ] && ok "$f is there" || fail "$java_dir/$f is missing"
done
grep -q "<groupId>dev.ctorch</groupId>" "$java_dir/$base.pom" \
  && grep -q "<artifactId>ctorch</artifactId>" "$java_dir/$base.pom" \
  && grep -q "<version>$version</version>" "$java_dir/$base.pom" \
  && ! grep -q "<dependencies>" "$java_dir/$base.pom" \
  && ok "pom: dev.ctorch:ctorch:$version, no dependencies" || fail "pom coordinates: $(cat "$java_dir/$base.pom")"
srcs="$(unzip -Z1 "$java_dir/$base-sources.jar")"
for f in org/ctorch/Tensor.java org/ctorch/NativeLoader.java org/ctorch/DType.java org/ctorch/swig/ctorch.java; do
  grep -qx "$f" <<<"$srcs" && ok "sources jar has $f" || fail "sources jar lacks $f"
done
# (the listing in a variable first: grep -q in a pipe would close it early, and pipefail would
# turn unzip's SIGPIPE into a failure)
docs="$(unzip -Z1 "$java_dir/$base-javadoc.jar")"
grep -qx "org/ctorch/Tensor.html" <<<"$docs" \
  && ok "javadoc jar has org/ctorch/Tensor.html" || fail "javadoc jar lacks org/ctorch/Tensor.html"
mkdir "$T/unjar" && (cd "$T/unjar" && unzip -q "$jar" 'org/ctorch/native/*' META-INF/MANIFEST.MF)
N="$T/unjar/org/ctorch/native/linux-x86_64"
(cd "$N" && sha256sum --quiet -c natives.sha256) && ok "natives.sha256 matches the jar's libraries" \
  || fail "natives.sha256 does not match"
dyn="$(readelf -d "$N/libctorch_jni.so")"
grep -q 'Library runpath: \[\$ORIGIN\]' <<<"$dyn" && grep -q 'Shared library: \[libctorch.so\]' <<<"$dyn" \
  && ok "the JNI library needs libctorch.so with RUNPATH \$ORIGIN" || fail "the JNI library's dynamic section: $dyn"
grep -q "Implementation-Version: $version" "$T/unjar/META-INF/MANIFEST.MF" \
  && grep -q "Automatic-Module-Name: org.ctorch" "$T/unjar/META-INF/MANIFEST.MF" \
  && ok "the manifest names org.ctorch $version" || fail "manifest: $(cat "$T/unjar/META-INF/MANIFEST.MF")"

# --- compile and run App with only the jar ----------------------------------------------------
cp "$app" "$T/app/App.java"
cd "$T/app"
# what a user's shell has: PATH and HOME (here a fresh one, so the cache starts empty)
run() {  # run <home> [env assignments...] -- [java args...]
  local home="$1"; shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  env -i PATH="$PATH" HOME="$home" "${envs[@]}" java -XX:-UsePerfData "$@" -cp "$jar:." App
}
env -i PATH="$PATH" HOME="$T/home" javac -cp "$jar" App.java && ok "javac -cp $base.jar App.java" \
  || { fail "javac"; exit 1; }
if out="$(run "$T/home" -- 2>&1)"; then
  echo "$out"
  grep -q "^ctorch $version$" <<<"$out" && grep -q "^sum 36.0$" <<<"$out" \
    && ok "java -cp $base.jar:. App (version $version, sum 36)" || fail "App's output: $out"
else
  fail "java -cp $base.jar:. App: $out"
fi
cache=("$T"/home/.cache/ctorch/native-linux-x86_64-*)
if [ ${#cache[@]} -eq 1 ] && [ -f "${cache[0]}/libctorch.so" ] && [ -f "${cache[0]}/libctorch_jni.so" ]; then
  ok "extracted into the per-user cache $(basename "${cache[0]}")"
  [ "$(stat -c %a "$T/home/.cache/ctorch")" = 700 ] && ok "the cache is private (700)" \
    || fail "cache permissions $(stat -c %a "$T/home/.cache/ctorch")"
  cmp -s "${cache[0]}/libctorch_jni.so" "$N/libctorch_jni.so" && ok "the cache holds the jar's JNI library" \
    || fail "the cache's JNI library differs from the jar's"
  before="$(stat -c %i:%Y "${cache[0]}/libctorch.so")"
  run "$T/home" -- >/dev/null 2>&1 && [ "$(stat -c %i:%Y "${cache[0]}/libctorch.so")" = "$before" ] \
    && ok "a second run reuses the cache" || fail "the second run did not reuse ${cache[0]}"
else
  fail "no single cache directory: ${cache[*]}"
fi
# extracting a new build's libraries removes the entries unused for 30 days, keeps the others
mkdir -p "$T/home4/.cache/ctorch/native-linux-x86_64-0123456789abcdef" \
         "$T/home4/.cache/ctorch/native-linux-x86_64-fedcba9876543210.tmp-42" \
         "$T/home4/.cache/ctorch/native-linux-x86_64-00000000recent00"
chmod 700 "$T/home4/.cache/ctorch"
touch -d '31 days ago' "$T/home4/.cache/ctorch/native-linux-x86_64-0123456789abcdef" \
      "$T/home4/.cache/ctorch/native-linux-x86_64-fedcba9876543210.tmp-42"
touch -d '29 days ago' "$T/home4/.cache/ctorch/native-linux-x86_64-00000000recent00"
run "$T/home4" -- >/dev/null 2>&1 \
  && [ "$(ls "$T/home4/.cache/ctorch" | sort)" = "$(printf '%s\n' native-linux-x86_64-00000000recent00 \
        "$(basename "${cache[0]}")" | sort)" ] \
  && ok "entries unused for 30 days are removed, newer ones kept" \
  || fail "pruning the cache left: $(ls "$T/home4/.cache/ctorch")"
# concurrent first runs: all succeed, one directory, nothing left half-written
pids=()
for i in 1 2 3 4; do run "$T/home2" -- >"$T/conc$i.log" 2>&1 & pids+=($!); done
conc=0; for p in "${pids[@]}"; do wait "$p" || conc=1; done
n="$(find "$T/home2/.cache/ctorch" -mindepth 1 -maxdepth 1 | wc -l)"
[ $conc -eq 0 ] && [ "$n" = 1 ] && ok "4 concurrent JVMs: all ran, one cache directory" \
  || fail "concurrent JVMs: status $conc, entries: $(ls -a "$T/home2/.cache/ctorch"; cat "$T"/conc*.log)"
# an unusable cache (HOME is a file): a private temporary directory, gone after exit
touch "$T/notadir"; mkdir "$T/jtmp"
run "$T/notadir" -- -Djava.io.tmpdir="$T/jtmp" >"$T/tmpdir.log" 2>&1 && grep -q "^sum 36.0$" "$T/tmpdir.log" \
  && [ -z "$(ls -A "$T/jtmp")" ] && ok "no usable cache: a temporary directory, removed at exit" \
  || fail "temporary directory fallback: $(cat "$T/tmpdir.log"; ls -la "$T/jtmp")"

# --- the override -----------------------------------------------------------------------------
mkdir "$T/override" && cp "$N/libctorch.so" "$N/libctorch_jni.so" "$T/override/"
out="$(run "$T/home3" -- -Dctorch.library.path="$T/override" 2>&1)" && grep -q "^sum 36.0$" <<<"$out" \
  && [ ! -e "$T/home3/.cache/ctorch" ] && ok "-Dctorch.library.path=DIR loads DIR's libraries (the jar's not extracted)" \
  || fail "-Dctorch.library.path: $out; $(ls -R "$T/home3" 2>&1)"
out="$(run "$T/home3" CTORCH_LIBRARY_PATH="$T/override" -- 2>&1)" && grep -q "^sum 36.0$" <<<"$out" \
  && [ ! -e "$T/home3/.cache/ctorch" ] && ok "CTORCH_LIBRARY_PATH=DIR loads DIR's libraries" \
  || fail "CTORCH_LIBRARY_PATH: $out"
out="$(run "$T/home3" CTORCH_LIBRARY_PATH="$T/nowhere" -- -Dctorch.library.path="$T/override" 2>&1)" \
  && grep -q "^sum 36.0$" <<<"$out" && ok "the property wins over the variable" || fail "precedence: $out"
expect_error() {  # expect_error <what> <message pattern> <run arguments...>
  local what="$1" pattern="$2"; shift 2
  if out="$(run "$@" 2>&1)"; then
    fail "$what: App ran: $out"
  elif grep -q "UnsatisfiedLinkError: ctorch: .*$pattern" <<<"$out"; then
    ok "$what: $(grep -o "ctorch: .*$pattern" <<<"$out" | head -1)"
  else
    fail "$what: expected /$pattern/ in: $out"
  fi
}
expect_error "a missing override directory" \
  "the environment variable CTORCH_LIBRARY_PATH names $T/nowhere, which is not a directory" \
  "$T/home3" CTORCH_LIBRARY_PATH="$T/nowhere" --
mkdir "$T/half" && cp "$N/libctorch.so" "$T/half/"
expect_error "an override directory without the JNI library" \
  "the system property ctorch.library.path names $T/half, which holds no libctorch_jni.so" \
  "$T/home3" -- -Dctorch.library.path="$T/half"
# a jar without natives and nothing else: the message lists the three places tried
cp "$jar" "$T/bare.jar" && zip -q -d "$T/bare.jar" 'org/ctorch/native/*'
out="$(env -i PATH="$PATH" HOME="$T/home3" java -XX:-UsePerfData -cp "$T/bare.jar:." App 2>&1)" \
  && fail "a jar without natives ran: $out" \
  || { grep -q "Tried: (1) -Dctorch.library.path and CTORCH_LIBRARY_PATH: not set; (2) the jar's libraries for linux-x86_64 .*(3) System.loadLibrary" <<<"$out" \
         && ok "no natives anywhere: the error lists what was tried" || fail "no natives: $out"; }

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
