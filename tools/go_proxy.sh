#!/bin/bash
# Writes the released Go module as a module proxy serves it (docs/go.md, "Versions"), for
# publishing and for the consumer test: `GOPROXY=file://<out>` then resolves
# `require ctorch.dev/ctorch v<version>` with no replace directive.
# usage: go_proxy.sh <module dir (share/go/ctorch of the archive)> <version, e.g. 0.1.0> <out dir>
# Writes <out>/<module path>/@v/{list, v<version>.info, .mod, .zip}; the module path is go.mod's.
set -eu
src="$(cd "$1" && pwd)"; version="v$2"; out="$3"
path="$(sed -n 's/^module[[:space:]]\{1,\}\([^[:space:]]*\)[[:space:]]*$/\1/p' "$src/go.mod")"
[ -n "$path" ] || { echo "go_proxy.sh: $src/go.mod names no module" >&2; exit 1; }
at="$out/$path/@v"; mkdir -p "$at"
stage="$(mktemp -d)"; trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$path@$version"
cp -R "$src/." "$stage/$path@$version/"
find "$stage" -exec touch -h -d '1980-01-01T00:00:00Z' {} +   # the same zip, the same go.sum hash
# A module zip holds files only, each under <path>@<version>/ (golang.org/x/mod/zip).
(cd "$stage" && find "$path@$version" -type f | LC_ALL=C sort | TZ=UTC zip -q -X -D "$at/$version.zip" -@)
cp "$src/go.mod" "$at/$version.mod"
printf '{"Version":"%s","Time":"1970-01-01T00:00:00Z"}\n' "$version" > "$at/$version.info"
echo "$version" >> "$at/list"
