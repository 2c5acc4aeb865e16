# ctorch's CUDA graphs against torch.cuda's on the same GPU, in the same process (issue 15):
#  a. random numbers drawn in a graph: every replay's bits equal torch's replay's and what the
#     same ops draw eagerly at the offset of that replay; the generator offsets move alike;
#  b. memory statistics of the same capture sequences (deltas from each sequence's start, as
#     the two allocators may hold different memory when it begins; memory_summary too when they
#     start alike), pool sharing, empty_cache with live graphs;
#  c. a replayed chain of elementwise ops, with new values copied into its static inputs, equals
#     the eager chain (ctorch, bit for bit) and torch's result.
# Prints PASS/FAIL lines and "graph_compare: N passed, N failed"; exits 1 on any failure.
#   python3 tests/gpu/graph_compare.py gpu_artifacts/libctorch.so
import contextlib
import ctypes as C
import sys
import traceback

import torch

from ctlib import CUDA, P, Ctorch, Tally, abi_enum, i32, i64, vp

D = C.c_double
ct = Ctorch(sys.argv[1], {
    "ct_cuda_graph_create": [P(vp)], "ct_cuda_graph_release": [vp], "ct_cuda_graph_reset": [vp],
    "ct_cuda_graph_replay": [vp], "ct_cuda_graph_capture_begin": [vp, i64, i32], "ct_cuda_graph_capture_end": [vp],
    "ct_cuda_graph_pool": [vp, P(i64)], "ct_cuda_graph_pool_handle": [P(i64)],
    "ct_cuda_graph_capture_enter": [vp, i64, i32, vp, P(vp), P(i32)], "ct_cuda_graph_capture_exit": [vp, vp, i32],
    "ct_cuda_is_current_stream_capturing": [P(i32)], "ct_live_cuda_graph_count": [P(i64)],
    "ct_live_tensor_count": [P(i64)],
    "ct_stream_create": [i32, i32, P(vp)], "ct_stream_release": [vp],
    "ct_stream_guard_enter": [vp, P(vp), P(i32)], "ct_stream_guard_exit": [vp, i32],
    "ct_cuda_synchronize": [i32], "ct_cuda_empty_cache": [], "ct_cuda_reset_peak_memory_stats": [i32],
    "ct_cuda_memory_stat": [i32, C.c_char_p, P(i64)], "ct_cuda_memory_stats_keys": [i32, vp, i64, P(i64)],
    "ct_cuda_reset_accumulated_memory_stats": [i32], "ct_cuda_memory_summary": [i32, i32, vp, i64, P(i64)],
    "ct_cuda_manual_seed": [i64], "ct_default_generator": [i32, i32, P(vp)], "ct_generator_release": [vp],
    "ct_generator_offset": [vp, P(i64)],
    "ct_cuda_get_rng_state": [i32, vp, i64, P(i64)], "ct_cuda_set_rng_state": [vp, i64, i32],
    "ct_empty": [P(i64), i32, i32, i32, i32, P(vp)], "ct_full": [P(i64), i32, D, i32, i32, i32, P(vp)],
    "ct_rand": [P(i64), i32, i32, i32, i32, vp, P(vp)], "ct_randn": [P(i64), i32, i32, i32, i32, vp, P(vp)],
    "ct_randint": [i64, i64, P(i64), i32, i32, i32, i32, vp, P(vp)],
    "ct_tensor_normal_": [vp, D, D, vp], "ct_tensor_bernoulli_": [vp, D, vp],
    "ct_unary": [i32, vp, P(vp)], "ct_binary": [i32, vp, vp, P(vp)], "ct_binary_scalar_f": [i32, vp, D, i32, P(vp)],
    "ct_binary_scalar_f_": [i32, vp, D], "ct_tensor_copy_": [vp, vp, i32],
})
lib, ck, DT = ct.lib, ct.ck, ct.dt
UNARY, BINARY, MODE = abi_enum("unary_op"), abi_enum("binary_op"), abi_enum("capture_mode")
GLOBAL = MODE["CT_CAPTURE_MODE_GLOBAL"]
MODES = {"global": GLOBAL, "thread_local": MODE["CT_CAPTURE_MODE_THREAD_LOCAL"],
         "relaxed": MODE["CT_CAPTURE_MODE_RELAXED"]}
MiB = 1 << 20
tally = Tally("graph_compare", verbose=True)
check = tally.check


