# What the comparisons of tests/gpu against torch.cuda share: libctorch.so through ctypes, the
# dtype codes (asked of the library: ct_dtype_name, so they are written down once, in
# capi/ctorch.h), the other enum values (read from capi/ctorch.h's generated blocks), tensors
# copied between torch and ctorch, and a pass/fail tally.
#   from ctlib import Ctorch, Tally, CPU, CUDA, i64, i32, vp, P, abi_enum
#   ct = Ctorch(sys.argv[1], {"ct_mm": [vp, vp, P(vp)]})   # argument types of further ct_ calls
import ctypes as C
import os
import re

import torch

i64, i32, vp, P = C.c_int64, C.c_int32, C.c_void_p, C.POINTER
CPU, CUDA = 0, 1
MAX_DIMS = 16
HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "capi", "ctorch.h")


def abi_enum(table):
    """{name: value} of one enum of capi/ctorch.h by its table name in capi/abi.toml, e.g.
    abi_enum("unary_op")["CT_EXP"] == 2 (the header's "BEGIN GENERATED: table" block)"""
    with open(HEADER) as f:
        text = f.read()
    m = re.search(r"/\* BEGIN GENERATED: %s \*/(.*?)/\* END GENERATED: %s \*/" % (table, table), text, re.S)
    if not m:
        raise KeyError(f"no generated enum {table!r} in {HEADER}")
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
    return {name: int(value) for name, value in re.findall(r"\b(CT_\w+)\s*=\s*(-?\d+)", body)}

# the calls this module makes itself
_ARGTYPES = {
    "ct_dtype_name": [i32, vp, i64, P(i64)],
    "ct_from_buffer": [vp, i64, P(i64), i32, i32, i32, i32, P(vp)],
    "ct_tensor_to": [vp, i32, i32, i32, i32, i32, P(vp)],
    "ct_tensor_sizes": [vp, P(i64), i32, P(i32)],
    "ct_tensor_copy_to_buffer": [vp, vp, i64],
    "ct_tensor_release": [vp],
}


