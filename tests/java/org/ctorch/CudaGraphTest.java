package org.ctorch;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.ctorch.swig.ctorch;
import org.junit.Test;
import org.junit.function.ThrowingRunnable;

/**
 * {@link CudaGraph}, its {@link CudaGraph.CaptureScope}, {@link GraphedCallable} and
 * {@link Cuda#isCurrentStreamCapturing()} (section 19 of ctorch.h): what the binding adds.
 * Without a GPU: lifetimes (close, references, the Cleaner, live counts), the 301 mapping of
 * every graph call, argument marshalling (null and closed arguments, arrays of tensors), the
 * JNI trampoline that calls the lambda (graph_jni.c, also from a thread the JVM never saw) and
 * the way a lambda's exception comes back. "gpu" tests (skipped visibly here) check capture
 * scopes, replays, graphed lambdas with new inputs, exceptions inside captures, shared pools and
 * two threads capturing at once.
 */
public class CudaGraphTest extends CtorchTestCase {

  /* ============================================================================================
   * Without a GPU: lifetimes, errors, marshalling
   * ========================================================================================== */

  @Test
  public void captureModesAreTorchs() {
    CudaGraph.CaptureMode[] modes = CudaGraph.CaptureMode.values();
    assertEquals(3, modes.length);
    assertEquals(ctorch.CT_CAPTURE_MODE_GLOBAL, CudaGraph.CaptureMode.GLOBAL.code());
    assertEquals(ctorch.CT_CAPTURE_MODE_THREAD_LOCAL, CudaGraph.CaptureMode.THREAD_LOCAL.code());
    assertEquals(ctorch.CT_CAPTURE_MODE_RELAXED, CudaGraph.CaptureMode.RELAXED.code());
    assertEquals("global", CudaGraph.CaptureMode.GLOBAL.toString());
    assertEquals("thread_local", CudaGraph.CaptureMode.THREAD_LOCAL.toString());
    assertEquals("relaxed", CudaGraph.CaptureMode.RELAXED.toString());
  }

  @Test
  public void graphedOptions() {
    GraphedCallable.Options d = GraphedCallable.Options.DEFAULTS;
    assertEquals(3, d.warmupIters());
    assertEquals(0, d.pool());
    GraphedCallable.Options o = d.withWarmupIters(0).withPool(42);
    assertEquals(new GraphedCallable.Options(0, 42), o);
    assertEquals(3, d.warmupIters()); // the defaults are unchanged
  }

  @Test
  public void graphCloseAndReferences() {
    long base = Torch.liveCudaGraphCount();
    CudaGraph g = CudaGraph.create();
    assertEquals(base + 1, Torch.liveCudaGraphCount());
    assertEquals("<torch.cuda.CUDAGraph>", g.toString());
    CudaGraph ref = g.newReference();
    assertNotSame(g, ref);
    assertEquals("a reference is not a new handle", base + 1, Torch.liveCudaGraphCount());
    g.close();
    assertTrue(g.isClosed());
    assertFalse(ref.isClosed());
    assertEquals(base + 1, Torch.liveCudaGraphCount());
    g.close(); // idempotent
    ref.close();
    ref.close();
    assertEquals(base, Torch.liveCudaGraphCount());
    assertEquals("<torch.cuda.CUDAGraph (closed)>", g.toString());
  }

  /** A graph dropped without close() is released by the Cleaner. */
  @Test
  public void unreachableGraphIsReleased() throws InterruptedException {
    long base = Torch.liveCudaGraphCount();
    for (int i = 0; i < 8; i++) {
      CudaGraph.create();
    }
    assertEquals(base, awaitCount(base, Torch::liveCudaGraphCount));
  }

  /** A closed CudaGraph throws 102 "the CudaGraph is closed" before reaching the C layer. */
  @Test
  public void closedGraphGives102() {
    CudaGraph g = CudaGraph.create();
    g.close();
    try (Tensor t = Tensor.ones(2)) {
      for (ThrowingRunnable r : List.<ThrowingRunnable>of(
          g::captureBegin, () -> g.captureBegin(0), () -> g.captureBegin(0, CudaGraph.CaptureMode.RELAXED),
          g::captureEnd, g::replay, g::reset, g::pool, g::enableDebugMode, () -> g.debugDump("x.dot"),
          g::capture, () -> g.capture(0), () -> g.capture(CudaGraph.CaptureMode.GLOBAL),
          () -> g.capture(0, CudaGraph.CaptureMode.GLOBAL, null), g::newReference)) {
        CtorchException x = assertStatus(CtorchException.INVALID_HANDLE, r);
        assertEquals("the CudaGraph is closed", x.detail());
      }
    }
  }

