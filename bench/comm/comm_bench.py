# Issue 16's benchmark, ctorch against torch on the GPU host:
#  a. the communicator: all_reduce (SUM, float32) of 1 MiB to 1 GiB through ctorch's
#     ct_nccl_all_reduce against torch.distributed's NCCL backend, and the small-message latency
#     (8 B and 1 KiB); every other dtype it takes (DTYPES) at 16 MiB. One process a GPU (N = the GPU count, or --nranks); in each, torch's
#     process group and ctorch's communicator on the same GPU, the same buffers' sizes, rounds
#     alternating which library goes first; CUDA events on torch's current stream, which ctorch's
#     calls are queued on too (the legacy default stream both start on), around k back-to-back all_reduces;
#     medians over the rounds; rank 0's numbers. Bus bandwidth busbw = 2(n-1)/n * bytes / time
#     (nccl-tests' definition); with one rank the GB/s columns are the algorithm bandwidth
#     bytes / time instead (NCCL's one-rank all_reduce is a copy at most), said in the rows' names.
#  b. torch.cuda.comm.broadcast and reduce_add against ct_cuda_comm_broadcast and
#     ct_cuda_comm_reduce_add over the devices of this host (float32 at 1 and 64 MiB; float16,
#     bfloat16, int64 and a transposed float32 matrix, the copy path, at 64 MiB) (one process; wall time of k calls
#     between synchronizations of every device; with one GPU both return their input and the
#     rows time the calls' host cost).
# Target: ctorch >= 0.95x torch (bandwidth), ctorch time <= 1/0.95 torch's. Prints the table in
# bench/RESULTS.md's format, appends it there and copies it to $OUT when set (as bench/run.sh).
# On the GPU host, from the repository root:
#   bash bench/run.sh gpu_artifacts comm           (or:)
#   source tools/gpu_env.sh gpu_artifacts && python3 bench/comm/comm_bench.py "$A/libctorch.so"
#     [--nranks N] [--max-mib 1024] [--quick]
import argparse
import ctypes as C
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# ctorch's fast collectives need NCCL to connect at creation (Note [NCCL connects at init] in
# impl/comm/nccl.cc), and torch loads NCCL before ctorch here, so ctorch would leave them off:
# ask for it in the environment, before torch reads it (torch's steady state is the same either
# way; NCCL_RUNTIME_CONNECT=1 from outside measures ctorch's nonblocking path)
os.environ.setdefault("NCCL_RUNTIME_CONNECT", "0")
import torch
import torch.cuda.comm  # noqa: F401  (a submodule: torch.cuda does not import it)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "gpu"))
from ctlib import CUDA, Ctorch, P, abi_enum, i32, i64, join_ranks, spawn_ranks, vp  # noqa: E402

MiB = 1 << 20
SUM = abi_enum("comm_op")["CT_COMM_SUM"]
ARGTYPES = {"ct_stream_external": [i64, i32, P(vp)], "ct_stream_release": [vp],  # the ranks' calls
            "ct_zeros": [P(i64), i32, i32, i32, i32, P(vp)], "ct_tensor_release": [vp]}
CUDA_COMM_ARGTYPES = {"ct_cuda_comm_broadcast": [vp, P(i32), i32, P(vp)],
                      "ct_cuda_comm_reduce_add": [P(vp), i32, i32, P(vp)], "ct_tensor_release": [vp],
                      "ct_transpose": [vp, i32, i32, P(vp)]}
# the communicator's other dtypes, measured at 16 MiB (float32 is measured at every size)
DTYPES = (torch.float16, torch.bfloat16, torch.float64, torch.int32, torch.int64, torch.uint8, torch.int8,
          torch.bool, torch.complex64)
TARGET = 0.95


def rounds_for(nbytes, quick):
    """(rounds, calls a round) for a message size: ~the same total bytes per round"""
    if quick:
        return 3, 3
    if nbytes <= 64 * 1024:
        return 11, 200
    if nbytes <= 16 * MiB:
        return 11, 20
    if nbytes <= 256 * MiB:
        return 7, 5
    return 5, 3