# ---- ctorch helpers ------------------------------------------------------------------------

def new(fn, *args):
    """calls a ct_ function whose last argument is a handle out-parameter; returns the handle"""
    out = vp()
    ck(fn(*args, C.byref(out)), fn.__name__)
    return out


def release(*handles):
    for h in handles:
        ck(lib.ct_tensor_release(h), "ct_tensor_release")


def ct_int(fn, *args, typ=i64):
    v = typ()
    ck(fn(*args, C.byref(v)), fn.__name__)
    return v.value


def shape(n):
    return (i64 * 1)(n)


def ct_graph():
    return new(lib.ct_cuda_graph_create)


def ct_capturing():
    return ct_int(lib.ct_cuda_is_current_stream_capturing, typ=i32)


class CtCapture:
    """`with CtCapture(g, pool, mode):` is ct_cuda_graph_capture_enter / _exit on the side stream
    ctorch keeps (torch.cuda.graph's default). An exception inside ends the capture too; exit's
    own failure is then not reported over it."""

    def __init__(self, g, pool=0, mode=GLOBAL):
        self.g, self.pool, self.mode = g, pool, mode

    def __enter__(self):
        self.prev_stream, self.prev_device = vp(), i32()
        ck(lib.ct_cuda_graph_capture_enter(self.g, self.pool, self.mode, None, C.byref(self.prev_stream),
                                           C.byref(self.prev_device)), "ct_cuda_graph_capture_enter")

    def __exit__(self, kind, value, tb):
        status = lib.ct_cuda_graph_capture_exit(self.g, self.prev_stream, self.prev_device.value)
        if kind is None:
            ck(status, "ct_cuda_graph_capture_exit")
        return False


def th_bytes(t):
    return t.detach().cpu().contiguous().view(torch.uint8).numpy().tobytes()


def section(name, fn):
    """runs one part; an exception is one failure (with its traceback) and the next part runs"""
    print(f"== {name}", flush=True)
    try:
        fn()
        return True
    except Exception as e:  # noqa: BLE001 - every failure is reported, then the next part runs
        traceback.print_exc()
        check(False, f"{name}: stopped by {type(e).__name__}: {e}")
        return False


# ---- a. random numbers in graphs ---------------------------------------------------------------

DRAWS = [  # (op, dtype, numel, a, b), drawn in this order, in a graph and eagerly
    ("rand", torch.float32, 1000, 0, 0),
    ("randn", torch.float32, 4099, 0, 0),
    ("rand", torch.float32, (1 << 20) + 3, 0, 0),  # more than one Philox round per thread
    ("randint", torch.int64, 5000, -5, 1000),
    ("randn", torch.float64, 100003, 0, 0),
    ("normal", torch.float32, 2049, 1.5, 2.0),
    ("randint", torch.int32, (1 << 20) + 1, 0, 7),
    ("rand", torch.float16, 777, 0, 0),
    ("bernoulli", torch.float32, 3000, 0.3, 0),
]
SEED = 20261126


def ct_draw(op, dt, n, a, b):
    s, d = shape(n), DT[dt]
    if op == "rand":
        return new(lib.ct_rand, s, 1, d, CUDA, 0, None)
    if op == "randn":
        return new(lib.ct_randn, s, 1, d, CUDA, 0, None)
    if op == "randint":
        return new(lib.ct_randint, int(a), int(b), s, 1, d, CUDA, 0, None)
    t = new(lib.ct_empty, s, 1, d, CUDA, 0)
    try:
        if op == "normal":
            ck(lib.ct_tensor_normal_(t, a, b, None), op)
        else:
            ck(lib.ct_tensor_bernoulli_(t, a, None), op)
    except Exception:
        release(t)
        raise
    return t


def th_draw(op, dt, n, a, b):
    if op == "rand":
        return torch.rand(n, dtype=dt, device="cuda")
    if op == "randn":
        return torch.randn(n, dtype=dt, device="cuda")
    if op == "randint":
        return torch.randint(int(a), int(b), (n,), dtype=dt, device="cuda")
    t = torch.empty(n, dtype=dt, device="cuda")
    return t.normal_(a, b) if op == "normal" else t.bernoulli_(a)


def ct_draw_all():
    """every draw of DRAWS; returns the handles (release them)"""
    hs = []
    try:
        for d in DRAWS:
            hs.append(ct_draw(*d))
    except Exception:
        release(*hs)
        raise
    return hs


