# ctorch's elementwise functions (section 31, and ct_unary's isnan/isinf/isfinite/erf/silu)
# against torch.cuda in the same run (issue 21): the same inputs (made by torch with NaN, +-inf
# and -0.0 among them, copied into ctorch) for float32, float64, float16 and bfloat16 (and the
# integer and complex dtypes where the op takes them), contiguous and transposed, on the GPU and
# on ctorch's CPU: exact for the exact ops (predicates, nan_to_num, clamp, where, isclose),
# within a few units of the dtype's precision for the transcendental ones (erf, silu, gelu),
# lerp, addcmul and addcdiv; bad input gives torch's message.
#   python3 tests/gpu/ewfuncs_compare.py gpu_artifacts/libctorch.so
import ctypes as C
import math
import sys

import torch
import torch.nn.functional as F

from ctlib import CPU, CUDA, P, Ctorch, Tally, abi_enum, i32, i64, vp

f64 = C.c_double
ct = Ctorch(sys.argv[1], {
    "ct_unary": [i32, vp, P(vp)],
    "ct_gelu": [vp, C.c_char_p, P(vp)],
    "ct_nan_to_num": [vp, i32, f64, i32, f64, i32, f64, P(vp)],
    "ct_clamp_tensor": [vp, vp, vp, P(vp)],
    "ct_lerp": [vp, vp, vp, P(vp)], "ct_lerp_scalar": [vp, vp, f64, P(vp)],
    "ct_addcmul": [vp, vp, vp, f64, P(vp)], "ct_addcdiv": [vp, vp, vp, f64, P(vp)],
    "ct_where_scalar_f": [vp, vp, f64, i32, P(vp)], "ct_where_scalar_i": [vp, vp, i64, i32, P(vp)],
    "ct_where_scalars_f": [vp, f64, f64, P(vp)], "ct_where_scalars_i": [vp, i64, i64, P(vp)],
    "ct_isclose": [vp, vp, f64, f64, i32, P(vp)], "ct_allclose": [vp, vp, f64, f64, i32, P(i32)],
})
lib, ck, to_ct = ct.lib, ct.ck, ct.to_ct
U = abi_enum("unary_op")
tally = Tally("ewfuncs_compare")
ULP = {torch.float64: 1e-14, torch.float32: 2e-6, torch.float16: 1e-3, torch.bfloat16: 8e-3,
       torch.complex64: 2e-6, torch.complex128: 1e-14}
DEVS = ((CUDA, "cuda"), (CPU, "cpu"))
FLOATS = (torch.float32, torch.float64, torch.float16, torch.bfloat16)


def compare(what, got_h, want, tol):
    ct.compare(tally, what, got_h, want, tol)  # tests/gpu/ctlib.py


gen = torch.Generator(device="cuda").manual_seed(0)


def sample(shape, dt, special=True):
    x = torch.randn(shape, device="cuda", generator=gen) * 3
    if special and x.numel() >= 8:
        flat = x.view(-1)
        flat[:5] = torch.tensor([math.nan, math.inf, -math.inf, -0.0, 0.0])
    return x.to(dt)


def layouts(x):
    yield "contiguous", x
    if x.dim() == 2:
        yield "transposed", x.t()


def run1(name, f, args):
    """ctorch's f(*handles, out) on each device: (device name, handle) pairs"""
    for dev, dn in DEVS:
        hs = [to_ct(a, dev) if isinstance(a, torch.Tensor) else a for a in args]
        out = vp()
        ck(f(*hs, C.byref(out)), name)
        for a, h in zip(args, hs):
            if isinstance(a, torch.Tensor):
                lib.ct_tensor_release(h)
        yield dn, out


