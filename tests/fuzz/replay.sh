#!/usr/bin/env bash
# Replays the corpus and the reproducers through capi_fuzz (either build): usage replay.sh <capi_fuzz>.
# The replay build (gcc) also checks that the corpus makes every op succeed at least once.
set -euo pipefail
fuzzer="$1"
src="${FUZZ_SRC:-tests/fuzz}"
export ASAN_OPTIONS="allocator_may_return_null=1:max_allocation_size_mb=256${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
files=("$src"/corpus/*)
if compgen -G "$src/crashes/*" >/dev/null; then files+=("$src"/crashes/*); fi
exec "$fuzzer" "${files[@]}"
