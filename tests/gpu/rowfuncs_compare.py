# ctorch's row functions (section 32) against torch.cuda in the same run (issue 21): the same
# inputs (made by torch, copied into ctorch), softmax / log_softmax (dims, dtype=, -inf and NaN
# rows, long rows), logsumexp, var / std / var_mean / std_mean (corrections, keepdim, complex),
# linalg.matrix_norm (1, -1, inf, -inf, "fro") and layer_norm (weight, bias, none) for float32,
# float64, float16 and bfloat16, on the GPU and on ctorch's CPU; results within each dtype's
# tolerance of torch's (NaN where torch has NaN, the same infinities).
#   python3 tests/gpu/rowfuncs_compare.py gpu_artifacts/libctorch.so
import ctypes as C
import math
import sys

import torch

from ctlib import CPU, CUDA, P, Ctorch, Tally, i32, i64, vp

f64 = C.c_double
ct = Ctorch(sys.argv[1], {
    "ct_softmax": [vp, i32, i32, P(vp)], "ct_log_softmax": [vp, i32, i32, P(vp)],
    "ct_logsumexp": [vp, P(i64), i32, i32, P(vp)],
    "ct_var": [vp, P(i64), i32, f64, i32, P(vp)], "ct_std": [vp, P(i64), i32, f64, i32, P(vp)],
    "ct_var_mean": [vp, P(i64), i32, f64, i32, P(vp), P(vp)], "ct_std_mean": [vp, P(i64), i32, f64, i32, P(vp), P(vp)],
    "ct_matrix_norm": [vp, f64, i32, i32, i32, P(vp)], "ct_matrix_norm_str": [vp, C.c_char_p, i32, i32, i32, P(vp)],
    "ct_layer_norm": [vp, P(i64), i32, vp, vp, f64, P(vp)],
    "ct_transpose": [vp, i32, i32, P(vp)], "ct_slice": [vp, i32, i64, i64, i64, P(vp)],
    "ct_permute": [vp, P(i64), i32, P(vp)],
})
lib, ck, to_ct = ct.lib, ct.ck, ct.to_ct
tally = Tally("rowfuncs_compare")
UNDEF = -1
TOL = {torch.float64: 1e-10, torch.float32: 1e-5, torch.float16: 2e-3, torch.bfloat16: 1.6e-2,
       torch.complex64: 1e-5, torch.complex128: 1e-10}
DEVS = ((CUDA, "cuda"), (CPU, "cpu"))


def dims_arg(dims):
    return (i64 * max(len(dims), 1))(*dims), len(dims)


def compare(what, got_h, want, tol):
    ct.compare(tally, what, got_h, want, tol)  # tests/gpu/ctlib.py


gen = torch.Generator(device="cuda").manual_seed(0)


def randn(shape, dt):
    return (torch.randn(shape, device="cuda", generator=gen) * 3).to(dt)


FLOATS = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
# softmax / log_softmax
for dt in FLOATS:
    for shape, dim in (((8, 1000), -1), ((64, 1000), 0), ((3, 4, 5), 1), ((2, 70000), 1), ((4097, 3), 0),
                       ((5, 1), 1), ((0, 4), 1), ((), 0)):
        x = randn(shape, dt)
        if len(shape) == 2 and shape[0] >= 2 and shape[1] >= 2:
            x[0].fill_(-math.inf)  # a -inf row (dim -1) / the first row of every column (dim 0)
            x[1, 0] = math.nan
        for name, f in (("softmax", torch.softmax), ("log_softmax", torch.log_softmax)):
            for out_dt in (None, torch.float64 if dt == torch.float64 else torch.float32):
                want = f(x, dim, dtype=out_dt)
                for dev, dn in DEVS:
                    h, out = to_ct(x, dev), vp()
                    ck(getattr(lib, "ct_" + name)(h, dim, ct.dt[out_dt] if out_dt else UNDEF, C.byref(out)), name)
                    lib.ct_tensor_release(h)
                    compare(f"{name} {shape} dim {dim} {dt} dtype={out_dt} {dn}", out, want, TOL[out_dt or dt])