def ct_read_all(hs):
    return [ct.to_bytes(h, d[1], d[2]) for h, d in zip(hs, DRAWS)]


def th_read_all(ts):
    return [th_bytes(t) for t in ts]


def ct_state():
    buf, need = (C.c_uint8 * 16)(), i64()
    ck(lib.ct_cuda_get_rng_state(0, buf, 16, C.byref(need)), "ct_cuda_get_rng_state")
    return bytes(buf)


def ct_set_state(state):
    ck(lib.ct_cuda_set_rng_state(state, len(state), 0), "ct_cuda_set_rng_state")


def th_state():
    return bytes(torch.cuda.get_rng_state(0).tolist())


def th_set_state(state):
    torch.cuda.set_rng_state(torch.tensor(list(state), dtype=torch.uint8), 0)


def th_offset():
    g = torch.cuda.default_generators[0]
    if hasattr(g, "get_offset"):
        return g.get_offset()
    return int.from_bytes(th_state()[8:16], "little")


def differing(xs, ys):
    """the DRAWS entries whose bytes differ between two lists of results"""
    return [f"{d[0]} {d[1]} n={d[2]}" for d, x, y in zip(DRAWS, xs, ys) if x != y]


def random_in_graphs():
    gen = new(lib.ct_default_generator, CUDA, 0)
    try:
        ct_offset = lambda: ct_int(lib.ct_generator_offset, gen)  # noqa: E731
        ck(lib.ct_cuda_manual_seed(SEED), "ct_cuda_manual_seed")
        torch.cuda.manual_seed(SEED)
        # some eager draws first, so the capture starts at an offset other than 0
        release(*ct_draw_all())
        th_draw_all = lambda: [th_draw(*d) for d in DRAWS]  # noqa: E731
        th_draw_all()
        check(ct_offset() == th_offset(), f"offset before capture: ctorch {ct_offset()}, torch {th_offset()}")
        before = (ct_offset(), th_offset())

        g = ct_graph()
        outs = []
        try:
            check(ct_capturing() == 0 and not torch.cuda.is_current_stream_capturing(), "not capturing before")
            with CtCapture(g):
                check(ct_capturing() == 1, "ct_cuda_is_current_stream_capturing is 1 inside the capture")
                outs = ct_draw_all()
            tg = torch.cuda.CUDAGraph()
            with torch.cuda.graph(tg):
                check(torch.cuda.is_current_stream_capturing(), "torch capturing inside its capture")
                touts = th_draw_all()
            check(ct_capturing() == 0, "ct_cuda_is_current_stream_capturing is 0 after the capture")
            check((ct_offset(), th_offset()) == before,
                  f"a capture does not move the offset: ctorch {before[0]} -> {ct_offset()}, "
                  f"torch {before[1]} -> {th_offset()}")
            for r in range(3):
                states = (ct_state(), th_state())
                check(states[0] == states[1], f"replay {r}: generator states before it equal "
                      f"(ctorch {states[0].hex()}, torch {states[1].hex()})")
                ck(lib.ct_cuda_graph_replay(g), "ct_cuda_graph_replay")
                tg.replay()
                mine, theirs = ct_read_all(outs), th_read_all(touts)
                bad = differing(mine, theirs)
                check(not bad, f"replay {r}: the {len(DRAWS)} draws equal torch's replay bit for bit"
                      + (f"; differ: {bad}" if bad else ""))
                after = (ct_offset(), th_offset())
                check(after[0] == after[1], f"replay {r}: offset after it: ctorch {after[0]}, torch {after[1]}")
                start = int.from_bytes(states[0][8:16], "little")  # the state: seed, then offset
                check(after[0] > start, f"replay {r}: the offset advances ({start} -> {after[0]})")
                # the same ops drawn eagerly from the offset the replay started at
                ct_set_state(states[0])
                eager = ct_draw_all()
                mine_eager = ct_read_all(eager)
                release(*eager)
                bad = differing(mine, mine_eager)
                check(not bad, f"replay {r}: ctorch's replay equals its eager draws at that offset"
                      + (f"; differ: {bad}" if bad else ""))
                check(ct_offset() == after[0], f"replay {r}: eager draws advance the offset as the replay did "
                      f"({ct_offset()} vs {after[0]})")
                th_set_state(states[1])
                bad = differing(theirs, th_read_all(th_draw_all()))
                check(not bad, f"replay {r}: torch's replay equals its eager draws at that offset (the premise)"
                      + (f"; differ: {bad}" if bad else ""))
                check(th_offset() == after[1], f"replay {r}: torch's eager draws advance its offset as its replay")
            # eager draws after the replays
            hs = ct_draw_all()
            mine = ct_read_all(hs)
            release(*hs)
            bad = differing(mine, th_read_all(th_draw_all()))
            check(not bad, "eager draws after the replays equal torch's" + (f"; differ: {bad}" if bad else ""))
            check(ct_state() == th_state(), f"state after the eager draws: ctorch {ct_state().hex()}, "
                  f"torch {th_state().hex()}")
            del tg, touts
        finally:
            release(*outs)
            ck(lib.ct_cuda_graph_release(g), "ct_cuda_graph_release")
    finally:
        ck(lib.ct_generator_release(gen), "ct_generator_release")