def message(f, args, torch_call):
    try:
        torch_call()
        tmsg = None
    except Exception as e:  # noqa: BLE001 - torch raises RuntimeError, TypeError, ...
        tmsg = str(e).split("\n")[0]
    hs = [to_ct(a, CUDA) if isinstance(a, torch.Tensor) else a for a in args]
    out = vp()
    st = f(*hs, C.byref(out))
    for a, h in zip(args, hs):
        if isinstance(a, torch.Tensor):
            lib.ct_tensor_release(h)
    got = lib.ct_last_error_message().decode() if st else None
    if not st:
        lib.ct_tensor_release(out)
    return tmsg, got


def expect_message(what, f, args, torch_call):
    tmsg, got = message(f, args, torch_call)
    # torch names its CPU and CUDA kernels apart ("erf_cuda"); ctorch names the op once
    norm = (tmsg or "").replace("_cuda", "").replace("_vml_cpu", "").replace("CUDAKernelImpl", "KernelImpl")
    tally.check(tmsg is not None and got is not None and (tmsg in got or norm in got),
                f"{what}: torch says {tmsg!r}, ctorch {got!r}")


# ---- table ops
for dt in FLOATS + (torch.complex64,):
    for shape in ((4096,), (65, 33)):
        for lay, x in layouts(sample(shape, dt)):
            for op, ref, tol in (("CT_ISNAN", torch.isnan, 0), ("CT_ISINF", torch.isinf, 0),
                                 ("CT_ISFINITE", torch.isfinite, 0), ("CT_ERF", torch.erf, 4),
                                 ("CT_SILU", F.silu, 4)):
                if dt.is_complex and op == "CT_ERF":
                    continue
                want = ref(x)
                for dn, out in run1(op, lambda h, o, op=op: lib.ct_unary(U[op], h, o), [x]):
                    compare(f"{op} {shape} {lay} {dt} {dn}", out, want, tol * ULP[dt])
for dt in (torch.int32, torch.uint8, torch.bool):
    x = torch.randint(0, 2, (1000,), device="cuda").to(dt)
    for op, ref in (("CT_ISNAN", torch.isnan), ("CT_ISINF", torch.isinf), ("CT_ISFINITE", torch.isfinite),
                    ("CT_ERF", torch.erf)):
        for dn, out in run1(op, lambda h, o, op=op: lib.ct_unary(U[op], h, o), [x]):
            compare(f"{op} {dt} {dn}", out, ref(x), ULP[torch.float32] * 4)
x = torch.ones(3, dtype=torch.int64, device="cuda")
expect_message("silu(int64)", lambda h, o: lib.ct_unary(U["CT_SILU"], h, o), [x], lambda: F.silu(x))
z = torch.ones(3, dtype=torch.complex64, device="cuda")
expect_message("erf(complex64)", lambda h, o: lib.ct_unary(U["CT_ERF"], h, o), [z], lambda: torch.erf(z))

# ---- gelu, nan_to_num
for dt in FLOATS:
    for lay, x in layouts(sample((257, 31), dt)):
        for approx in ("none", "tanh"):
            want = F.gelu(x, approximate=approx)
            for dn, out in run1("gelu", lambda h, o, a=approx: lib.ct_gelu(h, a.encode(), o), [x]):
                compare(f"gelu {approx} {lay} {dt} {dn}", out, want, 4 * ULP[dt])
        for args in ((None, None, None), (1.5, None, -2.0), (0.0, 1e10, -1e10)):
            want = torch.nan_to_num(x, *args)
            flat = [v for a in args for v in ((0, 0.0) if a is None else (1, a))]
            for dn, out in run1("nan_to_num", lambda h, o, fl=flat: lib.ct_nan_to_num(h, *fl, o), [x]):
                compare(f"nan_to_num {args} {lay} {dt} {dn}", out, want, 0)
x = sample((100,), torch.float32)
expect_message("gelu approximate", lambda h, o: lib.ct_gelu(h, b"erf", o), [x], lambda: F.gelu(x, approximate="erf"))
xi = torch.ones(3, dtype=torch.int64, device="cuda")
expect_message("gelu(int64)", lambda h, o: lib.ct_gelu(h, b"none", o), [xi], lambda: F.gelu(xi))