  /** Null arguments are NullPointerExceptions, before any native call. */
  @Test
  public void nullArguments() {
    try (CudaGraph g = CudaGraph.create()) {
      assertThrows(NullPointerException.class, () -> g.captureBegin(0, null));
      assertThrows(NullPointerException.class, () -> g.capture((CudaGraph.CaptureMode) null));
      assertThrows(NullPointerException.class, () -> g.capture(0, null, null));
      assertThrows(NullPointerException.class, () -> g.debugDump(null));
    }
  }

  /** Without CUDA every graph call but create/retain/release maps code 301. */
  @Test
  public void noGpuGraphCallsGive301() {
    assumeNoCuda();
    long streams = Torch.liveStreamCount();
    long graphs = Torch.liveCudaGraphCount();
    assertFalse(Cuda.isCurrentStreamCapturing());
    assertNoCuda(CudaGraph::poolHandle);
    try (CudaGraph g = CudaGraph.create()) {
      for (ThrowingRunnable r : List.<ThrowingRunnable>of(
          g::captureBegin, () -> g.captureBegin(7), () -> g.captureBegin(0, CudaGraph.CaptureMode.THREAD_LOCAL),
          g::captureEnd, g::replay, g::reset, g::pool, g::enableDebugMode, () -> g.debugDump("graph.dot"),
          g::capture, () -> g.capture(0), () -> g.capture(CudaGraph.CaptureMode.RELAXED),
          () -> g.capture(0, CudaGraph.CaptureMode.GLOBAL, null))) {
        assertNoCuda(r);
        // A capture scope that could not be made left no reference behind.
        assertEquals(graphs + 1, Torch.liveCudaGraphCount());
        assertEquals(streams, Torch.liveStreamCount());
      }
      assertFalse(g.isClosed());
    }
  }

  /**
   * A capture scope over a stream the C layer rejects: the exit's error is mapped and thrown by
   * close(), which gives back the scope's graph reference all the same; the scope is closed
   * afterwards, a second close does nothing, and it must be closed on its own thread.
   */
  @Test
  public void captureScopeCloseFailureIsMappedAndFinal() throws InterruptedException {
    long graphs = Torch.liveCudaGraphCount();
    try (CudaGraph g = CudaGraph.create()) {
      Native.check(ctorch.ct_cuda_graph_retain(g.handle())); // the scope's own reference
      CudaGraph.CaptureScope s = new CudaGraph.CaptureScope(g.handle(), StreamEventTest.FOREIGN_STREAM, 0);
      assertEquals(graphs + 1, Torch.liveCudaGraphCount());
      assertFalse(s.isClosed());
      assertEquals(0, s.previousDevice());
      AtomicReference<Throwable> other = new AtomicReference<>();
      Thread t = new Thread(() -> other.set(assertThrows(IllegalStateException.class, s::close)));
      t.start();
      t.join();
      assertEquals("a CudaGraph.CaptureScope must be closed on the thread that made it",
          other.get().getMessage());
      assertFalse(s.isClosed());
      CtorchException e = assertStatus(CtorchException.INVALID_HANDLE, s::close);
      assertTrue(e.detail(), e.detail().contains("is not a ctorch stream handle"));
      assertTrue(s.isClosed());
      s.close();
      assertFalse(g.isClosed());
      Torch.clearError();
    }
    assertEquals(graphs, Torch.liveCudaGraphCount());
  }

