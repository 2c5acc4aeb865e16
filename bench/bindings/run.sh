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
python3 - "$OUTF" <<'PY'
import sys, platform, datetime, os
r = {}
for line in open(sys.argv[1]):
    lang, metric, ns = line.split()
    r.setdefault(lang, {})[metric] = float(ns)
cpu = "?"
try:
    for l in open("/proc/cpuinfo"):
        if l.startswith("model name"):
            cpu = l.split(":", 1)[1].strip(); break
except OSError:
    pass
print(f"binding overhead, {datetime.date.today()}, {cpu}, {os.cpu_count()} cores")
print(f"| language | noop (ns) | over C | small_add (ns) | over C |")
print(f"|---|---|---|---|---|")
c = r.get("c", {})
for lang in ("c", "java", "csharp", "go"):
    if lang not in r:
        print(f"| {lang} | (not run) | | | |"); continue
    m = r[lang]
    def cell(k):
        v = m.get(k)
        if v is None: return "?", ""
        over = "" if lang == "c" or k not in c else f"{v - c[k]:+.1f}"
        return f"{v:.1f}", over
    n, no = cell("noop"); a, ao = cell("small_add")
    print(f"| {lang} | {n} | {no} | {a} | {ao} |")
PY
rm -f "$OUTF" "$OUTF".*