# ---- b. memory statistics ----------------------------------------------------------------------

STATS = ("allocated_bytes", "reserved_bytes", "active_bytes", "requested_bytes", "inactive_split_bytes",
         "segment", "allocation", "active", "inactive_split")
POOLS = ("all", "small_pool", "large_pool")
CURRENT = [f"{s}.{p}.current" for s in STATS for p in POOLS]
PEAKS = [f"{s}.all.peak" for s in ("allocated_bytes", "reserved_bytes", "active_bytes")]
COUNTERS = ["num_device_alloc", "num_device_free"]  # cudaMalloc / cudaFree calls (deltas too)


def ct_stat_keys():
    need = i64()
    lib.ct_cuda_memory_stats_keys(0, None, 0, C.byref(need))
    buf = C.create_string_buffer(need.value + 1)
    ck(lib.ct_cuda_memory_stats_keys(0, buf, len(buf), C.byref(need)), "ct_cuda_memory_stats_keys")
    return set(buf.value.decode().split())


class Side:
    """what the capture sequences do, written once over each library's operations (below)"""

    def start(self, dump):
        """each sequence starts with the device idle, no cached memory, the peaks and totals reset"""
        self.sync()
        self.empty_cache()
        self.reset_peaks()
        self.reset_totals()
        dump("start")

    @contextlib.contextmanager
    def capture(self, g, pool=0, before_begin=None):
        """`with S.capture(g, pool):` captures into g on the side stream (pool 0: a new one);
        before_begin() runs on that stream just before capture_begin"""
        saved = self.stream_enter()
        try:
            if before_begin:
                before_begin()
            self.begin(g, pool)
            try:
                yield
            except BaseException:
                with contextlib.suppress(Exception):
                    self.end(g)
                raise
            self.end(g)
        finally:
            self.stream_exit(saved)