  /** makeGraphed's arguments: nulls, closed tensors, CPU tensors without CUDA. */
  @Test
  public void makeGraphedArguments() {
    AtomicInteger calls = new AtomicInteger();
    GraphedCallable.Body<RuntimeException> fn = calls::incrementAndGet;
    try (Tensor a = Tensor.ones(2); Tensor b = Tensor.ones(3)) {
      assertThrows(NullPointerException.class, () -> CudaGraph.makeGraphed(null, a));
      assertThrows(NullPointerException.class, () -> CudaGraph.makeGraphed(fn, (GraphedCallable.Options) null, a));
      assertThrows(NullPointerException.class, () -> CudaGraph.makeGraphed(fn, (Tensor[]) null));
      NullPointerException npe = assertThrows(NullPointerException.class,
          () -> CudaGraph.makeGraphed(fn, a, null, b));
      assertEquals("staticInputs[1]", npe.getMessage());
      Tensor closed = Tensor.ones(1);
      closed.close();
      CtorchException e = assertStatus(CtorchException.INVALID_HANDLE,
          () -> CudaGraph.makeGraphed(fn, a, closed));
      assertEquals("the Tensor is closed", e.detail());
      if (!Cuda.isAvailable()) {
        assertNoCuda(() -> CudaGraph.makeGraphed(fn, a, b));
        assertNoCuda(() -> CudaGraph.makeGraphed(fn, GraphedCallable.Options.DEFAULTS.withWarmupIters(0)));
      }
    }
    assertEquals("the lambda is never called when the callable cannot be made", 0, calls.get());
  }

  /**
   * The JNI trampoline (graph_jni.c) as ctorch calls it, on this thread and on a native thread
   * the JVM never saw: it runs the lambda; a lambda that throws makes it return CT_ERR_STATE
   * and hands back that very exception (checked, unchecked or an Error).
   */
  @Test
  public void trampolineCallsTheLambdaAndKeepsItsException() {
    for (boolean onNewThread : new boolean[] {false, true}) {
      AtomicReference<Thread> ran = new AtomicReference<>();
      Throwable[] thrown = {null};
      assertEquals(Native.CT_OK, GraphedCallable.callForTest0(() -> ran.set(Thread.currentThread()),
          onNewThread, thrown));
      assertNull(thrown[0]);
      if (onNewThread) {
        assertNotSame(Thread.currentThread(), ran.get());
        assertEquals("ctorch-graph-fn", ran.get().getName());
        assertTrue("attached as a daemon", ran.get().isDaemon());
      } else {
        assertSame(Thread.currentThread(), ran.get());
      }
      for (Throwable boom : new Throwable[] {
          new IOException("checked"), new IllegalArgumentException("unchecked"), new AssertionError("error")}) {
        Throwable[] out = {null};
        int st = GraphedCallable.callForTest0(() -> {
          if (boom instanceof Exception) {
            throw (Exception) boom;
          }
          throw (Error) boom;
        }, onNewThread, out);
        assertEquals(CtorchException.STATE, st);
        assertSame(boom, out[0]);
      }
    }
  }

  /** The trampoline's argument checks: a NullPointerException, never a crash. */
  @Test
  public void trampolineArguments() {
    assertThrows(NullPointerException.class, () -> GraphedCallable.callForTest0(null, false, new Throwable[1]));
    assertThrows(NullPointerException.class, () -> GraphedCallable.callForTest0(() -> { }, false, null));
    assertThrows(NullPointerException.class, () -> GraphedCallable.callForTest0(() -> { }, false, new Throwable[0]));
  }

  /**
   * GraphedCallable objects over handles the C layer rejects (a tensor handle: another kind):
   * every method maps the C error; close is harmless. A closed one throws 102 first.
   */
  @Test
  public void graphedCallableOverRejectedHandle() {
    try (Tensor t = Tensor.ones(2)) {
      GraphedCallable f = GraphedCallable.adopt(t.handle(), 1);
      assertEquals(1, f.numInputs());
      assertEquals("<GraphedCallable inputs=1>", f.toString());
      for (ThrowingRunnable r : List.<ThrowingRunnable>of(f::run, () -> f.run(t), f::graph, f::newReference)) {
        CtorchException e = assertStatus(CtorchException.INVALID_HANDLE, r);
        assertTrue(e.detail(), e.detail().contains("is not a ctorch graphed callable handle"));
      }
      NullPointerException npe = assertThrows(NullPointerException.class, () -> f.run(t, null));
      assertEquals("inputs[1]", npe.getMessage());
      assertThrows(NullPointerException.class, () -> f.run((Tensor[]) null));
      f.close(); // the release is refused (ignored by close)
      assertTrue(f.isClosed());
      f.close();
      for (ThrowingRunnable r : List.<ThrowingRunnable>of(f::run, () -> f.run(t), f::graph, f::newReference)) {
        assertEquals("the GraphedCallable is closed", assertStatus(CtorchException.INVALID_HANDLE, r).detail());
      }
      try (Tensor sum = t.sum()) { // the tensor was not released as a "graphed callable"
        assertEquals(2.0, sum.item(), 0);
      }
      Torch.clearError();
    }
  }

