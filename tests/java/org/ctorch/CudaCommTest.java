package org.ctorch;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.ctorch.swig.ctorch;
import org.junit.Test;
import org.junit.function.ThrowingRunnable;

/**
 * {@link CudaComm}, torch.cuda.comm (section 20 of ctorch.h): what the binding adds. Without a
 * GPU: the 301 mapping of every call, the marshalling of tensor lists, device and chunk-size
 * arrays and stream arrays (null, closed and mismatched arguments rejected before the C call,
 * nothing leaked). "gpu" tests (skipped visibly here) check, on one GPU, that results come back
 * as new objects the caller owns (the source itself where torch returns it), the layout of the
 * coalesced results, scatter/gather round trips with chunk sizes and a stream list, reduce_add
 * and the mapping of a C error; on two GPUs, broadcast and reduce_add across them.
 */
public class CudaCommTest extends CtorchTestCase {

  /** A stream-table handle whose slot was never allocated (as StreamEventTest's). */
  static final long FOREIGN_STREAM = StreamEventTest.FOREIGN_STREAM;

  /** Every CudaComm method once, with the given (CPU or CUDA) tensors and stream. */
  static List<ThrowingRunnable> everyCall(Tensor a, Tensor b, Stream s) {
    return List.of(
        () -> CudaComm.broadcast(a, 0),
        () -> CudaComm.broadcastOut(a, b),
        () -> CudaComm.broadcastOut(a, List.of(b)),
        () -> CudaComm.broadcastCoalesced(List.of(a, b), 0),
        () -> CudaComm.broadcastCoalesced(List.of(a, b), new int[] {0}, 1024),
        () -> CudaComm.reduceAdd(a, b),
        () -> CudaComm.reduceAdd(List.of(a, b)),
        () -> CudaComm.reduceAdd(List.of(a, b), 0),
        () -> CudaComm.reduceAddCoalesced(List.of(List.of(a), List.of(b)), 0),
        () -> CudaComm.reduceAddCoalesced(List.of(List.of(a), List.of(b)), -1, 64),
        () -> CudaComm.scatter(a, 0),
        () -> CudaComm.scatter(a, new int[] {0, 0}, new long[] {1, 1}, 0, new Stream[] {s, null}),
        () -> CudaComm.scatterOut(a, List.of(b)),
        () -> CudaComm.scatterOut(a, List.of(b), 0, new Stream[] {s}),
        () -> CudaComm.gather(List.of(a, b), 0),
        () -> CudaComm.gather(List.of(a, b), 0, Device.CPU),
        () -> CudaComm.gather(List.of(a, b), 0, Device.cuda(0)),
        () -> CudaComm.gatherOut(List.of(a, b), 0, b));
  }

  /* ============================================================================================
   * Without a GPU: errors and marshalling
   * ========================================================================================== */

  @Test
  public void defaultBufferSizeIsTorchs() {
    assertEquals(10L * 1024 * 1024, CudaComm.DEFAULT_BUFFER_SIZE);
    assertEquals(ctorch.CT_COMM_DEFAULT_BUFFER_SIZE, CudaComm.DEFAULT_BUFFER_SIZE);
  }

  /** Without CUDA every call maps code 301 and leaves nothing behind (the base class checks). */
  @Test
  public void noGpuEveryCallGives301() {
    assumeNoCuda();
    try (Tensor a = Tensor.ones(2); Tensor b = Tensor.zeros(2)) {
      for (ThrowingRunnable r : everyCall(a, b, null)) {
        assertNoCuda(r);
      }
    }
  }

  /**
   * The stream arrays reach the C layer as handles, which it checks before anything else: a
   * stream object over a handle no stream has is code 102 (with or without a GPU).
   */
  @Test
  public void foreignStreamsAreRefused() {
    Stream s = Stream.adopt(FOREIGN_STREAM, 0, 0);
    try (Tensor a = Tensor.ones(2); Tensor b = Tensor.zeros(2)) {
      for (ThrowingRunnable r : List.<ThrowingRunnable>of(
          () -> CudaComm.scatter(a, new int[] {0, 0}, null, 0, new Stream[] {null, s}),
          () -> CudaComm.scatterOut(a, List.of(b), 0, new Stream[] {s}))) {
        CtorchException e = assertStatus(CtorchException.INVALID_HANDLE, r);
        assertTrue(e.detail(), e.detail().contains("stream handle"));
      }
    } finally {
      s.close();
    }
  }

