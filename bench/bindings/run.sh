#!/usr/bin/env bash
# The binding-overhead benchmark on this machine (CPU tensors; no GPU needed):
#   bash bench/bindings/run.sh
# Runs bench/bindings/{c,java,csharp,go}/run.sh, each printing "<lang> noop <ns>" and
# "<lang> small_add <ns>" (median of 7 rounds after a warm-up; see each program), and prints a
# table of each binding's cost over C per call. noop: the tensor's numel (one native call that
# does no work); small_add: c = a + b on 1-element float32 tensors, c freed.
set -uo pipefail
cd "$(dirname "$0")/../.."
bash tools/setup.sh >/dev/null 2>&1 || true
OUTF=$(mktemp)
for lang in c java csharp go; do
  if [ -f "bench/bindings/$lang/run.sh" ]; then
    bash "bench/bindings/$lang/run.sh" 2>"$OUTF.$lang.err" | grep -E "^$lang (noop|small_add) " >> "$OUTF" ||
      { echo "$lang: benchmark failed:" >&2; tail -5 "$OUTF.$lang.err" >&2; }
  fi
done
python3 bench/bindings/table.py "$OUTF"
rm -f "$OUTF" "$OUTF".*
