package org.ctorch;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import org.ctorch.swig.ctorch;
import org.junit.Assume;
import org.junit.Test;
import org.junit.function.ThrowingRunnable;

/**
 * {@link NcclComm} (section 21 of ctorch.h): what the binding adds. Without a GPU: the generated
 * {@code ReduceOp}, the constants, the 301 mapping of every call (also of a communicator object
 * adopted over a handle no communicator has), the exception types of codes 201 and 303,
 * marshalling (null and closed arguments, unique ids, timeouts), lifetimes (close twice, use
 * after close, the Cleaner releasing dropped communicators). "gpu" tests (skipped visibly here)
 * check a single-rank communicator on one GPU: every collective's values, send and recv to
 * itself in a group, split, wait/check/abort/destroy and the errors after them, a peer that
 * never joins (the timeout exception), dropped communicators going back through the Cleaner;
 * and, on two GPUs, two ranks in two threads.
 */
public class NcclCommTest extends CtorchTestCase {

  /**
   * A handle of the tensor table's kind whose slot was never allocated: no communicator handle,
   * whatever kind tag communicators get.
   */
  static final long FOREIGN = 0x5000_0001_FFFF_FFF0L;

  /** The code a call on FOREIGN gives: 102 with CUDA, 301 (before any handle check) without. */
  static int foreignCode() {
    return Cuda.isAvailable() ? CtorchException.INVALID_HANDLE : CtorchException.CUDA_UNAVAILABLE;
  }

  /** Every instance method of c once, with tensor t and stream s. */
  static List<ThrowingRunnable> everyMethod(NcclComm c, Tensor t, Stream s) {
    return List.of(
        c::rank, c::size, c::deviceIndex, c::device, c::check, c::await, () -> c.await(Duration.ofSeconds(1)),
        () -> c.split(0), () -> c.split(NcclComm.SPLIT_NOCOLOR, 3), c::newReference,
        () -> c.allReduce(t), () -> c.allReduce(t, NcclComm.ReduceOp.MAX),
        () -> c.allReduce(t, NcclComm.ReduceOp.AVG, s),
        () -> c.broadcast(t, 0), () -> c.broadcast(t, 0, s),
        () -> c.reduce(t, 0), () -> c.reduce(t, 0, NcclComm.ReduceOp.MIN),
        () -> c.reduce(t, 0, NcclComm.ReduceOp.PRODUCT, s),
        () -> c.allGather(t, t), () -> c.allGather(t, t, s),
        () -> c.reduceScatter(t, t), () -> c.reduceScatter(t, t, NcclComm.ReduceOp.SUM),
        () -> c.reduceScatter(t, t, NcclComm.ReduceOp.SUM, s),
        () -> c.allToAll(t, t), () -> c.allToAll(t, t, s),
        () -> c.send(t, 0), () -> c.send(t, 0, s), () -> c.recv(t, 0), () -> c.recv(t, 0, s),
        c::abort, c::destroy);
  }

  /* ============================================================================================
   * Without a GPU: tables, constants, errors
   * ========================================================================================== */

  @Test
  public void reduceOpsAreTorchDistributeds() {
    NcclComm.ReduceOp[] ops = NcclComm.ReduceOp.values();
    assertEquals(5, ops.length);
    assertEquals(ctorch.CT_COMM_SUM, NcclComm.ReduceOp.SUM.code());
    assertEquals(ctorch.CT_COMM_AVG, NcclComm.ReduceOp.AVG.code());
    assertEquals(ctorch.CT_COMM_PRODUCT, NcclComm.ReduceOp.PRODUCT.code());
    assertEquals(ctorch.CT_COMM_MIN, NcclComm.ReduceOp.MIN.code());
    assertEquals(ctorch.CT_COMM_MAX, NcclComm.ReduceOp.MAX.code());
    // torch.distributed.ReduceOp's numbers (c10d's RedOpType): SUM 0, AVG 1, PRODUCT 2, MIN 3, MAX 4.
    assertArrayEquals(new int[] {0, 1, 2, 3, 4}, java.util.Arrays.stream(ops).mapToInt(NcclComm.ReduceOp::code).toArray());
    for (NcclComm.ReduceOp op : ops) {
      assertEquals(op, NcclComm.ReduceOp.fromCode(op.code()));
    }
    assertThrows(IllegalArgumentException.class, () -> NcclComm.ReduceOp.fromCode(5));
  }