def event_time(stream, calls, k):
    """ms per call of k back-to-back calls(), between two CUDA events on stream"""
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(stream)
    for _ in range(k):
        calls()
    e.record(stream)
    e.synchronize()
    return s.elapsed_time(e) / k


def alternate(fns, rounds, timer):
    """medians of timer(fn) for each fn, rounds times, the order flipping each round"""
    ts = [[] for _ in fns]
    for r in range(rounds):
        order = range(len(fns)) if r % 2 == 0 else reversed(range(len(fns)))
        for i in order:
            ts[i].append(timer(fns[i]))
    return [statistics.median(t) for t in ts]


def size_name(nbytes):
    return f"{nbytes // MiB}MiB" if nbytes >= MiB and nbytes % MiB == 0 else (
        f"{nbytes // 1024}KiB" if nbytes >= 1024 else f"{nbytes}B")


def worker(lib, rank, nranks, tmp, max_mib, quick):
    """one rank: the all_reduce rows; rank 0 writes them to tmp/rows.json"""
    import torch.distributed as dist
    ct, comm, device = join_ranks(lib, ARGTYPES, rank, nranks, tmp, 0)
    dev = torch.device("cuda", device)
    L, ck = ct.lib, ct.ck
    # ctorch's calls go on torch's current stream: NULL (ctorch's current stream) when that is the
    # legacy default stream, which both libraries start on; else that stream, wrapped
    stream = torch.cuda.current_stream(dev)
    cs = None
    if stream.cuda_stream != 0:
        cs = vp()
        ck(L.ct_stream_external(stream.cuda_stream, device, C.byref(cs)), "ct_stream_external")

    rows = []
    # float32 at every size; then every other dtype the communicator takes at 16 MiB (bool: SUM is
    # a logical or, NCCL's max on bytes, in both libraries; complex: pairs of reals)
    sizes = [(n, torch.float32) for n in [8, 1024] + [m * MiB for m in (1, 4, 16, 64, 256, 1024) if m <= max_mib]]
    sizes += [(16 * MiB, dt) for dt in DTYPES if 16 <= max_mib]
    for nbytes, dtype in sizes:
        itemsize = torch.empty(0, dtype=dtype).element_size()
        numel = nbytes // itemsize
        x = torch.zeros(numel, device=dev, dtype=dtype)
        h = vp()
        ck(L.ct_zeros((i64 * 1)(numel), 1, ct.dt[dtype], CUDA, device, C.byref(h)), "ct_zeros")
        tag = "" if dtype == torch.float32 else "_" + str(dtype).replace("torch.", "")

        def t_op():
            dist.all_reduce(x)

        def c_op():
            ck(L.ct_nccl_all_reduce(comm, h, SUM, cs), "ct_nccl_all_reduce")
        rounds, k = rounds_for(nbytes, quick)
        for _ in range(3):  # warm up both (NCCL's first call at a size sets up its channels)
            t_op(), c_op()
        torch.cuda.synchronize(dev)
        c_ms, t_ms = alternate([c_op, t_op], rounds, lambda f: event_time(stream, f, k))
        ck(L.ct_nccl_comm_check(comm), "ct_nccl_comm_check")
        ck(L.ct_tensor_release(h), "release")
        del x
        if nbytes < MiB:  # latency rows: time only
            rows.append((f"nccl_all_reduce_latency_{size_name(nbytes)}{tag}_n{nranks}", c_ms * 1000, t_ms * 1000,
                         "us", None, None))
        else:
            factor = 2 * (nranks - 1) / nranks if nranks > 1 else 1.0
            kind = "busbw" if nranks > 1 else "algbw"
            gbs = lambda ms: factor * nbytes / (ms * 1e-3) / 1e9  # noqa: E731
            rows.append((f"nccl_all_reduce_{size_name(nbytes)}{tag}_n{nranks}_{kind}", c_ms * 1000, t_ms * 1000,
                         "us", gbs(c_ms), gbs(t_ms)))
    if cs:
        ck(L.ct_stream_release(cs), "ct_stream_release")
    ck(L.ct_nccl_comm_destroy(comm), "ct_nccl_comm_destroy")
    ck(L.ct_nccl_comm_release(comm), "ct_nccl_comm_release")
    dist.destroy_process_group()
    if rank == 0:
        with open(f"{tmp}/rows.json", "w") as f:
            json.dump(rows, f)


