# ctorch's sorting and selection (ctorch.h section 29) against torch on the GPU in the same run
# (issue 21): the same random inputs (float32, float64, float16, bfloat16, int32, int64, uint8,
# bool where the op takes it; with NaN, inf and ties) through sort (stable), argsort, topk,
# kthvalue, unique (inverse, counts) and searchsorted (left, right, sorter, int32), on ctorch's
# CUDA and CPU devices, against torch.cuda: values exact; indices exact for stable sorts and for
# tie-free rows, otherwise checked to point at the right values.
#   python3 tests/gpu/sort_compare.py gpu_artifacts/libctorch.so
import ctypes as C
import sys

import torch

from ctlib import CPU, CUDA, P, Ctorch, Tally, i32, i64, vp

ct = Ctorch(sys.argv[1], {
    "ct_sort": [vp, i64, i32, i32, P(vp), P(vp)], "ct_argsort": [vp, i64, i32, i32, P(vp)],
    "ct_topk": [vp, i64, i64, i32, i32, P(vp), P(vp)], "ct_kthvalue": [vp, i64, i64, i32, P(vp), P(vp)],
    "ct_unique": [vp, i32, i32, i32, P(vp), P(vp), P(vp)],
    "ct_searchsorted": [vp, vp, i32, i32, C.c_char_p, vp, P(vp)],
})
lib, ck, to_ct, from_ct = ct.lib, ct.ck, ct.to_ct, ct.from_ct
tally = Tally("sort_compare")
g = torch.Generator(device="cuda").manual_seed(0)


def same_values(a, b):
    """equal shapes and values, NaN equal to NaN (-0.0 equal to 0.0)"""
    a, b = a.cpu(), b.cpu()
    if a.shape != b.shape:
        return False
    if a.is_floating_point():
        na, nb = torch.isnan(a), torch.isnan(b)
        return bool(torch.equal(na, nb) and torch.equal(a[~na], b[~nb]))
    return bool(torch.equal(a, b))


