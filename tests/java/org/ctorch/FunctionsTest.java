package org.ctorch;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/**
 * What the binding adds to the elementwise functions (section 31, and the generated isnan,
 * isinf, isfinite, erf, silu): every overload passes its arguments (approximate string, null
 * bounds and replacements, the scalar side and kind of where, the allclose boolean) to the right
 * C function, and errors come through as CtorchException codes. Values, dtype rules and messages
 * are the C suite's (tests/capi/ewfuncs_test.c).
 */
public class FunctionsTest extends CtorchTestCase {

  private static Tensor f(float... v) {
    return moved(Tensor.fromArray(v, v.length), device());
  }

  private static Tensor special() {
    return f(Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, -1, 0.5f);
  }

  private static float silu(double v) {
    return (float) (v / (1 + Math.exp(-v)));
  }

  @Test
  public void tableOps() {
    try (Tensor s = special(); Tensor n = s.isnan(); Tensor i = s.isinf(); Tensor fin = s.isfinite();
        Tensor y = f(-1, 0, 0.5f); Tensor e = y.erf(); Tensor si = y.silu()) {
      assertEquals(DType.BOOL, n.dtype());
      assertBools(n, true, false, false, false, false);
      assertBools(i, false, true, true, false, false);
      assertBools(fin, false, false, false, true, true);
      assertClose(e, 1e-6f, -0.8427007929f, 0, 0.5204998778f);
      assertClose(si, 1e-6f, silu(-1), 0, silu(0.5));
    }
  }

  @Test
  public void geluAndNanToNum() {
    try (Tensor y = f(-1, 0, 0.5f); Tensor g = y.gelu(); Tensor gn = y.gelu("none"); Tensor gt = y.gelu("tanh");
        Tensor s = special(); Tensor d = s.nanToNum(null, null, null); Tensor r = s.nanToNum(7.0, 8.0, null)) {
      // x * Phi(x): Phi(-1) = 0.158655254, Phi(0.5) = 0.691462461
      float a = -0.15865525393f, b = 0.5f * 0.69146246127f;
      assertClose(g, 1e-6f, a, 0, b);
      assertClose(gn, 1e-6f, a, 0, b);
      double t = 0.5 * 0.5 * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (0.5 + 0.044715 * 0.125)));
      try (Tensor last = gt.narrow(0, 2, 1)) {
        assertClose(last, 1e-6f, (float) t);
      }
      assertValues(d, 0, Float.MAX_VALUE, -Float.MAX_VALUE, -1, 0.5f);
      assertValues(r, 7, 8, -Float.MAX_VALUE, -1, 0.5f);
      CtorchException ex = assertStatus(CtorchException.ARGUMENT, () -> y.gelu("erf"));
      assertTrue(ex.detail(), ex.detail().contains("approximate argument must be either none or tanh."));
    }
  }

  @Test
  public void clampLerpAddc() {
    try (Tensor x = f(-1, 0, 0.5f); Tensor lo = f(0, 0, 0); Tensor hi = f(0.25f, 0.25f, 0.25f); Tensor end = f(1, 2, 3);
        Tensor c = x.clamp(lo, hi); Tensor cl = x.clamp(lo, null); Tensor ch = x.clamp(null, hi);
        Tensor l = x.lerp(end, hi); Tensor ls = x.lerp(end, 1.0); Tensor m = x.addcmul(end, end, 2);
        Tensor dv = x.addcdiv(end, hi, 0.5)) {
      assertValues(c, 0, 0, 0.25f);
      assertValues(cl, 0, 0, 0.5f);
      assertValues(ch, -1, 0, 0.25f);
      assertValues(l, -0.5f, 0.5f, 1.125f);
      assertValues(ls, 1, 2, 3);
      assertValues(m, 1, 8, 18.5f);
      assertValues(dv, 1, 4, 6.5f);
      assertStatus(CtorchException.ARGUMENT, () -> x.clamp((Tensor) null, null));
      try (Tensor i = Tensor.fromArray(new long[] {1, 2, 3}, 3)) {
        CtorchException ex = assertStatus(CtorchException.DTYPE, () -> x.addcdiv(i, i, 1));
        assertTrue(ex.detail(), ex.detail().contains("Integer division with addcdiv"));
      }
    }
  }

  @Test
  public void whereWithScalars() {
    try (Tensor c = moved(Tensor.fromArray(new boolean[] {true, false, true}, 3), device());
        Tensor xi = moved(Tensor.fromArray(new int[] {5, 6, 7}, 3), device());
        Tensor a = Tensor.where(c, xi, -1L); Tensor b = Tensor.where(c, -1L, xi);
        Tensor d = Tensor.where(c, xi, 2.5); Tensor e = Tensor.where(c, 2.5, xi);
        Tensor g = Tensor.where(c, 1.0, 0.5); Tensor h = Tensor.where(c, 3L, 4L)) {
      assertEquals(DType.INT32, a.dtype());
      assertLongs(a, 5, -1, 7);
      assertLongs(b, -1, 6, -1);
      assertEquals(DType.FLOAT32, d.dtype());
      assertValues(d, 5, 2.5f, 7);
      assertValues(e, 2.5f, 6, 2.5f);
      assertEquals(DType.FLOAT32, g.dtype());
      assertValues(g, 1, 0.5f, 1);
      assertEquals(DType.INT64, h.dtype());
      assertLongs(h, 3, 4, 3);
      assertStatus(CtorchException.DTYPE, () -> Tensor.where(xi, xi, 1.0));
    }
  }

  @Test
  public void iscloseAllclose() {
    try (Tensor a = special(); Tensor b = f(Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, -1.001f, 0.5f);
        Tensor c = a.isclose(b); Tensor n = a.isclose(b, 0.01, 0, true)) {
      assertBools(c, false, true, true, false, true);
      assertBools(n, true, true, true, true, true);
      assertTrue(a.allclose(b, 0.01, 0, true));
      assertFalse(a.allclose(b));
      assertStatus(CtorchException.ARGUMENT, () -> a.allclose(a, -1, 0, false));
    }
  }
}