class CtSide(Side):
    """the capture sequences' operations in ctorch"""
    name = "ctorch"

    def __init__(self, keys):
        self.keys, self.stream, self.twins = keys, None, []

    def generator_graph_state(self):
        """torch's default generator keeps two 8-byte tensors (its seed and offset for graphs),
        allocated on the capturing stream by the first capture_begin and kept while any graph
        that captured exists; ctorch keeps that state per capture, in the graph's pool, and only
        for captures that draw. Made before the first capture (the anchor's), these twins give
        both allocators the same blocks when the sequences start (so memory_summary compares)."""
        self.twins = [new(lib.ct_empty, shape(1), 1, DT[torch.int64], CUDA, 0) for _ in range(2)]

    def stats(self):
        return {k: ct_int(lib.ct_cuda_memory_stat, 0, k.encode()) for k in self.keys}

    def summary(self):  # memory_summary, with torch's title (alloc_compare.py does the same)
        need = i64()
        lib.ct_cuda_memory_summary(0, 0, None, 0, C.byref(need))
        buf = C.create_string_buffer(need.value + 1)
        ck(lib.ct_cuda_memory_summary(0, 0, buf, len(buf), C.byref(need)), "ct_cuda_memory_summary")
        return buf.value.decode().replace(" ctorch CUDA memory summary", "PyTorch CUDA memory summary")

    def full(self, nbytes):  # a uint8 tensor of nbytes (one fill kernel)
        return new(lib.ct_full, shape(nbytes), 1, 1.0, DT[torch.uint8], CUDA, 0)

    def free(self, *ts):
        release(*ts)

    def sync(self):
        ck(lib.ct_cuda_synchronize(-1), "ct_cuda_synchronize")

    def empty_cache(self):
        ck(lib.ct_cuda_empty_cache(), "ct_cuda_empty_cache")

    def reset_peaks(self):
        ck(lib.ct_cuda_reset_peak_memory_stats(0), "ct_cuda_reset_peak_memory_stats")

    def reset_totals(self):
        ck(lib.ct_cuda_reset_accumulated_memory_stats(0), "ct_cuda_reset_accumulated_memory_stats")

    def graph(self):
        return ct_graph()

    def begin(self, g, pool):
        ck(lib.ct_cuda_graph_capture_begin(g, pool, GLOBAL), "ct_cuda_graph_capture_begin")

    def end(self, g):
        ck(lib.ct_cuda_graph_capture_end(g), "ct_cuda_graph_capture_end")

    def replay(self, g):
        ck(lib.ct_cuda_graph_replay(g), "ct_cuda_graph_replay")

    def reset(self, g):
        ck(lib.ct_cuda_graph_reset(g), "ct_cuda_graph_reset")

    def drop(self, g):  # the last reference to the graph
        ck(lib.ct_cuda_graph_release(g), "ct_cuda_graph_release")

    def pool(self, g):
        return ct_int(lib.ct_cuda_graph_pool, g)

    def pool_handle(self):
        return ct_int(lib.ct_cuda_graph_pool_handle)

    def stream_enter(self):
        """makes the side stream current (one for every capture, kept until close(), as
        torch.cuda.graph keeps one); returns what stream_exit needs"""
        if self.stream is None:
            self.stream = new(lib.ct_stream_create, 0, 0)
        prev, dev = vp(), i32()
        ck(lib.ct_stream_guard_enter(self.stream, C.byref(prev), C.byref(dev)), "ct_stream_guard_enter")
        return prev, dev.value

    def stream_exit(self, saved):
        ck(lib.ct_stream_guard_exit(*saved), "ct_stream_guard_exit")

    def close(self):
        release(*self.twins)
        self.twins = []
        if self.stream is not None:
            ck(lib.ct_stream_release(self.stream), "ct_stream_release")
            self.stream = None

    def inplace(self, t):  # one kernel that allocates nothing
        ck(lib.ct_binary_scalar_f_(BINARY["CT_ADD"], t, 1.0), "ct_binary_scalar_f_")


class TorchSide(Side):
    """the same operations in torch"""
    name = "torch"

    def __init__(self, keys):
        self.keys, self.stream = keys, torch.cuda.Stream()

    def generator_graph_state(self):
        pass  # capture_begin makes it

    def stats(self):
        m = torch.cuda.memory_stats(0)
        return {k: m.get(k) for k in self.keys}

    def summary(self):
        return torch.cuda.memory_summary(0, abbreviated=False)

    def full(self, nbytes):
        return torch.full((nbytes,), 1, dtype=torch.uint8, device="cuda")

    def free(self, *ts):
        pass  # the caller drops its references (del)

    def sync(self):
        torch.cuda.synchronize()

    def empty_cache(self):
        torch.cuda.empty_cache()

    def reset_peaks(self):
        torch.cuda.reset_peak_memory_stats(0)

    def reset_totals(self):
        torch.cuda.reset_accumulated_memory_stats(0)

    def graph(self):
        return torch.cuda.CUDAGraph()

    def begin(self, g, pool):
        g.capture_begin(pool=pool if pool else None)

    def end(self, g):
        g.capture_end()

    def replay(self, g):
        g.replay()

    def reset(self, g):
        g.reset()

    def drop(self, g):
        pass  # the caller drops its reference (del)

    def pool(self, g):
        return g.pool()

    def pool_handle(self):
        return torch.cuda.graph_pool_handle()

    def stream_enter(self):
        ctx = torch.cuda.stream(self.stream)
        ctx.__enter__()
        return ctx

    def stream_exit(self, ctx):
        ctx.__exit__(None, None, None)

    def close(self):
        pass

    def inplace(self, t):
        t.add_(1.0)


