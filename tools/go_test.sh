#!/bin/bash
# Runs `go test` on the ctorch Go module (an sh_test driver; runs in the runfiles root), or
# with GO_TEST_BINARY=<path> builds the test binary there instead (`go test -c`: the GPU
# bundle's genrule, //tests/gpu:go_ctorch_test; the binary finds libctorch.so through
# LD_LIBRARY_PATH where it runs, and no coverage check is made).
# usage: go_test.sh <ctorch_go_module.tar> <libctorch.so> <coverage.py> <ctorch.h> <*_test.go files...>
# The module is unpacked into $TEST_TMPDIR (or a temporary folder), the test files are copied
# into its root directory (so they may also import ctorch.dev/ctorch/internal/capi), and
# libctorch.so is linked from the runfiles. The suite runs with the call trace on (Note [Call
# trace] in capi/trace.cc) and fails when it left a public C function of ctorch.h uncalled
# (tools/abi/coverage.py). Extra `go test` flags: GO_TEST_ARGS (e.g.
# --test_env=GO_TEST_ARGS=-run=TestX).
set -eu
RF="$PWD"
tarball="$RF/$1"; lib="$RF/$2"; coverage="$RF/$3"; header="$RF/$4"; shift 4
if [ -n "${TEST_TMPDIR:-}" ]; then
  T="$TEST_TMPDIR"
else
  T="$(mktemp -d)"; trap 'chmod -R u+w "$T"; rm -rf "$T"' EXIT
fi
W="$T/gomod"; rm -rf "$W"; mkdir -p "$W"
tar -C "$W" -xf "$tarball"
M="$W/ctorch"; chmod -R u+w "$M"
for f in "$@"; do cp -L "$RF/$f" "$M/"; done
LIBDIR="$T/lib"; mkdir -p "$LIBDIR"; ln -sf "$(readlink -f "$lib")" "$LIBDIR/libctorch.so"
export CGO_ENABLED=1
if [ -n "${GO_TEST_BINARY:-}" ]; then
  case "$GO_TEST_BINARY" in /*) ;; *) GO_TEST_BINARY="$RF/$GO_TEST_BINARY" ;; esac
  export CGO_LDFLAGS="-L$LIBDIR"
else
  export CGO_LDFLAGS="-L$LIBDIR -Wl,-rpath,$LIBDIR"
fi
export GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local
export GOCACHE="${GOCACHE_DIR:-$T/gocache}" GOPATH="$T/gopath" HOME="$T"
cd "$M"
if [ -n "${GO_TEST_BINARY:-}" ]; then
  go test -c -o "$GO_TEST_BINARY" .
  exit
fi
export CTORCH_TRACE_CALLS="$T/go_calls.txt"; rm -f "$CTORCH_TRACE_CALLS"
# shellcheck disable=SC2086
go test -count=1 -v ${GO_TEST_ARGS:-} ./...
# A -run filter runs part of the suite: no coverage claim then.
case " ${GO_TEST_ARGS:-} " in *" -run"*) exit 0 ;; esac
# the check as one more test line (tools/test.sh counts the "--- PASS"/"--- FAIL" lines)
if python3 "$coverage" --header "$header" --suite go "$CTORCH_TRACE_CALLS"; then
  echo "--- PASS: CoverageOfThePublicFunctions"
else
  echo "--- FAIL: CoverageOfThePublicFunctions"; exit 1
fi
