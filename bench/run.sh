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
PY