class Ctorch:
    """libctorch.so at path; argtypes: {ct_ function name: argument types} of the calls the
    script makes besides this class's (every ct_ function returns a ct_status, an int)."""

    def __init__(self, path, argtypes):
        self.lib = C.CDLL(path)
        self.lib.ct_last_error_message.restype = C.c_char_p
        for name, args in {**_ARGTYPES, **argtypes}.items():
            getattr(self.lib, name).argtypes = args
        self.dt = self._dtype_codes()

    def _dtype_codes(self):
        """{torch dtype: ctorch dtype code} for every dtype the library names ("torch.float32")"""
        codes = {}
        buf, need = C.create_string_buffer(64), i64()
        for code in range(64):
            if self.lib.ct_dtype_name(code, buf, len(buf), C.byref(need)) == 0:
                codes[getattr(torch, buf.value.decode().split(".", 1)[1])] = code
        return codes

    def ck(self, status, what):
        """raises on a status other than CT_OK, with the library's message"""
        if status != 0:
            raise RuntimeError(f"{what}: {status} {self.lib.ct_last_error_message().decode()}")

    def to_ct(self, t, dev, index=0):
        """a ctorch tensor on dev (CPU, or CUDA device index) with torch tensor t's dtype and values"""
        t = t.contiguous().cpu()
        raw = t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""  # reshape: 0-dim too
        sizes = (i64 * max(t.dim(), 1))(*t.shape)
        out = vp()
        self.ck(self.lib.ct_from_buffer(raw, len(raw), sizes, t.dim(), self.dt[t.dtype], CPU, -1, C.byref(out)),
                "from_buffer")
        if dev == CUDA:
            g = vp()
            self.ck(self.lib.ct_tensor_to(out, CUDA, index, -1, 0, 0, C.byref(g)), "to cuda")
            self.lib.ct_tensor_release(out)
            out = g
        return out

    def sizes(self, h):
        sz, nd = (i64 * MAX_DIMS)(), i32()
        self.ck(self.lib.ct_tensor_sizes(h, sz, MAX_DIMS, C.byref(nd)), "sizes")
        return tuple(sz[i] for i in range(nd.value))

    def to_bytes(self, h, dtype, numel):
        """the first numel elements of dtype of ctorch tensor h, as bytes"""
        nbytes = numel * torch.empty(0, dtype=dtype).element_size()
        buf = (C.c_uint8 * max(nbytes, 1))()
        self.ck(self.lib.ct_tensor_copy_to_buffer(h, buf, nbytes), "copy")
        return bytes(buf)[:nbytes]

    def from_ct(self, h, dtype):
        """a CPU torch tensor with ctorch tensor h's shape and values (h holds dtype)"""
        shape = self.sizes(h)
        n = 1
        for s in shape:
            n *= s
        if n == 0:
            return torch.empty(shape, dtype=dtype)
        return torch.frombuffer(bytearray(self.to_bytes(h, dtype, n)), dtype=dtype).reshape(shape)

    def compare(self, tally, what, got_h, want, tol):
        """got (a ctorch handle, released here) against torch's want, counted in tally: the same
        shape and dtype; bool and integer values equal; floating and complex values NaN where want
        has NaN, the same infinities, elsewhere |got - want| <= tol * (1 + |want|)"""
        got = self.from_ct(got_h, want.dtype)
        self.lib.ct_tensor_release(got_h)
        w = want.cpu()
        if tuple(got.shape) != tuple(w.shape):
            tally.check(False, f"{what}: shape {tuple(got.shape)} vs {tuple(w.shape)}")
            return
        if w.dtype == torch.bool or not (w.is_floating_point() or w.is_complex()):
            tally.check(bool((got == w).all()), f"{what}: values differ")
            return
        wide = torch.complex128 if w.is_complex() else torch.float64
        g64, w64 = got.to(wide), w.to(wide)
        nan_ok = bool((g64.isnan() == w64.isnan()).all())
        fin = w64.isfinite()
        odd = ~fin & ~w64.isnan()
        inf_ok = bool((g64[odd] == w64[odd]).all())
        err = float(((g64 - w64).abs() / (1 + w64.abs()))[fin].max()) if bool(fin.any()) else 0.0
        tally.check(nan_ok and inf_ok and err <= tol, f"{what}: nan {nan_ok} inf {inf_ok} err {err:.3g} > {tol:.3g}")


class Tally:
    """counts checks; prints what failed (and, when verbose, what passed), and a last line
    "<name>: N passed, N failed" """

    def __init__(self, name, verbose=False):
        self.name, self.verbose, self.passed, self.failed = name, verbose, 0, 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
            if self.verbose:
                print("PASS", what)
        else:
            self.failed += 1
            print("FAIL", what)

    def exit(self):
        print(f"{self.name}: {self.passed} passed, {self.failed} failed")
        raise SystemExit(1 if self.failed else 0)


# ---- NCCL communicators (section 21 of ctorch.h): tests/gpu/nccl_dist_compare.py, bench/comm ----

# argument types of section 21's functions, for Ctorch(path, {**NCCL_ARGTYPES, ...})
NCCL_ARGTYPES = {
    "ct_nccl_is_available": [P(i32)], "ct_nccl_version": [P(i32), P(i32), P(i32)],
    "ct_nccl_get_unique_id": [vp, i64], "ct_live_nccl_comm_count": [P(i64)],
    "ct_nccl_comm_init_rank": [i32, vp, i64, i32, i32, i64, P(vp)],
    "ct_nccl_comm_split": [vp, i32, i32, P(vp)],
    "ct_nccl_comm_retain": [vp], "ct_nccl_comm_release": [vp], "ct_nccl_comm_destroy": [vp],
    "ct_nccl_comm_abort": [vp], "ct_nccl_comm_check": [vp], "ct_nccl_comm_wait": [vp, i64],
    "ct_nccl_comm_rank": [vp, P(i32)], "ct_nccl_comm_size": [vp, P(i32)], "ct_nccl_comm_device": [vp, P(i32)],
    "ct_nccl_all_reduce": [vp, vp, i32, vp], "ct_nccl_broadcast": [vp, vp, i32, vp],
    "ct_nccl_reduce": [vp, vp, i32, i32, vp], "ct_nccl_all_gather": [vp, vp, vp, vp],
    "ct_nccl_reduce_scatter": [vp, vp, vp, i32, vp], "ct_nccl_all_to_all": [vp, vp, vp, vp],
    "ct_nccl_send": [vp, vp, i32, vp], "ct_nccl_recv": [vp, vp, i32, vp],
    "ct_nccl_group_start": [], "ct_nccl_group_end": [],
}
NCCL_UNIQUE_ID_BYTES = 128  # CT_NCCL_UNIQUE_ID_BYTES