  @Test
  public void constants() {
    assertEquals(128, NcclComm.UNIQUE_ID_BYTES);
    assertEquals(-1, NcclComm.SPLIT_NOCOLOR);
    assertEquals(Duration.ofMinutes(10), NcclComm.DEFAULT_TIMEOUT);
  }

  /** Codes 201 and 303 are subclasses a caller can catch alone; the others are not. */
  @Test
  public void timeoutAndCommExceptionTypes() {
    CtorchException t = Native.lastError(CtorchException.TIMEOUT);
    assertTrue(t instanceof CtorchTimeoutException);
    assertEquals(201, t.code());
    assertEquals("CT_ERR_TIMEOUT", t.statusName());
    CtorchException c = Native.lastError(CtorchException.COMM);
    assertTrue(c instanceof CtorchCommException);
    assertEquals(303, c.code());
    assertEquals("CT_ERR_COMM", c.statusName());
    for (int code : new int[] {CtorchException.STATE, CtorchException.CUDA, CtorchException.DEVICE}) {
      CtorchException e = Native.lastError(code);
      assertFalse(e instanceof CtorchTimeoutException || e instanceof CtorchCommException);
      assertEquals(CtorchException.class, e.getClass());
    }
  }

  /** Without CUDA: not available, and every call (static or on a communicator) maps 301. */
  @Test
  public void noGpuEveryCallGives301() {
    assumeNoCuda();
    assertFalse(NcclComm.isAvailable());
    byte[] id = new byte[NcclComm.UNIQUE_ID_BYTES];
    assertEquals(0, Torch.liveNcclCommCount());
    assertNoCuda(NcclComm::version);
    assertNoCuda(NcclComm::uniqueId);
    assertNoCuda(() -> NcclComm.initRank(1, id, 0));
    assertNoCuda(() -> NcclComm.initRank(2, id, 1, 0, Duration.ofMillis(1500)));
    assertNoCuda(NcclComm::groupStart);
    assertNoCuda(NcclComm::groupEnd);
    assertNoCuda(NcclComm::group); // no Group is made
  }

  /**
   * A communicator object over a handle that names none: every method reaches the C layer,
   * which refuses it (102 with CUDA, 301 without), never a crash; close (a refused release) is
   * quiet.
   */
  @Test
  public void foreignHandleIsRefused() {
    long base = Torch.liveNcclCommCount();
    Stream s = Cuda.isAvailable() ? Stream.create(0) : Stream.adopt(StreamEventTest.FOREIGN_STREAM, 0, 0);
    NcclComm c = NcclComm.adopt(FOREIGN, ctorch::ct_nccl_comm_release);
    try (Tensor t = Tensor.ones(2)) {
      for (ThrowingRunnable r : everyMethod(c, t, s)) {
        assertStatus(foreignCode(), r);
      }
      assertEquals("<NcclComm rank=-1 size=-1 device=cuda:-1>", c.toString());
      c.close();
      c.close();
      assertTrue(c.isClosed());
      try (Tensor sum = t.sum()) { // the tensor table was not touched by the refused "release"
        assertEquals(2.0, sum.item(), 0);
      }
    } finally {
      s.close();
    }
    assertEquals(base, Torch.liveNcclCommCount());
  }

