# ctorch's matrix products against torch.cuda in the same run (issue 6): the same inputs (made
# by torch, copied into ctorch), mm / bmm / matmul with broadcast batches / dot / mv / addmm,
# for float32 (with and without TF32), float64, float16, bfloat16, complex64, complex128, on
# the GPU and on ctorch's CPU (OpenBLAS); results within each dtype's tolerance of torch's.
#   python3 tests/gpu/linalg_compare.py gpu_artifacts/libctorch.so
import ctypes as C
import sys

import torch

lib = C.CDLL(sys.argv[1])
CPU, CUDA = 0, 1
DT = {torch.float32: 6, torch.float64: 7, torch.float16: 5, torch.bfloat16: 15, torch.complex64: 9,
      torch.complex128: 10}
i64, i32, vp = C.c_int64, C.c_int32, C.c_void_p
lib.ct_last_error_message.restype = C.c_char_p
for name, args in {
    "ct_from_buffer": [vp, i64, C.POINTER(i64), i32, i32, i32, i32, C.POINTER(vp)],
    "ct_tensor_to": [vp, i32, i32, i32, i32, i32, C.POINTER(vp)],
    "ct_tensor_copy_to_buffer": [vp, vp, i64], "ct_tensor_release": [vp],
    "ct_matmul": [vp, vp, C.POINTER(vp)], "ct_mm": [vp, vp, C.POINTER(vp)], "ct_bmm": [vp, vp, C.POINTER(vp)],
    "ct_dot": [vp, vp, C.POINTER(vp)], "ct_mv": [vp, vp, C.POINTER(vp)],
    "ct_addmm": [vp, vp, vp, C.c_double, C.c_double, C.POINTER(vp)], "ct_set_allow_tf32": [i32],
}.items():
    getattr(lib, name).argtypes = args


def ck(s, what):
    if s != 0:
        raise RuntimeError(f"{what}: {s} {lib.ct_last_error_message().decode()}")


def to_ct(t, dev):
    t = t.contiguous().cpu()
    raw = t.view(torch.uint8).numpy().tobytes() if t.numel() else b""
    sizes = (i64 * max(t.dim(), 1))(*t.shape)
    out = vp()
    ck(lib.ct_from_buffer(raw, len(raw), sizes, t.dim(), DT[t.dtype], CPU, -1, C.byref(out)), "from_buffer")
    if dev == CUDA:
        g = vp()
        ck(lib.ct_tensor_to(out, CUDA, 0, -1, 0, 0, C.byref(g)), "to cuda")
        lib.ct_tensor_release(out)
        out = g
    return out


def from_ct(h, dtype, shape):
    n = 1
    for s in shape:
        n *= s
    nbytes = n * torch.empty(0, dtype=dtype).element_size()
    buf = (C.c_uint8 * max(nbytes, 1))()
    ck(lib.ct_tensor_copy_to_buffer(h, buf, nbytes), "copy")
    return torch.frombuffer(bytearray(bytes(buf)[:nbytes]), dtype=dtype).reshape(shape) if n else torch.empty(shape, dtype=dtype)


passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL", what)


TOL = {torch.float64: 1e-12, torch.float32: 2e-5, torch.float16: 2e-3, torch.bfloat16: 2e-2,
       torch.complex64: 2e-5, torch.complex128: 1e-12}
CASES = [("mm", (64, 33), (33, 17)), ("mm", (1, 1), (1, 1)), ("mm", (256, 512), (512, 128)),
         ("bmm", (4, 16, 8), (4, 8, 12)), ("matmul", (2, 1, 3, 4), (5, 4, 2)), ("matmul", (7,), (3, 7, 5)),
         ("matmul", (6, 7), (7,)), ("dot", (100,), (100,)), ("mv", (9, 100), (100,)), ("addmm", (8, 16), (16, 4))]
gen = torch.Generator(device="cuda").manual_seed(0)
for tf32 in (False, True):
    torch.backends.cuda.matmul.allow_tf32 = tf32
    ck(lib.ct_set_allow_tf32(1 if tf32 else 0), "tf32")
    for dt in (torch.float32,) if tf32 else TOL:
        for op, sa, sb in CASES:
            a = torch.randn(sa, device="cuda", generator=gen).to(dt)
            b = torch.randn(sb, device="cuda", generator=gen).to(dt)
            inp = torch.randn((sa[0], sb[-1]), device="cuda", generator=gen).to(dt) if op == "addmm" else None
            want = (torch.addmm(inp, a, b, beta=0.5, alpha=2.0) if op == "addmm" else getattr(torch, op)(a, b))
            for dev in (CUDA, CPU):
                if dev == CPU and tf32:
                    continue
                ha, hb, out = to_ct(a, dev), to_ct(b, dev), vp()
                if op == "addmm":
                    hi = to_ct(inp, dev)
                    ck(lib.ct_addmm(hi, ha, hb, 0.5, 2.0, C.byref(out)), op)
                    lib.ct_tensor_release(hi)
                else:
                    ck(getattr(lib, "ct_" + op)(ha, hb, C.byref(out)), op)
                got = from_ct(out, dt, tuple(want.shape))
                for h in (ha, hb, out):
                    lib.ct_tensor_release(h)
                w = want.cpu().to(torch.complex128 if dt.is_complex else torch.float64)
                g = got.to(torch.complex128 if dt.is_complex else torch.float64)
                k = sa[-1]
                scale = max(1.0, float(w.abs().max())) if w.numel() else 1.0
                tol = (5e-3 if tf32 else TOL[dt]) * k ** 0.5 * scale
                err = float((g - w).abs().max()) if w.numel() else 0.0
                check(err <= tol, f"{op} {sa}x{sb} {dt} tf32={tf32} {'cuda' if dev == CUDA else 'cpu'}: err {err:.3g} > {tol:.3g}")
torch.backends.cuda.matmul.allow_tf32 = False
ck(lib.ct_set_allow_tf32(0), "tf32")
print(f"linalg_compare: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
