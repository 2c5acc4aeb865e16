# ctorch's NCCL communicators (section 21 of ctorch.h) against torch.distributed's NCCL backend,
# one process a GPU (issue 16; the runs on two GPUs and more are issue 20's). Every process joins
# a torch process group (init through a file store) and a ctorch communicator (rank 0 writes
# the unique id to a file the others read), runs on the same data in both libraries:
#   all_reduce (sum, prod, min, max, avg; float32/64, float16, bfloat16, int32/64, uint8, bool,
#   complex64), all_gather, reduce_scatter, broadcast and reduce from every root, send/recv in a
#   ring, all-to-all; the ops both libraries refuse (avg of bool, max of complex);
# and compares the results bit for bit (the same NCCL runs both: torch loads libnccl.so.2 first
# and ctorch's dlopen finds it). Then, with two processes or more, a dead peer: the last rank
# exits before a collective, and the others must get CT_ERR_TIMEOUT or CT_ERR_COMM from
# ct_nccl_comm_wait within the communicator's timeout (5 s) instead of hanging.
# Prints PASS/FAIL lines per rank and "nccl_dist_compare: N passed, M failed"; exits 1 on any failure.
#   python3 tests/gpu/nccl_dist_compare.py gpu_artifacts/libctorch.so [--nranks N]
# N defaults to the number of GPUs (at least 1); ranks share GPUs round robin when N exceeds
# it, which NCCL refuses within one communicator, so keep N <= the GPU count.
import argparse
import ctypes as C
import json
import os
import sys
import tempfile
import time
import traceback

# ctorch's fast collectives need NCCL to connect at creation (Note [NCCL connects at init] in
# impl/comm/nccl.cc), and torch loads NCCL before ctorch here, so ctorch would leave them off:
# ask for it in the environment, before torch reads it (NCCL_RUNTIME_CONNECT=1 from outside runs
# the nonblocking path; tools/gpu_check.sh does both)
os.environ.setdefault("NCCL_RUNTIME_CONNECT", "0")
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ctlib import (CUDA, NCCL_ARGTYPES, Ctorch, Tally, abi_enum, i32, join_ranks, nccl_comm_join,  # noqa: E402
                   spawn_ranks)

DEAD_PEER_TIMEOUT_MS = 5000
STATUS = abi_enum("status")
OPS = abi_enum("comm_op")


