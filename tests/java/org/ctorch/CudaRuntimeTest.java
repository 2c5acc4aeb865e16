package org.ctorch;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.List;

import org.junit.Test;

/**
 * The torch.cuda runtime calls of {@link Cuda} (section 4 of ctorch.h): current device and its
 * guards, synchronize, memory, peers, arch list, gencode flags, sync debug mode. The first
 * group runs everywhere; "noGpu" tests check the behaviour without a GPU (code 301 with the
 * reason); "gpu" tests need one and are skipped (visibly) here.
 */
public class CudaRuntimeTest extends CtorchTestCase {

  /** Runs r, expects code 301 with the runtime's reason, and returns the exception. */
  /* ============================================================================================
   * Everywhere: the build's architectures and the sync debug mode
   * ========================================================================================== */

  /** The build targets sm_80, sm_90 and compute_90 PTX (tools/cuda.bzl's GENCODE). */
  @Test
  public void archListAndGencodeFlags() {
    assertEquals(List.of("sm_80", "sm_90", "compute_90"), Cuda.archList());
    assertEquals("sm_80 sm_90 compute_90", Cuda.archListString());
    assertThrows(UnsupportedOperationException.class, () -> Cuda.archList().add("sm_70"));
    // torch.cuda.get_gencode_flags(): "-gencode compute=compute_{arch},code={kind}_{arch}" for
    // each entry of the arch list, joined by spaces.
    assertEquals("-gencode compute=compute_80,code=sm_80 -gencode compute=compute_90,code=sm_90 "
        + "-gencode compute=compute_90,code=compute_90", Cuda.gencodeFlags());
  }

  @Test
  public void syncDebugModeSetGetInvalid() {
    Cuda.SyncDebugMode before = Cuda.getSyncDebugMode();
    assertSame(Cuda.SyncDebugMode.DEFAULT, before); // nobody changed it in this JVM
    try {
      Cuda.setSyncDebugMode(Cuda.SyncDebugMode.WARN);
      assertSame(Cuda.SyncDebugMode.WARN, Cuda.getSyncDebugMode());
      Cuda.setSyncDebugMode(Cuda.SyncDebugMode.ERROR);
      assertSame(Cuda.SyncDebugMode.ERROR, Cuda.getSyncDebugMode());
      Cuda.setSyncDebugMode(0);
      assertSame(Cuda.SyncDebugMode.DEFAULT, Cuda.getSyncDebugMode());
      Cuda.setSyncDebugMode(2);
      assertSame(Cuda.SyncDebugMode.ERROR, Cuda.getSyncDebugMode());
      Cuda.setSyncDebugMode("warn");
      assertSame(Cuda.SyncDebugMode.WARN, Cuda.getSyncDebugMode());

      // Invalid values: CT_ERR_ARGUMENT from the library, and the mode stays as it was.
      CtorchException e = assertStatus(CtorchException.ARGUMENT, () -> Cuda.setSyncDebugMode(3));
      assertTrue(e.detail(), e.detail().contains("sync debug mode"));
      assertSame(Cuda.SyncDebugMode.WARN, Cuda.getSyncDebugMode());
      assertThrows(IllegalArgumentException.class, () -> Cuda.setSyncDebugMode("loud"));
      assertThrows(IllegalArgumentException.class, () -> Cuda.setSyncDebugMode("WARN"));
      assertThrows(NullPointerException.class,
          () -> Cuda.setSyncDebugMode((Cuda.SyncDebugMode) null));
      assertSame(Cuda.SyncDebugMode.WARN, Cuda.getSyncDebugMode());

      Cuda.setSyncDebugMode("default");
      assertSame(Cuda.SyncDebugMode.DEFAULT, Cuda.getSyncDebugMode());
    } finally {
      Cuda.setSyncDebugMode(before);
    }
    assertSame(before, Cuda.getSyncDebugMode());
  }

  @Test
  public void syncDebugModeEnum() {
    assertEquals(0, Cuda.SyncDebugMode.DEFAULT.code());
    assertEquals(1, Cuda.SyncDebugMode.WARN.code());
    assertEquals(2, Cuda.SyncDebugMode.ERROR.code());
    assertSame(Cuda.SyncDebugMode.ERROR, Cuda.SyncDebugMode.fromCode(2));
    assertThrows(IllegalArgumentException.class, () -> Cuda.SyncDebugMode.fromCode(3));
    assertEquals("default", Cuda.SyncDebugMode.DEFAULT.toString());
    assertEquals("warn", Cuda.SyncDebugMode.WARN.toString());
    assertEquals("error", Cuda.SyncDebugMode.ERROR.toString());
  }

