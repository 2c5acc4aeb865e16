#!/usr/bin/env bash
# The release archive as a C user meets it, outside the workspace and without Bazel
# (tests/dist/BUILD, docs/install.md):
#
#   c_test.sh archive   ARCHIVE.tar.gz SRC_DIR PROGRAM.c VERSION_PY   layout, links, soname, exports, install.sh
#   c_test.sh cmake     ARCHIVE.tar.gz SRC_DIR PROGRAM.c VERSION_PY   PROGRAM with find_package(ctorch), unpacked tree
#   c_test.sh pkgconfig ARCHIVE.tar.gz SRC_DIR PROGRAM.c VERSION_PY   PROGRAM with pkg-config, after install.sh --prefix
#
# SRC_DIR holds CMakeLists.txt; PROGRAM.c (the C quickstart, examples/c/quickstart.c: a user's
# program that checks the library's version against the header's and every value it prints) is
# built as consumer.c. Everything is written under $TEST_TMPDIR; the
# programs run with LD_LIBRARY_PATH unset. Last line: "N passed, N failed".
set -uo pipefail

[ $# -eq 5 ] || { echo "usage: c_test.sh archive|cmake|pkgconfig ARCHIVE.tar.gz SRC_DIR PROGRAM.c version.py" >&2; exit 2; }
mode=$1 archive=$2 src=$3 prog=$4 version_py=$5
unset LD_LIBRARY_PATH PKG_CONFIG_PATH CMAKE_PREFIX_PATH

pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -z "${2:-}" ] || printf '%s\n' "$2" | sed 's/^/     /'; }
# check DESC CMD...: CMD must succeed.
check() {
  local desc=$1 out; shift
  if out=$("$@" 2>&1); then ok "$desc"; else bad "$desc" "$out"; fi
}
# same DESC GOT WANT
same() {
  if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "got:  $2"$'\n'"want: $3"; fi
}
finish() {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
  exit
}

tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/dist_c.XXXXXX")
mkdir -p "$tmp/unpacked" "$tmp/src"
cp "$src/CMakeLists.txt" "$tmp/src/"
cp "$prog" "$tmp/src/consumer.c"
if ! tar -xzf "$archive" -C "$tmp/unpacked"; then bad "unpack $archive"; finish; fi

# One top folder, ctorch-<ver>-linux-x86_64; <ver> must be the header's CT_VERSION_*.
tops=$(ls -A "$tmp/unpacked")
case "$tops" in
  ctorch-*-linux-x86_64) ok "one top folder: $tops" ;;
  *) bad "one top folder ctorch-<ver>-linux-x86_64" "$tops"; finish ;;