def cuda_comm_rows(lib, quick):
    """torch.cuda.comm.broadcast / reduce_add against ctorch's, over every GPU of this host"""
    ct = Ctorch(lib, CUDA_COMM_ARGTYPES)
    L, ck = ct.lib, ct.ck
    ndev = torch.cuda.device_count()
    devices = list(range(ndev))
    devarr = (i32 * ndev)(*devices)
    rows = []

    def sync_all():
        for d in devices:
            torch.cuda.synchronize(d)

    def wall_time(fn, k):
        sync_all()
        t0 = time.perf_counter()
        for _ in range(k):
            fn()
        sync_all()
        return (time.perf_counter() - t0) / k * 1e3  # ms

    # float32 at 1 and 64 MiB, then at 64 MiB half precision, int64, and a transposed float32
    # matrix (not contiguous: the copy path instead of NCCL, in both libraries)
    cases = [(MiB, torch.float32, False), (64 * MiB, torch.float32, False), (64 * MiB, torch.float16, False),
             (64 * MiB, torch.bfloat16, False), (64 * MiB, torch.int64, False), (64 * MiB, torch.float32, True)]
    for nbytes, dtype, transposed in cases:
        numel = nbytes // torch.empty(0, dtype=dtype).element_size()
        x = (torch.rand(numel, device="cuda:0") * 100).to(dtype)
        if transposed:
            x = x.view(1024, numel // 1024).t()
        if transposed:  # the same layout in ctorch: the transpose of a contiguous matrix
            base, hx = ct.to_ct(x.t().cpu(), CUDA, 0), vp()
            ck(L.ct_transpose(base, 0, 1, C.byref(hx)), "ct_transpose")
            L.ct_tensor_release(base)
        else:
            hx = ct.to_ct(x.cpu(), CUDA, 0)
        tag = ("" if dtype == torch.float32 else "_" + str(dtype).replace("torch.", "")) + \
            ("_transposed" if transposed else "")
        outs = (vp * ndev)()

        def t_bcast():
            torch.cuda.comm.broadcast(x, devices)

        def c_bcast():
            ck(L.ct_cuda_comm_broadcast(hx, devarr, ndev, outs), "ct_cuda_comm_broadcast")
            for o in outs:
                L.ct_tensor_release(o)
        xs = [x.to(d) for d in devices]  # contiguous copies (reduce_add's NCCL path needs them)
        hs = [ct.to_ct(x.contiguous().cpu(), CUDA, d) for d in devices]
        harr = (vp * ndev)(*[h.value for h in hs])
        out = vp()

        def t_reduce():
            torch.cuda.comm.reduce_add(xs, destination=0)

        def c_reduce():
            ck(L.ct_cuda_comm_reduce_add(harr, ndev, 0, C.byref(out)), "ct_cuda_comm_reduce_add")
            L.ct_tensor_release(out)
        rounds, k = rounds_for(nbytes, quick)
        for name, c_fn, t_fn in (("broadcast", c_bcast, t_bcast), ("reduce_add", c_reduce, t_reduce)):
            row = f"cuda_comm_{name}_{size_name(nbytes)}{tag}_{ndev}gpu"
            try:
                for _ in range(3):
                    c_fn(), t_fn()
                c_ms, t_ms = alternate([c_fn, t_fn], rounds, lambda f: wall_time(f, k))
                moved = nbytes * (ndev - 1)  # bytes that cross between GPUs
                gbs = (lambda ms: moved / (ms * 1e-3) / 1e9) if ndev > 1 else (lambda ms: None)  # noqa: E731
                rows.append((row, c_ms * 1000, t_ms * 1000, "us", gbs(c_ms), gbs(t_ms)))
            except Exception as e:  # noqa: BLE001  a row that fails is reported as failed
                rows.append((row, None, None, f"failed: {e}", None, None))
        for h in [hx] + hs:
            L.ct_tensor_release(h)
    return rows


def table(rows, nranks):
    v = torch.cuda.nccl.version()
    ver = f"torch {torch.__version__} (CUDA {torch.version.cuda}, NCCL {'.'.join(map(str, v)) if isinstance(v, tuple) else v})"
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip().splitlines()
    lines = [f"## {datetime.date.today()}, {smi[0] if smi else '?'} (x{len(smi)}), {ver}, "
             f"`bash bench/run.sh gpu_artifacts comm` (bench/comm/comm_bench.py)",
             f"all_reduce: {nranks} process(es), one GPU each, ctorch's communicator and torch.distributed (NCCL) in each, "
             "alternating rounds, CUDA events around back-to-back calls, medians, rank 0's numbers; GB/s: busbw = "
             "2(n-1)/n x bytes / time (algbw, bytes / time, when n = 1). cuda_comm rows: one process, wall time between "
             "synchronizations of every GPU, GB/s = bytes crossing GPUs / time. ratio = ctorch time / torch time.",
             "| benchmark | ctorch | torch | unit | ctorch GB/s | torch GB/s | target | met | ratio |",
             "|---|---|---|---|---|---|---|---|---|"]
    met_n = missed = 0
    for name, c, t, unit, gc, gt in rows:
        if c is None:
            lines.append(f"| {name} | {unit.replace('|', '/')} | | | | | >= {TARGET}x torch | **no** | |")
            missed += 1
            continue
        ratio = c / t
        met = ratio <= 1 / TARGET
        met_n += met
        missed += not met
        g = lambda v: "" if v is None else f"{v:.1f}"  # noqa: E731
        lines.append(f"| {name} | {c:.2f} | {t:.2f} | {unit} | {g(gc)} | {g(gt)} | >= {TARGET}x torch | "
                     f"{'yes' if met else '**no**'} | {ratio:.3f} |")
    return "\n".join(lines), met_n, missed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lib")
    ap.add_argument("--nranks", type=int, default=0)
    ap.add_argument("--max-mib", type=int, default=1024)
    ap.add_argument("--quick", action="store_true", help="3 rounds of 3 calls (a smoke run)")
    ap.add_argument("--worker", nargs=3, metavar=("RANK", "NRANKS", "TMP"))
    a = ap.parse_args()
    if a.worker:
        worker(a.lib, int(a.worker[0]), int(a.worker[1]), a.worker[2], a.max_mib, a.quick)
        return 0
    if not torch.cuda.is_available():
        print("comm_bench: no GPU")
        return 1
    nranks = a.nranks or torch.cuda.device_count()
    with tempfile.TemporaryDirectory() as tmp:
        args = [a.lib, "--max-mib", str(a.max_mib)] + (["--quick"] if a.quick else [])
        rcs = spawn_ranks(os.path.abspath(__file__), args, nranks, tmp, 3600)
        rows = json.load(open(f"{tmp}/rows.json")) if os.path.exists(f"{tmp}/rows.json") else []
    if any(rc != 0 for rc in rcs) or not rows:
        rows.append(("nccl_all_reduce", None, None, f"failed: worker exit statuses {rcs}", None, None))
    try:
        rows += cuda_comm_rows(a.lib, a.quick)
    except Exception as e:  # noqa: BLE001  e.g. a library without section 20
        rows.append(("cuda_comm", None, None, f"failed: {type(e).__name__}: {e}", None, None))
    text, met, missed = table(rows, nranks)
    print()
    print(text)
    with open("bench/RESULTS.md", "a") as f:
        f.write("\n" + text + "\n")
    if os.environ.get("OUT"):
        shutil.copy("bench/RESULTS.md", os.path.join(os.environ["OUT"], "RESULTS.md"))
    print(f"\ncomm: {met + missed} rows, {met} met, {missed} missed")
    return 0 if not missed else 1


if __name__ == "__main__":
    sys.exit(main())
