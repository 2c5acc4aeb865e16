# torch side of the GPU benchmarks: the same operations, measured the same way as
# ctorch_bench.c (events for GPU time, a host clock for host cost and host<->device copies).
import time
import torch

n = 64 << 20
dev = torch.device("cuda:0")
e0 = torch.cuda.Event(enable_timing=True)
e1 = torch.cuda.Event(enable_timing=True)

def gpu_ms():
    e1.synchronize()
    return e0.elapsed_time(e1)

a = torch.ones(1, device=dev)
for _ in range(1000):
    c = a + a
torch.cuda.synchronize()
iters = 20000
t0 = time.perf_counter()
for _ in range(iters):
    c = a + a
t1 = time.perf_counter()
torch.cuda.synchronize()
print(f"small_add_host {(t1 - t0) / iters * 1e6:.3f} us")

a = torch.ones(n, device=dev)
b = torch.ones(n, device=dev)
for _ in range(3):
    c = a + b
e0.record()
for _ in range(20):
    c = a + b
e1.record()
ms = gpu_ms() / 20
print(f"add_64M_f32 {ms:.4f} ms {3 * n * 4 / (ms * 1e6):.1f} GB/s")
for _ in range(3):
    s = a.sum()
e0.record()
for _ in range(20):
    s = a.sum()
e1.record()
ms = gpu_ms() / 20
print(f"sum_64M_f32 {ms:.4f} ms {n * 4 / (ms * 1e6):.1f} GB/s")

for name, shape in (("fft_c2c_2p24", (1 << 24,)), ("fft_c2c_4096x1024", (4096, 1024))):
    x = torch.randn(shape, device=dev).to(torch.complex64)
    for _ in range(3):
        y = torch.fft.fft(x)
    e0.record()
    for _ in range(20):
        y = torch.fft.fft(x)
    e1.record()
    print(f"{name} {gpu_ms() / 20:.4f} ms")
    del x, y

for N in (8192, 4096):
    for kind, dt, tf32 in (("fp32", torch.float32, False), ("tf32", torch.float32, True),
                           ("bf16", torch.bfloat16, False), ("fp16", torch.float16, False)):
        x = torch.rand(N, N, device=dev, dtype=dt)
        y = torch.rand(N, N, device=dev, dtype=dt)
        torch.backends.cuda.matmul.allow_tf32 = tf32
        for _ in range(3):
            z = x @ y
        e0.record()
        for _ in range(10):
            z = x @ y
        e1.record()
        ms = gpu_ms() / 10
        print(f"matmul_{N}_{kind} {ms:.4f} ms {2.0 * N ** 3 / (ms * 1e9):.1f} TFLOPS")
        torch.backends.cuda.matmul.allow_tf32 = False
        del x, y, z

c = torch.empty(n, device=dev)
for fn, name in ((lambda: c.uniform_(), "rand_64M_f32"), (lambda: c.normal_(), "randn_64M_f32")):
    for _ in range(3):
        fn()
    e0.record()
    for _ in range(20):
        fn()
    e1.record()
    ms = gpu_ms() / 20
    print(f"{name} {ms:.4f} ms {n * 4 / (ms * 1e6):.1f} GB/s")
h = torch.empty(16 << 20)
h.normal_()
t0 = time.perf_counter()
for _ in range(5):
    h.normal_()
print(f"cpu_randn_16M_f32 {(time.perf_counter() - t0) / 5 * 1e3:.4f} ms")

c = torch.empty(n, device=dev)
for _ in range(3):
    c.copy_(a)
e0.record()
for _ in range(20):
    c.copy_(a)
e1.record()
ms = gpu_ms() / 20
print(f"d2d_copy_256MiB {ms:.4f} ms {2 * n * 4 / (ms * 1e6):.1f} GB/s")

hp = torch.ones(n)
hpin = hp.pin_memory()
for k, name in enumerate(["h2d_pinned_256MiB", "h2d_pageable_256MiB", "d2h_pinned_256MiB", "d2h_pageable_256MiB"]):
    host = hpin if k % 2 == 0 else hp
    nb = k % 2 == 0
    def once():
        if k < 2:
            c.copy_(host, non_blocking=nb)
        else:
            host.copy_(c, non_blocking=nb)
    for _ in range(2):
        once()
    torch.cuda.synchronize()
    w0 = time.perf_counter()
    for _ in range(5):
        once()
    torch.cuda.synchronize()
    per = (time.perf_counter() - w0) * 1e3 / 5
    print(f"{name} {per:.4f} ms {n * 4 / (per * 1e6):.1f} GB/s")