  /** A closed NcclComm throws 102 "the NcclComm is closed" before reaching the C layer. */
  @Test
  public void closedCommGives102() {
    AtomicInteger releases = new AtomicInteger();
    NcclComm c = NcclComm.adopt(FOREIGN, h -> releases.incrementAndGet());
    c.close();
    c.close(); // idempotent: one release
    assertEquals(1, releases.get());
    assertTrue(c.isClosed());
    try (Tensor t = Tensor.ones(2)) {
      for (ThrowingRunnable r : everyMethod(c, t, null)) {
        CtorchException x = assertStatus(CtorchException.INVALID_HANDLE, r);
        assertEquals("the NcclComm is closed", x.detail());
      }
    }
    assertEquals(1, releases.get());
    assertEquals("<NcclComm rank=-1 size=-1 device=cuda:-1 (closed)>", c.toString());
  }

  /** Communicators dropped without close() are released by the Cleaner, once each. */
  @Test
  public void unreachableCommsAreReleased() throws InterruptedException {
    AtomicInteger releases = new AtomicInteger();
    for (int i = 0; i < 8; i++) {
      NcclComm.adopt(FOREIGN, h -> releases.incrementAndGet());
    }
    assertEquals(0, awaitCount(0, () -> 8 - releases.get()));
    assertEquals(8, releases.get());
  }

  /** Null arguments are NullPointerExceptions before any C call; closed tensors and streams 102. */
  @Test
  public void nullAndClosedArguments() {
    AtomicInteger releases = new AtomicInteger();
    NcclComm c = NcclComm.adopt(FOREIGN, h -> releases.incrementAndGet());
    Tensor closed = Tensor.ones(1);
    closed.close();
    Stream closedStream = Stream.adopt(StreamEventTest.FOREIGN_STREAM, 0, 0);
    closedStream.close();
    try (Tensor t = Tensor.ones(2)) {
      for (ThrowingRunnable r : List.<ThrowingRunnable>of(
          () -> NcclComm.initRank(1, null, 0),
          () -> NcclComm.initRank(1, null, 0, 0, Duration.ofSeconds(1)),
          () -> c.allReduce(null), () -> c.allReduce(t, null), () -> c.allReduce(null, NcclComm.ReduceOp.SUM, null),
          () -> c.broadcast(null, 0), () -> c.reduce(null, 0), () -> c.reduce(t, 0, null),
          () -> c.allGather(null, t), () -> c.allGather(t, null),
          () -> c.reduceScatter(null, t), () -> c.reduceScatter(t, null), () -> c.reduceScatter(t, t, null),
          () -> c.allToAll(null, t), () -> c.allToAll(t, null),
          () -> c.send(null, 0), () -> c.recv(null, 0))) {
        assertThrows(NullPointerException.class, r);
      }
      for (ThrowingRunnable r : List.<ThrowingRunnable>of(
          () -> c.allReduce(closed), () -> c.broadcast(closed, 0), () -> c.reduce(closed, 0),
          () -> c.allGather(t, closed), () -> c.allGather(closed, t), () -> c.reduceScatter(t, closed),
          () -> c.allToAll(closed, t), () -> c.send(closed, 0), () -> c.recv(closed, 0))) {
        assertEquals("the Tensor is closed", assertStatus(CtorchException.INVALID_HANDLE, r).detail());
      }
      for (ThrowingRunnable r : List.<ThrowingRunnable>of(
          () -> c.allReduce(t, NcclComm.ReduceOp.SUM, closedStream), () -> c.send(t, 0, closedStream))) {
        assertEquals("the Stream is closed", assertStatus(CtorchException.INVALID_HANDLE, r).detail());
      }
    } finally {
      c.close();
    }
    assertEquals(1, releases.get());
  }

  /** Timeouts are positive Durations (null: the default); others are refused before the C call. */
  @Test
  public void timeoutsMustBePositive() {
    byte[] id = new byte[NcclComm.UNIQUE_ID_BYTES];
    NcclComm c = NcclComm.adopt(FOREIGN, h -> 0);
    try {
      for (Duration d : new Duration[] {Duration.ZERO, Duration.ofMillis(-1), Duration.ofSeconds(-5)}) {
        assertThrows(IllegalArgumentException.class, () -> NcclComm.initRank(1, id, 0, 0, d));
        assertThrows(IllegalArgumentException.class, () -> c.await(d));
      }
    } finally {
      c.close();
    }
  }

