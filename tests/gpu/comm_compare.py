# ctorch's torch.cuda.comm (section 20 of capi/ctorch.h) against torch.cuda.comm on the same
# data, in the same process, on every device list the machine allows: with one GPU [0] and
# [0, 0] (the copy path, views, aliasing); with two or more also [0, 1], [1, 0], [1, 1, 0] and
# all GPUs (NCCL for broadcast and reduce_add, copies between GPUs for scatter and gather).
# For every function: shapes, dtypes, devices, values, which results alias the inputs, and
# the error messages of the cases PyTorch checks. Where PyTorch takes NCCL and NCCL refuses
# (a dtype NCCL lacks, such as int16) ctorch copies: docs/differences.md; checked as such.
# Prints PASS/FAIL lines and "comm_compare: N passed, N failed"; exits 1 on any failure.
#   python3 tests/gpu/comm_compare.py gpu_artifacts/libctorch.so
import ctypes as C
import sys
import traceback

import torch
import torch.cuda.comm as tcomm

from ctlib import CPU, CUDA, P, Ctorch, Tally, i32, i64, vp

ct = Ctorch(sys.argv[1], {
    "ct_cuda_comm_broadcast": [vp, P(i32), i32, P(vp)],
    "ct_cuda_comm_broadcast_out": [vp, P(vp), i32],
    "ct_cuda_comm_broadcast_coalesced": [P(vp), i32, P(i32), i32, i64, P(vp)],
    "ct_cuda_comm_reduce_add": [P(vp), i32, i32, P(vp)],
    "ct_cuda_comm_reduce_add_coalesced": [P(vp), i32, i32, i32, i64, P(vp)],
    "ct_cuda_comm_scatter": [vp, P(i32), i32, P(i64), i32, P(vp), P(vp), P(i32)],
    "ct_cuda_comm_scatter_out": [vp, P(vp), i32, i32, P(vp)],
    "ct_cuda_comm_gather": [P(vp), i32, i32, i32, i32, P(vp)],
    "ct_cuda_comm_gather_out": [P(vp), i32, vp, i32],
    "ct_tensor_device": [vp, P(i32), P(i32)],
    "ct_tensor_dtype": [vp, P(i32)],
    "ct_tensor_data_ptr": [vp, P(i64)],
    "ct_live_tensor_count": [P(i64)],
    "ct_cuda_synchronize": [i32],
    "ct_stream_create": [i32, i32, P(vp)],
    "ct_stream_release": [vp],
    "ct_transpose": [vp, i32, i32, P(vp)],
})
lib, ck = ct.lib, ct.ck
DTYPE_OF = {code: dt for dt, code in ct.dt.items()}
NGPU = torch.cuda.device_count()
tally = Tally("comm_compare", verbose=True)
check = tally.check
DEFAULT = 10485760

LISTS = [[0], [0, 0]]
if NGPU >= 2:
    LISTS += [[0, 1], [1, 0], [1, 1, 0]]
if NGPU >= 3:
    LISTS += [list(range(NGPU))]


# ---- ctorch helpers ------------------------------------------------------------------------

def handles(hs):
    return (vp * max(len(hs), 1))(*hs)


def ints(xs, typ=i32):
    return (typ * max(len(xs), 1))(*xs)


def release(*hs):
    for h in hs:
        if h:
            ck(lib.ct_tensor_release(h), "ct_tensor_release")


def to_ct(t):
    """t's values in a new ctorch tensor on t's device"""
    return ct.to_ct(t, CUDA if t.is_cuda else CPU, t.device.index if t.is_cuda else 0)


def ct_device(h):
    ty, ix = i32(), i32()
    ck(lib.ct_tensor_device(h, C.byref(ty), C.byref(ix)), "device")
    return torch.device("cuda", ix.value) if ty.value == CUDA else torch.device("cpu")


def ct_ptr(h):
    p = i64()
    ck(lib.ct_tensor_data_ptr(h, C.byref(p)), "data_ptr")
    return p.value


def from_ct(h):
    """(torch CPU tensor with h's values, h's device, h's data pointer)"""
    d = i32()
    ck(lib.ct_tensor_dtype(h, C.byref(d)), "dtype")
    return ct.from_ct(h, DTYPE_OF[d.value]), ct_device(h), ct_ptr(h)


