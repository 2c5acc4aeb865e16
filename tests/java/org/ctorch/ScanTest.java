package org.ctorch;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/**
 * What the binding adds to scans: each method passes its dim and dtype (null: the default) to
 * the right C function, cummax/cummin's two results arrive as one {@link ValuesIndices}, and
 * errors map to CtorchException codes with PyTorch's messages. Values, dtype rules, layouts and
 * edge cases are the C suite's (tests/capi/scan_test.c).
 */
public class ScanTest extends CtorchTestCase {

  /** [[1, 2, 3], [4, 5, 6]] as float32 on the test device. */
  private static Tensor x() {
    return moved(Tensor.fromArray(new float[] {1, 2, 3, 4, 5, 6}, 2, 3), device());
  }

  @Test
  public void cumsumAndCumprodPassDimAndDType() {
    try (TensorScope scope = TensorScope.open()) {
      Tensor x = x();
      assertValues(x.cumsum(1), 1, 3, 6, 4, 9, 15);
      Tensor d = x.cumsum(-2, DType.FLOAT64);
      assertEquals(DType.FLOAT64, d.dtype());
      assertValues(d.to(DType.FLOAT32), 1, 2, 3, 5, 7, 9);
      assertValues(x.cumsum(0, null), 1, 2, 3, 5, 7, 9);
      assertValues(x.cumprod(1), 1, 2, 6, 4, 20, 120);
      assertLongs(x.cumprod(0, DType.INT64), 1, 2, 3, 4, 10, 18);
      assertEquals(DType.INT64, Tensor.fromArray(new int[] {5, -2, 7}).cumsum(0).dtype());
    }
  }

  @Test
  public void cummaxAndCumminReturnValuesAndIndices() {
    try (TensorScope scope = TensorScope.open()) {
      Tensor m = moved(Tensor.fromArray(new float[] {1, 3, 3, Float.NaN, 0}), device());
      ValuesIndices r = m.cummax(0);
      assertLongs(r.indices(), 0, 1, 2, 3, 3);
      assertTrue(Float.isNaN(r.values().toFloatArray()[4]));
      ValuesIndices n = m.cummin(-1);
      assertLongs(n.indices(), 0, 0, 0, 3, 3);
      assertEquals(DType.INT64, n.indices().dtype());
    }
    Tensor v;
    try (Tensor t = Tensor.ones(3); ValuesIndices r = t.cummin(0)) {
      v = r.values();
    }
    assertTrue("closing a ValuesIndices closes both", v.isClosed());
  }

  @Test
  public void logcumsumexp() {
    try (Tensor z = moved(Tensor.zeros(2), device()); Tensor r = z.logcumsumexp(0)) {
      assertClose(r, 1e-6f, 0, (float) Math.log(2));
    }
  }

  @Test
  public void errorsAreMapped() {
    try (Tensor l = Tensor.fromArray(new long[] {1, 2, 3}); Tensor x = x()) {
      CtorchException e = assertStatus(CtorchException.INDEX, () -> x.cumsum(5));
      assertTrue(e.getMessage(), e.getMessage().contains(
          "Dimension out of range (expected to be in range of [-2, 1], but got 5)"));
      e = assertStatus(CtorchException.DTYPE, () -> l.logcumsumexp(0));
      assertTrue(e.getMessage(), e.getMessage().contains("\"logcumsumexp_out_cpu\" not implemented for 'Long'"));
      assertStatus(CtorchException.DTYPE, () -> x.cumprod(0, DType.BOOL));
      assertStatus(CtorchException.INDEX, () -> x.cummax(2));
      try (Tensor c = x.to(DType.COMPLEX64)) {
        assertStatus(CtorchException.DTYPE, () -> c.cummin(0));
      }
    }
  }
}
