#!/bin/bash
# Runs a C# program (an .exe built with mcs) under mono, for `bazel run` and sh_test.
# usage: mono_run.sh <libctorch_csharp.so> <Program.exe> [assemblies...] [-- program args]
# Runs in the runfiles root. The referenced assemblies (Ctorch.dll) are found through
# MONO_PATH, the native wrapper through LD_LIBRARY_PATH; it finds libctorch.so through its
# own RUNPATH.
set -euo pipefail
RF="$PWD"
native="$RF/$1"; exe="$RF/$2"; shift 2
mono_path=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  d="$(cd "$(dirname "$RF/$1")" && pwd)"
  mono_path="${mono_path:+$mono_path:}$d"
  shift
done
[ $# -gt 0 ] && shift   # the "--"
export MONO_PATH="$mono_path${MONO_PATH:+:$MONO_PATH}"
export LD_LIBRARY_PATH="$(cd "$(dirname "$native")" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec mono --debug "$exe" "$@"