  /* ============================================================================================
   * On a GPU
   * ========================================================================================== */

  static Tensor cuda(float... values) {
    return moved(Tensor.fromArray(values), device());
  }

  /** A capture scope records x * 2 + 1; replays with new x give the eager result. */
  @Test
  public void gpuCaptureScopeReplayEqualsEager() {
    assumeCuda();
    try (Tensor x = cuda(1, 2, 3, 4); CudaGraph g = CudaGraph.create(); Stream before = Stream.currentStream()) {
      Tensor y;
      assertFalse(Cuda.isCurrentStreamCapturing());
      try (CudaGraph.CaptureScope c = g.capture()) {
        assertTrue(Cuda.isCurrentStreamCapturing());
        try (Stream capturing = Stream.currentStream()) {
          assertNotEquals("captures run on a side stream", before, capturing);
        }
        y = x.mul(2);
        y.add_(1);
      }
      assertFalse(Cuda.isCurrentStreamCapturing());
      try (Stream now = Stream.currentStream()) {
        assertEquals("the scope restores the stream", before, now);
      }
      try (y) {
        for (float[] v : new float[][] {{-1, 0, 0.5f, 10}, {3, 3, 3, 3}}) {
          try (Tensor nx = cuda(v); Tensor eager = nx.mul(2)) {
            x.copy_(nx);
            g.replay();
            eager.add_(1);
            assertArrayEquals(eager.toFloatArray(), y.toFloatArray(), 0f);
          }
        }
      }
    }
  }

  /** captureBegin/captureEnd on a user stream (a stream guard), in thread_local mode. */
  @Test
  public void gpuManualCaptureOnUserStream() {
    assumeCuda();
    try (Tensor x = cuda(1, 2, 3); CudaGraph g = CudaGraph.create(); Stream s = Stream.create()) {
      Tensor y;
      Cuda.synchronize();
      try (Cuda.StreamGuard guard = Cuda.stream(s)) {
        g.captureBegin(0, CudaGraph.CaptureMode.THREAD_LOCAL);
        assertTrue(Cuda.isCurrentStreamCapturing());
        y = x.sub(5);
        g.captureEnd();
        assertFalse(Cuda.isCurrentStreamCapturing());
      }
      try (y; Tensor nx = cuda(10, 20, 30)) {
        x.copy_(nx);
        g.replay();
        assertValues(y, 5, 15, 25);
        g.reset();
        assertStatus(CtorchException.STATE, g::replay);
      }
    }
  }

  /**
   * A graphed lambda runs warmupIters + 1 times at creation, never again; run(inputs) copies
   * new inputs into the static ones and replays; run() keeps them.
   */
  @Test
  public void gpuGraphedCallableReplaysWithNewInputs() {
    assumeCuda();
    try (Tensor x = Tensor.zeros(new long[] {4}, DType.FLOAT32, device());
        Tensor y = Tensor.empty(new long[] {4}, DType.FLOAT32, device())) {
      AtomicInteger calls = new AtomicInteger();
      GraphedCallable.Body<RuntimeException> body = () -> {
        calls.incrementAndGet();
        try (Tensor t = x.mul(3)) {
          y.copy_(t.add_(1));
        }
      };
      try (GraphedCallable f = CudaGraph.makeGraphed(body, x)) {
        assertEquals("3 warm-up calls and the capture", 4, calls.get());
        assertEquals(1, f.numInputs());
        try (Tensor nx = cuda(1, 2, 3, 4)) {
          f.run(nx);
          assertValues(y, 4, 7, 10, 13);
          assertValues(x, 1, 2, 3, 4); // the static input holds the new values
        }
        y.zero_();
        f.run();
        assertValues(y, 4, 7, 10, 13);
        try (Tensor wrong = Tensor.zeros(new long[] {5}, DType.FLOAT32, device())) {
          assertStatus(CtorchException.SHAPE, () -> f.run(wrong));
        }
        assertEquals(4, calls.get());
        try (GraphedCallable ref = f.newReference(); CudaGraph fg = f.graph()) {
          assertNotEquals(0, fg.pool());
          try (Tensor nx = cuda(0, 0, 0, -1)) {
            ref.run(nx);
          }
          assertValues(y, 1, 1, 1, -2);
          fg.replay();
          assertValues(y, 1, 1, 1, -2);
        }
      }
      calls.set(0);
      try (GraphedCallable f = CudaGraph.makeGraphed(body, GraphedCallable.Options.DEFAULTS.withWarmupIters(0), x)) {
        assertEquals(1, calls.get());
      }
    }
  }

