#!/usr/bin/env bash
# Fuzzes the C API: usage fuzz_run.sh <capi_fuzz (the libFuzzer build)> [seconds] [extra libFuzzer flags...]
# Starts from a copy of tests/fuzz/corpus (the committed seeds stay as they are), with a fixed
# seed so a run can be repeated; first replays tests/fuzz/crashes (each must run clean now).
# Found inputs land in $FUZZ_ARTIFACTS (default: the test's undeclared outputs, or ./). The test
# command runs it for a minute (//tests/fuzz:capi_fuzz_test); README.md's "Fuzzing" section
# gives the command for long runs.
set -euo pipefail
fuzzer="$1"; secs="${2:-60}"; shift $(( $# < 2 ? $# : 2 ))
here="$(dirname "$fuzzer")"
src="${FUZZ_SRC:-tests/fuzz}"
work="${TEST_TMPDIR:-$(mktemp -d)}/corpus"
art="${FUZZ_ARTIFACTS:-${TEST_UNDECLARED_OUTPUTS_DIR:-.}}"
mkdir -p "$work" "$art"
cp -L "$src"/corpus/* "$work/"
# allocator_may_return_null: a huge size the harness asks for must fail with
# CT_ERR_OUT_OF_MEMORY, not stop the process; max_allocation_size_mb keeps "huge" small enough
# that libFuzzer's own malloc limit never sees it. Options already set (the test's, the
# caller's) come after these, so they win.
export ASAN_OPTIONS="allocator_may_return_null=1:max_allocation_size_mb=256:detect_leaks=1:abort_on_error=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
if compgen -G "$src/crashes/*" >/dev/null; then
  echo "== replaying tests/fuzz/crashes"
  "$fuzzer" "$src"/crashes/*
fi
echo "== fuzzing for ${secs} s from $(ls "$work" | wc -l) seeds"
"$fuzzer" -max_total_time="$secs" -seed="${FUZZ_SEED:-1}" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$art/" "$@" "$work"
