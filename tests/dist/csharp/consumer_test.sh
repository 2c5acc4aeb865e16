#!/bin/bash
# The C# consumer test of issue 14 (docs/csharp.md, "Install"): unpacks the release archive (or
# //bindings/csharp:nuget_dist's tar) into a temporary folder and, outside the workspace and
# without Bazel, compiles Program.cs with mcs against the package's Ctorch.dll only and runs it
# with mono, LD_LIBRARY_PATH unset:
#   1. the assembly in the package's expanded layout (share/nuget/ctorch/<ver>/lib/net47, found
#      through MONO_PATH): Ctorch.dll.config's dllmap sends Mono to
#      ../../runtimes/linux-x64/native/libctorch_csharp.so;
#   2. the .nupkg itself unzipped, the same way;
#   3. the flat folder of an application: Ctorch.dll and the two .so files beside the .exe (no
#      Ctorch.dll.config: Mono looks in the assembly's folder by itself);
#   4. Ctorch.dll alone, and the package without libctorch.so: the errors must name the places
#      tried and what dlopen said.
# usage: consumer_test.sh <archive .tar/.tar.gz> <the package folder inside it, e.g. share/nuget>
#        [Program.cs]   (default: the one beside this script)
set -euo pipefail
archive="$(readlink -f "$1")"; pkgdir="$2"
src="$(readlink -f "${3:-$(dirname "$0")/Program.cs}")"
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/csharp_consumer.XXXXXX")"
export HOME="$T/home"; mkdir -p "$HOME"
unset LD_LIBRARY_PATH MONO_PATH
fail() { echo "csharp_consumer_test: $*" >&2; exit 1; }

mkdir -p "$T/prefix" && tar -C "$T/prefix" -xf "$archive"
# the archive's top folder, if it has one (ctorch-<ver>-linux-x86_64/)
root="$T/prefix"; [ -d "$root/$pkgdir" ] || root="$(echo "$T"/prefix/*/)"; root="${root%/}"
N="$root/$pkgdir"
[ -d "$N" ] || fail "no $pkgdir in $archive"
nupkgs=("$N"/Ctorch.*.nupkg); [ ${#nupkgs[@]} -eq 1 ] && [ -f "${nupkgs[0]}" ] || fail "expected one Ctorch.<ver>.nupkg in $N"
ver="$(basename "${nupkgs[0]}" .nupkg)"; ver="${ver#Ctorch.}"
E="$N/ctorch/$ver"
[ -f "$E/ctorch.nuspec" ] || fail "no expanded package at $E"
grep -q "<version>$ver</version>" "$E/ctorch.nuspec" || fail "ctorch.nuspec does not say version $ver"
dll=("$E"/lib/*/Ctorch.dll); [ -f "${dll[0]}" ] || fail "no lib/<tfm>/Ctorch.dll in $E"
echo "package $ver: ${dll[0]#$root/}"

A="$T/app"; mkdir -p "$A"; cp "$src" "$A/Program.cs"
mcs -nologo -langversion:7.2 -r:"${dll[0]}" -out:"$A/Program.exe" "$A/Program.cs"

O="$T/out"; mkdir -p "$O"
run() {  # run <label> <expected status> <folder of Program.exe> <MONO_PATH>
  local label="$1" want="$2" dir="$3" mp="$4" rc=0
  echo "== $label"
  (cd "$dir" && MONO_PATH="$mp" mono Program.exe) > "$O/$label" 2>&1 || rc=$?
  cat "$O/$label"
  [ "$rc" = "$want" ] || fail "$label: exit status $rc, expected $want"
  if [ "$want" = 0 ]; then
    grep -q "^tensor(" "$O/$label" && grep -qx "ok" "$O/$label" || fail "$label: no tensor printed, or no ok"
  fi
}

run expanded 0 "$A" "$(dirname "${dll[0]}")"

mkdir -p "$T/unzipped" && (cd "$T/unzipped" && unzip -q "${nupkgs[0]}")
for part in '[Content_Types].xml' _rels/.rels Ctorch.nuspec runtimes/linux-x64/native/libctorch.so \
            runtimes/linux-x64/native/libctorch_csharp.so; do
  [ -f "$T/unzipped/$part" ] || fail "the .nupkg has no $part"
done
run nupkg 0 "$A" "$(dirname "$(echo "$T"/unzipped/lib/*/Ctorch.dll)")"

F="$T/flat"; mkdir -p "$F"
cp "$A/Program.exe" "${dll[0]}" "$E"/runtimes/linux-x64/native/*.so "$F/"
run flat 0 "$F" ""

L="$T/alone"; mkdir -p "$L"; cp "${dll[0]}" "$L/"
run alone 1 "$A" "$L"
grep -qF "$L/libctorch_csharp.so: no such file" "$O/alone" && grep -q "libctorch_csharp.so through dlopen's search path" "$O/alone" ||
  fail "alone: the error does not name the places tried"

B="$T/broken"; cp -r "$E" "$B"; rm "$B/runtimes/linux-x64/native/libctorch.so"
run broken 1 "$A" "$(dirname "$(echo "$B"/lib/*/Ctorch.dll)")"
grep -qF "$B/runtimes/linux-x64/native/libctorch_csharp.so: libctorch.so: cannot open shared object file" "$O/broken" ||
  fail "broken: the error does not say that libctorch.so is missing beside the glue"
echo "csharp_consumer_test: passed"
