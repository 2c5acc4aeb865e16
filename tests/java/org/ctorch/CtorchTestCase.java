package org.ctorch;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import org.junit.After;
import org.junit.Assume;
import org.junit.AssumptionViolatedException;
import org.junit.Before;
import org.junit.Rule;
import org.junit.function.ThrowingRunnable;
import org.junit.rules.TestWatcher;
import org.junit.runner.Description;

/**
 * Base of the suites: each test must close every tensor, stream, event, generator, CUDA graph,
 * graphed callable, NCCL communicator and jitted function it makes, so the numbers of live native handles are back to their starting
 * values when the test ends.
 * Tests that need a GPU call {@link #assumeCuda()}; on a machine without one they are skipped,
 * and the skip is printed ("SKIPPED ...: reason") because JUnit's text runner counts a skipped
 * test as run without saying so.
 */
public abstract class CtorchTestCase {
  /** The live tensor count at the start of the test. */
  long liveBefore;
  private long streamsBefore;
  private long eventsBefore;
  private long generatorsBefore;
  private long graphsBefore;
  private long graphedBefore;
  private long ncclCommsBefore;
  private long jitFunctionsBefore;

  /** Prints every skipped test with its reason (JUnitCore's own output does not). */
  @Rule
  public final TestWatcher reportSkips = new TestWatcher() {
    @Override
    protected void skipped(AssumptionViolatedException e, Description d) {
      System.out.println("SKIPPED " + d.getClassName() + "." + d.getMethodName() + ": "
          + e.getMessage());
    }
  };

  @Before
  public void recordLiveHandles() {
    liveBefore = Torch.liveTensorCount();
    streamsBefore = Torch.liveStreamCount();
    eventsBefore = Torch.liveEventCount();
    generatorsBefore = Torch.liveGeneratorCount();
    graphsBefore = Torch.liveCudaGraphCount();
    graphedBefore = Torch.liveGraphedCallableCount();
    ncclCommsBefore = Torch.liveNcclCommCount();
    jitFunctionsBefore = Torch.liveJitFunctionCount();
  }

  @After
  public void checkNoHandleLeaked() {
    assertEquals("live tensor handles after the test", liveBefore, Torch.liveTensorCount());
    assertEquals("live stream handles after the test", streamsBefore, Torch.liveStreamCount());
    assertEquals("live event handles after the test", eventsBefore, Torch.liveEventCount());
    assertEquals("live generator handles after the test", generatorsBefore,
        Torch.liveGeneratorCount());
    assertEquals("live CUDA graph handles after the test", graphsBefore, Torch.liveCudaGraphCount());
    assertEquals("live graphed-callable handles after the test", graphedBefore,
        Torch.liveGraphedCallableCount());
    assertEquals("live NCCL communicator handles after the test", ncclCommsBefore,
        Torch.liveNcclCommCount());
    assertEquals("live jitted-function handles after the test", jitFunctionsBefore,
        Torch.liveJitFunctionCount());
  }

  /** Waits (running System.gc()) until count is back to base, at most 30 s; returns the count. */
  static long awaitCount(long base, java.util.function.LongSupplier count)
      throws InterruptedException {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    long live = count.getAsLong();
    while (live > base && System.nanoTime() < deadline) {
      System.gc();
      Thread.sleep(20);
      live = count.getAsLong();
    }
    return live;
  }

  /** Runs r on a new thread, waits for it, and returns what it threw (null if nothing). */
  static Throwable onThread(ThrowingRunnable r) throws InterruptedException {
    java.util.concurrent.atomic.AtomicReference<Throwable> thrown =
        new java.util.concurrent.atomic.AtomicReference<>();
    Thread th = new Thread(() -> {
      try {
        r.run();
      } catch (Throwable e) {
        thrown.set(e);
      }
    });
    th.start();
    th.join();
    return thrown.get();
  }

  /** Skips the test (visibly) unless CUDA is available. */
  static void assumeCuda() {
    Assume.assumeTrue("needs a CUDA GPU (ct_cuda_is_available says 0 here)", Cuda.isAvailable());
  }

  /** Skips the test (visibly) unless at least n CUDA devices are visible. */
  static void assumeCudaDevices(int n) {
    assumeCuda();
    Assume.assumeTrue("needs " + n + " CUDA GPUs (" + Cuda.deviceCount() + " visible)",
        Cuda.deviceCount() >= n);
  }

  /** Skips the test (visibly) when CUDA is available: it checks the behaviour without a GPU. */
  static void assumeNoCuda() {
    Assume.assumeFalse("checks the behaviour without a GPU, and CUDA is available here",
        Cuda.isAvailable());
  }

  private static Device testDevice;

  /**
   * The seed's device-agnostic choice: "cuda" if available, else "cpu". (No fallback: on a GPU
   * host a failure to make CUDA tensors must fail the suites, not hide.)
   */
  static synchronized Device device() {
    if (testDevice == null) {
      testDevice = Device.parse(Cuda.isAvailable() ? "cuda" : "cpu");
    }
    return testDevice;
  }

  /** t.to(device), closing t. */
  static Tensor moved(Tensor t, Device device) {
    try (t) {
      return t.to(device);
    }
  }

  /** t.to(dtype), closing t. */
  static Tensor cast(Tensor t, DType dtype) {
    try (t) {
      return t.to(dtype);
    }
  }

  static long[] shape(long... s) {
    return s;
  }

  static void assertShape(Tensor t, long... expected) {
    assertArrayEquals("shape of " + t, expected, t.shape());
  }

  static void assertValues(Tensor t, float... expected) {
    assertArrayEquals("values of " + t, expected, t.toFloatArray(), 0f);
  }

  static void assertClose(Tensor t, float tolerance, float... expected) {
    assertArrayEquals("values of " + t, expected, t.toFloatArray(), tolerance);
  }

  static void assertLongs(Tensor t, long... expected) {
    assertArrayEquals("values of " + t, expected, t.toLongArray());
  }

  static void assertBools(Tensor t, boolean... expected) {
    assertArrayEquals("values of " + t, expected, t.toBooleanArray());
  }

  /** Runs r, expects a CtorchException with the given code, and returns it. */
  /** Asserts that the live tensor count is its value at the start of the test plus extra. */
  void assertLiveTensors(long extra) {
    assertEquals("live tensors", liveBefore + extra, Torch.liveTensorCount());
  }

  /** Asserts that r fails with code 301 (CT_ERR_CUDA_UNAVAILABLE) and its reason. */
  static CtorchException assertNoCuda(ThrowingRunnable r) {
    CtorchException e = assertStatus(CtorchException.CUDA_UNAVAILABLE, r);
    assertEquals("CT_ERR_CUDA_UNAVAILABLE", e.statusName());
    assertTrue("message: " + e.detail(), e.detail().contains("CUDA is not available"));
    return e;
  }

  /** {@link #assertNoCuda} for both forms of a call: on the current device and on device 0. */
  static void assertNoCudaBothForms(ThrowingRunnable current,
      java.util.function.IntConsumer onDevice) {
    assertNoCuda(current);
    assertNoCuda(() -> onDevice.accept(0));
  }

  static CtorchException assertStatus(int code, ThrowingRunnable r) {
    CtorchException e = assertThrows(CtorchException.class, r);
    assertEquals("code of: " + e.getMessage(), code, e.code());
    return e;
  }
}