  /**
   * A lambda that throws (at the capture, or in a warm-up) makes makeGraphed throw that very
   * exception, checked or not; the capture is discarded and nothing is left behind.
   */
  @Test
  public void gpuGraphedLambdaExceptionPropagates() {
    assumeCuda();
    try (Tensor x = cuda(1, 2); Tensor y = Tensor.empty(new long[] {2}, DType.FLOAT32, device())) {
      AtomicInteger calls = new AtomicInteger();
      IOException boom = new IOException("boom");
      IOException e = assertThrows(IOException.class, () -> CudaGraph.makeGraphed(() -> {
        try (Tensor t = x.mul(2)) {
          y.copy_(t);
        }
        if (calls.incrementAndGet() == 3) {
          throw boom; // the capture: 2 warm-up calls, then this one
        }
      }, GraphedCallable.Options.DEFAULTS.withWarmupIters(2), x));
      assertSame(boom, e);
      assertEquals(3, calls.get());
      assertFalse(Cuda.isCurrentStreamCapturing());
      IllegalStateException early = new IllegalStateException("warm-up");
      assertSame(early, assertThrows(IllegalStateException.class,
          () -> CudaGraph.makeGraphed(() -> {
            throw early;
          }, x)));
      assertFalse(Cuda.isCurrentStreamCapturing());
      // The thread can capture again.
      try (GraphedCallable f = CudaGraph.makeGraphed(() -> {
        try (Tensor t = x.add(1)) {
          y.copy_(t);
        }
      }, x)) {
        f.run();
        assertValues(y, 2, 3);
      }
    }
  }