def worker(lib, rank, nranks, tmp):
    import torch.distributed as dist
    tally = Tally(f"rank {rank}", verbose=False)
    fails = []

    def check(ok, what):
        tally.check(ok, f"[rank {rank}] {what}")
        if not ok:
            fails.append(what)

    ct, comm, device = join_ranks(lib, {}, rank, nranks, tmp, 60000)
    dev = torch.device("cuda", device)
    L, ck = ct.lib, ct.ck
    # the reduce ops by torch.distributed's names: CT_COMM_<name> is ReduceOp.<name>
    CT_OP = {k[len("CT_COMM_"):]: v for k, v in OPS.items()}
    TORCH_OP = {name: getattr(dist.ReduceOp, name) for name in CT_OP}

    def data(dtype, n, salt):
        """rank-dependent values of dtype (the same in both libraries)"""
        g = torch.Generator().manual_seed(1000 * rank + salt)
        if dtype == torch.bool:
            return torch.rand(n, generator=g) < 0.5
        if dtype.is_complex:
            return torch.randn(n, dtype=dtype, generator=g)
        if dtype.is_floating_point:
            return (torch.rand(n, generator=g) * 4 - 2).to(dtype)  # small, so products stay finite
        if dtype == torch.uint8:
            return torch.randint(0, 4, (n,), generator=g, dtype=dtype)
        return torch.randint(-50, 50, (n,), generator=g, dtype=dtype)

    def same(a, b):
        """bitwise equality of two CPU tensors of one dtype and shape"""
        if a.dtype != b.dtype or a.shape != b.shape:
            return False
        if a.dtype == torch.bool:
            return torch.equal(a, b)
        return torch.equal(a.contiguous().view(torch.uint8), b.contiguous().view(torch.uint8))

    def ct_cuda(t):
        return ct.to_ct(t, CUDA, device)

    def release(*hs):
        for h in hs:
            ck(L.ct_tensor_release(h), "release")

    def compare(what, fn):
        """runs fn() -> (torch's result, ctorch's) on the CPU; a call that raises is a failed check"""
        try:
            a, b = fn()
            ok = same(a, b)
            check(ok, what + ("" if ok else f": torch {a.tolist()[:6]} ctorch {b.tolist()[:6]}"))
        except Exception as e:  # noqa: BLE001  the other cases go on
            check(False, f"{what}: {type(e).__name__}: {e}")

    def in_place(what, x, torch_fn, ct_fn):
        """torch_fn(t) on a CUDA copy t of x against ct_fn(h) on ctorch's copy h"""
        def run():
            t = x.to(dev)
            torch_fn(t)
            h = ct_cuda(x)
            ck(ct_fn(h), what)
            r = ct.from_ct(h, x.dtype)
            release(h)
            return t.cpu(), r
        compare(what, run)

    def into(what, x, out_numel, torch_fn, ct_fn):
        """torch_fn(out, t) against ct_fn(out, h): x's copies into outputs of out_numel zeros"""
        def run():
            out = torch.zeros(out_numel, dtype=x.dtype, device=dev)
            torch_fn(out, x.to(dev))
            h, o = ct_cuda(x), ct_cuda(torch.zeros(out_numel, dtype=x.dtype))
            ck(ct_fn(o, h), what)
            r = ct.from_ct(o, x.dtype)
            release(h, o)
            return out.cpu(), r
        compare(what, run)

    n = 1000 * nranks + 24  # not a multiple of 128: NCCL's odd tails too
    ALL = tuple(CT_OP)
    # all_reduce; bool: sum is a logical or (avg refused below); complex: sum and avg only
    cases = [(dt, ALL) for dt in (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int32,
                                  torch.int64, torch.uint8)]
    cases += [(torch.bool, ("SUM", "PRODUCT", "MIN", "MAX")), (torch.complex64, ("SUM", "AVG"))]
    for salt, (dt, ops) in enumerate(cases):
        for name in ops:
            in_place(f"all_reduce {name} {dt}", data(dt, n, salt),
                     lambda t, name=name: dist.all_reduce(t, op=TORCH_OP[name]),
                     lambda h, name=name: L.ct_nccl_all_reduce(comm, h, CT_OP[name], None))
    # refused by both: avg of bool, max of complex (ctorch: CT_ERR_DTYPE)
    for what, x, name in (("AVG of bool", data(torch.bool, 8, 20), "AVG"),
                          ("MAX of complex64", data(torch.complex64, 8, 21), "MAX")):
        try:
            dist.all_reduce(x.to(dev), op=TORCH_OP[name])
            torch_refused = False
        except (TypeError, ValueError, RuntimeError):
            torch_refused = True
        h = ct_cuda(x)
        s = L.ct_nccl_all_reduce(comm, h, CT_OP[name], None)
        release(h)
        check(torch_refused and s == STATUS["CT_ERR_DTYPE"],
              f"{what} refused: torch {torch_refused}, ctorch status {s}")
    # all_gather, reduce_scatter, all_to_all
    for dt in (torch.float32, torch.int64, torch.bfloat16, torch.bool):
        into(f"all_gather {dt}", data(dt, n, 22), n * nranks, dist.all_gather_into_tensor,
             lambda o, h: L.ct_nccl_all_gather(comm, o, h, None))
        y = data(dt, n * nranks, 23)
        for name in (("SUM", "MAX") if dt == torch.bool else ALL):
            into(f"reduce_scatter {name} {dt}", y, n,
                 lambda o, t, name=name: dist.reduce_scatter_tensor(o, t, op=TORCH_OP[name]),
                 lambda o, h, name=name: L.ct_nccl_reduce_scatter(comm, o, h, CT_OP[name], None))
        into(f"all_to_all {dt}", y, n * nranks, dist.all_to_all_single,
             lambda o, h: L.ct_nccl_all_to_all(comm, o, h, None))
    # broadcast and reduce from every root
    for root in range(nranks):
        for dt in (torch.float32, torch.int32, torch.complex64):
            in_place(f"broadcast root {root} {dt}", data(dt, n, 24),
                     lambda t, root=root: dist.broadcast(t, src=root),
                     lambda h, root=root: L.ct_nccl_broadcast(comm, h, root, None))
        for name in ALL:
            in_place(f"reduce {name} root {root} float32", data(torch.float32, n, 25),
                     lambda t, root=root, name=name: dist.reduce(t, dst=root, op=TORCH_OP[name]),
                     lambda h, root=root, name=name: L.ct_nccl_reduce(comm, h, root, CT_OP[name], None))
    # send/recv in a ring: rank r sends to r+1 and receives from r-1, in one group
    x = data(torch.float64, n, 26)
    nxt, prv = (rank + 1) % nranks, (rank - 1) % nranks

    def torch_ring(out, t):
        if nranks == 1:  # one rank sends to itself: x, computed by hand (torch's send to self is not compared)
            out.copy_(t)
            return
        for q in dist.batch_isend_irecv([dist.P2POp(dist.isend, t, nxt), dist.P2POp(dist.irecv, out, prv)]):
            q.wait()

    def ct_ring(o, h):
        ck(L.ct_nccl_group_start(), "group_start")
        ck(L.ct_nccl_send(comm, h, nxt, None), "send")
        ck(L.ct_nccl_recv(comm, o, prv, None), "recv")
        return L.ct_nccl_group_end()
    into("send/recv ring float64", x, n, torch_ring, ct_ring)
    # values computed by hand: all_reduce SUM of rank+1 is n(n+1)/2 everywhere
    h = ct_cuda(torch.full((4,), rank + 1.0))
    ck(L.ct_nccl_all_reduce(comm, h, CT_OP["SUM"], None), "all_reduce")
    r = ct.from_ct(h, torch.float32)
    release(h)
    check(r.tolist() == [nranks * (nranks + 1) / 2.0] * 4, f"all_reduce SUM of rank+1 = {r.tolist()}")
    ck(L.ct_nccl_comm_wait(comm, 0), "wait")
    check(L.ct_nccl_comm_check(comm) == 0, "check after the collectives")
    # tear both down cleanly while every rank is alive
    ck(L.ct_nccl_comm_destroy(comm), "destroy")
    ck(L.ct_nccl_comm_release(comm), "release")
    dist.destroy_process_group()
    leave = nranks >= 2 and dead_peer(ct, rank, nranks, device, tmp, check) == "exit"
    return tally, fails, leave