# ---- clamp with tensors: min broadcast along rows, max along columns
def bound(shape, dt, special, shift):
    if special:
        return sample(shape, dt, True) + shift
    return torch.randint(-20 + 20 * shift, 20 * shift, shape, device="cuda").to(dt)


for dt in FLOATS + (torch.int32, torch.int64, torch.uint8):
    special = dt.is_floating_point
    x = sample((64, 96), dt, special) if special else torch.randint(0, 50, (64, 96), device="cuda").to(dt)
    for lay, xv in layouts(x):
        lo = bound((xv.shape[1],), dt, special, 0)
        hi = bound((xv.shape[0], 1), dt, special, 1)
        for name, a, b in (("both", lo, hi), ("min", lo, None), ("max", None, hi)):
            want = torch.clamp(xv, min=a, max=b)
            for dev, dn in DEVS:
                hx = to_ct(xv, dev)
                ha = to_ct(a, dev) if a is not None else None
                hb = to_ct(b, dev) if b is not None else None
                out = vp()
                ck(lib.ct_clamp_tensor(hx, ha, hb, C.byref(out)), "clamp")
                for h in (hx, ha, hb):
                    if h is not None:
                        lib.ct_tensor_release(h)
                compare(f"clamp {name} {lay} {dt} {dn}", out, want, 0)
xf = sample((10,), torch.float32)
expect_message("clamp(None, None)", lambda h, o: lib.ct_clamp_tensor(h, None, None, o), [xf], lambda: torch.clamp(xf))

# ---- lerp, addcmul, addcdiv
for dt in FLOATS + (torch.complex64,):
    for lay, s in layouts(sample((128, 65), dt, False)):
        e = sample(tuple(s.shape), dt, False)
        w = torch.rand(tuple(s.shape), device="cuda", generator=gen).to(dt) * 1.5 - 0.25
        for dn, out in run1("lerp", lib.ct_lerp, [s, e, w]):
            compare(f"lerp tensor {lay} {dt} {dn}", out, torch.lerp(s, e, w), 4 * ULP[dt])
        for wv in (0.0, 0.3, 0.75, 1.0):
            for dn, out in run1("lerp", lambda a, b, o, wv=wv: lib.ct_lerp_scalar(a, b, wv, o), [s, e]):
                compare(f"lerp {wv} {lay} {dt} {dn}", out, torch.lerp(s, e, wv), 4 * ULP[dt])
        for v in (1.0, -0.5):
            for dn, out in run1("addcmul", lambda a, b, c, o, v=v: lib.ct_addcmul(a, b, c, v, o), [s, e, w]):
                compare(f"addcmul {v} {lay} {dt} {dn}", out, torch.addcmul(s, e, w, value=v), 4 * ULP[dt])
            for dn, out in run1("addcdiv", lambda a, b, c, o, v=v: lib.ct_addcdiv(a, b, c, v, o), [s, e, w]):
                compare(f"addcdiv {v} {lay} {dt} {dn}", out, torch.addcdiv(s, e, w, value=v), 8 * ULP[dt])
for dt in (torch.int32, torch.int8):
    a = torch.randint(-100, 100, (1000,), device="cuda").to(dt)
    for dn, out in run1("addcmul", lambda x, y, z, o: lib.ct_addcmul(x, y, z, 3.0, o), [a, a, a]):
        compare(f"addcmul {dt} {dn}", out, torch.addcmul(a, a, a, value=3), 0)
