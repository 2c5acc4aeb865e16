# Per-op GPU time of CUDA graph replays, ctorch against torch in one process: a graph of 100
# copies of one elementwise op (each a new tensor), float32, 4096 and 2^20 elements, CUDA events
# around 50 replays, median of 7. It isolates each op's kernel cost without host launch cost
# (bench/NOTES.md, "Issue 15"). On the GPU host, from the repository root:
#   source tools/gpu_env.sh gpu_artifacts && python3 bench/graphs/graph_ops.py "$A/libctorch.so"
import ctypes as C, sys, torch
sys.path.insert(0, "tests/gpu")
from ctlib import Ctorch, CUDA, i32, i64, vp, P
D = C.c_double
ct = Ctorch(sys.argv[1], {"ct_cuda_graph_create": [P(vp)], "ct_cuda_graph_capture_enter": [vp, i64, i32, vp, P(vp), P(i32)],
    "ct_cuda_graph_capture_exit": [vp, vp, i32], "ct_cuda_graph_replay": [vp], "ct_unary": [i32, vp, P(vp)],
    "ct_binary_scalar_f": [i32, vp, D, i32, P(vp)], "ct_binary": [i32, vp, vp, P(vp)], "ct_cuda_synchronize": [i32],
    "ct_cuda_graph_release": [vp]})
L = ct.lib
def enum(name):
    import re
    for line in open("capi/ctorch.h"):
        m = re.match(r"\s*%s = (\d+)" % name, line)
        if m: return int(m.group(1))
ops = [("mul_s", lambda x, y: x * 0.5, lambda a, b: ("bs", "CT_MUL", 0.5)), ("add_t", lambda x, y: x + y, lambda a, b: ("b", "CT_ADD")),
       ("tanh", lambda x, y: torch.tanh(x), lambda a, b: ("u", "CT_TANH")), ("sigmoid", lambda x, y: torch.sigmoid(x), lambda a, b: ("u", "CT_SIGMOID")),
       ("neg", lambda x, y: -x, lambda a, b: ("u", "CT_NEG")), ("relu", lambda x, y: torch.relu(x), lambda a, b: ("u", "CT_RELU")),
       ("exp", lambda x, y: torch.exp(x), lambda a, b: ("u", "CT_EXP"))]
def ct_op(spec, a, b):
    out = vp()
    if spec[0] == "u": ct.ck(L.ct_unary(enum(spec[1]), a, C.byref(out)), spec[1])
    elif spec[0] == "b": ct.ck(L.ct_binary(enum(spec[1]), a, b, C.byref(out)), spec[1])
    else: ct.ck(L.ct_binary_scalar_f(enum(spec[1]), a, spec[2], 0, C.byref(out)), spec[1])
    return out
def time_replays(replay, n=50):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(5): replay()
    ts = []
    for _ in range(7):
        s.record(); [replay() for _ in range(n)]; e.record(); e.synchronize(); ts.append(s.elapsed_time(e) / n / 100 * 1000)
    return sorted(ts)[3]
for numel in (4096, 1 << 20):
    x = torch.rand(numel, device="cuda"); y = torch.rand(numel, device="cuda")
    cx, cy = ct.to_ct(x, CUDA), ct.to_ct(y, CUDA)
    for name, tf, cf in ops:
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            outs = [tf(x, y) for _ in range(100)]
        tt = time_replays(g.replay)
        cg = vp(); ct.ck(L.ct_cuda_graph_create(C.byref(cg)), "create")
        prev, dev = vp(), i32()
        ct.ck(L.ct_cuda_graph_capture_enter(cg, 0, 0, None, C.byref(prev), C.byref(dev)), "enter")
        couts = [ct_op(cf(0, 0), cx, cy) for _ in range(100)]
        ct.ck(L.ct_cuda_graph_capture_exit(cg, prev, dev.value), "exit")
        torch.cuda.synchronize()
        ctt = time_replays(lambda: ct.ck(L.ct_cuda_graph_replay(cg), "replay"))
        print(f"{numel:8d} {name:8s} ctorch {ctt:7.3f} us/op  torch {tt:7.3f}  ratio {ctt/tt:.3f}", flush=True)
        for o in couts: L.ct_tensor_release(o)
        L.ct_cuda_graph_release(cg); del g, outs