  /** The sync debug mode is about the GPU: host-side work on CPU tensors never trips it. */
  @Test
  public void errorSyncDebugModeLeavesCpuWorkAlone() {
    Cuda.setSyncDebugMode(Cuda.SyncDebugMode.ERROR);
    try (Tensor t = Tensor.fromArray(new float[] {1.5f, 2.5f});
        Tensor s = t.sum();
        Tensor c = t.to(Device.CPU, DType.FLOAT64, true)) {
      assertEquals(4.0, s.item(), 0);
      assertArrayEquals(new float[] {1.5f, 2.5f}, t.toFloatArray(), 0f);
      assertArrayEquals(new double[] {1.5, 2.5}, c.toDoubleArray(), 0);
    } finally {
      Cuda.setSyncDebugMode(Cuda.SyncDebugMode.DEFAULT);
    }
  }

  /* ============================================================================================
   * Everywhere: guards that change nothing
   * ========================================================================================== */

  /** torch.cuda.device(-1) and device_of(cpu tensor) change nothing; they need no GPU. */
  @Test
  public void guardsThatChangeNothing() {
    int expectPrev = Cuda.isAvailable() ? Cuda.currentDevice() : -1;
    try (Cuda.DeviceGuard g = Cuda.device(-1)) {
      assertEquals(expectPrev, g.previousDevice());
    }
    try (Cuda.DeviceGuard g = Cuda.device(Device.CUDA)) { // "cuda": no index, as device(None)
      assertEquals(expectPrev, g.previousDevice());
    }
    try (Tensor t = Tensor.ones(2); Cuda.DeviceGuard g = Cuda.deviceOf(t)) {
      assertEquals(-1, g.previousDevice()); // a CPU tensor: nothing to restore
      g.close();
      g.close(); // idempotent
    }
    Cuda.StreamGuard sg = Cuda.stream(null); // torch.cuda.stream(None): a no-op
    assertTrue(sg.isClosed());
    assertEquals(-1, sg.previousDevice());
    sg.close();
    sg.close();
    if (Cuda.isAvailable()) {
      assertEquals(expectPrev, Cuda.currentDevice());
    }
  }

  @Test
  public void guardArgumentErrors() throws Exception {
    assertThrows(IllegalArgumentException.class, () -> Cuda.device(Device.CPU));
    assertThrows(IllegalArgumentException.class, () -> Cuda.setDevice(Device.CPU));
    assertThrows(NullPointerException.class, () -> Cuda.device((Device) null));
    assertThrows(NullPointerException.class, () -> Cuda.deviceOf(null));
    Tensor closed = Tensor.zeros(1);
    closed.close();
    CtorchException e = assertStatus(CtorchException.INVALID_HANDLE, () -> Cuda.deviceOf(closed));
    assertEquals("the Tensor is closed", e.detail());
  }

  /** A guard restores the device of its own thread: closing it elsewhere is refused. */
  @Test
  public void deviceGuardClosesOnItsThread() throws Exception {
    Cuda.DeviceGuard g = Cuda.device(-1);
    Throwable fromOther = onThread(g::close);
    assertTrue(String.valueOf(fromOther), fromOther instanceof IllegalStateException);
    g.close(); // still open, closes here
    g.close();
  }

  /* ============================================================================================
   * Without a GPU: every call that needs one fails with 301 and the reason
   * ========================================================================================== */

  @Test
  public void noGpuDeviceCalls() {
    assumeNoCuda();
    assertNoCuda(Cuda::currentDevice);
    assertNoCuda(() -> Cuda.setDevice(0));
    assertNoCuda(() -> Cuda.setDevice(Device.cuda(1)));
    assertNoCudaBothForms(Cuda::synchronize, Cuda::synchronize);
    assertNoCudaBothForms(Cuda::memGetInfo, Cuda::memGetInfo);
    assertNoCuda(() -> Cuda.canDeviceAccessPeer(0, 1));
    assertNoCuda(() -> Cuda.canDeviceAccessPeer(0, 0));
  }

  /** Guards that would switch devices fail cleanly without a GPU and hold nothing. */
  @Test
  public void noGpuGuards() {
    assumeNoCuda();
    long streams = Torch.liveStreamCount();
    assertNoCuda(() -> Cuda.device(0));
    assertNoCuda(() -> Cuda.device(Device.cuda(0)));
    assertNoCuda(() -> Cuda.device(3));
    Cuda.setDevice(-1);  // a negative device changes nothing, as torch.cuda.set_device
    assertEquals(streams, Torch.liveStreamCount());
    // Still nothing current, and nothing left behind.
    assertNoCuda(Cuda::currentDevice);
  }

  /** An explicit synchronize is not a sync-debug event (as in PyTorch): without a GPU it
   *  reports the missing GPU, in every mode. */
  @Test
  public void noGpuSynchronizeInErrorMode() {
    assumeNoCuda();
    Cuda.setSyncDebugMode(Cuda.SyncDebugMode.ERROR);
    try {
      assertNoCuda(Cuda::synchronize);
    } finally {
      Cuda.setSyncDebugMode(Cuda.SyncDebugMode.DEFAULT);
    }
    assertNoCuda(Cuda::synchronize);
  }

  /* ============================================================================================
   * With a GPU (skipped here)
   * ========================================================================================== */

