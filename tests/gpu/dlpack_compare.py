# DLPack between torch and ctorch (issue 21, docs/dlpack.md): torch -> ctorch -> torch without a
# copy, checked by data pointer, on CPU and CUDA, several dtypes and non-contiguous views, both
# DLPack forms (DLManagedTensor "dltensor", DLManagedTensorVersioned "dltensor_versioned"); the
# values equal; lifetimes (the producer's tensor dropped first, then read through the consumer;
# and the other way round; memory handed back once both are gone).
#   python3 tests/gpu/dlpack_compare.py gpu_artifacts/libctorch.so
import ctypes as C
import gc
import sys

import torch
import torch.utils.dlpack

from ctlib import CPU, CUDA, P, Ctorch, Tally, i32, i64, vp

ct = Ctorch(sys.argv[1], {
    "ct_to_dlpack": [vp, P(vp)], "ct_to_dlpack_versioned": [vp, P(vp)],
    "ct_tensor_dlpack": [vp, i64, i32, P(vp)], "ct_tensor_dlpack_device": [vp, P(i32), P(i32)],
    "ct_from_dlpack": [vp, P(vp)], "ct_from_dlpack_versioned": [vp, P(vp)], "ct_dlpack_delete": [vp, i32],
    "ct_tensor_data_ptr": [vp, P(i64)], "ct_transpose": [vp, i32, i32, P(vp)],
    "ct_slice": [vp, i32, i64, i64, i64, P(vp)], "ct_cuda_memory_allocated": [i32, P(i64)],
})
lib, ck = ct.lib, ct.ck
tally = Tally("dlpack_compare")

# The capsule C API, as a DLPack consumer/producer in C uses it (the names must outlive the
# capsules: module-level bytes).
api = C.pythonapi
api.PyCapsule_GetPointer.restype, api.PyCapsule_GetPointer.argtypes = C.c_void_p, [C.py_object, C.c_char_p]
api.PyCapsule_SetName.restype, api.PyCapsule_SetName.argtypes = C.c_int, [C.py_object, C.c_char_p]
api.PyCapsule_New.restype, api.PyCapsule_New.argtypes = C.py_object, [C.c_void_p, C.c_char_p, C.c_void_p]
NAMES = {False: (b"dltensor", b"used_dltensor"), True: (b"dltensor_versioned", b"used_dltensor_versioned")}


def data_ptr(h):
    p = i64()
    ck(lib.ct_tensor_data_ptr(h, C.byref(p)), "data_ptr")
    return p.value


def ct_allocated():
    v = i64()
    ck(lib.ct_cuda_memory_allocated(0, C.byref(v)), "memory_allocated")
    return v.value


def consumer_stream():
    """the value of __dlpack__'s stream for torch's current stream (1: the default stream)"""
    s = torch.cuda.current_stream().cuda_stream
    return s if s not in (0,) else 1


def torch_view(dtype, dev, which):
    base = (torch.arange(1, 61, dtype=torch.float64) % 7).to(dtype).reshape(6, 10).to(dev)
    if which == "contiguous":
        return base
    if which == "transposed":
        return base.t()
    if which == "sliced":
        return base[1:5, 2:9:3]  # offset 12, strides (10, 3)
    return base[2].expand(3, 10)  # stride 0


def ct_view(h, which):
    if which == "contiguous":
        return h
    out = vp()
    if which == "transposed":
        ck(lib.ct_transpose(h, 0, 1, C.byref(out)), "transpose")
    else:
        ck(lib.ct_slice(h, 1, 2, 9, 3, C.byref(out)), "slice")
    lib.ct_tensor_release(h)
    return out


DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int64, torch.int32, torch.uint8,
          torch.bool, torch.complex64]
DEVICES = [("cpu", CPU), ("cuda", CUDA)]