def seq_reset_first(S, dump):
    """blocks allocated and freed during a capture, the graph reset before its outputs are freed"""
    S.start(dump)
    g = S.graph()
    with S.capture(g):
        a = S.full(1000)           # small pool
        b = S.full(3 * MiB)        # large: a 20 MiB segment
        c = S.full(200 * 1024)     # small
        d = S.full(12 * MiB + 1)   # large: a segment of its own
        S.free(a, d)               # back to this graph's pool only
        del a, d
        e = S.full(500)            # small, from a's block
        f = S.full(10 * MiB)       # large, from d's
        dump("during the capture")
    dump("after capture_end")
    S.replay(g)
    S.sync()
    dump("after a replay")
    S.reset(g)
    dump("after reset (outputs alive)")
    S.empty_cache()
    dump("after reset and empty_cache (outputs alive)")
    S.free(b, c, e, f)
    del b, c, e, f
    dump("outputs freed")
    S.empty_cache()
    dump("after empty_cache")
    S.drop(g)
    del g
    dump("graph dropped")


def seq_outputs_first(S, dump):
    """the outputs freed while the graph lives: empty_cache keeps its pool until it goes"""
    S.start(dump)
    g = S.graph()
    with S.capture(g):
        t = S.full(6 * MiB)
        x = S.full(2 * MiB)
        y = S.full(4096)
        S.free(t)
        del t
    S.replay(g)
    S.sync()
    dump("after capture and replay")
    S.free(x, y)
    del x, y
    dump("outputs freed, graph alive")
    S.empty_cache()
    dump("empty_cache with the graph alive")
    S.drop(g)
    del g
    dump("graph dropped")
    S.empty_cache()
    dump("after empty_cache")


def seq_shared_pool(S, dump, via_handle):
    """two graphs captured in order into one pool: the second reuses the first's freed block"""
    S.start(dump)
    g1, g2 = S.graph(), S.graph()
    pool = S.pool_handle() if via_handle else 0
    with S.capture(g1, pool):
        t = S.full(6 * MiB)
        o1 = S.full(2 * MiB)
        S.free(t)
        del t
    dump("first graph captured")
    with S.capture(g2, pool if via_handle else S.pool(g1)):
        o2 = S.full(4 * MiB)   # fits the 6 MiB block freed in the first capture
    dump("second graph captured")
    S.replay(g1)
    S.replay(g2)
    S.sync()
    dump("both replayed")
    S.drop(g1)
    del g1
    dump("first graph dropped")
    S.drop(g2)
    del g2
    dump("second graph dropped")
    S.free(o1, o2)
    del o1, o2
    S.empty_cache()
    dump("outputs freed, after empty_cache")


def run_sequence(name, seq):
    """runs seq in both libraries and compares every step's statistics, as deltas from "start"
    (peaks: from the start's current value, the peaks being reset there)"""
    results, summaries = {}, {}
    for S in (ct_side, th_side):
        steps, texts = {}, {}

        def dump(label, S=S, steps=steps, texts=texts):
            steps[label] = S.stats()
            texts[label] = S.summary()
        seq(S, dump)
        results[S.name], summaries[S.name] = steps, texts
    mine, theirs = results["ctorch"], results["torch"]
    base_c, base_t = mine["start"], theirs["start"]

    def delta(stats, base, k):
        if stats[k] is None:
            return None
        return stats[k] - base[k.replace(".peak", ".current")]

    for label in mine:
        if label == "start":
            continue
        bad = []
        for k in keys:
            dc, dt = delta(mine[label], base_c, k), delta(theirs[label], base_t, k)
            if dc != dt:
                bad.append(f"{k}: ctorch {dc:+}, torch {dt:+}" if None not in (dc, dt) else f"{k}: ctorch {dc}, torch {dt}")
        check(not bad, f"memory {name}, {label}: {len(keys)} statistics equal torch's"
              + ("".join(f"\n    {b}" for b in bad)))
    # memory_summary shows absolute figures: comparable when both allocators start alike (the
    # same current figures at "start"; peaks and totals were reset there)
    alike = all(base_c[k] == base_t[k] for k in keys if k.endswith(".current"))
    if not alike:
        print(f"SKIP memory {name}: memory_summary not compared (the allocators start from different states: "
              + ", ".join(f"{k} {base_c[k]} vs {base_t[k]}" for k in keys
                          if k.endswith(".current") and base_c[k] != base_t[k]) + ")")
    else:
        for label in mine:
            a, b = summaries["ctorch"][label], summaries["torch"][label]
            check(a == b, f"memory {name}, {label}: memory_summary equals torch's"
                  + ("" if a == b else f"\n--- torch\n{b}\n--- ctorch\n{a}"))
    return mine, base_c


