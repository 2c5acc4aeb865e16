# The jiterator's benchmark (issue 18): torch.cuda.jiterator against ctorch's (bench/jit/jit_bench.c,
# through the C ABI) on the same GPU in the same run, and the built-in chains x * sigmoid(x).
#   python3 bench/jit/jit_bench.py <dir of libctorch.so>
# Runs ctorch's program twice with one fresh CTORCH_KERNEL_CACHE_PATH (the first process
# compiles, the second loads from the disk cache), torch's side twice likewise
# (PYTORCH_KERNEL_CACHE_PATH), and prints a table of the rows with ratio = ctorch / torch
# (target <= 1.05 for every timed row). Timing as in jit_bench.c: the median of 7 rounds (after
# one warm-up) of N calls, wall time with a synchronize at both ends, divided by N.
import os
import subprocess
import sys
import tempfile
import time

import torch

SILU = "template <typename T> T silu(T x) { return x / (T(1) + exp(-x)); }"
AXPB = "template <typename T> T axpb(T a, T b) { return a * b + T(1); }"
NAMES = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16"}


def time_it(f, calls):
    us = []
    for r in range(-1, 7):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(calls):
            f()
        torch.cuda.synchronize()
        if r >= 0:
            us.append((time.perf_counter() - t0) * 1e6 / calls)
    us.sort()
    return us[3]


def uniform(*sizes, dtype):
    return torch.empty(*sizes, device="cuda", dtype=dtype).uniform_(-10, 10)


def torch_side():  # the lines jit_bench.c prints, for torch
    silu = torch.cuda.jiterator._create_jit_fn(SILU)
    for dt in NAMES:
        x = uniform(4096, dtype=dt)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        silu(x)
        torch.cuda.synchronize()
        print(f"first {NAMES[dt]} {(time.perf_counter() - t0) * 1000:.1f}")
    for dt in NAMES:
        for n, name, calls in ((1 << 26, "64M", 20), (1 << 20, "1M", 200), (4096, "4K", 2000)):
            x = uniform(n, dtype=dt)
            print(f"row jit_silu_{NAMES[dt]}_{name} {time_it(lambda: silu(x), calls):.2f}")
            if name == "64M":
                print(f"row builtin_silu_{NAMES[dt]}_{name} {time_it(lambda: x * torch.sigmoid(x), calls):.2f}")
    for dt in (torch.float32, torch.float16):
        x = uniform(8192, 8192, dtype=dt).t()
        print(f"row jit_silu_{NAMES[dt]}_64M_transposed {time_it(lambda: silu(x), 20):.2f}")
        x = uniform(8192, 8200, dtype=dt)[:, :8192]
        print(f"row jit_silu_{NAMES[dt]}_64M_sliced {time_it(lambda: silu(x), 20):.2f}")
    axpb = torch.cuda.jiterator._create_jit_fn(AXPB)
    for dt in (torch.float32, torch.float16):
        a, b = uniform(8192, 1, dtype=dt), uniform(1, 8192, dtype=dt)
        print(f"row jit_axpb_{NAMES[dt]}_64M_broadcast {time_it(lambda: axpb(a, b), 20):.2f}")


def parse(text):
    rows, first = {}, {}
    for line in text.splitlines():
        p = line.split()
        if len(p) == 3 and p[0] == "row":
            rows[p[1]] = float(p[2])
        elif len(p) == 3 and p[0] == "first":
            first[p[1]] = float(p[2])
    return rows, first


def run(cmd, env):
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    sys.stderr.write(r.stderr)
    if r.returncode != 0:
        sys.exit(f"{cmd[0]} failed ({r.returncode})")
    return parse(r.stdout)


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--torch-side":
        torch_side()
        return
    lib = os.path.abspath(sys.argv[1])
    exe = os.path.join(tempfile.mkdtemp(), "jit_bench")
    subprocess.run(["gcc", "-O2", "-I.", "bench/jit/jit_bench.c", "-o", exe, f"-L{lib}", "-lctorch"], check=True)
    ct_env = dict(os.environ, LD_LIBRARY_PATH=lib, CTORCH_KERNEL_CACHE_PATH=tempfile.mkdtemp())
    th_env = dict(os.environ, PYTORCH_KERNEL_CACHE_PATH=tempfile.mkdtemp())
    me = [sys.executable, os.path.abspath(__file__), "--torch-side"]
    ct1, ct_cold = run([exe], ct_env)
    th1, th_cold = run(me, th_env)
    ct2, ct_warm = run([exe], ct_env)
    th2, th_warm = run(me, th_env)
    dev = torch.cuda.get_device_name()
    print(f"\n## {time.strftime('%Y-%m-%d', time.gmtime())}, {dev}, the jiterator (issue 18): `python3 bench/jit/jit_bench.py gpu_artifacts`")
    print("Each library twice, in separate processes (ctorch, torch, ctorch, torch); the time is the lower of each pair,"
          " ratio = ctorch / torch jiterator (target <= 1.05). us a call: the median of 7 rounds of N calls, wall time"
          " between synchronizes / N. First call (ms): the process's first call of a dtype, NVRTC compile or disk-cache"
          " load, and the kernel's load.")
    print("| benchmark | ctorch | torch | unit | target | met | ratio |")
    print("|---|---|---|---|---|---|---|")
    for name in th1:
        c, t = min(ct1[name], ct2[name]), min(th1[name], th2[name])
        met = "yes" if c / t <= 1.05 else "**no**"
        print(f"| {name} | {c:.2f} | {t:.2f} | us | <= 1.05 | {met} | {c / t:.3f} |")
    for dt in ct_cold:
        print(f"| jit_first_call_{dt}_compile | {ct_cold[dt]:.1f} | {th_cold[dt]:.1f} | ms | (recorded) | | {ct_cold[dt] / th_cold[dt]:.3f} |")
        print(f"| jit_first_call_{dt}_disk_cache | {ct_warm[dt]:.1f} | {th_warm[dt]:.1f} | ms | (recorded) | | {ct_warm[dt] / th_warm[dt]:.3f} |")


if __name__ == "__main__":
    main()
