# torch's view of the GPU host's devices, and the printed forms and dtype rules the C suite
# asserts (tests/capi/capi_test.c) checked against torch itself, so the C suite's expected
# values are torch's. Run by tools/gpu_check.sh:
#   python3 tests/gpu/torch_reference.py
import torch
print("torch", torch.__version__, "cuda available:", torch.cuda.is_available(), "count:", torch.cuda.device_count())
for d in range(torch.cuda.device_count()):
    p = torch.cuda.get_device_properties(d)
    print(f"  cuda:{d} name='{p.name}' capability={p.major}.{p.minor} total_memory={p.total_memory} "
          f"multiprocessors={p.multi_processor_count} l2={p.L2_cache_size}")
# The reprs and dtype rules the C suite asserts, checked against torch itself.
nan, inf = float('nan'), float('inf')
cases = [
  (torch.tensor([1., 2.]), "tensor([1., 2.])"),
  (torch.tensor([1.5, -2.25, 3]), "tensor([ 1.5000, -2.2500,  3.0000])"),
  (torch.tensor([1, -20, 3]), "tensor([  1, -20,   3])"),
  (torch.tensor([True, False]), "tensor([ True, False])"),
  (torch.tensor([1e-5, 1.]), "tensor([1.0000e-05, 1.0000e+00])"),
  (torch.tensor([1., 10000.]), "tensor([1.0000e+00, 1.0000e+04])"),
  (torch.tensor([0., nan, inf, -1.]), "tensor([ 0., nan, inf, -1.])"),
  (torch.tensor([0.5], dtype=torch.float16), "tensor([0.5000], dtype=torch.float16)"),
  (torch.tensor([[[1, 2]], [[3, 4]]]), "tensor([[[1, 2]],\n\n        [[3, 4]]])"),
  (torch.zeros(2, 0, dtype=torch.int64), "tensor([], size=(2, 0), dtype=torch.int64)"),
  (torch.tensor([1+2j, -1.5-0.5j], dtype=torch.complex128), "tensor([ 1.0000+2.0000j, -1.5000-0.5000j], dtype=torch.complex128)"),
  (torch.arange(2000), "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"),
  (torch.arange(30.), "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n        14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25., 26., 27.,\n        28., 29.])"),
  (torch.tensor([1., 2.], device='cuda') if torch.cuda.is_available() else torch.tensor([1.]), None),
]
bad = 0
for t, want in cases:
    got = repr(t)
    if want is not None and got != want:
        bad += 1; print("REPR MISMATCH\n got:", got, "\nwant:", want)
print("torch cuda repr:", repr(cases[-1][0]))
i32 = torch.tensor([1, 2, 3], dtype=torch.int32)
checks = [
  ((i32 + 2.5).dtype, torch.float32), ((i32 + 2).dtype, torch.int32),
  ((torch.tensor([1.], dtype=torch.float16) + 2.5).dtype, torch.float16),
  ((i32 + torch.tensor(0.5, dtype=torch.float64)).dtype, torch.float64),
  ((torch.tensor([1.]) + torch.tensor(0.5, dtype=torch.float64)).dtype, torch.float32),
  ((torch.tensor([250, 5], dtype=torch.uint8) + torch.tensor([10, -10], dtype=torch.int8)).tolist(), [260, -5]),
  (torch.floor_divide(torch.tensor([7, -7, 7, -7]), torch.tensor([2, 2, -2, -2])).tolist(), [3, -4, -4, 3]),
  (torch.remainder(torch.tensor([7.5, -7.5]), 2).tolist(), [1.5, 0.5]),
  (torch.linspace(0, 1, 5).tolist(), [0, 0.25, 0.5, 0.75, 1]),
  (torch.tensor([1.5, -2, 0.1, 65504, 1e6], dtype=torch.float64).to(torch.bfloat16).float().tolist(), [1.5, -2, 0.10009765625, 65536, 999424]),
]
# device_test's division_by_cpu_scalar: torch.cuda divides by a CPU scalar as x * (1 / s), the
# reciprocal in float32 for float32 (Note [Division by a CPU scalar]); the CPU divides
if torch.cuda.is_available():
    x = torch.arange(1, 1001, dtype=torch.float32) * 0.37
    inv = torch.tensor(1.0, dtype=torch.float32) / 3.0
    q = (x.cuda() / 3.0).cpu()
    checks += [
      (q.view(torch.int32).equal((x * inv).view(torch.int32)), True),
      ((x.cuda() / torch.tensor(3.0, dtype=torch.float64)).cpu().view(torch.int32).equal(q.view(torch.int32)), True),
      (bool((q != x / 3.0).any()), True),
      ((x.cuda() / torch.tensor(3.0, device='cuda')).cpu().view(torch.int32).equal((x / 3.0).view(torch.int32)), True),
    ]
for got, want in checks:
    if got != want:
        bad += 1; print("MISMATCH", got, want)
print(f"torch reference checks: {len(cases) - 1 + len(checks) - bad} passed, {bad} failed")
raise SystemExit(1 if bad else 0)