# torch -> ctorch -> torch
for devname, dev in DEVICES:
    for dtype in DTYPES:
        for which in ("contiguous", "transposed", "sliced", "expanded"):
            for versioned in (False, True):
                what = f"torch->ctorch {devname} {dtype} {which} {'versioned' if versioned else 'legacy'}"
                t = torch_view(dtype, devname, which)
                want = t.cpu().clone()
                if versioned:
                    cap = t.__dlpack__(max_version=(1, 0), **({"stream": consumer_stream()} if dev == CUDA else {}))
                else:
                    cap = torch.utils.dlpack.to_dlpack(t)
                name, used = NAMES[versioned]
                ptr = api.PyCapsule_GetPointer(cap, name)
                h = vp()
                ck((lib.ct_from_dlpack_versioned if versioned else lib.ct_from_dlpack)(ptr, C.byref(h)), what)
                api.PyCapsule_SetName(cap, used)  # consumed: torch's capsule destructor leaves it alone
                tally.check(data_ptr(h) == t.data_ptr(), what + ": same data pointer")
                tally.check(ct.sizes(h) == tuple(t.shape), what + ": shape")
                ty, ix = i32(), i32()
                ck(lib.ct_tensor_dlpack_device(h, C.byref(ty), C.byref(ix)), "dlpack_device")
                tally.check((ty.value, ix.value) == tuple(int(v) for v in t.__dlpack_device__()), what + ": device")
                del t, cap  # the producer lets go first
                gc.collect()
                if dev == CUDA:
                    torch.cuda.synchronize()
                got = ct.from_ct(h, dtype)
                tally.check(torch.equal(got, want), what + ": values through ctorch after torch let go")
                # ... and back to torch, as torch.from_dlpack takes any producer's capsule
                out = vp()
                stream = consumer_stream() if dev == CUDA else -1
                ck(lib.ct_tensor_dlpack(h, stream, 1 if versioned else 0, C.byref(out)), what + " export")
                p0 = data_ptr(h)
                lib.ct_tensor_release(h)  # ctorch lets go; the capsule keeps the memory
                cap2 = api.PyCapsule_New(out.value, name, None)
                back = torch.utils.dlpack.from_dlpack(cap2)
                tally.check(back.data_ptr() == p0, what + ": back in torch, same data pointer")
                tally.check(torch.equal(back.cpu(), want), what + ": values back in torch")
                del back, cap2
                gc.collect()

# ctorch -> torch -> ctorch, lifetimes and the caching allocator's memory
for devname, dev in DEVICES:
    for dtype in DTYPES:
        for which in ("contiguous", "transposed", "sliced"):
            what = f"ctorch->torch {devname} {dtype} {which}"
            src = (torch.arange(1, 61, dtype=torch.float64) % 5).to(dtype).reshape(6, 10)
            if dev == CUDA:
                torch.cuda.synchronize()
                before = ct_allocated()
            h = ct_view(ct.to_ct(src, dev), which)
            want = ct.from_ct(h, dtype)
            p0 = data_ptr(h)
            out = vp()
            ck(lib.ct_to_dlpack_versioned(h, C.byref(out)), what)
            lib.ct_tensor_release(h)
            t = torch.from_dlpack(api.PyCapsule_New(out.value, NAMES[True][0], None))
            tally.check(t.data_ptr() == p0, what + ": same data pointer")
            tally.check(torch.equal(t.cpu(), want), what + ": values in torch after ctorch let go")
            # torch -> ctorch again: still the same memory
            cap = torch.utils.dlpack.to_dlpack(t)
            h2 = vp()
            ck(lib.ct_from_dlpack(api.PyCapsule_GetPointer(cap, b"dltensor"), C.byref(h2)), what + " re-import")
            api.PyCapsule_SetName(cap, b"used_dltensor")
            tally.check(data_ptr(h2) == p0, what + ": round trip, same data pointer")
            del t, cap
            gc.collect()
            tally.check(torch.equal(ct.from_ct(h2, dtype), want), what + ": values through ctorch after torch let go")
            if dev == CUDA:
                tally.check(ct_allocated() > before, what + ": memory still held")
            lib.ct_tensor_release(h2)
            gc.collect()
            if dev == CUDA:
                tally.check(ct_allocated() == before, what + ": memory back to ctorch's allocator once both let go")

# a capsule no one consumed: the producer deletes it
h = ct.to_ct(torch.ones(4), CPU)
out = vp()
ck(lib.ct_to_dlpack(h, C.byref(out)), "to_dlpack")
lib.ct_tensor_release(h)
tally.check(lib.ct_dlpack_delete(out, 0) == 0, "an unconsumed capsule deleted by its producer")
tally.exit()