def dead_peer(ct, rank, nranks, device, tmp, check):
    """the last rank leaves (os._exit) after joining; the others' collective must fail with
    CT_ERR_TIMEOUT or CT_ERR_COMM within the timeout, not hang"""
    L, ck = ct.lib, ct.ck
    comm = nccl_comm_join(ct, f"{tmp}/ct_id_dead", rank, nranks, device, DEAD_PEER_TIMEOUT_MS)
    h = ct.to_ct(torch.ones(1 << 20), CUDA, device)
    ck(L.ct_nccl_all_reduce(comm, h, OPS["CT_COMM_SUM"], None), "all_reduce")  # all alive: works
    ck(L.ct_nccl_comm_wait(comm, 0), "wait")
    check(ct.from_ct(h, torch.float32)[:3].tolist() == [float(nranks)] * 3, "dead peer: the first all_reduce")
    if rank == nranks - 1:
        return "exit"  # worker_main writes this rank's result, then leaves with os._exit
    time.sleep(0.5)  # let the peer go
    t0 = time.monotonic()
    s = L.ct_nccl_all_reduce(comm, h, OPS["CT_COMM_SUM"], None)
    if s == 0:
        s = L.ct_nccl_comm_wait(comm, 0)
    dt = time.monotonic() - t0
    msg = L.ct_last_error_message().decode()
    check(s in (STATUS["CT_ERR_TIMEOUT"], STATUS["CT_ERR_COMM"]),
          f"dead peer: status {s} after {dt:.1f} s ({msg})")
    check(dt < DEAD_PEER_TIMEOUT_MS / 1000.0 + 25, f"dead peer: gave up after {dt:.1f} s (timeout "
          f"{DEAD_PEER_TIMEOUT_MS / 1000:.0f} s)")
    s2 = L.ct_nccl_comm_check(comm)
    check(s2 in (STATUS["CT_ERR_TIMEOUT"], STATUS["CT_ERR_COMM"]), f"dead peer: check afterwards gives {s2}")
    print(f"[rank {rank}] dead peer: status {s} after {dt:.2f} s: {msg}", flush=True)
    ck(L.ct_tensor_release(h), "release")
    ck(L.ct_nccl_comm_release(comm), "release comm")
    return "done"