def make(dtype, shape, special=False):
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, device="cuda", generator=g).bool()
    if not dtype.is_floating_point:
        hi = 200 if dtype == torch.uint8 else 1000
        return torch.randint(0 if dtype == torch.uint8 else -hi, hi, shape, device="cuda", generator=g, dtype=dtype)
    x = torch.randn(shape, device="cuda", generator=g, dtype=torch.float32)
    if special:  # ties, NaN and infinities
        x = (x * 4).round() / 4 + 0.0  # + 0.0: no -0.0 (its order among zeros is the C suite's)
        flat = x.view(-1)
        n = flat.numel()
        idx = torch.randint(0, n, (max(n // 50, 1),), device="cuda", generator=g)
        flat[idx[0::3]] = float("nan")
        flat[idx[1::3]] = float("inf")
        flat[idx[2::3]] = float("-inf")
    return x.to(dtype)


def run2(fn, h, *args):
    a, b = vp(), vp()
    ck(fn(h, *args, C.byref(a), C.byref(b)), fn.__name__)
    return a, b


def release(*hs):
    for h in hs:
        lib.ct_tensor_release(h)


FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
INTS = [torch.int32, torch.int64, torch.uint8]
# block sort bounds (4096; 8192 for 1- and 2-byte keys) and past them
SHAPES = [((1 << 20) + 5,), (64, 1000), (37, 130), (4, 5, 6), (300, 4096), (5, 4097), (40, 8192), (5, 8193)]

for dtype in FLOATS + INTS + [torch.bool]:
    for shape in SHAPES:
        x = make(dtype, shape, special=dtype.is_floating_point)
        for dim in range(-len(shape), 0):
            for desc in (False, True):
                wv, wi = torch.sort(x, dim=dim, descending=desc, stable=True)
                for dev in (CUDA, CPU):
                    h = to_ct(x, dev)
                    v, i = run2(lib.ct_sort, h, dim, int(desc), 1)
                    a = vp()
                    ck(lib.ct_argsort(h, dim, int(desc), 1, C.byref(a)), "argsort")
                    what = f"sort {dtype} {shape} dim={dim} desc={desc} on {'cuda' if dev == CUDA else 'cpu'}"
                    tally.check(same_values(from_ct(v, dtype), wv), what + " values")
                    tally.check(torch.equal(from_ct(i, torch.int64), wi.cpu()), what + " indices")
                    tally.check(torch.equal(from_ct(a, torch.int64), wi.cpu()), what + " argsort")
                    release(h, v, i, a)

# topk and kthvalue: integer and floating dtypes
for dtype in FLOATS + INTS:
    for shape, ks in ((((1 << 20) + 5,), (1, 10, 1000)), ((64, 1000), (1, 10, 1000)), ((37, 130), (5, 130)),
                      ((300, 4096), (1, 10, 1000, 4095)), ((7, 1025), (1, 1024)), ((5, 4097), (10,)),
                      # the one-launch select's rows of 8192 (float64: opt-in shared memory), its
                      # longest rows (16384) and past them (the chunked kernels)
                      ((40, 8192), (10, 1000, 8191)), ((3, 16384), (10,)), ((3, 16385), (10,))):
        x = make(dtype, shape, special=dtype.is_floating_point)
        for k in ks:
            for largest in (True, False):
                wv, wi = torch.topk(x, k, dim=-1, largest=largest, sorted=True)
                got = []
                for dev in (CUDA, CPU):
                    h = to_ct(x, dev)
                    v, i = run2(lib.ct_topk, h, k, -1, int(largest), 1)
                    gv, gi = from_ct(v, dtype), from_ct(i, torch.int64)
                    what = f"topk {dtype} {shape} k={k} largest={largest} on {'cuda' if dev == CUDA else 'cpu'}"
                    tally.check(same_values(gv, wv), what + " values")
                    # ties may pick other positions: the indices must point at the values
                    tally.check(same_values(x.cpu().gather(-1, gi), wv), what + " indices")
                    got.append(gi)
                    release(h, v, i)
                # ctorch's own devices agree exactly (both are the stable sort's first k)
                tally.check(torch.equal(got[0], got[1]), f"topk {dtype} {shape} k={k} largest={largest} cuda == cpu")
        k = shape[-1] // 3 + 1
        wv, wi = torch.kthvalue(x.cpu().float() if dtype in (torch.float16, torch.bfloat16) else x, k, dim=-1)
        for dev in (CUDA, CPU):
            h = to_ct(x, dev)
            v, i = run2(lib.ct_kthvalue, h, k, -1, 0)
            gv, gi = from_ct(v, dtype), from_ct(i, torch.int64)
            what = f"kthvalue {dtype} {shape} k={k} on {'cuda' if dev == CUDA else 'cpu'}"
            tally.check(same_values(gv.float(), wv.float()), what + " values")
            tally.check(same_values(x.cpu().gather(-1, gi.unsqueeze(-1)).squeeze(-1).float(), wv.float()),
                        what + " indices")
            release(h, v, i)

# unique with inverse and counts (NaN-free: torch's CPU and CUDA kernels treat NaN alike, each
# distinct, but the test keeps to values both sort the same way)
for dtype in FLOATS + INTS + [torch.bool]:
    for shape in ((100000,), (64, 1000), (3, 0)):
        x = make(dtype, shape)
        if dtype.is_floating_point:
            x = ((x.float() * 8).round() + 0.0).to(dtype)
        wv, winv, wc = torch.unique(x, sorted=True, return_inverse=True, return_counts=True)
        for dev in (CUDA, CPU):
            h = to_ct(x, dev)
            v, inv, c = vp(), vp(), vp()
            ck(lib.ct_unique(h, 1, 1, 1, C.byref(v), C.byref(inv), C.byref(c)), "unique")
            what = f"unique {dtype} {shape} on {'cuda' if dev == CUDA else 'cpu'}"
            tally.check(same_values(from_ct(v, dtype), wv), what + " values")
            tally.check(torch.equal(from_ct(inv, torch.int64), winv.cpu()), what + " inverse")
            tally.check(torch.equal(from_ct(c, torch.int64), wc.cpu()), what + " counts")
            release(h, v, inv, c)

# searchsorted: 1-D and N-D boundaries, left/right, int32, a sorter
for dtype in [torch.float32, torch.float16, torch.int64]:
    seq1 = torch.sort(make(dtype, (1000,), special=False)).values
    vals = make(dtype, (50, 40))
    seqn = torch.sort(make(dtype, (50, 300)), dim=-1).values
    perm = torch.randperm(1000, device="cuda", generator=g)
    unsorted, sorter = seq1[perm], torch.argsort(seq1[perm], stable=True)
    for seq, srt, useq in ((seq1, None, seq1), (seqn, None, seqn), (seq1, sorter, unsorted)):
        for right in (False, True):
            for out_int32 in (False, True):
                want = torch.searchsorted(useq, vals, right=right, out_int32=out_int32, sorter=srt)
                for dev in (CUDA, CPU):
                    hs, hv = to_ct(useq, dev), to_ct(vals, dev)
                    hsrt = to_ct(srt, dev) if srt is not None else None
                    out = vp()
                    ck(lib.ct_searchsorted(hs, hv, int(out_int32), int(right), None, hsrt, C.byref(out)), "searchsorted")
                    got = from_ct(out, torch.int32 if out_int32 else torch.int64)
                    what = (f"searchsorted {dtype} seq{tuple(useq.shape)} sorter={srt is not None} right={right} "
                            f"int32={out_int32} on {'cuda' if dev == CUDA else 'cpu'}")
                    tally.check(torch.equal(got, want.cpu()), what)
                    release(hs, hv, out)
                    if hsrt is not None:
                        release(hsrt)

tally.exit()
