package org.ctorch;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.concurrent.TimeUnit;

import org.ctorch.swig.ctorch;
import org.junit.Test;

/**
 * Memory recovery: the binding's out-of-memory hook ({@link OutOfMemoryHook},
 * ct_cuda_add_oom_hook), registered once when the JNI library is loaded. Without a GPU the
 * suite calls the registered C hook function directly (as ctorch would) from this thread and
 * from a native thread the JVM has never seen, and checks that it collects tensors dropped
 * without close() before it returns; the "gpu" test makes real CUDA allocations run out of
 * memory under a small memory fraction and is skipped (visibly) here.
 */
public class OutOfMemoryHookTest extends CtorchTestCase {

  /** Makes {@code n} CPU tensors and keeps none of them (never closed). */
  private static void dropCpuTensors(int n) {
    for (int i = 0; i < n; i++) {
      Tensor.full(new long[] {4}, (double) i);
    }
  }

  /** Runs the registered C hook as ctorch would; fails the test when it is not registered. */
  private static void runHook(int device, long bytes, boolean onNewThread) {
    assertEquals("runHookForTest0", 0, OutOfMemoryHook.runHookForTest0(device, bytes, onNewThread));
  }

  /** Waits (with the hook's own collection) until the live tensor count is back to base. */
  private static long awaitLiveTensors(long base) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    long live = Torch.liveTensorCount();
    while (live > base && System.nanoTime() < deadline) {
      OutOfMemoryHook.collect();
      live = Torch.liveTensorCount();
    }
    return live;
  }

  /* ============================================================================================
   * Everywhere: registration, and the hook called directly
   * ========================================================================================== */

  /** Loading the binding registered one hook; installing again adds none and keeps its id. */
  @Test
  public void hookIsRegisteredOnceAtLoad() {
    long id = OutOfMemoryHook.hookId();
    assertTrue("hook id " + id, id >= 1); // ctorch's ids start at 1
    assertEquals(id, OutOfMemoryHook.install());
    assertEquals(id, OutOfMemoryHook.install());
    assertEquals(id, OutOfMemoryHook.hookId());
    // Another id is not ours: ctorch refuses to remove it, and ours stays registered.
    int st = ctorch.ct_cuda_remove_oom_hook(id + 1000);
    assertEquals(CtorchException.ARGUMENT, st);
    assertTrue(Torch.lastErrorMessage(), Torch.lastErrorMessage().contains("no out-of-memory hook has id"));
    Torch.clearError();
    long runs = Cuda.outOfMemoryHookRuns();
    runHook(0, 1, false);
    assertEquals(runs + 1, Cuda.outOfMemoryHookRuns());
  }

  /**
   * The hook, called on this (Java) thread, returns only once the tensors dropped without
   * close() have been released by the Cleaner, and it counts its runs.
   */
  @Test
  public void hookReleasesDroppedTensorsOnTheCallingThread() {
    dropCpuTensors(2000);
    assertTrue(Torch.liveTensorCount() > liveBefore); // nothing collected them yet (most likely all)
    long runs = Cuda.outOfMemoryHookRuns();
    runHook(3, 123_456_789_012L, false);
    assertEquals(runs + 1, Cuda.outOfMemoryHookRuns());
    assertEquals("device as ctorch passed it", 3, OutOfMemoryHook.lastDevice);
    assertEquals("requested bytes as ctorch passed them", 123_456_789_012L,
        OutOfMemoryHook.lastRequestedBytes);
    assertEquals("live tensors right after the hook returned", liveBefore, Torch.liveTensorCount());
  }

  /**
   * The same from a native thread the JVM has never seen (C code allocating in a Java
   * process): the hook attaches it, calls Java, and detaches it again.
   */
  @Test
  public void hookReleasesDroppedTensorsOnANativeThread() {
    for (int round = 0; round < 3; round++) { // attach and detach more than once
      dropCpuTensors(1000);
      long runs = Cuda.outOfMemoryHookRuns();
      runHook(round, 1000L + round, true);
      assertEquals(runs + 1, Cuda.outOfMemoryHookRuns());
      assertEquals(round, OutOfMemoryHook.lastDevice);
      assertEquals(1000L + round, OutOfMemoryHook.lastRequestedBytes);
      assertEquals("live tensors right after the hook returned", liveBefore, Torch.liveTensorCount());
    }
  }

  /**
   * An interrupted caller: the hook still waits for the Cleaner, and the interrupt status is
   * kept for the caller.
   */
  @Test
  public void hookKeepsTheInterruptStatus() {
    dropCpuTensors(1000);
    Thread.currentThread().interrupt();
    try {
      runHook(0, 64, false);
      assertTrue("interrupt status kept", Thread.currentThread().isInterrupted());
    } finally {
      Thread.interrupted(); // clear it for the next tests
    }
    assertLiveTensors(0);
  }

  /** With nothing to collect, the hook returns quickly: it never hangs the allocating thread. */
  @Test
  public void hookIsBounded() {
    runHook(0, 1, false); // warm up
    long t0 = System.nanoTime();
    for (int i = 0; i < 5; i++) {
      runHook(0, 1, i % 2 == 1);
    }
    long perCallMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) / 5;
    assertTrue("ms per hook call: " + perCallMs, perCallMs < 1500);
  }

  /** Tensors still referenced are never touched by the hook. */
  @Test
  public void hookLeavesReachableTensorsAlone() {
    try (Tensor kept = Tensor.arange(0, 4, 1, DType.FLOAT32, Device.CPU)) {
      long base = Torch.liveTensorCount();
      runHook(0, 1, false);
      assertFalse(kept.isClosed());
      assertEquals(base, Torch.liveTensorCount());
      assertValues(kept, 0, 1, 2, 3);
    }
  }

  /** Without a GPU no allocation can run out of device memory: the counter only moved above. */
  @Test
  public void noGpuHookCounterIsReadable() {
    assumeNoCuda();
    long runs = Cuda.outOfMemoryHookRuns();
    try (Tensor t = Tensor.zeros(8)) {
      assertEquals(8, t.numel());
    }
    assertEquals(runs, Cuda.outOfMemoryHookRuns());
  }

  /* ============================================================================================
   * With a GPU (skipped here)
   * ========================================================================================== */

  /** Makes a uint8 CUDA tensor of n bytes and drops it without closing it. */
  private static void dropCudaBytes(long n) {
    Tensor.empty(new long[] {n}, DType.UINT8, Device.cuda(0));
  }

  /**
   * Dropped tensors are recovered through the hook: under a memory fraction of 1% about four
   * tensors of 1/400 of the device fit; twenty are made and dropped without close(). Each
   * allocation that finds no room runs the hook, which collects the dropped ones, and the
   * retry succeeds: no allocation fails, and num_ooms does not move.
   */
  @Test
  public void gpuDroppedTensorsAreRecoveredThroughTheHook() {
    assumeCuda();
    long total = Cuda.memGetInfo(0).total();
    long n = total / 400;
    Cuda.emptyCache();
    long runs = Cuda.outOfMemoryHookRuns();
    long ooms = Cuda.memoryStat(0, "num_ooms");
    Cuda.setPerProcessMemoryFraction(0.01, 0);
    try {
      for (int i = 0; i < 20; i++) {
        dropCudaBytes(n);
      }
      assertTrue("hook runs " + runs + " -> " + Cuda.outOfMemoryHookRuns(),
          Cuda.outOfMemoryHookRuns() > runs);
      assertEquals(0, OutOfMemoryHook.lastDevice);
      assertTrue("requested " + OutOfMemoryHook.lastRequestedBytes,
          OutOfMemoryHook.lastRequestedBytes >= n);
      assertEquals("num_ooms", ooms, Cuda.memoryStat(0, "num_ooms"));
    } finally {
      Cuda.setPerProcessMemoryFraction(1.0, 0);
      awaitLiveTensors(liveBefore); // the last few dropped tensors
      Cuda.emptyCache();
    }
    assertEquals("live tensors after collecting", liveBefore, Torch.liveTensorCount());
  }
}
