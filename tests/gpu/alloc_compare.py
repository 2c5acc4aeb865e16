# Runs the allocation sequence of alloc_trace.c in torch and compares every shared
# torch.cuda.memory_stats key after every step with ctorch's (same GPU, same run):
#   python3 tests/gpu/alloc_compare.py gpu_artifacts/alloc_trace
import subprocess
import sys

import torch

MiB = 1 << 20
dev = torch.device("cuda:0")
steps = {}

def dump(n):
    steps[n] = dict(torch.cuda.memory_stats(0))

def alloc(nbytes):
    return torch.empty(nbytes, dtype=torch.uint8, device=dev)

a = alloc(100); dump(1)
b = alloc(600); dump(2)
del a; dump(3)
c = alloc(5 * MiB); dump(4)
d = alloc(12 * MiB + 1); dump(5)
del b, c; dump(6)
e = alloc(30 * MiB); dump(7)
s = torch.cuda.Stream(device=dev)
with torch.cuda.stream(s):
    f = alloc(4096)
dump(8)
del f
g = alloc(4096); dump(9)
h = alloc(8192)
h.record_stream(s)
del h
s.synchronize()
i = alloc(1000); dump(10)
torch.cuda.empty_cache(); dump(11)
torch.cuda.reset_peak_memory_stats(0); dump(12)
summaries = (torch.cuda.memory_summary(0, abbreviated=False), torch.cuda.memory_summary(0, abbreviated=True))
big = alloc(200 * MiB)
del big
big2 = alloc(150 * MiB); dump(13)
del big2, d, e, g, i
torch.cuda.empty_cache(); dump(14)

ours = {}
import os, tempfile
work = tempfile.mkdtemp()
out = subprocess.run([os.path.abspath(sys.argv[1])], capture_output=True, text=True, check=True, cwd=work).stdout
for line in out.splitlines():
    _, n, k, v = line.split()
    ours.setdefault(int(n), {})[k] = int(v)

compared = mismatched = 0
only_torch = set()
for n in sorted(steps):
    t, o = steps[n], ours.get(n, {})
    only_torch |= set(t) - set(o)
    for k in sorted(set(t) & set(o)):
        compared += 1
        if t[k] != o[k]:
            mismatched += 1
            print(f"step {n} {k}: torch {t[k]}, ctorch {o[k]}")
print(f"torch keys ctorch does not have: {sorted(only_torch)}")
for name, theirs in zip(("summary_full.txt", "summary_abbrev.txt"), summaries):
    mine = open(os.path.join(work, name)).read().replace(" ctorch CUDA memory summary", "PyTorch CUDA memory summary")
    compared += 1
    if mine != theirs:
        mismatched += 1
        print(f"memory_summary differs ({name}):\n--- torch\n{theirs}\n--- ctorch\n{mine}")
print(f"alloc_compare: {compared - mismatched} passed, {mismatched} failed ({len(steps)} steps)")
sys.exit(1 if mismatched else 0)
