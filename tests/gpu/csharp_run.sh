#!/bin/bash
# The C# suite on the GPU host with the carried Mono: tools/gpu_pack_csharp.sh copies this file
# into gpu_csharp/ as run.sh, next to glibc_need (the newest glibc the carried files need).
#   bash gpu_csharp/run.sh [nunit-console args]
# Two processes, as //tests/csharp:csharp_test (everything but the "gc" category, then the "gc"
# category). Arguments go to nunit-console.
# Nothing of a system Mono is used: the runtime, its assemblies (MONO_PATH) and its
# configuration (MONO_CONFIG, MONO_CFG_DIR) all come from this folder.
set -uo pipefail
D="$(cd "$(dirname "$0")" && pwd)"
for f in "$D"/lib/native/*.xz; do [ -e "$f" ] && xz -d -f "$f"; done  # libctorch.so travels compressed
W="$(mktemp -d "${TMPDIR:-/tmp}/gpu_csharp.XXXXXX")"
trap 'rm -rf "$W"' EXIT
unset MONO_GAC_PREFIX MONO_ENV_OPTIONS MONO_DEBUG MONO_IOMAP
export MONO_PATH="$D/lib/mono/4.5"
export MONO_CONFIG="$D/etc/mono/config"
export MONO_CFG_DIR="$D/etc"
export MONO_REGISTRY_PATH="$W/registry"
export HOME="$W"   # nunit and Mono keep settings under $HOME: a throwaway one
export LD_LIBRARY_PATH="$D/lib/native${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
need=$(cat "$D/glibc_need")
have=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
if [ -z "${CTORCH_CARRIED_GLIBC:-}" ] && [ -n "$have" ] &&
   [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -1)" = "$need" ]; then
  mono=("$D/bin/mono")
else
  echo "glibc ${have:-unknown} here, the carried files need $need: running Mono with the carried glibc"
  mono=("$D/lib/glibc/ld-linux-x86-64.so.2" --library-path "$D/lib/glibc:$LD_LIBRARY_PATH" "$D/bin/mono")
fi
cp "$D"/tests/* "$W/"
cd "$W"
passed=0; failed=0; skipped=0
for run in "-exclude=gc" "-include=gc"; do
  xml="$W/result$run.xml"
  "${mono[@]}" --config "$MONO_CONFIG" nunit-console.exe -nologo -noshadow -labels "-xml=$xml" "$run" "$@" CtorchTests.dll
  rc=$?
  if [ -f "$xml" ]; then
    attr() { sed -n "s/.*<test-results[^>]* $1=\"\([0-9]*\)\".*/\1/p" "$xml" | head -1; }
    t=$(attr total); e=$(attr errors); f=$(attr failures); i=$(attr ignored)
    passed=$((passed + ${t:-0} - ${e:-0} - ${f:-0})); failed=$((failed + ${e:-0} + ${f:-0})); skipped=$((skipped + ${i:-0}))
    echo "csharp ($run): $((${t:-0} - ${e:-0} - ${f:-0})) passed, $((${e:-0} + ${f:-0})) failed, ${i:-0} skipped (rc $rc)"
    if [ "$rc" -ne 0 ] && [ $((${e:-0} + ${f:-0})) -eq 0 ]; then failed=$((failed + 1)); fi
  else
    echo "csharp ($run): the runner ended without a result (rc $rc): counted as 1 failed"
    failed=$((failed + 1))
  fi
done
echo "csharp: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