  /** A body that throws: the scope still ends the capture and restores the stream. */
  @Test
  public void gpuCaptureScopeEndsWhenBodyThrows() {
    assumeCuda();
    try (Tensor x = cuda(1, 2); CudaGraph g = CudaGraph.create(); Stream before = Stream.currentStream()) {
      Tensor[] y = {null};
      IllegalStateException boom = new IllegalStateException("boom");
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> {
        try (CudaGraph.CaptureScope c = g.capture()) {
          y[0] = x.mul(2);
          throw boom;
        }
      });
      assertSame(boom, e);
      assertEquals("the capture ended cleanly", 0, e.getSuppressed().length);
      assertFalse(Cuda.isCurrentStreamCapturing());
      try (Stream now = Stream.currentStream()) {
        assertEquals(before, now);
      }
      try (Tensor y0 = y[0]; Tensor nx = cuda(5, 6)) {
        x.copy_(nx);
        g.replay(); // what was captured before the throw
        assertValues(y0, 10, 12);
      }
    }
  }

  /**
   * An operation CUDA forbids during a capture (item): its CtorchException inside the scope,
   * then the capture's end fails in close() with code 200; the graph can capture again.
   */
  @Test
  public void gpuIllegalOperationInCapture() {
    assumeCuda();
    try (Tensor x = cuda(1, 2); CudaGraph g = CudaGraph.create()) {
      CtorchException[] inner = {null};
      CtorchException e = assertStatus(CtorchException.STATE, () -> {
        try (CudaGraph.CaptureScope c = g.capture()) {
          try (Tensor s = x.sum()) {
            inner[0] = assertStatus(CtorchException.STATE, s::item);
          }
        }
      });
      assertEquals(CtorchException.STATE, inner[0].code());
      assertNotSame(inner[0], e);
      assertFalse(Cuda.isCurrentStreamCapturing());
      Tensor y;
      try (CudaGraph.CaptureScope c = g.capture()) {
        y = x.neg();
      }
      try (y) {
        g.replay();
        assertValues(y, -1, -2);
      }
    }
  }

  /** Pools: a graph's pool() passed to another capture, and one poolHandle() for two graphs. */
  @Test
  public void gpuSharedPools() {
    assumeCuda();
    try (Tensor x = cuda(1, 2); CudaGraph a = CudaGraph.create(); CudaGraph b = CudaGraph.create()) {
      Tensor ya;
      Tensor yb;
      try (CudaGraph.CaptureScope c = a.capture()) {
        ya = x.add(1);
      }
      long pool = a.pool();
      assertNotEquals(0, pool);
      try (CudaGraph.CaptureScope c = b.capture(pool)) {
        yb = ya.mul(2);
      }
      assertEquals(pool, b.pool());
      try (ya; yb; Tensor nx = cuda(3, 4)) {
        x.copy_(nx);
        a.replay();
        b.replay();
        assertValues(yb, 8, 10);
      }
      long handle = CudaGraph.poolHandle();
      assertNotEquals(0, handle);
      assertNotEquals(handle, CudaGraph.poolHandle());
      try (CudaGraph c = CudaGraph.create(); CudaGraph d = CudaGraph.create()) {
        Tensor yc;
        Tensor yd;
        try (CudaGraph.CaptureScope s = c.capture(handle, CudaGraph.CaptureMode.GLOBAL, null)) {
          yc = x.mul(x);
        }
        try (CudaGraph.CaptureScope s = d.capture(handle)) {
          yd = yc.sub(1);
        }
        assertEquals(handle, c.pool());
        assertEquals(handle, d.pool());
        try (yc; yd) {
          c.replay();
          d.replay();
          assertValues(yd, 8, 15);
        }
      }
    }
  }

  /**
   * Two Java threads capture at the same time, each on its own stream in thread_local mode (the
   * captures overlap: both have begun before either records its op); each replays its own
   * graph and gets its own result.
   */
  @Test
  public void gpuTwoThreadsCaptureInThreadLocalMode() throws InterruptedException {
    assumeCuda();
    CyclicBarrier step = new CyclicBarrier(2);
    float[][] results = new float[2][];
    Throwable[] errors = new Throwable[2];
    Thread[] threads = new Thread[2];
    for (int k = 0; k < 2; k++) {
      final int id = k;
      threads[k] = new Thread(() -> {
        try (Tensor x = cuda(1, 2, 3); CudaGraph g = CudaGraph.create(); Stream s = Stream.create()) {
          Cuda.synchronize();
          step.await(30, TimeUnit.SECONDS); // both set up, no capture yet
          Tensor y;
          try (Cuda.StreamGuard guard = Cuda.stream(s)) {
            g.captureBegin(0, CudaGraph.CaptureMode.THREAD_LOCAL);
            step.await(30, TimeUnit.SECONDS); // both capturing
            y = x.mul(id + 2);
            step.await(30, TimeUnit.SECONDS);
            g.captureEnd();
          }
          try (y) {
            g.replay();
            results[id] = y.toFloatArray();
          }
        } catch (Throwable e) {
          errors[id] = e;
        }
      });
      threads[k].start();
    }
    for (Thread t : threads) {
      t.join();
    }
    for (Throwable e : errors) {
      if (e != null) {
        throw new AssertionError("a capturing thread failed", e);
      }
    }
    assertArrayEquals(new float[] {2, 4, 6}, results[0], 0f);
    assertArrayEquals(new float[] {3, 6, 9}, results[1], 0f);
  }

  /** debugDump writes the captured graph (Graphviz DOT) to the path given. */
  @Test
  public void gpuDebugDump() throws IOException {
    assumeCuda();
    Path dot = Files.createTempFile("ctorch-graph", ".dot");
    try (Tensor x = cuda(1, 2); CudaGraph g = CudaGraph.create()) {
      g.enableDebugMode();
      Tensor y;
      try (CudaGraph.CaptureScope c = g.capture(CudaGraph.CaptureMode.RELAXED)) {
        y = x.exp();
      }
      y.close();
      g.debugDump(dot.toString());
      String text = new String(Files.readAllBytes(dot), StandardCharsets.UTF_8);
      assertTrue(text, text.contains("digraph"));
    } finally {
      Files.deleteIfExists(dot);
    }
  }
}
