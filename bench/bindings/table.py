# The table of bench/bindings/run.sh: reads "<lang> <metric> <ns>" lines (from each
# bench/bindings/<lang>/run.sh) and prints each binding's cost per call over C's.
#   python3 bench/bindings/table.py RESULTS_FILE
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
