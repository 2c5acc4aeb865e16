#!/bin/bash
# The C# suite on the GPU host with the carried Mono: tools/gpu_pack_csharp.sh copies this file
# into gpu_csharp/ as run.sh, next to glibc_need (the newest glibc the carried files need) and
# mono_test.sh (tools/mono_test.sh, the suite's Bazel driver, which runs it here too).
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
# mono_test.sh copies the runner and the assemblies side by side into its work folder (nunit
# loads everything from one folder) and runs "nunit-console" there: the carried runner under
# the carried Mono
mkdir -p "$W/bin"
{ echo '#!/bin/bash'; printf 'exec'; printf ' %q' "${mono[@]}" --config "$MONO_CONFIG"; echo ' nunit-console.exe "$@"'
} > "$W/bin/nunit-console"
chmod +x "$W/bin/nunit-console"
export PATH="$W/bin:$PATH" TEST_TMPDIR="$W"
others=()
for a in "$D"/tests/*; do [ "$(basename "$a")" = CtorchTests.dll ] || others+=("$a"); done
bash "$D/mono_test.sh" "$D/lib/native/libctorch_csharp.so" "$D/tests/CtorchTests.dll" "${others[@]}" \
  -- -exclude=gc "$@" -- -include=gc "$@"
rc=$?
# the examples (examples.txt: name and program; each checks its own values and exits 0), with
# the binding's assembly beside them
cp "$D/tests/Ctorch.dll" "$D/examples/"
while read -r name prog; do
  [ -n "$name" ] || continue
  "${mono[@]}" --config "$MONO_CONFIG" --debug "$D/examples/$prog.exe" > "$W/example_$name.txt" 2>&1
  r=$?
  if [ $r -eq 0 ]; then echo "example $name: OK"; else echo "example $name: FAIL (exit $r)"; tail -20 "$W/example_$name.txt"; rc=1; fi
done < "$D/examples.txt"
exit $rc
