# ctorch's random ops against torch.cuda in the same run (issue 5): the same seeds and the same
# sequences of calls must give the same bits on the GPU and equal generator states after every
# call; ctorch's CPU device must give the same uniform/integer bits and normal values within
# a few ulp. Optionally writes golden vectors (torch's values) for the CPU test suite.
#   python3 tests/gpu/rng_compare.py gpu_artifacts/libctorch.so [--golden tests/data/rng_golden.txt]
import ctypes as C
import sys

import numpy as np
import torch

from ctlib import CPU, CUDA, P, Ctorch, Tally, i32, i64, vp

golden_path = sys.argv[sys.argv.index("--golden") + 1] if "--golden" in sys.argv else None
ct = Ctorch(sys.argv[1], {
    "ct_manual_seed": [i64], "ct_cuda_manual_seed": [i64], "ct_cuda_manual_seed_all": [i64],
    "ct_empty": [P(i64), i32, i32, i32, i32, P(vp)],
    "ct_rand": [P(i64), i32, i32, i32, i32, vp, P(vp)],
    "ct_randn": [P(i64), i32, i32, i32, i32, vp, P(vp)],
    "ct_randint": [i64, i64, P(i64), i32, i32, i32, i32, vp, P(vp)],
    "ct_tensor_uniform_": [vp, C.c_double, C.c_double, vp], "ct_tensor_normal_": [vp, C.c_double, C.c_double, vp],
    "ct_tensor_random_": [vp, vp], "ct_tensor_random_range_": [vp, i64, i64, vp],
    "ct_tensor_bernoulli_": [vp, C.c_double, vp], "ct_cuda_get_rng_state": [i32, vp, i64, P(i64)],
    "ct_generator_create": [i32, i32, P(vp)], "ct_generator_manual_seed": [vp, i64],
    "ct_generator_get_state": [vp, vp, i64, P(i64)], "ct_generator_release": [vp],
})
lib, ck, DT = ct.lib, ct.ck, ct.dt
tally = Tally("rng_compare")
check = tally.check


def shape_arg(n):
    return (i64 * 1)(n)


def ct_run(op, dtype, n, a, b, dev, gen):
    out = vp()
    sz = shape_arg(n)
    d = DT[dtype]
    if op == "rand":
        ck(lib.ct_rand(sz, 1, d, dev, 0, gen, C.byref(out)), op)
    elif op == "randn":
        ck(lib.ct_randn(sz, 1, d, dev, 0, gen, C.byref(out)), op)
    elif op == "randint":
        ck(lib.ct_randint(int(a), int(b), sz, 1, d, dev, 0, gen, C.byref(out)), op)
    else:
        ck(lib.ct_empty(sz, 1, d, dev, 0, C.byref(out)), "empty")
        if op == "uniform":
            ck(lib.ct_tensor_uniform_(out, a, b, gen), op)
        elif op == "normal":
            ck(lib.ct_tensor_normal_(out, a, b, gen), op)
        elif op == "random":
            ck(lib.ct_tensor_random_(out, gen), op)
        elif op == "bernoulli":
            ck(lib.ct_tensor_bernoulli_(out, a, gen), op)
    data = ct.to_bytes(out, dtype, n)
    lib.ct_tensor_release(out)
    return data


def torch_run(op, dtype, n, a, b, gen=None):
    dev = "cuda"
    if op == "rand":
        t = torch.rand(n, dtype=dtype, device=dev, generator=gen)
    elif op == "randn":
        t = torch.randn(n, dtype=dtype, device=dev, generator=gen)
    elif op == "randint":
        t = torch.randint(int(a), int(b), (n,), dtype=dtype, device=dev, generator=gen)
    else:
        t = torch.empty(n, dtype=dtype, device=dev)
        if op == "uniform":
            t.uniform_(a, b, generator=gen)
        elif op == "normal":
            t.normal_(a, b, generator=gen)
        elif op == "random":
            t.random_(generator=gen)
        elif op == "bernoulli":
            t.bernoulli_(a, generator=gen)
    return t.cpu().contiguous().view(torch.uint8).numpy().tobytes()


