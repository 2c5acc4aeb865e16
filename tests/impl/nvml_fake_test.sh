#!/bin/bash
# Runs nvml_fake_test with tests/impl/fake_nvml.c as the loader's libnvidia-ml.so.1 (dlopen
# searches LD_LIBRARY_PATH, read when the process starts).
# usage: nvml_fake_test.sh <libfake_nvml.so> <nvml_fake_test binary>
set -eu
dir="$(mktemp -d "${TEST_TMPDIR:-/tmp}/fake_nvml.XXXXXX")"
ln -s "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" "$dir/libnvidia-ml.so.1"
LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$2"