  @Test
  public void gpuCurrentDeviceAndGuard() {
    assumeCuda();
    int start = Cuda.currentDevice();
    int count = Cuda.deviceCount();
    assertTrue(start >= 0 && start < count);
    try (Cuda.DeviceGuard g = Cuda.device(start)) {
      assertEquals(start, g.previousDevice());
      assertEquals(start, Cuda.currentDevice());
    }
    assertEquals(start, Cuda.currentDevice());
    Cuda.setDevice(start);
    assertEquals(start, Cuda.currentDevice());
    assertStatus(CtorchException.INDEX, () -> Cuda.setDevice(count));
    assertStatus(CtorchException.INDEX, () -> Cuda.device(count));
    assertEquals(start, Cuda.currentDevice()); // a failed guard changes nothing
    try (Tensor t = Tensor.zeros(new long[] {2}, DType.FLOAT32, Device.cuda(start));
        Cuda.DeviceGuard g = Cuda.deviceOf(t)) {
      assertEquals(start, g.previousDevice());
      assertEquals(start, Cuda.currentDevice());
    }
  }

  /** with torch.cuda.device(1): tensors on "cuda" go to cuda:1; the device is restored after. */
  @Test
  public void gpuDeviceGuardSwitchesDevices() {
    assumeCudaDevices(2);
    Cuda.setDevice(0);
    try (Cuda.DeviceGuard g = Cuda.device(1)) {
      assertEquals(0, g.previousDevice());
      assertEquals(1, Cuda.currentDevice());
      try (Tensor t = Tensor.zeros(new long[] {2}, DType.FLOAT32, Device.CUDA)) {
        assertEquals(Device.cuda(1), t.device());
      }
      try (Cuda.DeviceGuard inner = Cuda.device(Device.cuda(0))) {
        assertEquals(1, inner.previousDevice());
        assertEquals(0, Cuda.currentDevice());
      }
      assertEquals(1, Cuda.currentDevice());
    }
    assertEquals(0, Cuda.currentDevice());
    try (Tensor t = Tensor.ones(new long[] {2}, DType.FLOAT32, Device.cuda(1));
        Cuda.DeviceGuard g = Cuda.deviceOf(t)) {
      assertEquals(0, g.previousDevice());
      assertEquals(1, Cuda.currentDevice());
    }
    assertEquals(0, Cuda.currentDevice());
    // An exception inside the block restores too.
    assertThrows(IllegalStateException.class, () -> {
      try (Cuda.DeviceGuard g = Cuda.device(1)) {
        throw new IllegalStateException("inside");
      }
    });
    assertEquals(0, Cuda.currentDevice());
  }

  @Test
  public void gpuSynchronizeMemoryPeers() {
    assumeCuda();
    int count = Cuda.deviceCount();
    Cuda.synchronize();
    for (int d = 0; d < count; d++) {
      Cuda.synchronize(d);
      Cuda.MemInfo m = Cuda.memGetInfo(d);
      assertTrue(m.toString(), m.free() > 0 && m.free() <= m.total());
      assertEquals(Cuda.totalMemory(d), m.total());
      assertFalse("a device is not its own peer", Cuda.canDeviceAccessPeer(d, d));
      for (int p = 0; p < count; p++) {
        Cuda.canDeviceAccessPeer(d, p); // answers for every pair of visible devices
      }
      assertStatus(CtorchException.INDEX, () -> Cuda.canDeviceAccessPeer(0, count));
    }
    Cuda.MemInfo cur = Cuda.memGetInfo();
    assertEquals(Cuda.totalMemory(Cuda.currentDevice()), cur.total());
    assertStatus(CtorchException.INDEX, () -> Cuda.memGetInfo(count));
    assertStatus(CtorchException.INDEX, () -> Cuda.synchronize(count));
    // Allocating 256 MiB takes that much from the free memory of the device.
    long before = Cuda.memGetInfo(0).free();
    try (Tensor big = Tensor.empty(new long[] {64L << 20}, DType.FLOAT32, Device.cuda(0))) {
      long after = Cuda.memGetInfo(0).free();
      assertTrue(before + " -> " + after, after <= before);
      assertEquals(64L << 20, big.numel());
    }
  }

  /** Sync debug mode "error": reading a CUDA tensor on the host fails with CT_ERR_STATE. */
  @Test
  public void gpuErrorSyncDebugModeFailsHostReads() {
    assumeCuda();
    try (Tensor t = Tensor.ones(new long[] {3}, DType.FLOAT32, Device.CUDA)) {
      Cuda.setSyncDebugMode(Cuda.SyncDebugMode.ERROR);
      try {
        CtorchException e = assertStatus(CtorchException.STATE, () -> t.toFloatArray());
        assertTrue(e.detail(), e.detail().contains("synchronizing"));
        Cuda.synchronize();  // explicit synchronization is not reported (as in PyTorch)
      } finally {
        Cuda.setSyncDebugMode(Cuda.SyncDebugMode.DEFAULT);
      }
      assertArrayEquals(new float[] {1, 1, 1}, t.toFloatArray(), 0f);
    }
  }
}
