#!/usr/bin/env bash
# Go side of the binding-overhead benchmark (bench/bindings/run.sh collects its stdout):
# prints "go noop <ns>", "go small_add <ns>" and "go small_add_over_c <ns>" (the Go loop's cost
# over the same loop in C through one cgo call, timed side by side in one process:
# BenchmarkSmallAddCPUOverC), everything else to stderr.
#
# The benchmarks are standard Go benchmarks in tests/go/bench_test.go (BenchmarkNoop,
# BenchmarkSmallAddCPU; BenchmarkSmallAddCUDA is for the GPU host). This builds the same test
# binary as tools/gpu_pack.sh (the assembled module //bindings/go:module plus tests/go/*_test.go,
# `go test -c`), linked against the libctorch.so the C baseline and the tests use, and runs each
# benchmark 7 times with a fixed iteration count (noop 1,000,000; small_add 200,000; each run
# first does 20,000 untimed iterations). Printed: the median ns/op of the 7 runs.
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT="$PWD"

bazel build //bindings/go:module //capi:libctorch.so >&2
B="$(bazel info bazel-bin 2>/dev/null)"
LIBDIR="$(dirname "$(readlink -f "$B/capi/libctorch.so")")"

T="$(mktemp -d)"
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
tar -C "$T" -xf "$B/bindings/go/ctorch_go_module.tar"
chmod -R u+w "$T/ctorch"
cp "$ROOT"/tests/go/*_test.go "$T/ctorch/"
(
  cd "$T/ctorch"
  export CGO_ENABLED=1 CGO_LDFLAGS="-L$LIBDIR -Wl,-rpath,$LIBDIR"
  export GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local
  export GOCACHE="${GOCACHE:-${HOME:-$T}/.cache/ctorch-go-build}" GOPATH="$T/gopath"
  go test -c -o "$T/go_ctorch.test" . >&2
)

# bench <BenchmarkName> <iterations> [unit]: runs it 7 times, prints the median of the unit
# (ns/op unless given)
bench() {
  local out
  out="$(cd "$T/ctorch" && "$T/go_ctorch.test" -test.run='^$' -test.bench="^$1\$" \
           -test.benchtime="$2x" -test.count=7 -test.benchmem)"
  printf '%s\n' "$out" >&2
  printf '%s\n' "$out" | awk -v n="$1" -v u="${3:-ns/op}" '$1 ~ "^" n "(-[0-9]+)?$" {
      for (i = 3; i < NF; ++i) if ($(i + 1) == u) print $i }' |
    sort -g | awk '{ v[NR] = $1 } END {
      if (NR != 7) { print "expected 7 results, got " NR > "/dev/stderr"; exit 1 }
      printf "%.1f\n", v[4] }'
}

noop="$(bench BenchmarkNoop 1000000)"
add="$(bench BenchmarkSmallAddCPU 200000)"
overc="$(bench BenchmarkSmallAddCPUOverC 200000 go-over-c-ns/op)"
echo "go noop $noop"
echo "go small_add $add"
echo "go small_add_over_c $overc"
