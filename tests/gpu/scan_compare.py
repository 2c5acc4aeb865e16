# ctorch's scans (ctorch.h section 28) against torch on the GPU in the same run (issue 21): the
# same random inputs through ct_cumsum, ct_cumprod, ct_cummax, ct_cummin and ct_logcumsumexp on
# ctorch's CUDA and CPU devices and through torch.cumsum ... on CUDA. Integer results, cummax and
# cummin (values and indices) must be equal; floating results within a tolerance of each
# precision (the order of additions differs: docs/differences.md). Shapes cover one long row,
# a few long rows, many short rows, outer dims with few and many lines; dtypes include
# float16/bfloat16, integers, bool, complex; inputs with NaN and infinities for cummax, cummin
# and logcumsumexp.
#   python3 tests/gpu/scan_compare.py gpu_artifacts/libctorch.so
import ctypes as C
import sys

import torch

from ctlib import CPU, CUDA, P, Ctorch, Tally, i32, i64, vp

ct = Ctorch(sys.argv[1], {
    "ct_cumsum": [vp, i64, i32, P(vp)], "ct_cumprod": [vp, i64, i32, P(vp)],
    "ct_cummax": [vp, i64, P(vp), P(vp)], "ct_cummin": [vp, i64, P(vp), P(vp)],
    "ct_logcumsumexp": [vp, i64, P(vp)],
})
lib, ck, to_ct, from_ct = ct.lib, ct.ck, ct.to_ct, ct.from_ct
tally = Tally("scan_compare")
g = torch.Generator(device="cuda").manual_seed(0)

SHAPES = [((100000,), 0), ((3, 70000), 1), ((20000, 3), 1), ((2000, 100), 1), ((2000, 100), 0),
          ((3000, 100), 0), ((64, 8192), 1), ((8, 30, 40), 1), ((8, 30, 40), -1), ((5,), 0), ((4, 0, 3), 1), ((), 0)]
# Floating results within TOL * scale: for cumsum scale is the running sum of |x| (a float sum's
# rounding grows with it, and a running sum can pass near zero), for cumprod and logcumsumexp the
# result's magnitude (at least 1) times the square root of the scanned length.
TOL = {torch.float16: 1e-2, torch.bfloat16: 5e-2, torch.float32: 1e-5, torch.float64: 1e-12,
       torch.complex64: 1e-5, torch.complex128: 1e-12}


def make(shape, dtype, op):
    """random inputs a scan of op keeps in range: products near 1, small integers"""
    if dtype == torch.bool:
        return torch.rand(shape, device="cuda", generator=g) < 0.5
    if not dtype.is_floating_point and not dtype.is_complex:
        hi = 3 if op == "cumprod" else 100
        return torch.randint(-hi, hi, shape, device="cuda", generator=g).to(dtype)
    real = torch.float64 if dtype.is_complex else dtype
    if op == "cumprod":
        x = 1 + (torch.rand(shape, device="cuda", generator=g, dtype=torch.float64) - 0.5) * 1e-3
    else:
        x = torch.randn(shape, device="cuda", generator=g, dtype=torch.float64)
    if op in ("cummax", "cummin", "logcumsumexp") and x.numel() > 10 and not dtype.is_complex:
        flat = x.view(-1)
        flat[7::997] = float("nan")
        flat[3::1009] = float("inf")
        flat[5::1013] = float("-inf")
        x = x.round(decimals=1)  # ties
    x = x.to(real)
    if dtype.is_complex:
        # cumprod: near the unit circle, as the real inputs stay near 1 (a product of randn
        # imaginary parts overflows, and inf in a complex product is NaN or inf by each library's
        # own rules)
        im = torch.randn(shape, device="cuda", generator=g, dtype=real)
        x = torch.complex(x, im * 1e-3 if op == "cumprod" else im).to(dtype)
    return x.to(dtype)


def run_ct(op, x, dim, dev, dtype_arg):
    h, out, idx = to_ct(x, dev), vp(), vp()
    try:
        if op in ("cumsum", "cumprod"):
            code = -1 if dtype_arg is None else ct.dt[dtype_arg]
            ck(getattr(lib, "ct_" + op)(h, dim, code, C.byref(out)), op)
        elif op in ("cummax", "cummin"):
            ck(getattr(lib, "ct_" + op)(h, dim, C.byref(out), C.byref(idx)), op)
        else:
            ck(lib.ct_logcumsumexp(h, dim, C.byref(out)), op)
        return out, (idx if idx.value else None)
    finally:
        lib.ct_tensor_release(h)


