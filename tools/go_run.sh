#!/bin/bash
# Builds and runs a Go program that uses the ctorch Go module (for `bazel run` and sh_test).
# usage: go_run.sh <ctorch_go_module.tar> <libctorch.so> <main package .go files...> [-- args]
# The program becomes module example.com/app with `replace ctorch.dev/ctorch => ../ctorch`,
# the way an application outside this repository uses the binding (see docs/go.md).
# With GO_RUN_BINARY=<path> it builds the program there instead of running it (the GPU bundle's
# Go examples: the GPU host has no Go toolchain).
set -eu
RF="$PWD"
tarball="$RF/$1"; lib="$RF/$2"; shift 2
srcs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do srcs+=("$RF/$1"); shift; done
[ $# -gt 0 ] && shift   # the "--"
if [ -n "${TEST_TMPDIR:-}" ]; then
  T="$TEST_TMPDIR"
else
  T="$(mktemp -d)"; trap 'chmod -R u+w "$T"; rm -rf "$T"' EXIT
fi
W="$T/gorun"; rm -rf "$W"; mkdir -p "$W/app"
tar -C "$W" -xf "$tarball"; chmod -R u+w "$W/ctorch"
cp -L "${srcs[@]}" "$W/app/"
cat > "$W/app/go.mod" <<MOD
module example.com/app

go 1.19

require ctorch.dev/ctorch v0.0.0

replace ctorch.dev/ctorch => ../ctorch
MOD
LIBDIR="$T/lib"; mkdir -p "$LIBDIR"
ln -sf "$(readlink -f "$lib")" "$LIBDIR/libctorch.so"
export CGO_ENABLED=1
export CGO_LDFLAGS="-L$LIBDIR -Wl,-rpath,$LIBDIR"
export GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local
if [ -n "${TEST_TMPDIR:-}" ] || [ -z "${HOME:-}" ]; then
  export GOCACHE="$T/gocache" GOPATH="$T/gopath" HOME="${HOME:-$T}"
else
  # bazel run: reuse a cache between runs
  export GOCACHE="${GOCACHE:-$HOME/.cache/ctorch-go-build}" GOPATH="${GOPATH:-$T/gopath}"
fi
cd "$W/app"
if [ -n "${GO_RUN_BINARY:-}" ]; then
  case "$GO_RUN_BINARY" in /*) ;; *) GO_RUN_BINARY="$RF/$GO_RUN_BINARY" ;; esac
  exec go build -o "$GO_RUN_BINARY" .
fi
go build -o "$T/app.bin" .
exec "$T/app.bin" "$@"