s32, e64 = sample((4,), torch.float32), sample((4,), torch.float64)
expect_message("lerp dtypes", lambda a, b, o: lib.ct_lerp_scalar(a, b, 0.5, o), [s32, e64], lambda: torch.lerp(s32, e64, 0.5))
ai = torch.ones(3, dtype=torch.int64, device="cuda")
expect_message("addcdiv ints", lambda a, b, c, o: lib.ct_addcdiv(a, b, c, 1.0, o), [s32[:3], ai, ai],
               lambda: torch.addcdiv(s32[:3], ai, ai))

# ---- where with scalars
cond = torch.rand((33, 65), device="cuda", generator=gen) > 0.5
for dt in FLOATS + (torch.int32, torch.int64, torch.uint8, torch.bool):
    x = sample((33, 65), dt) if dt.is_floating_point else torch.randint(0, 2, (33, 65), device="cuda").to(dt)
    for lay, (c, xv) in (("contiguous", (cond, x)), ("transposed", (cond.t(), x.t()))):
        for s, fn in ((2.5, lib.ct_where_scalar_f), (-3, lib.ct_where_scalar_i)):
            for rev in (0, 1):
                want = torch.where(c, s, xv) if rev else torch.where(c, xv, s)
                for dn, out in run1("where", lambda a, b, o, s=s, fn=fn, rev=rev: fn(a, b, s, rev, o), [c, xv]):
                    compare(f"where scalar {s} rev {rev} {lay} {dt} {dn}", out, want, 0)
for dn, out in run1("where", lambda a, o: lib.ct_where_scalars_f(a, 1.5, -0.25, o), [cond]):
    compare(f"where scalars f {dn}", out, torch.where(cond, 1.5, -0.25), 0)
for dn, out in run1("where", lambda a, o: lib.ct_where_scalars_i(a, 7, -8, o), [cond]):
    compare(f"where scalars i {dn}", out, torch.where(cond, 7, -8), 0)

# ---- isclose, allclose
for dt in FLOATS + (torch.int32, torch.int64, torch.bool, torch.complex64):
    if dt.is_floating_point or dt.is_complex:
        a = sample((200, 40), dt)
        b = (a.to(torch.complex128 if dt.is_complex else torch.float64) *
             (1 + torch.randn((200, 40), device="cuda", generator=gen) * 1e-3)).to(dt)
        b.view(-1)[10:15] = a.view(-1)[10:15]
    else:
        a = torch.randint(-100, 100, (200, 40), device="cuda").to(dt)
        b = a + torch.randint(-3, 4, (200, 40), device="cuda").to(dt) if dt != torch.bool else ~a
    for rtol, atol, eqn in ((1e-5, 1e-8, False), (1e-3, 0.0, True), (0.0, 1.0, False), (0.05, 0.5, True)):
        if dt.is_complex and eqn:
            continue
        want = torch.isclose(a, b, rtol, atol, eqn)
        for dn, out in run1("isclose", lambda x, y, o: lib.ct_isclose(x, y, rtol, atol, int(eqn), o), [a, b]):
            compare(f"isclose {rtol} {atol} {eqn} {dt} {dn}", out, want, 0)
        for dev, dn in DEVS:
            ha, hb, r = to_ct(a, dev), to_ct(b, dev), i32()
            ck(lib.ct_allclose(ha, hb, rtol, atol, int(eqn), C.byref(r)), "allclose")
            lib.ct_tensor_release(ha)
            lib.ct_tensor_release(hb)
            tally.check(bool(r.value) == torch.allclose(a, b, rtol, atol, eqn), f"allclose {rtol} {atol} {dt} {dn}")
a32, a64 = sample((3,), torch.float32), sample((3,), torch.float64)
expect_message("isclose dtypes", lambda x, y, o: lib.ct_isclose(x, y, 1e-5, 1e-8, 0, o), [a32, a64],
               lambda: torch.isclose(a32, a64))
expect_message("isclose rtol", lambda x, y, o: lib.ct_isclose(x, y, -1.0, 1e-8, 0, o), [a32, a32],
               lambda: torch.isclose(a32, a32, rtol=-1.0))
tally.exit()
