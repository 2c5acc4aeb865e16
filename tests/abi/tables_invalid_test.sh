#!/bin/bash
# tools/abi/gen.py refuses a broken capi/abi.toml with a message naming the entry at fault.
set -u
gen="$1"; toml="$2"
fail=0; pass=0
t="${TEST_TMPDIR:-/tmp}/abi"; mkdir -p "$t"
expect() {  # expect NAME MESSAGE_PART (the table is $t/abi.toml)
  out=$(python3 "$gen" --abi "$t/abi.toml" --out impl "$t/out.h" 2>&1); rc=$?
  if [ "$rc" -ne 0 ] && echo "$out" | grep -qF -- "$2"; then pass=$((pass+1)); else echo "FAIL: $1: rc=$rc: $out"; fail=$((fail+1)); fi
}
python3 "$gen" --abi "$toml" --out impl "$t/out.h" && pass=$((pass+1)) || { echo "FAIL: the real table"; fail=$((fail+1)); }
sed '/^\[\[binary_op\]\]/,$ s/^value = 17$/value = 16/' "$toml" > "$t/abi.toml"; expect "repeated value" "value 16 already used by CT_FLOOR_DIVIDE"
sed 's/^name = "CT_REMAINDER"$/name = "CT_ADD"/' "$toml" > "$t/abi.toml"; expect "repeated name" "name CT_ADD already used"
sed '0,/^torch = "add"$/{/^torch = "add"$/d}' "$toml" > "$t/abi.toml"; expect "missing field" "(CT_ADD): missing field 'torch'"
sed 's/^kind = "compare"$/kind = "comparison"/' "$toml" > "$t/abi.toml"; expect "bad kind" "kind must be one of"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
