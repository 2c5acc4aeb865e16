package org.ctorch;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.function.IntUnaryOperator;

import org.junit.Assume;
import org.junit.Test;

/**
 * Section 23 of ctorch.h through {@link Cuda}: the NVML figures (ints and a long marshalled
 * back, the overloads on the current device), list_gpu_processes's string, init and
 * isInitialized, and the error mapping (code 500 naming libnvidia-ml.so.1 without the driver,
 * 301 without CUDA, 105 for a device with no GPU). The values are checked by the C suite and,
 * against nvidia-smi, by tests/gpu/nvml_compare.py.
 */
public class CudaMonitoringTest extends CtorchTestCase {

  /** The int queries, each on a device index. */
  private static final IntUnaryOperator[] INT_QUERIES = {
    Cuda::utilization, Cuda::memoryUsage, Cuda::temperature, Cuda::powerDraw, Cuda::clockRate,
  };

  private static void assumeNoNvml() {
    Assume.assumeTrue("checks the behaviour without NVML, and libnvidia-ml.so.1 loads here",
        Cuda.deviceCountNvml() < 0);
  }

  private static void assumeNvml() {
    assumeCuda();
    assertTrue("a GPU but NVML cannot be used (is libnvidia-ml.so.1 missing?)",
        Cuda.deviceCountNvml() >= 0);
  }

  private static void assertNoNvml(org.junit.function.ThrowingRunnable r) {
    CtorchException e = assertStatus(CtorchException.NOT_SUPPORTED, r);
    assertEquals("CT_ERR_NOT_SUPPORTED", e.statusName());
    assertTrue(e.detail(), e.detail().contains("libnvidia-ml.so.1"));
  }

  @Test
  public void noNvmlEveryQueryThrowsNotSupported() {
    assumeNoCuda();
    assumeNoNvml();
    assertEquals(-1, Cuda.deviceCountNvml());
    for (IntUnaryOperator q : INT_QUERIES) {
      assertNoNvml(() -> q.applyAsInt(0));
      assertNoNvml(() -> q.applyAsInt(-1));
    }
    assertNoNvml(Cuda::utilization);
    assertNoNvml(Cuda::memoryUsage);
    assertNoNvml(Cuda::temperature);
    assertNoNvml(Cuda::powerDraw);
    assertNoNvml(Cuda::clockRate);
    assertNoNvml(Cuda::deviceMemoryUsed);
    assertNoNvml(() -> Cuda.deviceMemoryUsed(2));
    // the string call fails on its first (size) call: the error, not an empty string
    assertNoNvml(Cuda::listGpuProcesses);
    assertNoNvml(() -> Cuda.listGpuProcesses(0));
  }

  @Test
  public void noGpuInitThrowsAndNothingIsInitialized() {
    assumeNoCuda();
    assertFalse(Cuda.isInitialized());
    assertNoCuda(Cuda::init);
    assertNoCuda(Cuda::init);
    assertFalse(Cuda.isInitialized());
  }

  @Test
  public void gpuInitIsIdempotent() {
    assumeCuda();
    Cuda.init();
    Cuda.init();
    assertTrue(Cuda.isInitialized());
  }

  @Test
  public void gpuFiguresInRange() {
    assumeNvml();
    assertEquals(Cuda.deviceCount(), Cuda.deviceCountNvml());
    for (int d = 0; d < Cuda.deviceCount(); d++) {
      int util = Cuda.utilization(d);
      assertTrue("utilization " + util, util >= 0 && util <= 100);
      int mem = Cuda.memoryUsage(d);
      assertTrue("memory usage " + mem, mem >= 0 && mem <= 100);
      int temp = Cuda.temperature(d);
      assertTrue("temperature " + temp, temp >= 1 && temp <= 120);
      assertTrue("power draw mW", Cuda.powerDraw(d) > 0);
      assertTrue("SM clock MHz", Cuda.clockRate(d) > 0);
      long used = Cuda.deviceMemoryUsed(d);
      assertTrue("memory used " + used, used > 0 && used <= Cuda.totalMemory(d) + (1L << 30));
    }
    // the overloads query the current device
    try (Cuda.DeviceGuard g = Cuda.device(0)) {
      int t = Cuda.temperature();
      assertTrue(Math.abs(t - Cuda.temperature(0)) <= 2);
      assertTrue(Cuda.deviceMemoryUsed() > 0);
      assertTrue(Cuda.clockRate() > 0 && Cuda.powerDraw() > 0);
      assertTrue(Cuda.utilization() >= 0 && Cuda.memoryUsage() >= 0);
    }
    CtorchException e = assertStatus(CtorchException.INDEX, () -> Cuda.temperature(64));
    assertTrue(e.detail(), e.detail().contains("device 64 is not visible (CUDA_VISIBLE_DEVICES="));
  }

  @Test
  public void gpuListGpuProcessesText() {
    assumeNvml();
    try (Tensor t = Tensor.empty(new long[] {1 << 20}, DType.FLOAT32, Device.parse("cuda:0"))) {
      String text = Cuda.listGpuProcesses(0);
      String[] lines = text.split("\n", -1);
      assertTrue(text, lines[0].matches("GPU:\\d+"));
      assertTrue(text, lines.length >= 2);  // this process holds memory on device 0
      for (int i = 1; i < lines.length; i++) {
        assertTrue(lines[i], lines[i].matches("process +\\d+ uses +(\\d+\\.\\d{3}|N/A) MB GPU memory"));
      }
      assertEquals(text.split("\n")[0], Cuda.listGpuProcesses().split("\n")[0]);
    }
  }
}
