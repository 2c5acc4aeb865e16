#!/usr/bin/env bash
# C# line of the binding-overhead benchmark: prints "csharp noop <ns>" and "csharp small_add <ns>"
# on stdout (bench/bindings/run.sh collects them); everything else goes to stderr.
# Builds the binding's existing Bazel targets (as the C baseline and the tests), compiles
# BindingBench.cs with mcs -optimize+ against Ctorch.dll into a temporary folder (nothing of
# this is a Bazel target, so `bazel test //...` never sees it) and runs it under mono.
# Env: CSHARP_BENCH_MONO_OPTS (default "--optimize=all"), CSHARP_BENCH_ARGS (e.g. "detail":
# also time the raw SWIG P/Invoke layer, on stderr).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
cd "$HERE/../../.."
TARGETS=(//bindings/csharp:Ctorch.dll //bindings/swig:libctorch_csharp.so)
log="$(mktemp)"
if ! bazel build "${TARGETS[@]}" >"$log" 2>&1; then
  cat "$log" >&2; rm -f "$log"; exit 1
fi
rm -f "$log"
BIN="$(bazel info bazel-bin 2>/dev/null)"
dll="$BIN/bindings/csharp/Ctorch.dll"
native_dir="$BIN/bindings/swig"   # libctorch_csharp.so; its RUNPATH finds libctorch.so
[ -f "$dll" ] && [ -f "$native_dir/libctorch_csharp.so" ] || { echo "csharp bench: build outputs missing" >&2; exit 1; }

W="$(mktemp -d)"
trap 'rm -rf "$W"' EXIT
cp -L "$dll" "$W/"
mcs -nologo -langversion:7.2 -optimize+ -warnaserror+ -target:exe -r:"$W/Ctorch.dll" \
    -out:"$W/BindingBench.exe" "$HERE/BindingBench.cs" >&2

export LD_LIBRARY_PATH="$native_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export MONO_PATH="$W"
# shellcheck disable=SC2086
exec mono ${CSHARP_BENCH_MONO_OPTS---optimize=all} "$W/BindingBench.exe" ${CSHARP_BENCH_ARGS:-}
