#!/usr/bin/env bash
# Runs every test suite (C++ gtest, C, Java, C#, Go), then the C and C++ suites again under
# ASan + UBSan with a minute of C API fuzzing on the same (clang) build, and the suites with
# threads under TSan, after installing whatever is missing.
# Ends with one line "N passed, N failed" counting the test cases of all suites. Exit status 0
# only when everything passed.
set -uo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh || exit 1

total_pass=0; total_fail=0; rc_all=0

# count_logs DIR: adds up the test cases reported in every test.log under DIR.
count_logs() {
  local dir="$1" f p q
  while IFS= read -r f; do
    p=0; q=0
    if grep -qE '^[0-9]+ passed, [0-9]+ failed' "$f"; then          # our C suites and drivers
      read -r p q < <(grep -E '^[0-9]+ passed, [0-9]+ failed' "$f" | tail -1 | awk '{print $1, $3}')
    elif grep -qE '^\[==========\] [0-9]+ tests? from .* ran' "$f"; then   # GoogleTest
      p=$(grep -E '^\[  PASSED  \] [0-9]+ test' "$f" | tail -1 | awk '{print $4}'); p=${p:-0}
      q=$(grep -E '^\[  FAILED  \] [0-9]+ test' "$f" | tail -1 | awk '{print $4}'); q=${q:-0}
    elif grep -qE '^OK \([0-9]+ tests?\)|^Tests run: [0-9]+,  Failures: [0-9]+' "$f"; then   # JUnit 4
      if grep -qE '^OK \([0-9]+ tests?\)' "$f"; then
        p=$(grep -E '^OK \(' "$f" | tail -1 | sed -E 's/^OK \(([0-9]+).*/\1/')
      else
        local n; n=$(grep -E '^Tests run: ' "$f" | tail -1 | sed -E 's/^Tests run: ([0-9]+),  Failures: ([0-9]+).*/\1 \2/')
        q=${n#* }; p=$(( ${n% *} - q ))
      fi
    elif grep -qE '^Tests run: [0-9]+, Errors: [0-9]+, Failures: [0-9]+' "$f"; then   # NUnit 2
      local l; l=$(grep -E '^Tests run: [0-9]+, Errors: ' "$f" | tail -1)
      local n e fl
      n=$(echo "$l" | sed -E 's/^Tests run: ([0-9]+),.*/\1/')
      e=$(echo "$l" | sed -E 's/.*Errors: ([0-9]+),.*/\1/')
      fl=$(echo "$l" | sed -E 's/.*Failures: ([0-9]+).*/\1/')
      q=$((e + fl)); p=$((n - q))
    elif grep -qE '^(=== RUN|--- (PASS|FAIL))' "$f"; then              # go test -v
      p=$(grep -cE '^\s*--- PASS' "$f"); q=$(grep -cE '^\s*--- FAIL' "$f")
    else                                                                # one test per target
      local x; x="$(dirname "$f")/test.xml"
      if [ -f "$x" ] && grep -qE '(failures|errors)="[1-9]' "$x"; then q=1; else p=1; fi
    fi
    total_pass=$((total_pass + p)); total_fail=$((total_fail + q))
    printf '  %-60s %4d passed, %d failed\n' "${f#$dir/}" "$p" "$q"
  done < <(find -L "$dir" -name test.log | sort)
}

run_bazel() {
  local label="$1"; shift
  echo "== $label: bazel test $*"
  bazel test "$@"
  local rc=$?
  if [ "$rc" -ne 0 ]; then rc_all=1; echo "bazel test exited with $rc"; fi
  # a build failure (rc 1) leaves no logs to count: count it as a failure
  if [ "$rc" -eq 1 ] || [ "$rc" -gt 4 ]; then total_fail=$((total_fail + 1)); fi
}

run_bazel "all suites" //...
count_logs "$(bazel info bazel-testlogs 2>/dev/null)"
# One sanitized build (.bazelrc, --config=asan): the suites, the fuzz corpus replayed, and a
# minute of libFuzzer from the corpus with a fixed seed (--config=fuzz adds only libFuzzer to the
# harness).
run_bazel "C and C++ suites under ASan+UBSan (clang), and 60 s of C API fuzzing" --config=fuzz //tests/capi:capi_test //tests/capi:sanitizer_test //tests/capi:nvtx_test //tests/capi:stress_test //tests/impl/... //tests/fuzz:capi_fuzz_test //tests/fuzz:capi_fuzz_corpus_test
count_logs "$(bazel info --config=fuzz bazel-testlogs 2>/dev/null)"
# The suites whose threads run without a GPU (Note [TSan] in tests/capi/stress_test.c): the
# eight-thread stress suite, NVTX's per-thread ranges, the allocator's and the cuFFT plan
# cache's thread tests. The GPU suites' threads skip here, so building them would only cost.
run_bazel "C and C++ suites with threads under TSan" --config=tsan //tests/capi:stress_test //tests/capi:nvtx_test //tests/impl:caching_allocator_test //tests/impl:plan_cache_test
count_logs "$(bazel info --config=tsan bazel-testlogs 2>/dev/null)"

echo "$total_pass passed, $total_fail failed"
[ "$rc_all" -eq 0 ] && [ "$total_fail" -eq 0 ]
