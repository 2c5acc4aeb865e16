# ctorch's matrix products against torch.cuda in the same run (issue 6): the same inputs (made
# by torch, copied into ctorch), mm / bmm / matmul with broadcast batches / dot / mv / addmm,
# for float32 (with and without TF32), float64, float16, bfloat16, complex64, complex128, on
# the GPU and on ctorch's CPU (OpenBLAS); results within each dtype's tolerance of torch's.
#   python3 tests/gpu/linalg_compare.py gpu_artifacts/libctorch.so
import ctypes as C
import sys

import torch

from ctlib import CPU, CUDA, P, Ctorch, Tally, i32, vp

ct = Ctorch(sys.argv[1], {
    "ct_matmul": [vp, vp, P(vp)], "ct_mm": [vp, vp, P(vp)], "ct_bmm": [vp, vp, P(vp)], "ct_dot": [vp, vp, P(vp)],
    "ct_mv": [vp, vp, P(vp)], "ct_addmm": [vp, vp, vp, C.c_double, C.c_double, P(vp)], "ct_set_allow_tf32": [i32],
})
lib, ck, to_ct = ct.lib, ct.ck, ct.to_ct
tally = Tally("linalg_compare")

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
                got = ct.from_ct(out, dt)
                for h in (ha, hb, out):
                    lib.ct_tensor_release(h)
                w = want.cpu().to(torch.complex128 if dt.is_complex else torch.float64)
                g = got.to(torch.complex128 if dt.is_complex else torch.float64)
                k = sa[-1]
                scale = max(1.0, float(w.abs().max())) if w.numel() else 1.0
                tol = (5e-3 if tf32 else TOL[dt]) * k ** 0.5 * scale
                same = tuple(got.shape) == tuple(w.shape)
                err = (float((g - w).abs().max()) if w.numel() else 0.0) if same else float("inf")
                tally.check(err <= tol, f"{op} {sa}x{sb} {dt} tf32={tf32} {'cuda' if dev == CUDA else 'cpu'}: "
                            f"shape {tuple(got.shape)} vs {tuple(w.shape)}, err {err:.3g} > {tol:.3g}")
torch.backends.cuda.matmul.allow_tf32 = False
ck(lib.ct_set_allow_tf32(0), "tf32")
tally.exit()