def write_unique_id(path, uid):
    """rank 0: the unique id's bytes to path (a temporary name, then renamed: readers never see
    half of it)"""
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(uid)
    os.replace(tmp, path)


def read_unique_id(path, timeout_s=60.0):
    """the other ranks: polls path until it holds a whole id, at most timeout_s"""
    import time
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        try:
            with open(path, "rb") as f:
                uid = f.read()
            if len(uid) == NCCL_UNIQUE_ID_BYTES:
                return uid
        except FileNotFoundError:
            pass
        time.sleep(0.05)
    raise TimeoutError(f"no unique id in {path} after {timeout_s} s")


def nccl_comm_join(ct, path, rank, nranks, device, timeout_ms):
    """a ctorch communicator of nranks processes: rank 0 gets the unique id and writes it to
    path, the others read it there; each joins as rank on device. Returns the handle."""
    if rank == 0:
        buf = C.create_string_buffer(NCCL_UNIQUE_ID_BYTES)
        ct.ck(ct.lib.ct_nccl_get_unique_id(buf, NCCL_UNIQUE_ID_BYTES), "ct_nccl_get_unique_id")
        uid = buf.raw
        write_unique_id(path, uid)
    else:
        uid = read_unique_id(path)
    comm = vp()
    ct.ck(ct.lib.ct_nccl_comm_init_rank(nranks, uid, NCCL_UNIQUE_ID_BYTES, rank, device, timeout_ms,
                                        C.byref(comm)), "ct_nccl_comm_init_rank")
    return comm


def join_ranks(lib, argtypes, rank, nranks, tmp, timeout_ms):
    """one process of a run with a process a GPU (tests/gpu/nccl_dist_compare.py, bench/comm):
    makes GPU rank % GPU count current, joins a torch process group (NCCL backend, a file store
    in the folder tmp) and a ctorch communicator on that GPU (nccl_comm_join through tmp/ct_id).
    argtypes: as Ctorch's, besides NCCL_ARGTYPES. Returns (ct, comm, device)."""
    import torch.distributed as dist
    device = rank % torch.cuda.device_count()
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", init_method=f"file://{tmp}/torch_store", rank=rank, world_size=nranks,
                            device_id=torch.device("cuda", device))
    ct = Ctorch(lib, {**NCCL_ARGTYPES, **argtypes})
    return ct, nccl_comm_join(ct, f"{tmp}/ct_id", rank, nranks, device, timeout_ms), device


def spawn_ranks(script, args, nranks, tmp, timeout_s):
    """runs `python3 script *args --worker RANK NRANKS TMP` for every rank at once and waits for
    all of them, at most timeout_s in all; returns their exit statuses (None: killed at the
    deadline)"""
    import subprocess
    import sys
    import time
    procs = [subprocess.Popen([sys.executable, script, *args, "--worker", str(r), str(nranks), tmp])
             for r in range(nranks)]
    deadline = time.monotonic() + timeout_s
    rcs = []
    for p in procs:
        try:
            rcs.append(p.wait(timeout=max(1.0, deadline - time.monotonic())))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            rcs.append(None)
    return rcs
