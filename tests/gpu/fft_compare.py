# ctorch's FFTs against torch.fft on the GPU in the same run (issue 6): the same inputs, every
# transform (fft, ifft, rfft, irfft, hfft, fft2, ifft2, fftn, ifftn, rfftn, irfftn) with n/s,
# dim and norm, complex64/complex128 (and float32/float64 inputs), on ctorch's CUDA (cuFFT) and
# CPU (FFTW) devices, within each precision's tolerance of torch.cuda's result.
#   python3 tests/gpu/fft_compare.py gpu_artifacts/libctorch.so
import ctypes as C
import sys

import torch

from ctlib import CPU, CUDA, P, Ctorch, Tally, i32, i64, vp

sig1 = [vp, i64, i64, i32, P(vp)]
sign = [vp, P(i64), i32, P(i64), i32, i32, P(vp)]
ct = Ctorch(sys.argv[1], {
    "ct_fft_fft": sig1, "ct_fft_ifft": sig1, "ct_fft_rfft": sig1, "ct_fft_irfft": sig1, "ct_fft_hfft": sig1,
    "ct_fft_fftn": sign, "ct_fft_ifftn": sign, "ct_fft_rfftn": sign, "ct_fft_irfftn": sign, "ct_fft_fft2": sign,
    "ct_fft_ifft2": sign,
})
lib, ck, to_ct, from_ct = ct.lib, ct.ck, ct.to_ct, ct.from_ct
tally = Tally("fft_compare")

NORMS = {"backward": 0, "forward": 1, "ortho": 2}
g = torch.Generator(device="cuda").manual_seed(0)
CASES = [  # (op, input shape, complex input?, kwargs)
    ("fft", (1000,), True, dict(n=-1, dim=-1)), ("fft", (7, 24), True, dict(n=30, dim=0)),
    ("ifft", (7, 24), True, dict(n=16, dim=1)), ("rfft", (1001,), False, dict(n=-1, dim=0)),
    ("rfft", (6, 50), False, dict(n=64, dim=1)), ("irfft", (4, 33), True, dict(n=-1, dim=1)),
    ("irfft", (4, 33), True, dict(n=63, dim=1)), ("hfft", (17,), True, dict(n=-1, dim=0)),
    ("fft2", (3, 16, 12), True, dict()), ("ifft2", (3, 16, 12), True, dict(s=(20, 10))),
    ("fftn", (4, 6, 8), True, dict(dims=(0, 2))), ("ifftn", (4, 6, 8), True, dict()),
    ("rfftn", (4, 6, 8), False, dict()), ("irfftn", (4, 6, 5), True, dict(s=(4, 6, 8))),
    ("fft", (1 << 16,), False, dict(n=-1, dim=0)),
]
for prec in (torch.float32, torch.float64):
    cdt = torch.complex64 if prec == torch.float32 else torch.complex128
    tol = 2e-4 if prec == torch.float32 else 1e-10
    for op, shape, cplx, kw in CASES:
        x = torch.randn(shape, device="cuda", generator=g, dtype=prec)
        if cplx:
            x = torch.complex(x, torch.randn(shape, device="cuda", generator=g, dtype=prec))
        for norm in NORMS:
            if op in ("fft", "ifft", "rfft", "irfft", "hfft"):
                n = kw["n"]
                want = getattr(torch.fft, op)(x, n=None if n == -1 else n, dim=kw["dim"], norm=norm)
            else:
                s, dims = kw.get("s"), kw.get("dims")
                extra = {k: v for k, v in (("s", s), ("dim", dims)) if v is not None}
                want = getattr(torch.fft, op)(x, norm=norm, **extra)
            for dev in (CUDA, CPU):
                h, out = to_ct(x, dev), vp()
                if op in ("fft", "ifft", "rfft", "irfft", "hfft"):
                    ck(getattr(lib, "ct_fft_" + op)(h, kw["n"], kw["dim"], NORMS[norm], C.byref(out)), op)
                else:
                    s, dims = kw.get("s") or (), kw.get("dims") or ()
                    sa, da = (i64 * max(len(s), 1))(*s), (i64 * max(len(dims), 1))(*dims)
                    ck(getattr(lib, "ct_fft_" + op)(h, sa if s else None, len(s), da if dims else None, len(dims),
                                                    NORMS[norm], C.byref(out)), op)
                got = from_ct(out, want.dtype)
                lib.ct_tensor_release(h)
                lib.ct_tensor_release(out)
                w = want.cpu()
                scale = max(1.0, float(w.abs().max()))
                same = tuple(got.shape) == tuple(w.shape)
                err = float((got - w).abs().max()) if same else float("nan")
                tally.check(same and err <= tol * scale,
                            f"{op} {shape} {prec} norm={norm} {'cuda' if dev == CUDA else 'cpu'}: "
                            f"shape {tuple(got.shape)} vs {tuple(w.shape)}, err {err:.3g}")
tally.exit()