# logsumexp, var, std, var_mean, std_mean
for dt in FLOATS + (torch.complex64,):
    for shape, dims in (((3, 4, 5), (1,)), ((3, 4, 5), (0, 2)), ((3, 4, 5), ()), ((2, 70000), (1,)), ((64, 1000), (0,))):
        x = randn(shape, dt) if not dt.is_complex else torch.complex(randn(shape, torch.float32), randn(shape, torch.float32))
        d, nd = dims_arg(dims)
        for keep in (False, True):
            if not dt.is_complex:
                want = torch.logsumexp(x, dim=dims if dims else tuple(range(x.dim())), keepdim=keep)
                for dev, dn in DEVS:
                    h, out = to_ct(x, dev), vp()
                    ck(lib.ct_logsumexp(h, d, nd, keep, C.byref(out)), "logsumexp")
                    lib.ct_tensor_release(h)
                    compare(f"logsumexp {shape} {dims} keep={keep} {dt} {dn}", out, want, TOL[dt] * 4)
            for corr in (0, 1, 2.5):
                tdims = dims if dims else None
                for name in ("var", "std"):
                    want = getattr(torch, name)(x, dim=tdims, correction=corr, keepdim=keep)
                    wm = getattr(torch, name + "_mean")(x, dim=tdims, correction=corr, keepdim=keep)
                    for dev, dn in DEVS:
                        h, out, o1, o2 = to_ct(x, dev), vp(), vp(), vp()
                        ck(getattr(lib, "ct_" + name)(h, d, nd, corr, keep, C.byref(out)), name)
                        ck(getattr(lib, f"ct_{name}_mean")(h, d, nd, corr, keep, C.byref(o1), C.byref(o2)), name + "_mean")
                        lib.ct_tensor_release(h)
                        what = f"{name} {shape} {dims} corr {corr} keep={keep} {dt} {dn}"
                        compare(what, out, want, TOL[dt] * 4)
                        compare(what + " (_mean's first)", o1, wm[0], TOL[dt] * 4)
                        compare(what + " (_mean's mean)", o2, wm[1], TOL[dt] * 4)

# var / std / var_mean of views, read in place on CUDA (Note [var in place]): transposed, every
# other column, permuted; over each dim and pairs of dims
for dt in FLOATS:
    b2, b3 = randn((96, 130), dt), randn((6, 40, 33), dt)
    for lay, x, make, tv, dim_sets in (
            ("transposed", b2, lambda h, o: lib.ct_transpose(h, 0, 1, o), b2.t(), ((1,), (0,), (0, 1))),
            ("slice2", b2, lambda h, o: lib.ct_slice(h, 1, 0, 130, 2, o), b2[:, ::2], ((1,), (0,), (0, 1))),
            ("permute3d", b3, lambda h, o: lib.ct_permute(h, (i64 * 3)(2, 0, 1), 3, o), b3.permute(2, 0, 1),
             ((1,), (0,), (2,), (0, 2), (1, 2)))):
        for dims in dim_sets:
            d, nd = dims_arg(dims)
            for name in ("var", "std"):
                want = getattr(torch, name)(tv, dim=dims, correction=1, keepdim=False)
                wm = getattr(torch, name + "_mean")(tv, dim=dims, correction=0, keepdim=True)
                for dev, dn in DEVS:
                    h0, h, out, o1, o2 = to_ct(x, dev), vp(), vp(), vp(), vp()
                    ck(make(h0, C.byref(h)), lay)
                    ck(getattr(lib, "ct_" + name)(h, d, nd, 1.0, 0, C.byref(out)), name)
                    ck(getattr(lib, f"ct_{name}_mean")(h, d, nd, 0.0, 1, C.byref(o1), C.byref(o2)), name + "_mean")
                    lib.ct_tensor_release(h)
                    lib.ct_tensor_release(h0)
                    what = f"{name} of {lay} {tuple(tv.shape)} dims {dims} {dt} {dn}"
                    compare(what, out, want, TOL[dt] * 4)
                    compare(what + " (_mean's first, keepdim)", o1, wm[0], TOL[dt] * 4)
                    compare(what + " (_mean's mean, keepdim)", o2, wm[1], TOL[dt] * 4)

