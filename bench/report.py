# The table of bench/run.sh: reads the benchmark's output (gpu_bench.cc's or graph_bench.cc's rows, "# FAILED"
# and "# cpu_threads" lines) and the Go binding's benchmark from the folder T, prints the table
# with each row's target and whether it was met, appends it to bench/RESULTS.md (also copied to
# $OUT with the raw rows), and lists the matrix rows missed.
#   python3 bench/report.py T     (from the repository root)
import sys, os, re, statistics, datetime, subprocess
T = sys.argv[1]
rows, failed, threads = {}, {}, None
for line in open(f"{T}/bench.txt"):
    if line.startswith("# FAILED "):
        name, _, why = line[len("# FAILED "):].partition(": ")
        failed[name] = why.strip()
        continue
    if line.startswith("# cpu_threads "):
        threads = line.split()[2]
    if line.startswith("#"):
        continue
    p = line.split()
    if len(p) >= 5:
        rows[p[0]] = dict(c=float(p[1]), t=float(p[2]), unit=p[3], ratio=float(p[4]),
                          gbs=(p[5], p[6]) if len(p) >= 8 else None)
go, go_over_c = {}, []
if os.path.exists(f"{T}/go.txt"):
    for line in open(f"{T}/go.txt"):
        m = re.match(r"Benchmark(\w+?)(-\d+)?\s+\d+\s+([\d.]+) ns/op", line)
        if not m: continue
        o = re.search(r"([-\d.]+) go-over-c-ns/op", line)
        if o: go_over_c.append(float(o.group(1)))
        else: go.setdefault(m.group(1), []).append(float(m.group(3)))
floor = rows.get("launch_floor", {}).get("c")
small = rows.get("small_add_host", {}).get("c")
# issue 21's rows outside the matrix (bench/gpu_bench.cc's indexing_rows, rowfunc_rows, ewfunc_rows;
# its sorting and scan rows have a '/'): the issue's target, <= 1.05
ISSUE21_ROWS = ("index_select_", "gather_", "masked_select_", "softmax_", "log_softmax_", "layer_norm_",
                "var_dim1_", "gelu_", "silu_", "isnan_", "lerp_scalar_", "where_scalar_")
def matrix_limit(name):
    """issue 12's ratio target of a matrix row (names with a '/'), issue 21's of its other rows,
    else None"""
    if name.startswith(ISSUE21_ROWS): return 1.05
    if "/" not in name: return None
    return 1.25 if name.startswith("cpu/") else 1.05
def graph_eager(name):
    """the eager row of a graph_replay_host_<size> row (bench/graph_bench.cc), or None"""
    return rows.get("graph_eager_host_" + name[len("graph_replay_host_"):])
def target(name, r):
    """(target text, met?) for a row, from issue 7's, issue 12's and issue 15's targets."""
    if name == "launch_floor" or name.startswith("graph_eager_"): return "", None
    if name.startswith("graph_replay_host_"):
        e = graph_eager(name)
        return "ctorch eager >= 10x replay", e is not None and e["c"] >= 10 * r["c"]
    if name.startswith("graph_replay_gpu_"): return "<= 1.05", round(r["ratio"], 3) <= 1.05
    lim = matrix_limit(name)
    if lim is not None: return f"<= {lim:.2f}", round(r["ratio"], 3) <= lim
    if name in ("small_add_host", "small_add_host_f16"):
        return "ctorch <= 1.1x floor", floor is not None and r["c"] <= 1.1 * floor
    if name == "small_add_bcast_host":
        return "ctorch <= 1.3x small_add_host", small is not None and r["c"] <= 1.3 * small
    if name == "create_free_256f": return "<= 0.50", r["ratio"] <= 0.5
    if name.startswith(("matmul", "fft")): return ">= 0.98x speed", r["ratio"] <= 1 / 0.98
    ok = round(r["ratio"], 2) <= 1.0
    if name.startswith("sum_64M") and "d2d_copy_256MiB" in rows:
        copy_bw = float(rows["d2d_copy_256MiB"]["gbs"][0])
        sum_bw = float(r["gbs"][0])
        return f"<= 1.00, >= 90% of copy GB/s ({sum_bw / copy_bw:.0%})", ok and sum_bw >= 0.9 * copy_bw
    return "<= 1.00", ok