def memory_statistics():
    global ct_side, th_side, keys
    have, theirs = ct_stat_keys(), set(torch.cuda.memory_stats(0))
    wanted = [k for k in CURRENT + PEAKS + COUNTERS if k in theirs]
    if len(wanted) < len(CURRENT + PEAKS + COUNTERS):
        print(f"NOTE torch {torch.__version__} lacks {sorted(set(CURRENT + PEAKS + COUNTERS) - theirs)}: not compared")
    keys = [k for k in wanted if k in have and k.replace(".peak", ".current") in have]
    missing = [k for k in wanted if k not in keys]
    check(not missing, f"ctorch has the memory_stats keys compared{f' (missing: {missing})' if missing else ''}")
    ct_side, th_side = CtSide(keys), TorchSide(keys)
    # torch keeps its generator's graph state (two small tensors) while any graph that captured
    # on the device exists; an "anchor" graph in each library, captured before the sequences and
    # kept until after them, keeps such per-device state out of the deltas (and ctorch's twins of
    # it, CtSide.generator_graph_state, out of the memory_summary comparison).
    anchors = []
    try:
        for S in (ct_side, th_side):
            anchors.append((S, S.graph(), S.full(512)))
            with S.capture(anchors[-1][1], before_begin=S.generator_graph_state):
                S.inplace(anchors[-1][2])
        for name, seq in (("reset first", seq_reset_first), ("outputs first", seq_outputs_first),
                          ("shared pool (graph_pool_handle)", lambda S, d: seq_shared_pool(S, d, True)),
                          ("shared pool (first graph's pool)", lambda S, d: seq_shared_pool(S, d, False))):
            try:
                mine, base = run_sequence(name, seq)
            except Exception as e:  # noqa: BLE001 - reported; the next sequence runs
                traceback.print_exc()
                check(False, f"memory {name}: stopped by {type(e).__name__}: {e}")
                continue
            # what does not depend on torch: everything returned at the end, and the rules
            for k in ("allocated_bytes.all.current", "reserved_bytes.all.current", "segment.all.current"):
                if k in keys:
                    last = list(mine)[-1]
                    check(mine[last][k] == base[k], f"memory {name}: {k} back to its start at the end "
                          f"({base[k]} -> {mine[last][k]})")
            r = "reserved_bytes.all.current"
            if r in keys and name == "outputs first":
                kept, had = mine["empty_cache with the graph alive"][r], mine["after capture and replay"][r]
                check(kept == had, f"memory {name}: empty_cache frees nothing of a live graph's pool "
                      f"(reserved {had} -> {kept})")
            if r in keys and name.startswith("shared pool"):
                one, two = mine["first graph captured"][r], mine["second graph captured"][r]
                check(one == two, f"memory {name}: the second capture reuses the first's freed block, no new "
                      f"segment (reserved {one} -> {two})")
    finally:
        while anchors:
            S, g, t = anchors.pop()
            S.reset(g)
            S.drop(g)
            S.free(t)
            del S, g, t
        for S in (ct_side, th_side):
            S.close()
            S.empty_cache()


# ---- c. replayed values ------------------------------------------------------------------------

CHAIN = [  # (kind, op, operand): 23 elementwise ops; "x" and "y" are the static inputs (in [-2, 2)).
    # Every value stays within a few units and no op amplifies a last-bit difference much (the
    # square root is of a value >= 1), so a tolerance against torch stays meaningful.
    ("scalar", "mul", 1.5), ("scalar", "add", 0.25), ("tensor", "add", "y"), ("unary", "tanh", None),
    ("tensor", "mul", "x"), ("unary", "sigmoid", None), ("scalar", "sub", 0.1), ("unary", "neg", None),
    ("unary", "exp", None), ("tensor", "sub", "y"), ("unary", "relu", None), ("scalar", "div", 3.0),
    ("unary", "sin", None), ("tensor", "maximum", "x"), ("unary", "square", None), ("scalar", "add", 1.0),
    ("unary", "log", None), ("tensor", "mul", "y"), ("unary", "cos", None), ("scalar", "mul", -2.0),
    ("unary", "abs", None), ("scalar", "add", 1.0), ("unary", "sqrt", None),
]
SHAPE = (257, 1031)  # odd sizes: the kernels' tails too