  /** A null list, array or element is a NullPointerException naming it, before any C call. */
  @Test
  public void nullArguments() {
    try (Tensor a = Tensor.ones(2)) {
      List<Tensor> withNull = Arrays.asList(a, null);
      for (ThrowingRunnable r : List.<ThrowingRunnable>of(
          () -> CudaComm.broadcast(null, 0),
          () -> CudaComm.broadcast(a, (int[]) null),
          () -> CudaComm.broadcastOut(null, a),
          () -> CudaComm.broadcastOut(a, (Tensor[]) null),
          () -> CudaComm.broadcastOut(a, (List<Tensor>) null),
          () -> CudaComm.broadcastOut(a, withNull),
          () -> CudaComm.broadcastCoalesced(null, 0),
          () -> CudaComm.broadcastCoalesced(List.of(a), (int[]) null),
          () -> CudaComm.broadcastCoalesced(withNull, 0),
          () -> CudaComm.reduceAdd((Tensor[]) null),
          () -> CudaComm.reduceAdd((List<Tensor>) null),
          () -> CudaComm.reduceAdd(withNull, 0),
          () -> CudaComm.reduceAddCoalesced(null, 0),
          () -> CudaComm.reduceAddCoalesced(Arrays.asList(List.of(a), null), 0),
          () -> CudaComm.reduceAddCoalesced(List.of(List.of(a), withNull.subList(1, 2)), 0),
          () -> CudaComm.scatter(null, 0),
          () -> CudaComm.scatter(a, (int[]) null),
          () -> CudaComm.scatterOut(null, List.of(a)),
          () -> CudaComm.scatterOut(a, null),
          () -> CudaComm.scatterOut(a, withNull, 0, null),
          () -> CudaComm.gather(null, 0),
          () -> CudaComm.gather(withNull, 0),
          () -> CudaComm.gather(List.of(a), 0, null),
          () -> CudaComm.gatherOut(List.of(a), 0, null),
          () -> CudaComm.gatherOut(withNull, 0, a))) {
        assertThrows(NullPointerException.class, r);
      }
    }
  }