ver = subprocess.run(["python3", "-c", "import torch; print(torch.__version__, torch.version.cuda)"],
                     capture_output=True, text=True).stdout.split()
smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                     capture_output=True, text=True).stdout.strip().splitlines()
dev = smi[0] if smi else "?"
lines = [f"## {datetime.date.today()}, {dev} (x{len(smi)}), torch {ver[0] if ver else '?'} (CUDA {ver[1] if len(ver) > 1 else '?'}), `bash bench/run.sh`",
         "One process, both libraries, alternating rounds, medians; ratio = ctorch time / torch time (below 1: ctorch faster)."
         + (f" CPU rows: {threads} threads in both libraries." if threads else ""),
         "| benchmark | ctorch | torch | unit | ctorch GB/s | torch GB/s | target | met | ratio |",
         "|---|---|---|---|---|---|---|---|---|"]
for name, r in rows.items():
    tg, met = target(name, r)
    g = r["gbs"] or ("", "")
    mark = "" if met is None else ("yes" if met else "**no**")
    extra = ""
    if name in ("small_add_host", "small_add_host_f16") and floor: extra = f" ({r['c'] / floor:.2f}x floor)"
    if name == "small_add_bcast_host" and small: extra = f" ({r['c'] / small:.2f}x small_add_host)"
    if name.startswith("graph_replay_host_") and graph_eager(name):
        e = graph_eager(name)
        extra = f" (eager {e['c'] / r['c']:.1f}x; torch's {e['t'] / r['t']:.1f}x)"
    lines.append(f"| {name} | {r['c']:.4f}{extra} | {r['t']:.4f} | {r['unit']} | {g[0]} | {g[1]} | {tg} | {mark} | {r['ratio']:.3f} |")
for name, why in failed.items():
    lim = matrix_limit(name)
    lines.append(f"| {name} | failed: {why.replace('|', '/')} | | | | | {f'<= {lim:.2f}' if lim else ''} | **no** | |")
for k, v in go.items():
    lines.append(f"| go {k} | {statistics.median(v) / 1000.0:.4f} | | us | | | | | |")
if go_over_c:
    d = statistics.median(go_over_c) / 1000.0
    spread = f"{min(go_over_c) / 1000:+.3f}..{max(go_over_c) / 1000:+.3f}"
    lines.append(f"| go small_add_host over C (Go binding) | {d:+.4f} | | us | | | <= 0.150 us over C | {'yes' if d <= 0.150 else '**no**'} | same process, Go and C loops alternating; {len(go_over_c)} runs: {spread} |")
table = "\n".join(lines)
print()
print(table)
with open("bench/RESULTS.md", "a") as f:
    f.write("\n" + table + "\n")
out = os.environ.get("OUT")
if out:
    import shutil
    shutil.copy("bench/RESULTS.md", f"{out}/RESULTS.md")
    shutil.copy(f"{T}/bench.txt", f"{out}/bench.txt")
# issue 12's matrix: rows met and missed
matrix = [n for n in list(rows) + list(failed) if matrix_limit(n) is not None]
missed = [n for n in matrix if n in failed or not target(n, rows[n])[1]]
print()
print(f"matrix: {len(matrix)} rows, {len(matrix) - len(missed)} met, {len(missed)} missed")
for n in missed:
    why = f"failed: {failed[n]}" if n in failed else f"ratio {rows[n]['ratio']:.3f} > {matrix_limit(n):.2f}"
    print(f"  missed {n}: {why}")
# issue 15's graph rows with a target (bench/graph_bench.cc)
graph = [n for n in list(rows) + list(failed) if n.startswith(("graph_replay_host_", "graph_replay_gpu_"))]
if graph:
    missed = [n for n in graph if n in failed or not target(n, rows[n])[1]]
    print(f"graphs: {len(graph)} rows with a target, {len(graph) - len(missed)} met, {len(missed)} missed")
    for n in missed:
        print(f"  missed {n}: {f'failed: {failed[n]}' if n in failed else target(n, rows[n])[0]}")
