# ctorch's indexing ops (section 30 of ctorch.h) against torch on the GPU in the same run: the same
# inputs through index_select, gather, take, masked_fill, masked_select, nonzero and where(cond)
# on ctorch's CUDA and CPU devices and torch.cuda, over dtypes and views (transposed, sliced,
# expanded), large and small; every op copies, so every comparison is exact.
#   python3 tests/gpu/indexing_compare.py gpu_artifacts/libctorch.so
import ctypes as C
import sys

import torch

from ctlib import CPU, CUDA, P, Ctorch, Tally, i32, i64, vp

ct = Ctorch(sys.argv[1], {
    "ct_index_select": [vp, i64, vp, P(vp)], "ct_gather": [vp, i64, vp, P(vp)], "ct_take": [vp, vp, P(vp)],
    "ct_masked_fill": [vp, vp, C.c_double, P(vp)], "ct_masked_fill_": [vp, vp, C.c_double],
    "ct_masked_select": [vp, vp, P(vp)], "ct_nonzero": [vp, P(vp)], "ct_where_cond": [vp, P(vp), i32, P(i32)],
    "ct_transpose": [vp, i32, i32, P(vp)], "ct_scatter": [vp, i64, vp, vp, P(vp)],
    "ct_scatter_value": [vp, i64, vp, C.c_double, P(vp)], "ct_scatter_add": [vp, i64, vp, vp, P(vp)],
    "ct_index_add_": [vp, i64, vp, vp, C.c_double], "ct_index": [vp, P(vp), i32, P(vp)],
    "ct_index_put_": [vp, P(vp), i32, vp, i32], "ct_tensor_clone": [vp, P(vp)],
    "ct_tensor_strides": [vp, P(i64), i32, P(i32)],
})
lib, ck, to_ct, from_ct = ct.lib, ct.ck, ct.to_ct, ct.from_ct
tally = Tally("indexing_compare")
g = torch.Generator(device="cuda").manual_seed(0)
DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int64, torch.int32, torch.int8,
          torch.uint8, torch.bool, torch.complex64]


def rand(shape, dtype):
    x = torch.randn(shape, device="cuda", generator=g) * 10
    if dtype == torch.bool:
        return x > 0
    if dtype == torch.complex64:
        return torch.complex(x, torch.randn(shape, device="cuda", generator=g))
    return x.to(dtype)


def run(name, want, make_inputs, call):
    """call(handles..., out) on each ctorch device with the inputs make_inputs() gives (torch
    tensors, each made transposed in ctorch when its flag says so), compared with want exactly"""
    for dev in (CUDA, CPU):
        hs = []
        for t, transposed in make_inputs():
            if transposed:  # the same values as a transposed view: t.t() contiguous, transposed back
                h0, h = to_ct(t.t().contiguous(), dev), vp()
                ck(lib.ct_transpose(h0, 0, 1, C.byref(h)), "transpose")
                lib.ct_tensor_release(h0)
            else:
                h = to_ct(t, dev)
            hs.append(h)
        out = vp()
        ck(call(*hs, C.byref(out)), name)
        got = from_ct(out, want.dtype)
        ok = got.shape == want.shape and torch.equal(got, want.cpu())
        tally.check(ok, f"{name} on {'cuda' if dev == CUDA else 'cpu'}")
        lib.ct_tensor_release(out)
        for h in hs:
            lib.ct_tensor_release(h)