  /**
   * Chunk sizes and streams come one per device (the C call reads that many): other lengths,
   * and reduceAddCoalesced rows of different lengths, are IllegalArgumentExceptions.
   */
  @Test
  public void mismatchedLengths() {
    Stream s = Stream.adopt(FOREIGN_STREAM, 0, 0);
    try (Tensor a = Tensor.ones(4); Tensor b = Tensor.ones(4)) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> CudaComm.scatter(a, new int[] {0, 1}, new long[] {4}, 0, null));
      assertEquals("chunkSizes has 1 entries, devices 2 (one per device)", e.getMessage());
      e = assertThrows(IllegalArgumentException.class,
          () -> CudaComm.scatter(a, new int[] {0, 1}, new long[] {2, 1, 1}, 0, null));
      assertEquals("chunkSizes has 3 entries, devices 2 (one per device)", e.getMessage());
      e = assertThrows(IllegalArgumentException.class,
          () -> CudaComm.scatter(a, new int[] {0, 1}, null, 0, new Stream[] {s}));
      assertEquals("streams has 1 entries, devices 2 (one per device)", e.getMessage());
      e = assertThrows(IllegalArgumentException.class,
          () -> CudaComm.scatterOut(a, List.of(b), 0, new Stream[] {s, null}));
      assertEquals("streams has 2 entries, outs 1 (one per device)", e.getMessage());
      e = assertThrows(IllegalArgumentException.class,
          () -> CudaComm.reduceAddCoalesced(List.of(List.of(a, b), List.of(a)), 0));
      assertTrue(e.getMessage(), e.getMessage().contains("inputs[1] has 1 tensors, inputs[0] has 2"));
    } finally {
      s.close();
    }
  }

  /** A closed tensor (input, output or list element) or stream is code 102 before the C call. */
  @Test
  public void closedArgumentsGive102() {
    Tensor closed = Tensor.ones(2);
    closed.close();
    Stream closedStream = Stream.adopt(FOREIGN_STREAM, 0, 0);
    closedStream.close();
    try (Tensor a = Tensor.ones(2)) {
      for (ThrowingRunnable r : everyCall(closed, a, null)) {
        assertEquals("the Tensor is closed", assertStatus(CtorchException.INVALID_HANDLE, r).detail());
      }
      for (ThrowingRunnable r : List.<ThrowingRunnable>of(
          () -> CudaComm.broadcastOut(a, closed),
          () -> CudaComm.reduceAdd(a, closed),
          () -> CudaComm.reduceAddCoalesced(List.of(List.of(a), List.of(closed)), 0),
          () -> CudaComm.scatterOut(a, List.of(closed)),
          () -> CudaComm.gather(List.of(a, closed), 0),
          () -> CudaComm.gatherOut(List.of(a), 0, closed))) {
        assertEquals("the Tensor is closed", assertStatus(CtorchException.INVALID_HANDLE, r).detail());
      }
      for (ThrowingRunnable r : List.<ThrowingRunnable>of(
          () -> CudaComm.scatter(a, new int[] {0}, null, 0, new Stream[] {closedStream}),
          () -> CudaComm.scatterOut(a, List.of(a), 0, new Stream[] {closedStream}))) {
        assertEquals("the Stream is closed", assertStatus(CtorchException.INVALID_HANDLE, r).detail());
      }
    }
  }

  /* ============================================================================================
   * On one GPU
   * ========================================================================================== */

  /** Closes every tensor of ts. */
  static void closeAll(Tensor... ts) {
    for (Tensor t : ts) {
      t.close();
    }
  }

  static Tensor onCuda(float... values) {
    return moved(Tensor.fromArray(values), Device.cuda(0));
  }

  /**
   * broadcast to [0] gives a new object for the source itself (torch returns the tensor);
   * from the CPU to [0, 0], two copies on cuda:0; every result closes on its own.
   */
  @Test
  public void gpuBroadcast() {
    assumeCuda();
    try (Tensor src = onCuda(1, 2, 3); Tensor host = Tensor.fromArray(new float[] {4, 5})) {
      Tensor[] same = CudaComm.broadcast(src, 0);
      assertEquals(1, same.length);
      assertNotSame(src, same[0]);
      assertTrue("the source itself", same[0].isSame(src));
      same[0].close();
      assertFalse("closing the result leaves the source open", src.isClosed());
      assertValues(src, 1, 2, 3);

      Tensor[] copies = CudaComm.broadcast(host, 0, 0);
      try {
        assertEquals(2, copies.length);
        assertLiveTensors(2 + 2);
        for (Tensor c : copies) {
          assertEquals(Device.cuda(0), c.device());
          assertFalse(c.sharesStorage(host));
          assertValues(c, 4, 5);
        }
        assertFalse("two copies", copies[0].sharesStorage(copies[1]));
      } finally {
        closeAll(copies);
      }

      try (Tensor o1 = Tensor.zeros(new long[] {3}, DType.FLOAT32, Device.cuda(0));
          Tensor o2 = Tensor.zeros(new long[] {3}, DType.FLOAT64, Device.cuda(0))) {
        CudaComm.broadcastOut(src, o1, o2);
        assertValues(o1, 1, 2, 3);
        assertEquals(DType.FLOAT64, o2.dtype());
        assertValues(o2, 1, 2, 3);
        // An output on the CPU is torch's device error.
        try (Tensor cpu = Tensor.zeros(3)) {
          assertStatus(CtorchException.DEVICE, () -> CudaComm.broadcastOut(src, o1, cpu));
        }
      }
    }
  }

  /** broadcastCoalesced's rows: result[d][i] is tensors[i] on devices[d], row 0 the inputs. */
  @Test
  public void gpuBroadcastCoalesced() {
    assumeCuda();
    try (Tensor a = onCuda(1, 2); Tensor b = onCuda(3, 4, 5)) {
      Tensor[][] r = CudaComm.broadcastCoalesced(List.of(a, b), new int[] {0}, 4);
      try {
        assertEquals(1, r.length);
        assertEquals(2, r[0].length);
        assertTrue(r[0][0].isSame(a));
        assertTrue(r[0][1].isSame(b));
      } finally {
        closeAll(r[0]);
      }
      // A tensor not on devices[0]: the C layer's error, nothing leaked.
      try (Tensor host = Tensor.ones(2)) {
        assertStatus(CtorchException.DEVICE, () -> CudaComm.broadcastCoalesced(List.of(a, host), 0));
      }
    }
  }

  /** reduce_add of two tensors on device 0, of one (the input itself), and the coalesced form. */
  @Test
  public void gpuReduceAdd() {
    assumeCuda();
    try (Tensor a = onCuda(1, 2, 3); Tensor b = onCuda(10, 20, 30); Tensor c = onCuda(100, 200)) {
      try (Tensor sum = CudaComm.reduceAdd(List.of(a, b), 0)) {
        assertEquals(Device.cuda(0), sum.device());
        assertValues(sum, 11, 22, 33);
      }
      try (Tensor sum = CudaComm.reduceAdd(a, b)) { // the current device
        assertValues(sum, 11, 22, 33);
      }
      try (Tensor one = CudaComm.reduceAdd(List.of(a), 0)) {
        assertTrue(one.isSame(a));
      }
      assertValues(a, 1, 2, 3);
      Tensor[] sums = CudaComm.reduceAddCoalesced(List.of(List.of(a, c), List.of(b, c)), 0, 8);
      try {
        assertEquals(2, sums.length);
        assertValues(sums[0], 11, 22, 33);
        assertValues(sums[1], 200, 400);
      } finally {
        closeAll(sums);
      }
      assertStatus(CtorchException.SHAPE, () -> CudaComm.reduceAdd(List.of(a, c), 0));
    }
  }

  /**
   * scatter from the CPU with chunk sizes and a stream list (the chunks are copied on those
   * streams), then gather back (to the GPU, to the CPU, into an out tensor); scatter of a CUDA
   * tensor with equal chunks gives views of the source on its device; the out forms with
   * streams.
   */
  @Test
  public void gpuScatterGatherRoundTrip() {
    assumeCuda();
    float[] values = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    try (Tensor x = onCuda(values); Tensor host = Tensor.fromArray(values); Stream s = Stream.create(0)) {
      Tensor[] parts = CudaComm.scatter(host, new int[] {0, 0}, new long[] {3, 7}, 0, new Stream[] {s, null});
      try {
        s.synchronize();
        assertEquals(2, parts.length);
        assertEquals(Device.cuda(0), parts[0].device());
        assertFalse(parts[1].sharesStorage(host));
        assertShape(parts[0], 3);
        assertShape(parts[1], 7);
        assertValues(parts[0], 0, 1, 2);
        assertValues(parts[1], 3, 4, 5, 6, 7, 8, 9);
        try (Tensor back = CudaComm.gather(Arrays.asList(parts), 0)) {
          assertEquals(Device.cuda(0), back.device());
          assertValues(back, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
        }
        try (Tensor onCpu = CudaComm.gather(Arrays.asList(parts), 0, Device.CPU)) {
          assertEquals(Device.CPU, onCpu.device());
          assertValues(onCpu, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
        }
        try (Tensor out = Tensor.zeros(10)) {
          CudaComm.gatherOut(Arrays.asList(parts), 0, out);
          assertValues(out, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
        }
        assertStatus(CtorchException.INDEX, () -> CudaComm.gather(Arrays.asList(parts), 3));
      } finally {
        closeAll(parts);
      }

      // Equal chunks: tensor.chunk's count (10 for six devices: five chunks of 2).
      Tensor[] chunks = CudaComm.scatter(x, 0, 0, 0, 0, 0, 0);
      try {
        assertEquals(5, chunks.length);
        assertValues(chunks[4], 8, 9);
        assertTrue("a view of the source on its device", chunks[0].sharesStorage(x));
      } finally {
        closeAll(chunks);
      }

      try (Tensor o1 = Tensor.zeros(new long[] {4}, DType.FLOAT32, Device.cuda(0));
          Tensor o2 = Tensor.zeros(new long[] {6}, DType.FLOAT32, Device.cuda(0))) {
        CudaComm.scatterOut(x, List.of(o1, o2), 0, new Stream[] {null, s});
        s.synchronize();
        assertValues(o1, 0, 1, 2, 3);
        assertValues(o2, 4, 5, 6, 7, 8, 9);
        o1.zero_();
        CudaComm.scatterOut(x, List.of(o2, o1));
        assertValues(o2, 0, 1, 2, 3, 4, 5);
        assertValues(o1, 6, 7, 8, 9);
      }
    }
  }

  /** Many results dropped without close() go back through the Cleaner like any tensor. */
  @Test
  public void gpuDroppedResultsAreReleased() throws InterruptedException {
    assumeCuda();
    try (Tensor x = onCuda(1, 2, 3, 4)) {
      List<Tensor[]> keep = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        keep.add(CudaComm.scatter(x, 0, 0));
      }
      assertLiveTensors(1 + 8);
      keep.clear();
      assertEquals(liveBefore + 1, awaitCount(liveBefore + 1, Torch::liveTensorCount));
    }
  }

  /* ============================================================================================
   * On two GPUs
   * ========================================================================================== */

  /** comm.broadcast and reduce_add across two GPUs (NCCL's path in torch). */
  @Test
  public void twoGpusCommBroadcastReduceAdd() {
    assumeCudaDevices(2);
    try (Tensor x = moved(Tensor.fromArray(new float[] {1, 2, 3}), Device.cuda(0))) {
      Tensor[] copies = CudaComm.broadcast(x, 0, 1);
      try {
        assertTrue(copies[0].isSame(x));
        assertEquals(Device.cuda(1), copies[1].device());
        assertValues(copies[1], 1, 2, 3);
        try (Tensor sum = CudaComm.reduceAdd(List.of(copies[0], copies[1]), 1)) {
          assertEquals(Device.cuda(1), sum.device());
          assertValues(sum, 2, 4, 6);
        }
      } finally {
        for (Tensor t : copies) {
          t.close();
        }
      }
    }
  }
}
