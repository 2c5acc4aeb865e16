package org.ctorch;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import org.junit.After;
import org.junit.Before;
import org.junit.function.ThrowingRunnable;

/**
 * Base of the suites: each test must close every tensor it makes, so the number of live
 * native tensor handles is back to its starting value when the test ends.
 */
public abstract class CtorchTestCase {
  private long liveBefore;

  @Before
  public void recordLiveTensors() {
    liveBefore = Torch.liveTensorCount();
  }

  @After
  public void checkNoTensorLeaked() {
    assertEquals("live tensor handles after the test", liveBefore, Torch.liveTensorCount());
  }

  private static Device testDevice;

  /**
   * The seed's device-agnostic choice: "cuda" if available, else "cpu". ctorch 0.1 enumerates
   * GPUs but keeps tensors on the CPU (CUDA tensors fail with CT_ERR_NOT_SUPPORTED), so on a
   * GPU host the suites fall back to "cpu" until CUDA tensors exist, as the C quickstart does.
   */
  static synchronized Device device() {
    if (testDevice == null) {
      Device d = Device.parse(Cuda.isAvailable() ? "cuda" : "cpu");
      if (d.isCuda()) {
        try (Tensor probe = Tensor.zeros(new long[] {1}, DType.FLOAT32, d)) {
          // CUDA tensors work
        } catch (CtorchException e) {
          if (e.code() != CtorchException.NOT_SUPPORTED) {
            throw e;
          }
          d = Device.parse("cpu");
        }
      }
      testDevice = d;
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
  static CtorchException assertStatus(int code, ThrowingRunnable r) {
    CtorchException e = assertThrows(CtorchException.class, r);
    assertEquals("code of: " + e.getMessage(), code, e.code());
    return e;
  }
}