for dt in DTYPES:
    for shape, dim, transposed in (((64, 1000), 1, False), ((64, 1000), 0, True), ((1 << 20, 4), 0, False), ((5,), 0, False)):
        x = rand(shape, dt)
        n = x.shape[dim]
        idx = torch.randint(0, n, (max(n // 2, 1),), device="cuda", generator=g)
        run(f"index_select {dt} {shape} dim {dim}", torch.index_select(x, dim, idx),
            lambda: [(x, transposed), (idx, False)], lambda a, b, o: lib.ct_index_select(a, dim, b, o))
        idx32 = idx.to(torch.int32)
        run(f"index_select int32 index {dt} {shape}", torch.index_select(x, dim, idx32),
            lambda: [(x, transposed), (idx32, False)], lambda a, b, o: lib.ct_index_select(a, dim, b, o))
        gi = torch.randint(0, n, x.shape, device="cuda", generator=g)
        run(f"gather {dt} {shape} dim {dim}", torch.gather(x, dim, gi),
            lambda: [(x, transposed), (gi, transposed)], lambda a, b, o: lib.ct_gather(a, dim, b, o))
        ti = torch.randint(-x.numel(), x.numel(), (1000,), device="cuda", generator=g)
        run(f"take {dt} {shape}", torch.take(x, ti), lambda: [(x, transposed), (ti, False)],
            lambda a, b, o: lib.ct_take(a, b, o))
        m = torch.rand(shape, device="cuda", generator=g) > 0.5
        run(f"masked_select {dt} {shape}", torch.masked_select(x, m), lambda: [(x, transposed), (m, transposed)],
            lambda a, b, o: lib.ct_masked_select(a, b, o))
        if dt not in (torch.bool,):
            run(f"masked_fill {dt} {shape}", x.masked_fill(m, 3), lambda: [(x, transposed), (m, False)],
                lambda a, b, o: lib.ct_masked_fill(a, b, 3.0, o))
        run(f"nonzero {dt} {shape}", torch.nonzero(x), lambda: [(x, transposed)], lambda a, o: lib.ct_nonzero(a, o))
        # Note [nonzero's layout]: on CUDA, torch's strides too
        want = torch.nonzero(x)
        h, out = to_ct(x, CUDA), vp()
        ck(lib.ct_nonzero(h, C.byref(out)), "nonzero")
        st, nd = (i64 * 8)(), i32()
        ck(lib.ct_tensor_strides(out, st, 8, C.byref(nd)), "strides")
        got_st = tuple(st[i] for i in range(nd.value))
        tally.check(want.numel() == 0 or got_st == want.stride(),
                    f"nonzero {dt} {shape} strides {got_st}, torch {want.stride()}")
        lib.ct_tensor_release(out)
        lib.ct_tensor_release(h)

# the writing ops: scatter (indices distinct along dim, so the result is defined), scatter_add
# and index_add_ (repeated indices; float sums within a tolerance: atomics add in any order),
# advanced indexing and index_put_
def close(got, want, ref=None):
    """got within a tolerance of torch's want; for float16/bfloat16 sums with ref (the same sums
    in float64) given: ctorch's largest error against ref at most twice torch's own plus one
    rounding step (each library adds in its own order, rounding in half precision each time)"""
    if ref is not None and want.dtype in (torch.float16, torch.bfloat16):
        eps = torch.finfo(want.dtype).eps * float(ref.abs().max().clamp(min=1))
        err_ct = float((got.double() - ref.cpu()).abs().max()) if got.numel() else 0.0
        err_torch = float((want.cpu().double() - ref.cpu()).abs().max()) if want.numel() else 0.0
        return got.shape == want.shape and err_ct <= 2 * err_torch + eps
    if want.is_floating_point() or want.is_complex():
        tol = 1e-2 if want.dtype in (torch.float16, torch.bfloat16) else 1e-4
        return torch.allclose(got.to(torch.complex128 if want.is_complex() else torch.float64),
                              want.cpu().to(torch.complex128 if want.is_complex() else torch.float64), rtol=tol, atol=tol)
    return torch.equal(got, want.cpu())


def run_inplace(name, want, make_inputs, call, exact=True, ref=None):
    """call(handles...) writes into a clone of the first input on each ctorch device"""
    for dev in (CUDA, CPU):
        hs = [to_ct(t, dev) for t in make_inputs()]
        ck(call(*hs), name)
        got = from_ct(hs[0], want.dtype)
        ok = got.shape == want.shape and (torch.equal(got, want.cpu()) if exact else close(got, want, ref))
        tally.check(ok, f"{name} on {'cuda' if dev == CUDA else 'cpu'}")
        for h in hs:
            lib.ct_tensor_release(h)


for dt in DTYPES:
    for shape in ((64, 1000), (1 << 16, 8)):
        x = rand(shape, dt)
        src = rand(shape, dt)
        perm = torch.argsort(torch.rand(shape, device="cuda", generator=g), dim=0)  # distinct along dim 0
        run(f"scatter {dt} {shape}", x.scatter(0, perm, src), lambda: [(x, False), (perm, False), (src, False)],
            lambda a, b, c, o: lib.ct_scatter(a, 0, b, c, o))
        if dt != torch.bool:
            run(f"scatter value {dt} {shape}", x.scatter(0, perm[:2], 1.0), lambda: [(x, False), (perm[:2], False)],
                lambda a, b, o: lib.ct_scatter_value(a, 0, b, 1.0, o))
        if dt != torch.bool:  # torch has no bool scatter_add
            rep = torch.randint(0, shape[0], shape, device="cuda", generator=g)
            want = x.scatter_add(0, rep, src)
            ref = x.double().scatter_add(0, rep, src.double()) if dt in (torch.float16, torch.bfloat16) else None
            for dev in (CUDA, CPU):
                hx, hi, hs, out = to_ct(x, dev), to_ct(rep, dev), to_ct(src, dev), vp()
                ck(lib.ct_scatter_add(hx, 0, hi, hs, C.byref(out)), "scatter_add")
                tally.check(close(from_ct(out, want.dtype), want, ref), f"scatter_add {dt} {shape} on {'cuda' if dev == CUDA else 'cpu'}")
                for h in (hx, hi, hs, out):
                    lib.ct_tensor_release(h)
        if dt not in (torch.bool,):
            ia = torch.randint(0, shape[0], (shape[0] // 2,), device="cuda", generator=g)
            srca = rand((shape[0] // 2, shape[1]), dt)
            alpha = 1.0 if not (dt.is_floating_point or dt.is_complex) else 0.5
            run_inplace(f"index_add_ {dt} {shape}", x.clone().index_add_(0, ia, srca, alpha=alpha),
                        lambda: [x.clone(), ia, srca], lambda a, b, c: lib.ct_index_add_(a, 0, b, c, alpha), exact=False,
                        ref=(x.double().index_add_(0, ia, srca.double(), alpha=alpha)
                             if dt in (torch.float16, torch.bfloat16) else None))
        # advanced indexing: x[i, j] (adjacent), x[:, j], x[mask]; index_put_ with and without accumulate
        i0 = torch.randint(-shape[0], shape[0], (5, 7), device="cuda", generator=g)
        i1 = torch.randint(0, shape[1], (7,), device="cuda", generator=g)
        m = torch.rand(shape, device="cuda", generator=g) > 0.5
        for label, idx, want in (("x[i, j]", (i0, i1), x[i0, i1]), ("x[:, j]", (None, i1), x[:, i1]), ("x[mask]", (m,), x[m])):
            for dev in (CUDA, CPU):
                hx = to_ct(x, dev)
                his = [to_ct(t, dev) if t is not None else None for t in idx]
                arr, out = (vp * len(his))(*his), vp()
                ck(lib.ct_index(hx, arr, len(his), C.byref(out)), "index")
                got = from_ct(out, want.dtype)
                tally.check(got.shape == want.shape and torch.equal(got, want.cpu()), f"index {label} {dt} {shape} on {'cuda' if dev == CUDA else 'cpu'}")
                for h in [hx, out] + [h for h in his if h is not None]:
                    lib.ct_tensor_release(h)
        if dt != torch.bool:  # accumulate: repeated (i, j) pairs add up
            v = rand((5, 7), dt)
            wantp = x.clone().index_put_((i0, i1), v, accumulate=True)
            run_inplace(f"index_put_ accumulate {dt} {shape}", wantp, lambda: [x.clone(), v, i0, i1],
                        lambda a, hv, h0, h1: lib.ct_index_put_(a, (vp * 2)(h0, h1), 2, hv, 1), exact=False)
        wantm = x.clone().index_put_((m,), x[m].flip(0))  # a mask: every element written once
        run_inplace(f"index_put_ mask {dt} {shape}", wantm, lambda: [x.clone(), x[m].flip(0), m],
                    lambda a, hv, hm: lib.ct_index_put_(a, (vp * 1)(hm), 1, hv, 0))

# where(cond): the tuple of nonzero's columns
x = rand((30, 40, 5), torch.float32) > 0
want = torch.where(x)
for dev in (CUDA, CPU):
    h, outs, n = to_ct(x, dev), (vp * 3)(), i32()
    ck(lib.ct_where_cond(h, outs, 3, C.byref(n)), "where")
    ok = n.value == 3 and all(torch.equal(from_ct(outs[i], torch.int64), want[i].cpu()) for i in range(3))
    tally.check(ok, f"where(cond) on {'cuda' if dev == CUDA else 'cpu'}")
    for i in range(n.value):
        lib.ct_tensor_release(outs[i])
    lib.ct_tensor_release(h)
tally.exit()