esac
root="$tmp/unpacked/$tops"
ver=${tops#ctorch-}; ver=${ver%-linux-x86_64}
major=${ver%%.*}
minor=${ver#*.}; minor=${minor%%.*}
hver=$(python3 "$version_py" "$root/include/ctorch.h")
same "folder version is the header's CT_VERSION_*" "$ver" "$hver"

# run_consumer PROGRAM: runs it (its output shown), passes when it exits 0.
run_consumer() {
  local out rc
  out=$("$1" 2>&1); rc=$?
  printf '%s\n' "$out" | sed 's/^/     /'
  if [ "$rc" -eq 0 ]; then ok "consumer runs and its values are right"; else bad "consumer runs and its values are right (exit $rc)"; fi
}
# ldd_path PROGRAM: where ld.so finds libctorch for PROGRAM (LD_LIBRARY_PATH unset).
ldd_path() { ldd "$1" | sed -nE 's/^\s*libctorch\.so\.[0-9]+ => (\S+) .*/\1/p'; }

case "$mode" in
archive)
  # Layout (docs/install.md).
  for f in include/ctorch.h "lib/libctorch.so.$ver" lib/pkgconfig/ctorch.pc \
           lib/cmake/ctorch/ctorchConfig.cmake lib/cmake/ctorch/ctorchConfigVersion.cmake \
           share/doc/ctorch/README.md share/doc/ctorch/docs/install.md; do
    check "file $f" test -f "$root/$f" -a ! -L "$root/$f"
  done
  check "install.sh is executable" test -x "$root/install.sh"
  same "link libctorch.so.$major" "$(readlink "$root/lib/libctorch.so.$major")" "libctorch.so.$ver"
  same "link libctorch.so" "$(readlink "$root/lib/libctorch.so")" "libctorch.so.$major"
  same "the header includes only <stddef.h> and <stdint.h>" \
    "$(grep -E '^\s*#\s*include' "$root/include/ctorch.h" | tr -d ' ' | sort | paste -sd' ')" \
    "#include<stddef.h> #include<stdint.h>"

  # The shared library: versioned soname, no run path of the build, only ct_ exports.
  dyn=$(readelf -d "$root/lib/libctorch.so.$ver")
  same "SONAME" "$(printf '%s\n' "$dyn" | sed -nE 's/.*\(SONAME\).*\[(.*)\]/\1/p')" "libctorch.so.$major"
  same "no RPATH/RUNPATH" "$(printf '%s\n' "$dyn" | grep -E '\((RPATH|RUNPATH)\)')" ""
  syms=$(nm -D --defined-only "$root/lib/libctorch.so.$ver" | awk '{print $NF}')
  nsyms=$(printf '%s\n' "$syms" | grep -c '^ct_')
  check "exports ct_ functions ($nsyms)" test "$nsyms" -gt 100
  same "exports nothing but ct_*" "$(printf '%s\n' "$syms" | grep -v '^ct_')" ""

  # pkg-config and CMake files carry the version.
  same "pkg-config --modversion" "$(PKG_CONFIG_PATH="$root/lib/pkgconfig" pkg-config --modversion ctorch 2>&1)" "$ver"
  same "pkg-config finds the unpacked tree" \
    "$(PKG_CONFIG_PATH="$root/lib/pkgconfig" pkg-config --cflags ctorch 2>&1 | sed 's/ *$//')" "-I$root/lib/pkgconfig/../../include"

  # install.sh --prefix copies the same tree (links kept) into a prefix that exists already.
  mkdir -p "$tmp/prefix/lib"
  check "install.sh --prefix" "$root/install.sh" --prefix "$tmp/prefix"
  listing() { (cd "$1" && find include lib share -printf '%p %y %l %m\n' | sort); }
  same "installed tree equals the archive's" "$(listing "$tmp/prefix")" "$(listing "$root")"
  if out=$("$root/install.sh" --prefx "$tmp/p2" 2>&1); then bad "install.sh refuses an unknown argument" "$out"
  else same "install.sh refuses an unknown argument" "$(printf '%s\n' "$out" | head -1)" "install.sh: unknown argument '--prefx'"; fi
  check "install.sh created nothing on a bad argument" test ! -e "$tmp/p2"
  ;;

cmake)
  check "cmake configure (find_package(ctorch $major.$minor))" \
    cmake -S "$tmp/src" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$root" -DCTORCH_VERSION="$major.$minor"
  check "cmake build" cmake --build "$tmp/build"
  if [ -x "$tmp/build/consumer" ]; then
    same "libctorch resolved from the archive" "$(ldd_path "$tmp/build/consumer")" "$root/lib/libctorch.so.$major"
    run_consumer "$tmp/build/consumer"
  fi
  # The version file: another major is refused.
  if out=$(cmake -S "$tmp/src" -B "$tmp/build2" -DCMAKE_PREFIX_PATH="$root" -DCTORCH_VERSION="$((major + 1)).0" 2>&1); then
    bad "find_package(ctorch $((major + 1)).0) is refused" "$out"
  else
    check "find_package(ctorch $((major + 1)).0) is refused" grep -q "version: $ver" <<<"$out"
  fi
  ;;

pkgconfig)
  check "install.sh --prefix" "$root/install.sh" --prefix "$tmp/prefix"
  rm -rf "$tmp/unpacked"   # from here on, only the installed prefix
  export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
  flags=$(pkg-config --cflags --libs ctorch)
  libdir=$(pkg-config --variable=libdir ctorch)
  check "pkg-config libdir is the prefix's lib" test "$libdir" -ef "$tmp/prefix/lib"
  # shellcheck disable=SC2086
  check "cc \$(pkg-config --cflags --libs ctorch)" \
    cc -o "$tmp/consumer" "$tmp/src/consumer.c" $flags -Wl,-rpath,"$libdir"
  if [ -x "$tmp/consumer" ]; then
    check "libctorch resolved from the prefix" test "$(ldd_path "$tmp/consumer")" -ef "$tmp/prefix/lib/libctorch.so.$major"
    run_consumer "$tmp/consumer"
  fi
  ;;

*) echo "c_test.sh: unknown mode '$mode'" >&2; exit 2 ;;
esac
finish
