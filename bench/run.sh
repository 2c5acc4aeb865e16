#!/usr/bin/env bash
# GPU benchmarks, ctorch next to torch in the same run (on the GPU host):
#   bash bench/run.sh [gpu_artifacts]
# gpu_artifacts/ holds libctorch.so and ctorch_bench (tools/gpu_pack.sh builds them here).
set -uo pipefail
A="${1:-gpu_artifacts}"
export LD_LIBRARY_PATH="$PWD/$A${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
T=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
/usr/local/cuda/bin/nvcc -O2 -o "$T/launch_floor" bench/launch_floor.cu && "$T/launch_floor" > "$T/floor.txt"
"$A/ctorch_bench" > "$T/ctorch.txt" || echo "ctorch_bench failed"
python3 bench/torch_bench.py > "$T/torch.txt" || echo "torch_bench failed"
# the allocator benchmarks against torch's C++ API (no Python in the loop)
TP=$(python3 -c "import torch, os; print(os.path.dirname(torch.__file__))")
if g++ -O2 -std=c++17 -D_GLIBCXX_USE_CXX11_ABI=$(python3 -c "import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))") \
     -I"$TP/include" -I"$TP/include/torch/csrc/api/include" -I/usr/local/cuda/include bench/torch_alloc_bench.cpp \
     -o "$T/torch_alloc_bench" -L"$TP/lib" -Wl,-rpath,"$TP/lib" -ltorch -ltorch_cpu -ltorch_cuda -lc10 -lc10_cuda \
     -L/usr/local/cuda/lib64 -lcudart 2> "$T/gxx.txt"; then
  "$T/torch_alloc_bench" >> "$T/torch.txt"
  # the allocator benchmarks again, ctorch and torch alternating, 5 rounds (host timings move
  # with the host's load: the median of the per-round ratios is the figure to compare)
  for r in 1 2 3 4 5; do
    "$A/ctorch_bench" alloc | sed "s/^/ctorch /" >> "$T/alloc_rounds.txt"
    "$T/torch_alloc_bench" | sed "s/^/torch /" >> "$T/alloc_rounds.txt"
  done
else
  echo "torch C++ benchmark did not build:"; tail -5 "$T/gxx.txt"
fi
python3 - "$T" <<'PY'
import sys
d = sys.argv[1]
def load(f):
    r = {}
    for line in open(f"{d}/{f}"):
        p = line.split()
        r[p[0]] = (float(p[1]), p[2])
    return r
c, t, fl = load("ctorch.txt"), load("torch.txt"), load("floor.txt")
print(f"{'benchmark':24} {'ctorch':>12} {'torch':>12} {'ctorch/torch':>13}")
for k in c:
    cv, unit = c[k]
    tv = t.get(k, (float('nan'), unit))[0]
    print(f"{k:24} {cv:10.4f} {unit:3} {tv:10.4f} {unit:3} {cv / tv:12.2f}x")
print(f"{'launch_floor':24} {fl['launch_floor'][0]:10.4f} us  (bare empty-kernel launch)")
import os, statistics
rounds = f"{d}/alloc_rounds.txt"
if os.path.exists(rounds):
    vals = {}
    for line in open(rounds):
        who, name, v, _ = line.split()
        vals.setdefault(name, {}).setdefault(who, []).append(float(v))
    print("allocator, 5 alternating rounds (median; per-round ratios):")
    for name, w in vals.items():
        ratios = [c / t for c, t in zip(w["ctorch"], w["torch"])]
        print(f"  {name:24} ctorch {statistics.median(w['ctorch']):.3f} us  torch {statistics.median(w['torch']):.3f} us"
              f"  median ratio {statistics.median(ratios):.2f}x  ({', '.join(f'{x:.2f}' for x in ratios)})")
PY
