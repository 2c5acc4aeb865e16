#!/bin/bash
# Runs a test driver under the recording NVTX injection library (tests/capi/nvtx_inject.c): sets
# NVTX_INJECTION64_PATH to the library's absolute path (NVTX dlopens it; the drivers change
# directory) and CTORCH_NVTX_RECORD to a fresh file in the test's tmpdir, then runs the driver
# with the remaining arguments. The binding suites' NVTX tests assert the tool's depths and
# read the record when CTORCH_NVTX_RECORD is set (docs/profiling.md).
# usage: with_nvtx_inject.sh <libnvtx_inject.so> <driver> [args...]
set -eu
[ $# -ge 2 ] || { echo "usage: $0 <libnvtx_inject.so> <driver> [args...]" >&2; exit 2; }
lib="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
[ -f "$lib" ] || { echo "$0: $lib not found" >&2; exit 2; }
export NVTX_INJECTION64_PATH="$lib"
export CTORCH_NVTX_RECORD="${TEST_TMPDIR:-$(mktemp -d)}/nvtx_record.tsv"
rm -f "$CTORCH_NVTX_RECORD"
shift
exec "$@"
