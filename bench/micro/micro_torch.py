# Shared timer of the torch side of the microbenchmarks: the same rounds as micro.cuh's time_ms.
import torch
def t(name, f, nbytes=None):
    for _ in range(3): f()
    s, e = torch.cuda.Event(True), torch.cuda.Event(True)
    v = []
    for _ in range(7):
        s.record()
        for _ in range(20): f()
        e.record(); e.synchronize(); v.append(s.elapsed_time(e) / 20)
    v.sort(); ms = v[3]
    print(f"torch {name:14s} {ms*1e3:8.2f} us" + (f" {nbytes/ms/1e6:6.0f} GB/s" if nbytes else ""))
