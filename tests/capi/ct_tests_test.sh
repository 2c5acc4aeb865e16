#!/usr/bin/env bash
# CT_TESTS (tests/capi/test_util.h's test_selected): a suite runs only the cases it names, says
# how many it left out, and an unknown name selects nothing. $1: a C suite (sort_test).
set -u
suite="$1"
fail() { echo "FAIL: $*"; echo "0 passed, 1 failed"; exit 1; }
out=$(CT_TESTS=errors,unique "$suite") || fail "CT_TESTS=errors,unique: the suite failed: $out"
echo "$out" | grep -qx '\[ OK \] errors' || fail "errors did not run: $out"
echo "$out" | grep -qx '\[ OK \] unique' || fail "unique did not run: $out"
[ "$(echo "$out" | grep -c '^\[ OK \]')" = 2 ] || fail "other cases ran: $out"
echo "$out" | grep -qE '^\([0-9]+ tests not selected by CT_TESTS\)$' || fail "no 'not selected' line: $out"
echo "$out" | grep -qx '2 passed, 0 failed' || fail "summary: $out"
out=$(CT_TESTS=no_such_case "$suite") || fail "an unknown name failed the suite: $out"
echo "$out" | grep -qx '0 passed, 0 failed' || fail "an unknown name ran cases: $out"
out=$(CT_TESTS= "$suite" | grep -c '^\[') || true
[ "$out" -gt 2 ] || fail "an empty CT_TESTS did not run every case"
echo "1 passed, 0 failed"