def state_ct_cuda():
    buf = (C.c_uint8 * 16)()
    need = i64()
    ck(lib.ct_cuda_get_rng_state(0, buf, 16, C.byref(need)), "get_rng_state")
    return bytes(buf)


def state_gen(g):
    buf = (C.c_uint8 * 16)()
    need = i64()
    ck(lib.ct_generator_get_state(g, buf, 16, C.byref(need)), "generator state")
    return bytes(buf)


def ulps(x, y, dtype):
    """largest distance in units in the last place between two arrays of the same float dtype"""
    ity = {torch.float32: np.int32, torch.float64: np.int64, torch.float16: np.int16, torch.bfloat16: np.int16}[dtype]
    a = np.frombuffer(x, dtype=ity).astype(np.int64)
    b = np.frombuffer(y, dtype=ity).astype(np.int64)
    bits = {np.int32: 32, np.int64: 64, np.int16: 16}[ity]
    sign = np.int64(1) << (bits - 1) if bits < 64 else None
    def ordered(v):
        if bits == 64:
            return np.where(v < 0, np.int64(-2**63) - v, v)
        return np.where(v < 0, -(v & (sign - 1)), v)
    return int(np.max(np.abs(ordered(a) - ordered(b)))) if len(a) else 0


max_ulp = {}


SEQ = [  # (op, dtype, a, b)
    ("rand", torch.float32, 0, 0), ("randn", torch.float32, 0, 0), ("rand", torch.float64, 0, 0),
    ("randn", torch.float64, 0, 0), ("rand", torch.float16, 0, 0), ("randn", torch.float16, 0, 0),
    ("rand", torch.bfloat16, 0, 0), ("randn", torch.bfloat16, 0, 0), ("uniform", torch.float32, -2.0, 3.0),
    ("uniform", torch.float64, -2.0, 3.0), ("uniform", torch.float16, -2.0, 3.0), ("normal", torch.float32, 1.5, 2.0),
    ("normal", torch.float64, 1.5, 2.0), ("normal", torch.bfloat16, 1.5, 2.0), ("randint", torch.int64, -5, 1000),
    ("randint", torch.int32, 0, 7), ("randint", torch.float32, -100, 100), ("randint", torch.int64, 0, 1 << 40),
    ("random", torch.int64, 0, 0), ("random", torch.int32, 0, 0), ("random", torch.float32, 0, 0),
    ("random", torch.float64, 0, 0), ("random", torch.float16, 0, 0), ("random", torch.bool, 0, 0),
    ("random", torch.uint8, 0, 0), ("bernoulli", torch.float32, 0.3, 0), ("bernoulli", torch.float64, 0.3, 0),
    ("bernoulli", torch.int64, 0.7, 0),
]
SIZES = [1, 7, 1000, (1 << 20) + 3]
SEEDS = [0, 42, 67280421310721, -1]
NORMALS = ("randn", "normal")