def torch_view(t):
    """what torch.cuda.comm hands back for t: complex tensors as view_as_real"""
    return torch.view_as_real(t) if t.is_complex() else t


def same(what, h, ref, src_pairs=(), exact=True):
    """ctorch result h against torch's result ref: values (complex through view_as_real, as
    torch returns it), dtype, shape, device; src_pairs: (ctorch source handle, torch source)
    pairs: h aliases a source (same data pointer) exactly when ref does"""
    got, dev, ptr = from_ct(h)
    ok = dev == ref.device
    g = torch_view(got)
    r = ref.detach().cpu()
    ok = ok and g.dtype == r.dtype and g.shape == r.shape
    if ok and r.numel():
        ok = torch.equal(g, r) if exact or not r.is_floating_point() else torch.allclose(g, r, rtol=1e-5, atol=1e-5)
    for hs, ts in src_pairs:
        ok = ok and ((ptr == ct_ptr(hs)) == (ref.data_ptr() == ts.data_ptr()))
    check(ok, f"{what}: ctorch {tuple(g.shape)} {g.dtype} on {dev} vs torch {tuple(r.shape)} {r.dtype} on {ref.device}")


def torch_error(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001 (any error torch raises is the reference)
        return str(e).split("\n")[0]
    return None


def same_error(what, tf, cf, fragment=None):
    """torch call tf and ctorch call cf (a status) both fail; ctorch's message contains torch's
    first line (or, where the two print a value differently, fragment(torch's message))"""
    tm = torch_error(tf)
    st = cf()
    cm = lib.ct_last_error_message().decode() if st else ""
    want = fragment(tm) if (fragment and tm) else tm
    check(tm is not None and st != 0 and want in cm, f"error {what}: torch {tm!r}, ctorch {cm!r}")


def sync():
    for d in range(NGPU):
        torch.cuda.synchronize(d)
        ck(lib.ct_cuda_synchronize(d), "synchronize")


def data(shape, dtype, device, seed):
    g = torch.Generator().manual_seed(seed)
    if dtype.is_complex:
        t = torch.randn(shape, generator=g, dtype=dtype)
    elif dtype.is_floating_point:
        t = torch.randn(shape, generator=g).to(dtype)
    elif dtype == torch.bool:
        t = torch.randint(0, 2, shape, generator=g).bool()
    else:
        t = torch.randint(-50, 50, shape, generator=g).to(dtype)
    return t.to(device)


def cases(name):
    """runs a group; an exception is one failure (the traceback printed), the rest go on"""
    def wrap(f):
        before, after = i64(), i64()
        ck(lib.ct_live_tensor_count(C.byref(before)), "live")
        try:
            f()
        except Exception:  # noqa: BLE001
            traceback.print_exc()
            check(False, f"{name}: raised")
            return f
        ck(lib.ct_live_tensor_count(C.byref(after)), "live")
        check(after.value == before.value, f"{name}: no ctorch tensor left alive ({after.value - before.value})")
        return f
    return wrap


# ---- broadcast -----------------------------------------------------------------------------

def ct_broadcast(h, devices):
    outs = (vp * max(len(devices), 1))()
    st = lib.ct_cuda_comm_broadcast(h, ints(devices), len(devices), outs)
    return st, [outs[i] for i in range(len(devices))] if st == 0 else []


@cases("broadcast")
def _broadcast():
    sources = [("cuda:0", lambda t: t.to("cuda:0")), ("cpu", lambda t: t),
               ("cuda:0 transposed", lambda t: t.to("cuda:0").t())]
    if NGPU >= 2:
        sources.append(("cuda:1", lambda t: t.to("cuda:1")))
    for dtype in (torch.float32, torch.int64, torch.float16, torch.bool, torch.complex64, torch.int16):
        for sname, place in sources:
            src = place(data((3, 4), dtype, "cpu", 1))
            for devices in LISTS:
                what = f"broadcast {dtype} from {sname} to {devices}"
                h = to_ct(src) if src.is_contiguous() else None
                if h is None:  # the transposed case: ctorch's own transpose of the same values
                    hc = to_ct(src.t().contiguous())
                    h = vp()
                    ck(lib.ct_transpose(hc, 0, 1, C.byref(h)), "transpose")
                    release(hc)
                st, outs = ct_broadcast(h, devices)
                try:
                    ref = tcomm.broadcast(src, devices)
                except RuntimeError as e:
                    # torch took NCCL, which has no type for it: ctorch copies (docs/differences.md)
                    check("NCCL" in str(e) and st == 0, f"{what}: torch raised {str(e).splitlines()[0]!r}, "
                          f"ctorch {'copies' if st == 0 else 'failed'}")
                    for d, o in zip(devices, outs):
                        same(f"{what} (torch has no NCCL type for it)", o, torch_view(src.to(f"cuda:{d}")))
                    release(h, *outs)
                    continue
                ck(st, what)
                sync()
                for i, (o, r) in enumerate(zip(outs, ref)):
                    same(f"{what} [{i}]", o, r, [(h, torch_view(src))])
                release(h, *outs)
    t = data((2, 3), torch.float32, "cuda:0", 2)
    h = to_ct(t)
    same_error("broadcast negative device", lambda: tcomm.broadcast(t, [0, -1]), lambda: ct_broadcast(h, [0, -1])[0])
    # broadcast_out
    for devices in LISTS:
        for odt in (torch.float32, torch.float64):
            outs_t = [torch.zeros(2, 3, dtype=odt, device=f"cuda:{d}") for d in devices]
            outs_c = [to_ct(o) for o in outs_t]
            what = f"broadcast_out to {devices} as {odt}"
            st = lib.ct_cuda_comm_broadcast_out(h, handles(outs_c), len(outs_c))
            try:
                tcomm.broadcast(t, out=outs_t)
            except RuntimeError as e:
                # torch's NCCL path refuses a second dtype; ctorch converts (docs/differences.md)
                check("dtype" in str(e) and st == 0, f"{what}: torch raised {str(e).splitlines()[0]!r}")
                outs_t = [t.to(o.device, o.dtype) for o in outs_t]
            ck(st, what)
            sync()
            for i, (oc, ot) in enumerate(zip(outs_c, outs_t)):
                same(f"{what} [{i}]", oc, ot)
            release(*outs_c)
    cpu_out, wrong = torch.zeros(2, 3), torch.zeros(3, 2, device="cuda:0")
    hc, hw = to_ct(cpu_out), to_ct(wrong)
    same_error("broadcast_out to a CPU tensor", lambda: tcomm.broadcast(t, out=[wrong.new_zeros(2, 3), cpu_out]),
               lambda: lib.ct_cuda_comm_broadcast_out(h, handles([h, hc]), 2))
    same_error("broadcast_out shape", lambda: tcomm.broadcast(t, out=[wrong]),
               lambda: lib.ct_cuda_comm_broadcast_out(h, handles([hw]), 1))
    release(h, hc, hw)


@cases("broadcast_coalesced")
def _broadcast_coalesced():
    for devices in LISTS:
        src = devices[0]
        ts = [data((3, 4), torch.float32, f"cuda:{src}", 3), data((5,), torch.int64, f"cuda:{src}", 4),
              data((2,), torch.float32, f"cuda:{src}", 5), data((2, 2), torch.float16, f"cuda:{src}", 6)]
        hs = [to_ct(x) for x in ts]
        for buf in (8, 60, DEFAULT):
            what = f"broadcast_coalesced to {devices}, buffer {buf}"
            n, nd = len(ts), len(devices)
            outs = (vp * (n * nd))()
            ck(lib.ct_cuda_comm_broadcast_coalesced(handles(hs), n, ints(devices), nd, buf, outs), what)
            ref = tcomm.broadcast_coalesced(ts, devices, buf)
            sync()
            for d in range(nd):
                for i in range(n):
                    same(f"{what} [{d}][{i}]", outs[d * n + i], ref[d][i], [(hs[i], ts[i])])
            release(*outs)
        release(*hs)
    if NGPU >= 2:
        t = data((4,), torch.float32, "cuda:1", 7)
        h = to_ct(t)
        outs = (vp * 2)()
        same_error("broadcast_coalesced not on devices[0]", lambda: tcomm.broadcast_coalesced([t], [0, 1]),
                   lambda: lib.ct_cuda_comm_broadcast_coalesced(handles([h]), 1, ints([0, 1]), 2, 0, outs))
        release(h)


# ---- reduce_add ----------------------------------------------------------------------------

@cases("reduce_add")
def _reduce_add():
    for devices in LISTS:
        for dtype in (torch.float32, torch.float64, torch.int64, torch.float16):
            ins = [data((3, 5), dtype, f"cuda:{d}", 10 + i) for i, d in enumerate(devices)]
            hs = [to_ct(x) for x in ins]
            for dest in sorted(set(devices)) + [None]:
                what = f"reduce_add {dtype} on {devices} to {dest}"
                out = vp()
                ck(lib.ct_cuda_comm_reduce_add(handles(hs), len(hs), -1 if dest is None else dest, C.byref(out)), what)
                ref = tcomm.reduce_add(ins, dest)
                sync()
                # float16 rounds, and NCCL over three or more GPUs may add in another order
                same(what, out, ref, list(zip(hs, ins)), exact=dtype != torch.float16 and len(set(devices)) <= 2)
                release(out)
            release(*hs)
    x, y = data((2, 3), torch.float32, "cuda:0", 20), data((3, 3), torch.float32, "cuda:0", 21)
    hx, hy = to_ct(x), to_ct(y)
    out = vp()
    same_error("reduce_add sizes", lambda: tcomm.reduce_add([x, y], 0),
               lambda: lib.ct_cuda_comm_reduce_add(handles([hx, hy]), 2, 0, C.byref(out)))
    same_error("reduce_add destination", lambda: tcomm.reduce_add([x, x], 1),
               lambda: lib.ct_cuda_comm_reduce_add(handles([hx, hx]), 2, 1, C.byref(out)))
    release(hx, hy)
    # reduce_add_coalesced
    for devices in LISTS:
        rows = [[data((2, 3), torch.float32, f"cuda:{d}", 30 + r), data((4,), torch.int64, f"cuda:{d}", 40 + r),
                 data((3,), torch.float32, f"cuda:{d}", 50 + r)] for r, d in enumerate(devices)]
        hs = [to_ct(x) for row in rows for x in row]
        for buf in (8, DEFAULT):
            what = f"reduce_add_coalesced on {devices}, buffer {buf}"
            outs = (vp * 3)()
            ck(lib.ct_cuda_comm_reduce_add_coalesced(handles(hs), len(rows), 3, devices[0], buf, outs), what)
            ref = tcomm.reduce_add_coalesced(rows, devices[0], buf)
            sync()
            for i in range(3):
                same(f"{what} [{i}]", outs[i], ref[i])
            release(*outs)
        release(*hs)


# ---- scatter and gather --------------------------------------------------------------------

def ct_scatter(h, devices, chunks, dim, streams):
    outs, n = (vp * max(len(devices), 1))(), i32(-1)
    st = lib.ct_cuda_comm_scatter(h, ints(devices), len(devices), ints(chunks, i64) if chunks else None, dim,
                                  handles(streams) if streams else None, outs, C.byref(n))
    return st, [outs[i] for i in range(n.value)] if st == 0 else []


def new_streams(devices):
    """a torch stream and a ctorch stream per device (the ctorch handles to release)"""
    ts, cs = [], []
    for d in devices:
        ts.append(torch.cuda.Stream(device=d))
        s = vp()
        ck(lib.ct_stream_create(d, 0, C.byref(s)), "stream")
        cs.append(s)
    return ts, cs


@cases("scatter")
def _scatter():
    sources = ["cuda:0", "cpu"] + (["cuda:1"] if NGPU >= 2 else [])
    for sdev in sources:
        t = data((5, 4), torch.float32, sdev, 60)
        h = to_ct(t)
        for devices in LISTS:
            k = len(devices)
            for dim in (0, 1, -1):
                size = t.shape[dim]
                chunk_opts = [None]
                if k <= size:
                    chunk_opts.append([size - (k - 1)] + [1] * (k - 1))
                for chunks in chunk_opts:
                    for with_streams in (False, True):
                        what = f"scatter {sdev} [5, 4] to {devices} dim {dim} chunks {chunks} streams {with_streams}"
                        ts, cs = new_streams(devices) if with_streams else (None, None)
                        st, outs = ct_scatter(h, devices, chunks, dim, cs)
                        ck(st, what)
                        ref = tcomm.scatter(t, devices, chunks, dim, ts)
                        sync()
                        check(len(outs) == len(ref), f"{what}: {len(outs)} chunks, torch {len(ref)}")
                        for i, (o, r) in enumerate(zip(outs, ref)):
                            # a chunk on the source's device is a view: the same offset into it
                            got, dev, ptr = from_ct(o)
                            if r.device == t.device and t.is_cuda:
                                check(ptr - ct_ptr(h) == r.data_ptr() - t.data_ptr(), f"{what} [{i}] is a view")
                            same(f"{what} [{i}]", o, r)
                        release(*outs)
                        for s in cs or []:
                            ck(lib.ct_stream_release(s), "stream release")
            # scatter_out along dim 0 into outputs of the chunks' sizes, float64 for the last
            for devices in LISTS:
                k = len(devices)
                if k > 5:
                    continue
                sizes = [5 - (k - 1)] + [1] * (k - 1)
                outs_t = [torch.zeros(sz, 4, device=f"cuda:{d}", dtype=torch.float64 if i == k - 1 else torch.float32)
                          for i, (sz, d) in enumerate(zip(sizes, devices))]
                outs_c = [to_ct(o) for o in outs_t]
                ts, cs = new_streams(devices)
                what = f"scatter_out {sdev} to {devices}"
                ck(lib.ct_cuda_comm_scatter_out(h, handles(outs_c), k, 0, handles(cs)), what)
                tcomm.scatter(t, dim=0, streams=ts, out=outs_t)
                sync()
                for i, (oc, ot) in enumerate(zip(outs_c, outs_t)):
                    same(f"{what} [{i}]", oc, ot)
                release(*outs_c)
                for s in cs:
                    ck(lib.ct_stream_release(s), "stream release")
        release(h)
    # errors
    t = data((5, 4), torch.float32, "cuda:0", 61)
    h = to_ct(t)
    same_error("scatter chunk sizes sum", lambda: tcomm.scatter(t, [0, 0], [2, 2]),
               lambda: ct_scatter(h, [0, 0], [2, 2], 0, None)[0])
    same_error("scatter negative chunk size", lambda: tcomm.scatter(t, [0, 0], [-1, 6]),
               lambda: ct_scatter(h, [0, 0], [-1, 6], 0, None)[0])
    same_error("scatter dim", lambda: tcomm.scatter(t, [0], dim=2), lambda: ct_scatter(h, [0], None, 2, None)[0])
    same_error("scatter negative device", lambda: tcomm.scatter(t, [0, -1]),
               lambda: ct_scatter(h, [0, -1], None, 0, None)[0])
    same_error("scatter no devices", lambda: tcomm.scatter(t, []), lambda: ct_scatter(h, [], None, 0, None)[0])
    # a stream on cuda:0 for device 1 (torch prints the stream its way: compare around it)
    c = data((5, 4), torch.float32, "cpu", 62)
    hc = to_ct(c)
    ts, cs = new_streams([0])
    same_error("scatter stream device", lambda: tcomm.scatter(c, [1], streams=ts),
               lambda: ct_scatter(hc, [1], None, 0, cs)[0], fragment=lambda m: m[m.index(") to match"):] if ") to match" in m else m)
    same_error("scatter stream device (start)", lambda: tcomm.scatter(c, [1], streams=ts),
               lambda: ct_scatter(hc, [1], None, 0, cs)[0], fragment=lambda m: m[:m.index("(was")] if "(was" in m else m)
    if NGPU >= 2:
        o1 = torch.zeros(5, 4, device="cuda:1")
        ho1 = to_ct(o1)
        same_error("scatter_out stream device", lambda: tcomm.scatter(t, streams=ts, out=[o1]),
                   lambda: lib.ct_cuda_comm_scatter_out(h, handles([ho1]), 1, 0, handles(cs)),
                   fragment=lambda m: m[m.index(") to match"):] if ") to match" in m else m)
        release(ho1)
    for s in cs:
        ck(lib.ct_stream_release(s), "stream release")
    a, cpu_o, bad = torch.zeros(2, 4, device="cuda:0"), torch.zeros(3, 4), torch.zeros(2, 3, device="cuda:0")
    ha, hcpu, hbad = to_ct(a), to_ct(cpu_o), to_ct(bad)
    same_error("scatter_out no outputs", lambda: tcomm.scatter(t, out=[]),
               lambda: lib.ct_cuda_comm_scatter_out(h, None, 0, 0, None))
    same_error("scatter_out CPU output", lambda: tcomm.scatter(t, out=[a, cpu_o]),
               lambda: lib.ct_cuda_comm_scatter_out(h, handles([ha, hcpu]), 2, 0, None))
    same_error("scatter_out shape", lambda: tcomm.scatter(t, out=[bad, a]),
               lambda: lib.ct_cuda_comm_scatter_out(h, handles([hbad, ha]), 2, 0, None))
    same_error("scatter_out total", lambda: tcomm.scatter(t, out=[a, a]),
               lambda: lib.ct_cuda_comm_scatter_out(h, handles([ha, ha]), 2, 0, None))
    release(h, hc, ha, hcpu, hbad)


@cases("gather")
def _gather():
    for devices in LISTS:
        for dim in (0, 1, -1):
            ts = []
            for i, d in enumerate(devices):
                shape = [i + 1, 3] if dim == 0 else [3, i + 1]
                ts.append(data(shape, torch.float32 if i == 0 else torch.float64, f"cuda:{d}", 70 + i))
            hs = [to_ct(x) for x in ts]
            for dest in sorted(set(devices)) + [None, "cpu"]:
                what = f"gather {devices} dim {dim} to {dest}"
                out = vp()
                if dest == "cpu":
                    st = lib.ct_cuda_comm_gather(handles(hs), len(hs), dim, CPU, -1, C.byref(out))
                else:
                    st = lib.ct_cuda_comm_gather(handles(hs), len(hs), dim, CUDA, -1 if dest is None else dest,
                                                 C.byref(out))
                ck(st, what)
                ref = tcomm.gather(ts, dim, dest)
                sync()
                same(what, out, ref)
                release(out)
            for odev in ("cuda:0", "cpu"):
                ref_shape = list(ts[0].shape)
                ref_shape[dim] = sum(x.shape[dim] for x in ts)
                out_t = torch.zeros(ref_shape, dtype=torch.float64, device=odev)
                out_c = to_ct(out_t)
                what = f"gather_out {devices} dim {dim} into {odev}"
                ck(lib.ct_cuda_comm_gather_out(handles(hs), len(hs), out_c, dim), what)
                tcomm.gather(ts, dim, out=out_t)
                sync()
                same(what, out_c, out_t)
                release(out_c)
            release(*hs)
    a, b = data((2, 3), torch.float32, "cuda:0", 80), data((1, 2), torch.float32, "cuda:0", 81)
    v, c = data((3,), torch.float32, "cuda:0", 82), data((1, 3), torch.float32, "cpu", 83)
    wrong = torch.zeros(3, 2, device="cuda:0")
    ha, hb, hv, hc, hw = to_ct(a), to_ct(b), to_ct(v), to_ct(c), to_ct(wrong)
    out = vp()

    def g(hs, dim=0):
        return lambda: lib.ct_cuda_comm_gather(handles(hs), len(hs), dim, CUDA, -1, C.byref(out))
    same_error("gather no tensors", lambda: tcomm.gather([]), g([]))
    same_error("gather CPU input", lambda: tcomm.gather([a, c]), g([ha, hc]))
    same_error("gather_out CPU input", lambda: tcomm.gather([a, c], out=wrong),
               lambda: lib.ct_cuda_comm_gather_out(handles([ha, hc]), 2, hw, 0))
    # torch's message lacks a space ("index 1has 1 dimensions"); ctorch's has it
    same_error("gather dimensions", lambda: tcomm.gather([a, v]), g([ha, hv]),
               lambda m: m.replace("index 1has", "index 1 has"))
    same_error("gather shape", lambda: tcomm.gather([a, b]), g([ha, hb]))
    same_error("gather dim", lambda: tcomm.gather([a, a], dim=2), g([ha, ha], 2))
    same_error("gather_out shape", lambda: tcomm.gather([a, a], out=wrong),
               lambda: lib.ct_cuda_comm_gather_out(handles([ha, ha]), 2, hw, 0))
    release(ha, hb, hv, hc, hw)


live = i64()
ck(lib.ct_live_tensor_count(C.byref(live)), "live")
check(live.value == 0, f"no ctorch tensor left alive ({live.value})")
print(f"GPUs: {NGPU}, device lists: {LISTS}")
tally.exit()