  /**
   * Unique ids of the wrong length reach the C layer with their real length, which refuses them
   * (code 100 with CUDA, before NCCL is needed; 301 without, where every call fails first for the
   * missing GPU).
   */
  @Test
  public void wrongLengthIds() {
    int code = Cuda.isAvailable() ? CtorchException.ARGUMENT : CtorchException.CUDA_UNAVAILABLE;
    long base = Torch.liveNcclCommCount();
    for (int n : new int[] {0, 1, NcclComm.UNIQUE_ID_BYTES - 1, NcclComm.UNIQUE_ID_BYTES + 1, 4096}) {
      assertStatus(code, () -> NcclComm.initRank(1, new byte[n], 0, -1, Duration.ofSeconds(5)));
    }
    assertEquals(base, Torch.liveNcclCommCount());
  }

  /* ============================================================================================
   * On one GPU: a single-rank communicator
   * ========================================================================================== */

  static void assumeNccl() {
    assumeCuda();
    Assume.assumeTrue("needs NCCL (libnccl.so.2 cannot be loaded here)", NcclComm.isAvailable());
  }

  /** A new single-rank communicator on cuda:0. */
  static NcclComm single() {
    return NcclComm.initRank(1, NcclComm.uniqueId(), 0, 0, Duration.ofSeconds(60));
  }

  static Tensor onCuda(float... values) {
    return moved(Tensor.fromArray(values), Device.cuda(0));
  }

  @Test
  public void gpuUniqueIdsAndVersion() {
    assumeNccl();
    byte[] a = NcclComm.uniqueId();
    byte[] b = NcclComm.uniqueId();
    assertEquals(NcclComm.UNIQUE_ID_BYTES, a.length);
    assertFalse("two ids differ", java.util.Arrays.equals(a, b));
    Torch.Version v = NcclComm.version();
    assertEquals(2, v.major());
    assertTrue(v.toString(), v.minor() >= 0 && v.patch() >= 0);
  }

  @Test
  public void gpuSingleRankProperties() {
    assumeNccl();
    long base = Torch.liveNcclCommCount();
    try (NcclComm c = single()) {
      assertEquals(base + 1, Torch.liveNcclCommCount());
      assertEquals(0, c.rank());
      assertEquals(1, c.size());
      assertEquals(0, c.deviceIndex());
      assertEquals(Device.cuda(0), c.device());
      assertEquals("<NcclComm rank=0 size=1 device=cuda:0>", c.toString());
      c.check();
      c.await();
      try (NcclComm ref = c.newReference()) {
        assertEquals("a reference is not a new communicator", base + 1, Torch.liveNcclCommCount());
        assertEquals(c.toString(), ref.toString());
        c.close();
        assertEquals(0, ref.rank()); // still alive through the other reference
      }
      assertEquals(base, Torch.liveNcclCommCount());
    }
  }

  /** all_reduce of one rank: every op leaves the values (AVG of one is the value itself). */
  @Test
  public void gpuAllReduceValues() {
    assumeNccl();
    try (NcclComm c = single(); Tensor t = onCuda(1, -2, 3.5f);
        Tensor i = moved(Tensor.fromArray(new long[] {7, -3}), Device.cuda(0));
        Stream s = Stream.create(0)) {
      c.allReduce(t);
      assertValues(t, 1, -2, 3.5f);
      for (NcclComm.ReduceOp op : NcclComm.ReduceOp.values()) {
        c.allReduce(t, op);
        assertValues(t, 1, -2, 3.5f);
        c.allReduce(i, op);
        assertLongs(i, 7, -3);
      }
      c.allReduce(t, NcclComm.ReduceOp.MAX, s);
      s.synchronize();
      assertValues(t, 1, -2, 3.5f);
      c.await(Duration.ofSeconds(30));
      // A CPU tensor is the C layer's device error, mapped as such.
      try (Tensor cpu = Tensor.ones(2)) {
        assertStatus(CtorchException.DEVICE, () -> c.allReduce(cpu));
      }
    }
  }