def ct_chain(x, y):
    """the chain eagerly in ctorch: a new tensor (each intermediate released when used)"""
    cur = None
    for kind, op, operand in CHAIN:
        a = x if cur is None else cur
        if kind == "unary":
            nxt = new(lib.ct_unary, UNARY["CT_" + op.upper()], a)
        elif kind == "scalar":
            nxt = new(lib.ct_binary_scalar_f, BINARY["CT_" + op.upper()], a, operand, 0)
        else:
            nxt = new(lib.ct_binary, BINARY["CT_" + op.upper()], a, x if operand == "x" else y)
        if cur is not None:
            release(cur)
        cur = nxt
    return cur


def th_chain(x, y):
    cur = x
    for kind, op, operand in CHAIN:
        f = getattr(torch, op)
        if kind == "unary":
            cur = f(cur)
        elif kind == "scalar":
            cur = f(cur, operand)
        else:
            cur = f(cur, x if operand == "x" else y)
    return cur


def replayed_values():
    rng = torch.Generator().manual_seed(15)
    new_input = lambda: torch.rand(SHAPE, generator=rng) * 4 - 2  # noqa: E731 - on the CPU
    for mode_name, mode in MODES.items():
        X, Y = new_input(), new_input()
        sx, sy = ct.to_ct(X, CUDA), ct.to_ct(Y, CUDA)
        tx, ty = X.cuda(), Y.cuda()
        g = ct_graph()
        out = None
        try:
            release(ct_chain(sx, sy))  # warm-up, as torch's documentation asks before a capture
            with CtCapture(g, 0, mode):
                out = ct_chain(sx, sy)
            th_chain(tx, ty)
            tg = torch.cuda.CUDAGraph()
            with torch.cuda.graph(tg, capture_error_mode=mode_name):
                tout = th_chain(tx, ty)
            for r in range(3):
                X, Y = new_input(), new_input()
                hx, hy = ct.to_ct(X, CUDA), ct.to_ct(Y, CUDA)
                try:
                    ck(lib.ct_tensor_copy_(sx, hx, 0), "copy into the static input")
                    ck(lib.ct_tensor_copy_(sy, hy, 0), "copy into the static input")
                    ck(lib.ct_cuda_graph_replay(g), "ct_cuda_graph_replay")
                    mine = ct.from_ct(out, torch.float32)
                    e = ct_chain(hx, hy)
                    eager = ct.from_ct(e, torch.float32)
                    release(e)
                finally:
                    release(hx, hy)
                tx.copy_(X)
                ty.copy_(Y)
                tg.replay()
                theirs = tout.cpu()
                th_eager = th_chain(X.cuda(), Y.cuda()).cpu()
                what = f"chain of {len(CHAIN)} ops, {mode_name} capture, replay {r}"
                check(tuple(mine.shape) == SHAPE and torch.equal(mine, eager),
                      f"{what}: ctorch's replay equals its eager chain bit for bit"
                      f" (max |diff| {float((mine - eager).abs().max()):.3g})")
                diff = float((mine - theirs).abs().max())
                check(torch.allclose(mine, theirs, rtol=1e-5, atol=1e-6),
                      f"{what}: equals torch's replay (max |diff| {diff:.3g}; "
                      f"{'bit for bit' if torch.equal(mine, theirs) else 'not bit for bit'})")
                check(torch.equal(theirs, th_eager), f"{what}: torch's replay equals its eager chain (the premise)")
            del tg, tout
        finally:
            if out is not None:
                release(out)
            release(sx, sy)
            ck(lib.ct_cuda_graph_release(g), "ct_cuda_graph_release")


# ---- main ----------------------------------------------------------------------------------------

if not torch.cuda.is_available():
    print("graph_compare: torch sees no CUDA device")
    sys.exit(1)
tensors0 = ct_int(lib.ct_live_tensor_count)
clean = True
clean &= section("a. random numbers in graphs", random_in_graphs)
clean &= section("b. memory statistics of the same capture sequences", memory_statistics)
clean &= section("c. a replayed elementwise chain", replayed_values)
if clean:
    check(ct_int(lib.ct_live_tensor_count) == tensors0, "no tensor handle leaked")
    check(ct_int(lib.ct_live_cuda_graph_count) == 0, "no graph handle leaked")
tally.exit()
