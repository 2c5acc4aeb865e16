#!/bin/bash
# The Go consumer test (//tests/dist:go_consumer_test): builds and runs tests/dist/go/main.go
# the way a user does, outside the workspace and without Bazel, from the release archive alone.
# usage: consumer_test.sh <main.go> <ctorch-<ver>-linux-x86_64.tar.gz> <version.py>
# The archive is unpacked into a temporary folder (the prefix); the program becomes module
# example.com/consumer, requiring ctorch.dev/ctorch v<ver> replaced by the prefix's
# share/go/ctorch/. `go build` runs offline with a fresh environment that names nothing of
# ctorch but PKG_CONFIG_PATH=<prefix>/lib/pkgconfig (no CGO_* flags), and the program runs with
# LD_LIBRARY_PATH unset: it finds libctorch.so.<major> through the run path the .pc's Libs gave.
set -eu
RF="$PWD"
main="$RF/$1"; archive="$RF/$2"; version_py="$RF/$3"
if [ -n "${TEST_TMPDIR:-}" ]; then
  W="$(mktemp -d "$TEST_TMPDIR/go_consumer.XXXXXX")"
else
  W="$(mktemp -d)"; trap 'chmod -R u+w "$W"; rm -rf "$W"' EXIT
fi
fail() { echo "go_consumer_test: $*" >&2; exit 1; }

tar -C "$W" -xzf "$archive"
prefixes=("$W"/ctorch-*-linux-x86_64)
[ ${#prefixes[@]} = 1 ] && [ -d "${prefixes[0]}" ] || fail "$archive: no single ctorch-<ver>-linux-x86_64/"
prefix="${prefixes[0]}"
version="$(python3 "$version_py" "$prefix/include/ctorch.h")"
[ "$(basename "$prefix")" = "ctorch-$version-linux-x86_64" ] ||
  fail "$(basename "$prefix"): the archive's folder does not carry the header's version $version"
module="$prefix/share/go/ctorch"
[ -f "$module/go.mod" ] || fail "$archive: no share/go/ctorch/go.mod"
[ ! -e "$module/internal/capi/include" ] || fail "the released module carries a header of its own"

app="$W/app"; mkdir -p "$app"
cp "$main" "$app/main.go"
cat > "$app/go.mod" <<MOD
module example.com/consumer

go 1.19

require ctorch.dev/ctorch v$version

replace ctorch.dev/ctorch => $module
MOD

cd "$app"
env -i PATH="$PATH" HOME="$W" GOCACHE="$W/gocache" GOPATH="$W/gopath" GOPROXY=off \
  GOFLAGS=-mod=mod GOTOOLCHAIN=local PKG_CONFIG_PATH="$prefix/lib/pkgconfig" \
  go build -o "$W/consumer" .
chmod -R u+w "$W/gopath" 2>/dev/null || true   # the module cache is read-only

# The binary needs the versioned soname, from the prefix, through its run path.
major="${version%%.*}"
readelf -d "$W/consumer" | grep -q "(NEEDED).*\[libctorch.so.$major\]" ||
  fail "the program does not need libctorch.so.$major: $(readelf -d "$W/consumer" | grep NEEDED)"
env -u LD_LIBRARY_PATH "$W/consumer" "$version"
