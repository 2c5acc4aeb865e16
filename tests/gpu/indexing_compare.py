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
    "ct_transpose": [vp, i32, i32, P(vp)],
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
