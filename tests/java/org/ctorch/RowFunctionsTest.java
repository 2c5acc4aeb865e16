package org.ctorch;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/**
 * What the binding adds to the row functions (section 32): every overload passes its dim/dims,
 * correction, keepdim, dtype (null: none), ord (number or String) and optional weight/bias to
 * the right C function, varMean/stdMean arrive as one {@link StatMean}, and errors come through
 * as CtorchException codes. Values, dtype rules and messages are the C suite's
 * (tests/capi/rowfuncs_test.c).
 */
public class RowFunctionsTest extends CtorchTestCase {

  /** [[1, 2, 3], [4, 5, 6]] as float32 on the test device. */
  private static Tensor x() {
    return moved(Tensor.fromArray(new float[] {1, 2, 3, 4, 5, 6}, 2, 3), device());
  }

  private static final double E3 = Math.exp(1) + Math.exp(2) + Math.exp(3);

  @Test
  public void softmaxAndLogSoftmax() {
    try (Tensor t = x(); Tensor s = t.softmax(1); Tensor s64 = t.softmax(-1, DType.FLOAT64);
        Tensor l = t.logSoftmax(0); Tensor l64 = t.logSoftmax(0, DType.FLOAT64)) {
      float a = (float) (Math.exp(1) / E3), b = (float) (Math.exp(2) / E3), c = (float) (Math.exp(3) / E3);
      assertClose(s, 1e-6f, a, b, c, a, b, c);
      assertEquals(DType.FLOAT64, s64.dtype());
      assertClose(s64, 1e-6f, a, b, c, a, b, c);
      float k = (float) Math.log(1 + Math.exp(3));
      assertClose(l, 1e-5f, -k, -k, -k, 3 - k, 3 - k, 3 - k);
      assertEquals(DType.FLOAT64, l64.dtype());
    }
    try (Tensor i = Tensor.fromArray(new long[] {1, 2}, 2)) {
      CtorchException e = assertStatus(CtorchException.DTYPE, () -> i.softmax(0));
      assertTrue(e.detail(), e.detail().contains("\"host_softmax\" not implemented for 'Long'"));
    }
    try (Tensor t = x()) {
      assertStatus(CtorchException.INDEX, () -> t.logSoftmax(2));
    }
  }

  @Test
  public void logsumexpVarStdAndTheirMeans() {
    try (Tensor t = x(); Tensor lse = t.logsumexp(1); Tensor lk = t.logsumexp(new int[] {-1}, true);
        Tensor all = t.logsumexp(null, false); Tensor v = t.var(new int[] {1}, 1, false);
        Tensor v0 = t.var(null, 0, false); Tensor va = t.var(); Tensor s = t.std(new int[] {0}, 1, true);
        Tensor sa = t.std(); StatMean vm = t.varMean(new int[] {1}, 0, false);
        StatMean sm = t.stdMean(null, 1, true)) {
      float l = (float) Math.log(E3);
      assertClose(lse, 1e-5f, l, 3 + l);
      assertShape(lk, 2, 1);
      assertClose(all, 1e-5f, (float) Math.log(E3 * (1 + Math.exp(3))));
      assertClose(v, 1e-6f, 1, 1);
      assertClose(v0, 1e-6f, 17.5f / 6);
      assertClose(va, 1e-6f, 3.5f);
      assertShape(s, 1, 3);
      float r = (float) Math.sqrt(4.5);
      assertClose(s, 1e-5f, r, r, r);
      assertClose(sa, 1e-6f, (float) Math.sqrt(3.5));
      assertClose(vm.stat(), 1e-6f, 2f / 3, 2f / 3);
      assertClose(vm.mean(), 1e-6f, 2, 5);
      assertShape(sm.mean(), 1, 1);
      assertClose(sm.stat(), 1e-6f, (float) Math.sqrt(3.5));
      assertClose(sm.mean(), 1e-6f, 3.5f);
      assertStatus(CtorchException.ARGUMENT, () -> t.logsumexp(new int[] {0, 0}, false));
    }
    try (Tensor i = Tensor.fromArray(new long[] {1, 2}, 2)) {
      CtorchException e = assertStatus(CtorchException.DTYPE, () -> i.var());
      assertTrue(e.detail(), e.detail().contains("std and var only support floating point and complex dtypes"));
      assertStatus(CtorchException.DTYPE, () -> i.stdMean(null, 1, false));
      assertStatus(CtorchException.DTYPE, () -> i.varMean(null, 1, false));
      assertStatus(CtorchException.DTYPE, () -> i.std());
    }
  }

  @Test
  public void matrixNorms() {
    try (Tensor t = x(); Tensor one = t.matrixNorm(1); Tensor ninf = t.matrixNorm(Double.NEGATIVE_INFINITY, 0, 1, false);
        Tensor keep = t.matrixNorm(Double.POSITIVE_INFINITY, -2, -1, true);
        Tensor fro = t.matrixNorm("fro", 1, 0, false)) {
      assertClose(one, 1e-6f, 9);
      assertClose(ninf, 1e-6f, 6);
      assertShape(keep, 1, 1);
      assertClose(keep, 1e-6f, 15);
      assertClose(fro, 1e-5f, (float) Math.sqrt(91));
      assertStatus(CtorchException.NOT_SUPPORTED, () -> t.matrixNorm(2));
      assertStatus(CtorchException.NOT_SUPPORTED, () -> t.matrixNorm("nuc", 0, 1, false));
      assertStatus(CtorchException.ARGUMENT, () -> t.matrixNorm(1, 1, 1, false));
      assertThrows(NullPointerException.class, () -> t.matrixNorm(null, 0, 1, false));
    }
  }

  @Test
  public void layerNormWithOptionalWeightAndBias() {
    float r = (float) (1 / Math.sqrt(2.0 / 3 + 1e-5));
    try (Tensor t = x(); Tensor w = moved(Tensor.fromArray(new float[] {1, 2, 3}, 3), device());
        Tensor b = moved(Tensor.fromArray(new float[] {0, 1, 0}, 3), device());
        Tensor both = t.layerNorm(new long[] {3}, w, b, 1e-5); Tensor none = t.layerNorm(3);
        Tensor bOnly = t.layerNorm(new long[] {3}, null, b, 1e-5);
        Tensor wOnly = t.layerNorm(new long[] {3}, w, null, 1e-5)) {
      assertClose(both, 1e-5f, -r, 1, 3 * r, -r, 1, 3 * r);
      assertClose(none, 1e-5f, -r, 0, r, -r, 0, r);
      assertClose(bOnly, 1e-5f, -r, 1, r, -r, 1, r);
      assertClose(wOnly, 1e-5f, -r, 0, 3 * r, -r, 0, 3 * r);
      CtorchException e = assertStatus(CtorchException.SHAPE, () -> t.layerNorm(4));
      assertTrue(e.detail(), e.detail().contains(
          "Given normalized_shape=[4], expected input with shape [*, 4], but got input of size[2, 3]"));
      assertStatus(CtorchException.ARGUMENT, () -> t.layerNorm(new long[0]));
      assertThrows(NullPointerException.class, () -> t.layerNorm((long[]) null, null, null, 1e-5));
      Tensor gone = Tensor.fromArray(new float[] {1, 1, 1}, 3);
      gone.close();
      assertStatus(CtorchException.INVALID_HANDLE, () -> t.layerNorm(new long[] {3}, gone, null, 1e-5));
      assertStatus(CtorchException.INVALID_HANDLE, () -> t.layerNorm(new long[] {3}, null, gone, 1e-5));
    }
  }
}