def compare(op, x, dim, dtype_arg=None):
    if op in ("cumsum", "cumprod"):
        want = getattr(torch, op)(x, dim, dtype=dtype_arg)
        want_idx = None
    elif op in ("cummax", "cummin"):
        want, want_idx = getattr(torch, op)(x, dim)
    else:
        want, want_idx = torch.logcumsumexp(x, dim), None
    for dev in (CUDA, CPU):
        what = f"{op} {tuple(x.shape)} {x.dtype} dim={dim} dtype={dtype_arg} {'cuda' if dev == CUDA else 'cpu'}"
        try:
            out, idx = run_ct(op, x, dim, dev, dtype_arg)
        except RuntimeError as e:
            tally.check(False, f"{what}: {e}")
            continue
        got = from_ct(out, want.dtype)
        lib.ct_tensor_release(out)
        w = want.cpu()
        ok = tuple(got.shape) == tuple(w.shape)
        if ok and w.numel():
            if not (w.dtype.is_floating_point or w.dtype.is_complex) or op in ("cummax", "cummin"):
                ok = torch.equal(got, w) or torch.equal(torch.nan_to_num(got.double()), torch.nan_to_num(w.double()))
                ok = ok and bool((got.double().isnan() == w.double().isnan()).all())
            else:
                # relative to the magnitude of the running values: float sums differ in order
                gd = got.to(torch.complex128 if w.dtype.is_complex else torch.float64)
                wd = w.to(gd.dtype)
                if op == "cumsum":
                    scale = torch.cumsum(x.to(w.dtype).cpu().to(gd.dtype).abs(), dim).clamp(min=1)
                else:  # rounding errors of n steps, as a random walk
                    n = x.shape[dim] if x.dim() else 1
                    scale = wd.abs().clamp(min=1) * max(1, n) ** 0.5
                diff = gd - wd
                if op == "logcumsumexp" and w.dtype.is_complex:
                    # a complex log is defined up to 2*pi*i: torch's CPU and CUDA kernels differ
                    # there themselves (ctorch gives torch's CPU value on both devices), so the
                    # imaginary parts are compared modulo 2*pi
                    im = torch.remainder(diff.imag + torch.pi, 2 * torch.pi) - torch.pi
                    diff = torch.complex(diff.real, im)
                close = (diff.abs() <= TOL[w.dtype] * scale) | (gd == wd)
                close |= gd.isnan() & wd.isnan()
                ok = bool(close.all())
        if idx is not None:
            gi = from_ct(idx, torch.int64)
            lib.ct_tensor_release(idx)
            ok = ok and torch.equal(gi, want_idx.cpu())
        tally.check(ok, what)


INT_DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.bool]
FLOAT_DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
for shape, dim in SHAPES:
    for dtype in INT_DTYPES + FLOAT_DTYPES + [torch.complex64, torch.complex128]:
        big = len(shape) > 0 and torch.Size(shape).numel() > 50000
        if big and dtype in (torch.int8, torch.int16, torch.uint8, torch.complex64):
            continue  # the long shapes once per kind of dtype
        for op in ("cumsum", "cumprod", "cummax", "cummin", "logcumsumexp"):
            if op in ("cummax", "cummin") and dtype.is_complex:
                continue
            if op == "logcumsumexp" and not (dtype.is_floating_point or dtype.is_complex):
                continue
            if dtype in (torch.float16, torch.bfloat16) and op in ("cumsum", "logcumsumexp") and big:
                continue  # half-precision partial sums of 10^5 terms: compared at the small shapes
            compare(op, make(shape, dtype, op), dim)
# dtype= casts first; integer sums wrap as torch's
x = make((200,), torch.float64, "cumsum") * 10
for dt in (torch.int32, torch.int64, torch.float32, torch.float16):
    compare("cumsum", x, 0, dt)
    compare("cumprod", make((50,), torch.float64, "cumprod"), 0, dt)
compare("cumsum", torch.full((10,), 2**62, dtype=torch.int64, device="cuda"), 0)
compare("cumprod", torch.full((70,), 3, dtype=torch.int64, device="cuda"), 0)
compare("cumsum", torch.full((10,), 2**30, dtype=torch.int32, device="cuda"), 0, torch.int32)
tally.exit()