cpu_gen = vp()
ck(lib.ct_generator_create(CPU, -1, C.byref(cpu_gen)), "cpu generator")
for seed in SEEDS:
    torch.cuda.manual_seed(seed)
    ck(lib.ct_cuda_manual_seed(seed), "cuda seed")
    ck(lib.ct_generator_manual_seed(cpu_gen, seed), "cpu seed")
    tg = torch.Generator(device="cuda")
    tg.manual_seed(seed)
    # one interleaved sequence per seed: every op at every size, states compared after each
    for n in SIZES:
        for op, dt, a, b in SEQ:
            want = torch_run(op, dt, n, a, b)
            got = ct_run(op, dt, n, a, b, CUDA, None)
            check(got == want, f"cuda {op} {dt} n={n} seed={seed}: bits differ")
            check(state_ct_cuda() == bytes(torch.cuda.get_rng_state()), f"cuda state after {op} {dt} n={n} seed={seed}")
            # the CPU device, drawn from a CPU generator that follows the same sequence
            mine = ct_run(op, dt, n, a, b, CPU, cpu_gen)
            theirs = torch_run(op, dt, n, a, b, gen=tg)
            if op in NORMALS:
                # docs/random.md: |cpu - cuda| <= 2^-18 * std for float32 and the 16-bit types (plus
                # one unit of the 16-bit result), 2^-46 * std for float64
                u = ulps(mine, theirs, dt)
                x = torch.frombuffer(bytearray(mine), dtype=dt).double()
                y = torch.frombuffer(bytearray(theirs), dtype=dt).double()
                scale = b if op == "normal" else 1.0
                d = (x - y).abs()
                bound = torch.full_like(d, scale * 2.0 ** (-46 if dt == torch.float64 else -18))
                mag = torch.maximum(x.abs(), y.abs())
                if dt == torch.float16:
                    bound += torch.clamp(mag, min=2.0 ** -14) * 2.0 ** -10
                if dt == torch.bfloat16:
                    bound += torch.clamp(mag, min=2.0 ** -126) * 2.0 ** -7
                ad = float((d / scale).max())
                m = max_ulp.get(dt, (0, 0.0))
                max_ulp[dt] = (max(m[0], u), max(m[1], ad))
                check(bool((d <= bound).all()), f"cpu {op} {dt} n={n} seed={seed}: |cpu - cuda| / std up to {ad:.3g}")
            else:
                check(mine == theirs, f"cpu {op} {dt} n={n} seed={seed}: bits differ from torch.cuda")
            check(state_gen(cpu_gen) == bytes(tg.get_state()), f"cpu generator state after {op} {dt} n={n}")
    # large sizes for the most used ops
    big = 1 << 26
    for op, dt in (("rand", torch.float32), ("randn", torch.float32)):
        if seed not in (0, 42):
            continue
        want = torch_run(op, dt, big, 0, 0)
        got = ct_run(op, dt, big, 0, 0, CUDA, None)
        check(got == want, f"cuda {op} n=2^26 seed={seed}")
        check(state_ct_cuda() == bytes(torch.cuda.get_rng_state()), f"cuda state after {op} n=2^26")

# a user generator on the GPU and state restore
g = vp()
ck(lib.ct_generator_create(CUDA, 0, C.byref(g)), "cuda generator")
ck(lib.ct_generator_manual_seed(g, 123), "seed")
tg = torch.Generator(device="cuda")
tg.manual_seed(123)
for n in (5, 4096):
    check(ct_run("randn", torch.float32, n, 0, 0, CUDA, g) == torch_run("randn", torch.float32, n, 0, 0, gen=tg),
          f"cuda user generator randn n={n}")
check(state_gen(g) == bytes(tg.get_state()), "user generator state")
lib.ct_generator_release(g)
lib.ct_generator_release(cpu_gen)

print("ctorch CPU normal draws vs torch.cuda, (max ulp, max |cpu - cuda| / std) per dtype:",
      {str(k): v for k, v in max_ulp.items()})
if golden_path:
    # the golden sequence: each case starts from a fresh seed on a fresh generator, so write
    # them again that way (the interleaved sequence above is not what the CPU test replays)
    golden = []
    for seed in (42, 67280421310721):
        for n in (7, 1000, (1 << 20) + 3):
            for op, dt, a, b in SEQ:
                tg = torch.Generator(device="cuda")
                tg.manual_seed(seed)
                theirs = torch_run(op, dt, n, a, b, gen=tg)
                isz = torch.empty(0, dtype=dt).element_size()
                idx = list(range(min(n, 40)))
                if n > 40:
                    rs = np.random.RandomState(n)
                    idx += sorted(set(rs.randint(40, n, size=24).tolist())) + list(range(n - 8, n))
                off = int.from_bytes(bytes(tg.get_state())[8:16], "little")
                vals = " ".join(f"{i}:{theirs[i * isz:(i + 1) * isz].hex()}" for i in idx)
                golden.append(f"{op} {DT[dt]} {n} {seed} {a!r} {b!r} {off} {len(idx)} {vals}")
    with open(golden_path, "w") as f:
        f.write("# torch.cuda's values (" + torch.__version__ + ", " + torch.cuda.get_device_name(0) +
                "): op dtype numel seed a b offset_after count index:little-endian-hex...\n")
        f.write("\n".join(golden) + "\n")
    print("golden vectors:", len(golden), "cases ->", golden_path)
tally.exit()
