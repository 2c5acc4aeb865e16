# torch's side of bench/jit/jit_bench.cc: the same function through torch.cuda.jiterator, and the
# built-in chain x * torch.sigmoid(x), 64M elements, float32 and float16, medians of 7 rounds of
# 20 calls timed with CUDA events.
import time
import torch

code = "template <typename T> T silu(T x) { return x / (T(1) + exp(-x)); }"
fn = torch.cuda.jiterator._create_jit_fn(code)
for dt in (torch.float32, torch.float16):
    x = torch.arange(0, 1 << 26, device="cuda", dtype=torch.float32).to(dt)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    fn(x)
    torch.cuda.synchronize()
    first = (time.perf_counter() - t0) * 1000
    for name, f in (("jiterator", fn), ("builtin x*sigmoid(x)", lambda v: v * torch.sigmoid(v))):
        us = []
        for r in range(8):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            for _ in range(20):
                f(x)
            b.record()
            b.synchronize()
            if r:
                us.append(a.elapsed_time(b) * 1000 / 20)
        us.sort()
        extra = f"first call {first:.1f} ms, " if name == "jiterator" else ""
        print(f"torch {name} silu {dt} 64M: {extra}{us[len(us) // 2]:.1f} us per call")
