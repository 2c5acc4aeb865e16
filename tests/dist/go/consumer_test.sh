#!/bin/bash
# The Go consumer test (//tests/dist:go_consumer_test): builds and runs tests/dist/go/main.go
# the way a user does, outside the workspace and without Bazel, from the release archive alone.
# usage: consumer_test.sh <main.go> <ctorch-<ver>-linux-x86_64.tar.gz> <version.py> <go_proxy.sh>
# The archive is unpacked into a temporary folder (the prefix); the program becomes module
# example.com/consumer, requiring ctorch.dev/ctorch v<ver>: replaced by the prefix's
# share/go/ctorch/, then again from a local module proxy made of that folder. `go build` runs
# offline with a fresh environment that names nothing of ctorch but
# PKG_CONFIG_PATH=<prefix>/lib/pkgconfig (no CGO_* flags), and the program runs with
# LD_LIBRARY_PATH unset: it finds libctorch.so.<major> through the run path the .pc's Libs gave.
set -eu
RF="$PWD"
main="$RF/$1"; archive="$RF/$2"; version_py="$RF/$3"; go_proxy="$RF/$4"
if [ -n "${TEST_TMPDIR:-}" ]; then
  W="$(mktemp -d "$TEST_TMPDIR/go_consumer.XXXXXX")"
else
  W="$(mktemp -d)"; trap 'chmod -R u+w "$W"; rm -rf "$W"' EXIT
fi
fail() { echo "go_consumer_test: $*" >&2; exit 1; }

tar -C "$W" -xzf "$archive"
prefixes=("$W"/ctorch-*-linux-x86_64)
if [ ${#prefixes[@]} != 1 ] || [ ! -d "${prefixes[0]}" ]; then
  fail "$archive: no single ctorch-<ver>-linux-x86_64/"
fi
prefix="${prefixes[0]}"
version="$(python3 "$version_py" "$prefix/include/ctorch.h")"
[ "$(basename "$prefix")" = "ctorch-$version-linux-x86_64" ] ||
  fail "$(basename "$prefix"): the archive's folder does not carry the header's version $version"
module="$prefix/share/go/ctorch"
[ -f "$module/go.mod" ] || fail "$archive: no share/go/ctorch/go.mod"
[ ! -e "$module/internal/capi/include" ] || fail "the released module carries a header of its own"

# build <app dir> <GOPROXY> <require/replace lines of go.mod>: go build in a fresh environment
# that names nothing of ctorch but PKG_CONFIG_PATH, offline; the binary is <app dir>/consumer.
build() {
  mkdir -p "$1"; cp "$main" "$1/main.go"
  printf '%s\n' 'module example.com/consumer' '' 'go 1.19' '' "${@:3}" > "$1/go.mod"
  (cd "$1" && env -i PATH="$PATH" HOME="$W" GOCACHE="$W/gocache" GOPATH="$W/gopath" \
     GOPROXY="$2" GOSUMDB=off GOFLAGS=-mod=mod GOTOOLCHAIN=local \
     PKG_CONFIG_PATH="$prefix/lib/pkgconfig" go build -o consumer .)
  chmod -R u+w "$W/gopath" 2>/dev/null || true   # the module cache is read-only
}
# run <app dir>: the binary needs the versioned soname and finds it, in the prefix, through its
# run path alone; then it checks the versions and values.
run() {
  readelf -d "$1/consumer" | grep -q "(NEEDED).*\[libctorch.so.${version%%.*}\]" ||
    fail "the program does not need libctorch.so.${version%%.*}: $(readelf -d "$1/consumer" | grep NEEDED)"
  env -u LD_LIBRARY_PATH "$1/consumer" "$version"
}

# 1. What docs/go.md's Install says: require the version, replace it by the archive's module.
build "$W/app" off "require ctorch.dev/ctorch v$version" "replace ctorch.dev/ctorch => $module"
run "$W/app"
# 2. As it will be once published (docs/go.md, Versions): the same tree served by a module proxy
#    (a file:// one, tools/go_proxy.sh) as version v<ver> of ctorch.dev/ctorch, no replace.
bash "$go_proxy" "$module" "$version" "$W/proxy"
build "$W/app_proxy" "file://$W/proxy" "require ctorch.dev/ctorch v$version"
grep -q "^ctorch.dev/ctorch v$version h1:" "$W/app_proxy/go.sum" || fail "v$version did not come from the proxy"
run "$W/app_proxy"