  /** broadcast, reduce, all_gather, reduce_scatter, all_to_all: one rank's values. */
  @Test
  public void gpuCollectives() {
    assumeNccl();
    try (NcclComm c = single(); Tensor in = onCuda(1, 2, 3, 4);
        Tensor out = Tensor.zeros(new long[] {4}, DType.FLOAT32, Device.cuda(0))) {
      c.broadcast(in, 0);
      assertValues(in, 1, 2, 3, 4);
      c.reduce(in, 0, NcclComm.ReduceOp.PRODUCT);
      assertValues(in, 1, 2, 3, 4);
      c.allGather(out, in);
      assertValues(out, 1, 2, 3, 4);
      out.zero_();
      c.reduceScatter(out, in);
      assertValues(out, 1, 2, 3, 4);
      out.zero_();
      c.allToAll(out, in);
      assertValues(out, 1, 2, 3, 4);
      // all_gather needs size() times the input's elements.
      try (Tensor small = Tensor.zeros(new long[] {3}, DType.FLOAT32, Device.cuda(0))) {
        assertStatus(CtorchException.SHAPE, () -> c.allGather(small, in));
      }
    }
  }

  /** send and recv to itself pair up inside one group; the group scope ends it. */
  @Test
  public void gpuSendRecvInGroup() {
    assumeNccl();
    try (NcclComm c = single(); Tensor a = onCuda(5, 6, 7);
        Tensor b = Tensor.zeros(new long[] {3}, DType.FLOAT32, Device.cuda(0))) {
      try (NcclComm.Group g = NcclComm.group()) {
        c.send(a, 0);
        c.recv(b, 0);
        assertFalse(g.isClosed());
      }
      assertValues(b, 5, 6, 7);
      // The same with the explicit calls and a stream.
      try (Stream s = Stream.create(0)) {
        b.zero_();
        NcclComm.groupStart();
        c.send(a, 0, s);
        c.recv(b, 0, s);
        NcclComm.groupEnd();
        s.synchronize();
        assertValues(b, 5, 6, 7);
      }
      // An end without a start is the C layer's state error.
      assertStatus(CtorchException.STATE, NcclComm::groupEnd);
    }
  }

  /** A group belongs to its thread: closing it elsewhere is refused, and the group stays open. */
  @Test
  public void gpuGroupIsThreadConfined() throws Exception {
    assumeNccl();
    NcclComm.Group g = NcclComm.group();
    Throwable thrown = onThread(g::close);
    assertTrue(String.valueOf(thrown), thrown instanceof IllegalStateException);
    assertFalse(g.isClosed());
    g.close();
    g.close(); // idempotent: one group end
    assertTrue(g.isClosed());
  }

  /** split: NOCOLOR gives null, a color a new single-rank communicator the caller owns. */
  @Test
  public void gpuSplit() {
    assumeNccl();
    long base = Torch.liveNcclCommCount();
    try (NcclComm c = single()) {
      assertNull(c.split(NcclComm.SPLIT_NOCOLOR));
      assertEquals(base + 1, Torch.liveNcclCommCount());
      try (NcclComm sub = c.split(3, 0)) {
        assertNotNull(sub);
        assertEquals(base + 2, Torch.liveNcclCommCount());
        assertEquals(0, sub.rank());
        assertEquals(1, sub.size());
        assertEquals(0, sub.deviceIndex());
        try (Tensor t = onCuda(2, 4)) {
          sub.allReduce(t, NcclComm.ReduceOp.AVG);
          assertValues(t, 2, 4);
        }
      }
    }
    assertEquals(base, Torch.liveNcclCommCount());
  }