def worker_main(lib, rank, nranks, tmp):
    result = {"rank": rank, "passed": 0, "failed": 0, "fails": []}
    exit_now = False
    try:
        tally, fails, exit_now = worker(lib, rank, nranks, tmp)
        result.update(passed=tally.passed, failed=tally.failed, fails=fails)
    except SystemExit:
        raise
    except BaseException as e:  # noqa: BLE001
        traceback.print_exc()
        result["failed"] += 1
        result["fails"].append(f"{type(e).__name__}: {e}")
    with open(f"{tmp}/result.{rank}.json", "w") as f:
        json.dump(result, f)
    sys.stdout.flush()
    if exit_now:  # the dead peer: gone at once, its communicator neither destroyed nor aborted
        os._exit(0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lib")
    ap.add_argument("--nranks", type=int, default=0)
    ap.add_argument("--worker", nargs=3, metavar=("RANK", "NRANKS", "TMP"))
    a = ap.parse_args()
    if a.worker:
        worker_main(a.lib, int(a.worker[0]), int(a.worker[1]), a.worker[2])
        return 0
    ngpu = torch.cuda.device_count()
    if ngpu == 0:
        print("nccl_dist_compare: SKIP, no GPU\nnccl_dist_compare: 0 passed, 0 failed")
        return 0
    ct = Ctorch(a.lib, NCCL_ARGTYPES)
    avail = i32()
    ct.ck(ct.lib.ct_nccl_is_available(C.byref(avail)), "ct_nccl_is_available")
    if not avail.value:
        ct.lib.ct_nccl_version(None, None, None)
        print(f"nccl_dist_compare: FAIL, ctorch cannot load NCCL: {ct.lib.ct_last_error_message().decode()}")
        print("nccl_dist_compare: 0 passed, 1 failed")
        return 1
    nranks = a.nranks or ngpu
    print(f"nccl_dist_compare: {nranks} process(es) on {ngpu} GPU(s)"
          + ("" if nranks >= 2 else "; the dead-peer case needs 2 (SKIP)"), flush=True)
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        rcs = spawn_ranks(os.path.abspath(__file__), [a.lib], nranks, tmp, 600)
        for r, rc in enumerate(rcs):
            try:
                with open(f"{tmp}/result.{r}.json") as f:
                    res = json.load(f)
                passed += res["passed"]
                failed += res["failed"]
            except OSError:
                print(f"FAIL rank {r}: no result")
                failed += 1
            if rc != 0:
                print(f"FAIL rank {r}: " + ("still running after 600 s, killed" if rc is None else f"exit status {rc}"))
                failed += 1
    print(f"nccl_dist_compare: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