# linalg.matrix_norm
for dt in (torch.float32, torch.float64, torch.complex64, torch.complex128):
    for shape, dims in (((5, 7), (0, 1)), ((3, 5, 7), (-2, -1)), ((3, 5, 7), (2, 0)), ((64, 1000), (1, 0))):
        x = randn(shape, dt) if not dt.is_complex else torch.complex(randn(shape, torch.float64), randn(shape, torch.float64)).to(dt)
        for ordv in (1, -1, math.inf, -math.inf, "fro"):
            for keep in (False, True):
                want = torch.linalg.matrix_norm(x, ord=ordv, dim=dims, keepdim=keep)
                for dev, dn in DEVS:
                    h, out = to_ct(x, dev), vp()
                    if ordv == "fro":
                        ck(lib.ct_matrix_norm_str(h, b"fro", dims[0], dims[1], keep, C.byref(out)), "matrix_norm_str")
                    else:
                        ck(lib.ct_matrix_norm(h, float(ordv), dims[0], dims[1], keep, C.byref(out)), "matrix_norm")
                    lib.ct_tensor_release(h)
                    compare(f"matrix_norm {shape} {dims} ord {ordv} keep={keep} {dt} {dn}", out, want, TOL[dt] * 8)

# layer_norm
for dt in FLOATS:
    for shape, ns in (((8192, 64), (64,)), ((64, 1000), (1000,)), ((2, 3, 4), (3, 4)), ((3, 70000), (70000,)), ((0, 5), (5,))):
        x = randn(shape, dt)
        w, b = randn(ns, dt), randn(ns, dt)
        nsa, nn = dims_arg(ns)
        for wi, bi in ((w, b), (None, None), (w, None), (None, b)):
            want = torch.nn.functional.layer_norm(x, ns, wi, bi, 1e-5)
            for dev, dn in DEVS:
                h, out = to_ct(x, dev), vp()
                hw = to_ct(wi, dev) if wi is not None else None
                hb = to_ct(bi, dev) if bi is not None else None
                ck(lib.ct_layer_norm(h, nsa, nn, hw, hb, 1e-5, C.byref(out)), "layer_norm")
                for t in (h, hw, hb):
                    if t is not None:
                        lib.ct_tensor_release(t)
                compare(f"layer_norm {shape} {ns} w={wi is not None} b={bi is not None} {dt} {dn}", out, want,
                        TOL[dt] * 8)

# messages: ctorch's errors carry torch's
for what, call, torch_call in (
        ("softmax of int64", lambda h, o: lib.ct_softmax(h, 0, UNDEF, o), lambda x: torch.softmax(x, 0)),
        ("var of int64", lambda h, o: lib.ct_var(h, None, 0, 1.0, 0, o), lambda x: torch.var(x)),
        ("layer_norm of int64", lambda h, o: lib.ct_layer_norm(h, (i64 * 1)(3), 1, None, None, 1e-5, o),
         lambda x: torch.nn.functional.layer_norm(x, (3,)))):
    x = torch.arange(6, device="cuda").reshape(2, 3)
    try:
        torch_call(x)
        msg = None
    except RuntimeError as e:
        msg = str(e).splitlines()[0]
    h, out = to_ct(x, CUDA), vp()
    st = call(h, C.byref(out))
    lib.ct_tensor_release(h)
    got = lib.ct_last_error_message().decode() if st else None
    tally.check(msg is not None and got is not None and msg in got, f"{what}: torch says {msg!r}, ctorch {got!r}")
x = torch.zeros(2, 3, device="cuda")
try:
    torch.nn.functional.layer_norm(x, (4,))
    msg = None
except RuntimeError as e:
    msg = str(e)
h, out = to_ct(x, CUDA), vp()
st = lib.ct_layer_norm(h, (i64 * 1)(4), 1, None, None, 1e-5, C.byref(out))
lib.ct_tensor_release(h)
got = lib.ct_last_error_message().decode() if st else None
tally.check(msg is not None and got is not None and msg in got, f"layer_norm shape: torch says {msg!r}, ctorch {got!r}")
tally.exit()