  /** After abort (or destroy) every call is code 200; abort twice is fine; close releases it. */
  @Test
  public void gpuAbortAndDestroy() {
    assumeNccl();
    try (Tensor t = onCuda(1, 2)) {
      try (NcclComm c = single()) {
        c.allReduce(t);
        c.abort();
        c.abort();
        assertStatus(CtorchException.STATE, c::check);
        assertStatus(CtorchException.STATE, () -> c.allReduce(t));
        assertStatus(CtorchException.STATE, c::await);
      }
      try (NcclComm c = single()) {
        c.allReduce(t);
        c.destroy();
        assertStatus(CtorchException.STATE, c::check);
        assertStatus(CtorchException.STATE, () -> c.broadcast(t, 0));
      }
    }
  }

  /** nranks 2 with a peer that never joins: the timeout exception, and nothing left behind. */
  @Test
  public void gpuPeerNeverJoinsTimesOut() {
    assumeNccl();
    long base = Torch.liveNcclCommCount();
    long start = System.nanoTime();
    CtorchTimeoutException e = assertThrows(CtorchTimeoutException.class,
        () -> NcclComm.initRank(2, NcclComm.uniqueId(), 0, 0, Duration.ofSeconds(1)));
    long ms = (System.nanoTime() - start) / 1_000_000;
    assertEquals(CtorchException.TIMEOUT, e.code());
    assertEquals("CT_ERR_TIMEOUT", e.statusName());
    assertTrue("gave up after about the timeout, not " + ms + " ms", ms >= 900 && ms < 30_000);
    assertEquals(base, Torch.liveNcclCommCount());
  }

  /** Communicators dropped without close() go back through the Cleaner (their last release). */
  @Test
  public void gpuDroppedCommsAreReleased() throws InterruptedException {
    assumeNccl();
    long base = Torch.liveNcclCommCount();
    for (int i = 0; i < 3; i++) {
      single();
    }
    assertEquals(base, awaitCount(base, Torch::liveNcclCommCount));
  }

  /* ============================================================================================
   * On two GPUs: two ranks, one per thread (the two-GPU runs)
   * ========================================================================================== */

  /** Two ranks in two threads on cuda:0 and cuda:1: all_reduce, broadcast, all_gather. */
  @Test
  public void twoGpusTwoRanks() throws Exception {
    assumeCudaDevices(2);
    Assume.assumeTrue("needs NCCL", NcclComm.isAvailable());
    byte[] id = NcclComm.uniqueId();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<float[][]>> results = new ArrayList<>();
      for (int r = 0; r < 2; r++) {
        int rank = r;
        results.add(pool.submit(() -> {
          Device dev = Device.cuda(rank);
          try (NcclComm c = NcclComm.initRank(2, id, rank, rank, Duration.ofSeconds(60));
              Tensor t = moved(Tensor.fromArray(new float[] {rank + 1, 10 * (rank + 1)}), dev);
              Tensor b = moved(Tensor.fromArray(new float[] {rank == 0 ? 42 : 0}), dev);
              Tensor g = Tensor.zeros(new long[] {4}, DType.FLOAT32, dev)) {
            assertEquals(2, c.size());
            assertEquals(rank, c.rank());
            c.allGather(g, t);
            c.allReduce(t, NcclComm.ReduceOp.SUM);
            c.broadcast(b, 0);
            c.await();
            return new float[][] {t.toFloatArray(), b.toFloatArray(), g.toFloatArray()};
          }
        }));
      }
      for (Future<float[][]> f : results) {
        float[][] v = f.get();
        assertArrayEquals(new float[] {3, 30}, v[0], 0);
        assertArrayEquals(new float[] {42}, v[1], 0);
        assertArrayEquals(new float[] {1, 10, 2, 20}, v[2], 0);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
