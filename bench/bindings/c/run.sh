#!/usr/bin/env bash
# C baseline: prints "c noop <ns>" and "c small_add <ns>" (bench/bindings/run.sh collects them).
# Built as the tests are (.bazelrc: -O2), so the library measured is the one the bindings load.
set -euo pipefail
cd "$(dirname "$0")/../../.."
bazel build //bench/bindings/c:bindings_bench >&2
"$(bazel info bazel-bin 2>/dev/null)/bench/bindings/c/bindings_bench"
