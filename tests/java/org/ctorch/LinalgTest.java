package org.ctorch;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.junit.Test;

/**
 * Matrix products (section 17 of ctorch.h): matmul's shape rules, mm, bmm, dot, mv, addmm
 * against values worked out by hand or in double precision here, float16/bfloat16/complex64,
 * PyTorch's errors, the torch.backends.cuda.matmul switches and the cuBLAS handle. The
 * products run on the test device (CUDA when available); the GPU cases compare CUDA with the
 * CPU.
 */
public class LinalgTest extends CtorchTestCase {

  // ---- helpers ---------------------------------------------------------------------------

  /** A tensor of the given dtype and shape on the test device, from float64 values. */
  private static Tensor make(DType dtype, double[] values, long... shape) {
    return make(dtype, device(), values, shape);
  }

  private static Tensor make(DType dtype, Device dev, double[] values, long... shape) {
    try (Tensor t = Tensor.fromArray(values, shape); Tensor c = t.to(dtype)) {
      return c.to(dev);
    }
  }

  /** Deterministic test values in [-1, 1) (those of tests/capi/linalg_test.c). */
  private static double[] vals(int n, int salt) {
    double[] v = new double[n];
    for (int i = 0; i < n; i++) {
      v[i] = (((long) i * 7919 + (long) salt * 104729) % 2001 - 1000) / 1000.0;
    }
    return v;
  }

  /** Row-major C = A B in double precision, for A (n, k) and B (k, m). */
  private static double[] ref(double[] a, double[] b, int n, int k, int m) {
    double[] c = new double[n * m];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < m; j++) {
        double s = 0;
        for (int p = 0; p < k; p++) {
          s += a[i * k + p] * b[p * m + j];
        }
        c[i * m + j] = s;
      }
    }
    return c;
  }

  /** Sum over p of |A[i][p]| |B[p][j]|, the scale of each entry's rounding error. */
  private static double[] absRef(double[] a, double[] b, int n, int k, int m) {
    double[] aa = a.clone();
    double[] bb = b.clone();
    for (int i = 0; i < aa.length; i++) {
      aa[i] = Math.abs(aa[i]);
    }
    for (int i = 0; i < bb.length; i++) {
      bb[i] = Math.abs(bb[i]);
    }
    return ref(aa, bb, n, k, m);
  }

  /** A complex64 tensor on the test device from (re, im) pairs. */
  private static Tensor complex64(float[] reIm, long... shape) {
    ByteBuffer buf = ByteBuffer.allocate(reIm.length * 4).order(ByteOrder.nativeOrder());
    for (float f : reIm) {
      buf.putFloat(f);
    }
    try (Tensor t = Tensor.fromBytes(buf.array(), DType.COMPLEX64, shape)) {
      return t.to(device());
    }
  }

  /** The (re, im) pairs of a complex64 tensor. */
  private static float[] reIm(Tensor t) {
    byte[] raw = t.toByteArray();
    float[] f = new float[raw.length / 4];
    ByteBuffer.wrap(raw).order(ByteOrder.nativeOrder()).asFloatBuffer().get(f);
    return f;
  }

  private static final double[] A23 = {1, 2, 3, 4, 5, 6};      // [[1, 2, 3], [4, 5, 6]]
  private static final double[] B32 = {7, 8, 9, 10, 11, 12};   // [[7, 8], [9, 10], [11, 12]]
  // A23 @ B32, by hand: [[1*7 + 2*9 + 3*11, 1*8 + 2*10 + 3*12], [4*7 + 5*9 + 6*11, ...]]
  private static final double[] AB = {58, 64, 139, 154};

  // ---- mm ------------------------------------------------------------------------------

  @Test
  public void mmFloat32ByHand() {
    try (Tensor a = make(DType.FLOAT32, A23, 2, 3);
        Tensor b = make(DType.FLOAT32, B32, 3, 2);
        Tensor c = a.mm(b);
        Tensor s = Tensor.mm(a, b);
        Tensor m = a.matmul(b)) {
      assertSame(DType.FLOAT32, c.dtype());
      assertEquals(device().type(), c.device().type());
      assertShape(c, 2, 2);
      assertValues(c, 58, 64, 139, 154);
      assertValues(s, 58, 64, 139, 154);
      assertValues(m, 58, 64, 139, 154);
    }
  }

  @Test
  public void mmFloat64ByHand() {
    // [[0.5, -1.25, 2], [3, 0.1, -0.7]] @ [[1.5, -2], [0.25, 4], [-1, 0.5]]:
    // 0.75 - 0.3125 - 2 = -1.5625, -1 - 5 + 1 = -5, 4.5 + 0.025 + 0.7 = 5.225,
    // -6 + 0.4 - 0.35 = -5.95
    try (Tensor a = make(DType.FLOAT64, new double[] {0.5, -1.25, 2, 3, 0.1, -0.7}, 2, 3);
        Tensor b = make(DType.FLOAT64, new double[] {1.5, -2, 0.25, 4, -1, 0.5}, 3, 2);
        Tensor c = a.mm(b);
        Tensor ints = make(DType.FLOAT64, A23, 2, 3);
        Tensor intsB = make(DType.FLOAT64, B32, 3, 2);
        Tensor c2 = Tensor.mm(ints, intsB)) {
      assertSame(DType.FLOAT64, c.dtype());
      assertShape(c, 2, 2);
      assertArrayEquals(new double[] {-1.5625, -5, 5.225, -5.95}, c.toDoubleArray(), 1e-14);
      assertArrayEquals(AB, c2.toDoubleArray(), 0);
    }
  }

  @Test
  public void mmOfLargerMatricesMatchesDoubleReference() {
    int n = 17;
    int k = 33;
    int m = 9;
    for (DType dt : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
      try (Tensor a = make(dt, vals(n * k, 1), n, k);
          Tensor b = make(dt, vals(k * m, 2), k, m);
          Tensor c = a.mm(b)) {
        // the inputs as the dtype holds them
        double[] want = ref(a.toDoubleArray(), b.toDoubleArray(), n, k, m);
        assertShape(c, n, m);
        assertArrayEquals(dt.toString(), want, c.toDoubleArray(),
            dt == DType.FLOAT64 ? 1e-12 : 2e-6 * k);
      }
    }
  }

  @Test
  public void nonContiguousOperands() {
    // b^T given as a transposed view: the same product as from contiguous memory
    try (Tensor a = make(DType.FLOAT64, A23, 2, 3);
        Tensor bt = make(DType.FLOAT64, new double[] {7, 9, 11, 8, 10, 12}, 2, 3);
        Tensor b = bt.transpose(0, 1);
        Tensor c = a.mm(b)) {
      assertFalse(b.isContiguous());
      assertArrayEquals(AB, c.toDoubleArray(), 0);
    }
  }

  @Test
  public void emptyProducts() {
    try (Tensor a = Tensor.zeros(new long[] {0, 4}, DType.FLOAT32, device());
        Tensor b = Tensor.ones(new long[] {4, 5}, DType.FLOAT32, device());
        Tensor c = a.mm(b);
        Tensor a0 = Tensor.ones(new long[] {3, 0}, DType.FLOAT32, device());
        Tensor b0 = Tensor.ones(new long[] {0, 5}, DType.FLOAT32, device());
        Tensor z = a0.mm(b0)) {
      assertShape(c, 0, 5);
      assertShape(z, 3, 5); // k = 0: zeros, as torch
      assertArrayEquals(new double[15], z.toDoubleArray(), 0);
    }
  }

  // ---- matmul's shape rules ------------------------------------------------------------

  @Test
  public void matmulVectorCases() {
    try (Tensor v = make(DType.FLOAT32, new double[] {1, 2, 3}, 3);
        Tensor w = make(DType.FLOAT32, new double[] {4, 5, 6}, 3);
        Tensor a = make(DType.FLOAT32, A23, 2, 3);
        Tensor b = make(DType.FLOAT32, B32, 3, 2);
        Tensor vw = v.matmul(w);            // 1-D x 1-D: dot, 0-dim
        Tensor vb = Tensor.matmul(v, b);    // 1-D x 2-D: a row, removed: (2)
        Tensor av = a.matmul(v)) {          // 2-D x 1-D: mv, (2)
      assertEquals(0, vw.dim());
      assertEquals(1 * 4 + 2 * 5 + 3 * 6, vw.item(), 0);
      assertShape(vb, 2);
      assertValues(vb, 1 * 7 + 2 * 9 + 3 * 11, 1 * 8 + 2 * 10 + 3 * 12);
      assertShape(av, 2);
      assertValues(av, 1 + 2 * 2 + 3 * 3, 4 + 5 * 2 + 6 * 3);
    }
  }

  @Test
  public void matmulBatchedBroadcast() {
    // (2, 1, 3, 4) x (5, 4, 2): batch dims (2, 1) and (5) broadcast to (2, 5) -> (2, 5, 3, 2)
    double[] x = vals(2 * 3 * 4, 6);
    double[] y = vals(5 * 4 * 2, 7);
    try (Tensor a = make(DType.FLOAT64, x, 2, 1, 3, 4);
        Tensor b = make(DType.FLOAT64, y, 5, 4, 2);
        Tensor c = a.matmul(b)) {
      assertShape(c, 2, 5, 3, 2);
      double[] got = c.toDoubleArray();
      double[] want = new double[2 * 5 * 3 * 2];
      for (int b0 = 0; b0 < 2; b0++) {
        for (int b1 = 0; b1 < 5; b1++) {
          for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 2; j++) {
              double s = 0;
              for (int p = 0; p < 4; p++) {
                s += x[b0 * 12 + i * 4 + p] * y[b1 * 8 + p * 2 + j];
              }
              want[((b0 * 5 + b1) * 3 + i) * 2 + j] = s;
            }
          }
        }
      }
      assertArrayEquals(want, got, 1e-12);
      // a few entries spelled out: c[1][3][2][1] = sum_p x[1][0][2][p] * y[3][p][1]
      double e = 0;
      for (int p = 0; p < 4; p++) {
        e += x[12 + 2 * 4 + p] * y[3 * 8 + p * 2 + 1];
      }
      try (Tensor c1 = c.select(0, 1); Tensor c13 = c1.select(0, 3);
          Tensor c132 = c13.select(0, 2); Tensor entry = c132.select(0, 1)) {
        assertEquals(e, entry.item(), 1e-12);
      }
      double e0 = 0;
      for (int p = 0; p < 4; p++) {
        e0 += x[p] * y[p * 2];
      }
      assertEquals(e0, got[0], 1e-12);
    }
  }

  @Test
  public void matmulWithOneVectorAndABatch() {
    double[] m = vals(2 * 3 * 4, 5);
    double[] v = {1, -2, 0.5, 4};
    try (Tensor b3 = make(DType.FLOAT64, m, 2, 3, 4);
        Tensor vec = make(DType.FLOAT64, v, 4);
        Tensor r = b3.matmul(vec);                  // (2, 3, 4) x (4) -> (2, 3)
        Tensor vec3 = make(DType.FLOAT64, new double[] {1, -1, 2}, 3);
        Tensor l = vec3.matmul(b3)) {               // (3) x (2, 3, 4) -> (2, 4)
      assertShape(r, 2, 3);
      double[] want = new double[6];
      for (int i = 0; i < 6; i++) {
        for (int p = 0; p < 4; p++) {
          want[i] += m[i * 4 + p] * v[p];
        }
      }
      assertArrayEquals(want, r.toDoubleArray(), 1e-12);
      assertShape(l, 2, 4);
      double[] wantL = new double[8];
      double[] u = {1, -1, 2};
      for (int b = 0; b < 2; b++) {
        for (int j = 0; j < 4; j++) {
          for (int p = 0; p < 3; p++) {
            wantL[b * 4 + j] += u[p] * m[b * 12 + p * 4 + j];
          }
        }
      }
      assertArrayEquals(wantL, l.toDoubleArray(), 1e-12);
    }
  }

  @Test
  public void matmulShapeErrors() {
    try (Tensor s = Tensor.scalar(2.0f);
        Tensor v = make(DType.FLOAT32, new double[] {1, 2, 3, 4}, 4);
        Tensor b3 = Tensor.ones(new long[] {2, 3, 4}, DType.FLOAT32, device())) {
      CtorchException e = assertStatus(CtorchException.SHAPE, () -> s.matmul(v));
      assertEquals("both arguments to matmul need to be at least 1D, but they are 0D and 1D",
          e.detail());
      assertStatus(CtorchException.SHAPE, () -> v.matmul(b3)); // 4 against 3
    }
  }

  // ---- bmm, dot, mv --------------------------------------------------------------------

  @Test
  public void bmmByHand() {
    // batch 0: A23 @ B32; batch 1: 2 * A23 @ (-B32) = -2 * AB
    double[] a = {1, 2, 3, 4, 5, 6, 2, 4, 6, 8, 10, 12};
    double[] b = {7, 8, 9, 10, 11, 12, -7, -8, -9, -10, -11, -12};
    for (DType dt : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
      try (Tensor x = make(dt, a, 2, 2, 3);
          Tensor y = make(dt, b, 2, 3, 2);
          Tensor c = x.bmm(y);
          Tensor s = Tensor.bmm(x, y)) {
        assertSame(dt, c.dtype());
        assertShape(c, 2, 2, 2);
        double[] want = {58, 64, 139, 154, -116, -128, -278, -308};
        assertArrayEquals(want, c.toDoubleArray(), 0);
        assertArrayEquals(want, s.toDoubleArray(), 0);
      }
    }
    try (Tensor x = Tensor.ones(new long[] {2, 2, 3}, DType.FLOAT32, device());
        Tensor y = Tensor.ones(new long[] {3, 3, 2}, DType.FLOAT32, device());
        Tensor m = Tensor.ones(new long[] {3, 2}, DType.FLOAT32, device())) {
      CtorchException e = assertStatus(CtorchException.SHAPE, () -> x.bmm(m));
      assertEquals("batch2 must be a 3D tensor", e.detail());
      e = assertStatus(CtorchException.SHAPE, () -> m.bmm(x));
      assertEquals("batch1 must be a 3D tensor", e.detail());
      e = assertStatus(CtorchException.SHAPE, () -> x.bmm(y)); // batch 2 against 3
      assertEquals("Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: "
          + "[3, 3].", e.detail());
    }
  }

  @Test
  public void dotByHand() {
    for (DType dt : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
      try (Tensor v = make(dt, new double[] {1, 2, 3}, 3);
          Tensor w = make(dt, new double[] {4, -5, 0.5}, 3);
          Tensor d = v.dot(w);
          Tensor s = Tensor.dot(v, w)) {
        assertSame(dt, d.dtype());
        assertEquals(0, d.dim());
        assertEquals(4 - 10 + 1.5, d.item(), 0);
        assertEquals(-4.5, s.item(), 0);
      }
    }
    try (Tensor v = make(DType.FLOAT64, new double[] {1, 2, 3}, 3);
        Tensor v4 = make(DType.FLOAT64, new double[] {1, 2, 3, 4}, 4);
        Tensor f = make(DType.FLOAT32, new double[] {1, 2, 3}, 3);
        Tensor m = Tensor.ones(new long[] {3, 1}, DType.FLOAT64, device())) {
      CtorchException e = assertStatus(CtorchException.SHAPE, () -> v.dot(m));
      assertEquals("1D tensors expected, but got 1D and 2D tensors", e.detail());
      e = assertStatus(CtorchException.SHAPE, () -> v.dot(v4));
      assertTrue(e.detail(), e.detail().startsWith("inconsistent tensor size, expected tensor [3] "
          + "and src [4] to have the same number of elements"));
      e = assertStatus(CtorchException.DTYPE, () -> v.dot(f));
      assertEquals("dot : expected both vectors to have same dtype, but found Double and Float",
          e.detail());
    }
  }

  @Test
  public void mvByHand() {
    try (Tensor a = make(DType.FLOAT32, A23, 2, 3);
        Tensor v = make(DType.FLOAT32, new double[] {1, -1, 2}, 3);
        Tensor r = a.mv(v);
        Tensor s = Tensor.mv(a, v);
        Tensor v2 = make(DType.FLOAT32, new double[] {1, 2}, 2)) {
      assertShape(r, 2);
      assertValues(r, 1 - 2 + 6, 4 - 5 + 12);
      assertValues(s, 5, 11);
      CtorchException e = assertStatus(CtorchException.SHAPE, () -> a.mv(v2));
      assertEquals("size mismatch, got input (2), mat (2x3), vec (2)", e.detail());
      e = assertStatus(CtorchException.SHAPE, () -> v.mv(v));
      assertEquals("vector + matrix @ vector expected, got 1, 1, 1", e.detail());
    }
  }

  // ---- addmm ---------------------------------------------------------------------------

  @Test
  public void addmmWithBetaAndAlpha() {
    for (DType dt : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
      try (Tensor m1 = make(dt, A23, 2, 3);
          Tensor m2 = make(dt, B32, 3, 2);
          Tensor in = make(dt, new double[] {1, 2, 3, 4}, 2, 2);
          Tensor row = make(dt, new double[] {10, -10}, 2);
          Tensor plain = in.addmm(m1, m2);                       // in + AB
          Tensor plainS = Tensor.addmm(in, m1, m2);
          Tensor scaled = in.addmm(m1, m2, 0.5, 2);              // 0.5 in + 2 AB
          Tensor scaledS = Tensor.addmm(in, m1, m2, -1, 0.25);   // -in + AB / 4
          Tensor bcast = Tensor.addmm(row, m1, m2, 3, 1)) {      // 3 [10, -10] broadcast + AB
        assertSame(dt, scaled.dtype());
        assertShape(plain, 2, 2);
        assertArrayEquals(new double[] {59, 66, 142, 158}, plain.toDoubleArray(), 0);
        assertArrayEquals(new double[] {59, 66, 142, 158}, plainS.toDoubleArray(), 0);
        assertArrayEquals(new double[] {116.5, 129, 279.5, 310}, scaled.toDoubleArray(), 0);
        assertArrayEquals(new double[] {13.5, 14, 31.75, 34.5}, scaledS.toDoubleArray(), 0);
        assertShape(bcast, 2, 2);
        assertArrayEquals(new double[] {88, 34, 169, 124}, bcast.toDoubleArray(), 0);
      }
    }
  }

  @Test
  public void addmmWithBetaZeroIgnoresNaNAndInfinity() {
    try (Tensor m1 = make(DType.FLOAT32, A23, 2, 3);
        Tensor m2 = make(DType.FLOAT32, B32, 3, 2);
        Tensor nan = Tensor.full(new long[] {2, 2}, Double.NaN, DType.FLOAT32, device());
        Tensor inf = Tensor.full(new long[] {2}, Double.POSITIVE_INFINITY, DType.FLOAT32,
            device());
        Tensor r = nan.addmm(m1, m2, 0, 1);
        Tensor r2 = inf.addmm(m1, m2, 0.0, 0.5);
        Tensor r3 = nan.addmm(m1, m2, 1e-30, 1)) {
      assertValues(r, 58, 64, 139, 154);
      assertValues(r2, 29, 32, 69.5f, 77);
      for (float f : r3.toFloatArray()) {
        assertTrue(Float.isNaN(f)); // any beta other than 0 uses the input
      }
    }
  }

  @Test
  public void addmmErrors() {
    try (Tensor m1 = make(DType.FLOAT32, A23, 2, 3);
        Tensor m2 = make(DType.FLOAT32, B32, 3, 2);
        Tensor in64 = Tensor.zeros(new long[] {2, 2}, DType.FLOAT64, device());
        Tensor in3 = Tensor.zeros(new long[] {1, 2, 2}, DType.FLOAT32, device());
        Tensor in32 = Tensor.zeros(new long[] {3, 2}, DType.FLOAT32, device())) {
      CtorchException e = assertStatus(CtorchException.DTYPE, () -> in64.addmm(m1, m2));
      assertEquals("self and mat2 must have the same dtype, but got double and float", e.detail());
      assertStatus(CtorchException.SHAPE, () -> in3.addmm(m1, m2)); // at most 2-D
      assertStatus(CtorchException.SHAPE, () -> in32.addmm(m1, m2)); // (3, 2) vs (2, 2)
      e = assertStatus(CtorchException.SHAPE, () -> in32.addmm(m1, m1));
      assertEquals("mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)", e.detail());
    }
  }

  // ---- reduced precision and complex ---------------------------------------------------

  @Test
  public void float16AndBfloat16WithinTolerance() {
    int n = 8;
    int k = 16;
    int m = 6;
    // multiples of 1/16 in [-1, 1]: held exactly by float16 and bfloat16
    double[] x = new double[n * k];
    double[] y = new double[k * m];
    for (int i = 0; i < x.length; i++) {
      x[i] = ((i * 7) % 33 - 16) / 16.0;
    }
    for (int i = 0; i < y.length; i++) {
      y[i] = ((i * 5) % 31 - 15) / 16.0;
    }
    double[] want = ref(x, y, n, k, m);
    double[] scale = absRef(x, y, n, k, m);
    for (DType dt : new DType[] {DType.FLOAT16, DType.BFLOAT16}) {
      // unit roundoff of the result's dtype; k + 1 roundings bound even a reduced-precision
      // accumulation (CUDA with the reduced-precision switches on)
      double u = dt == DType.FLOAT16 ? Math.scalb(1.0, -11) : Math.scalb(1.0, -8);
      try (Tensor a = make(dt, x, n, k);
          Tensor b = make(dt, y, k, m);
          Tensor c = a.mm(b);
          Tensor mm = a.matmul(b)) {
        assertArrayEquals("inputs held exactly", x, a.toDoubleArray(), 0);
        assertSame(dt, c.dtype());
        assertShape(c, n, m);
        double[] got = c.toDoubleArray();
        for (int i = 0; i < got.length; i++) {
          double tol = (k + 1) * u * scale[i];
          assertEquals(dt + " entry " + i, want[i], got[i], tol);
        }
        assertArrayEquals(got, mm.toDoubleArray(), 0);
      }
    }
    // one case by hand: 1.5 * 2.5 + 0.25 * -4 = 2.75, exact in both
    for (DType dt : new DType[] {DType.FLOAT16, DType.BFLOAT16}) {
      try (Tensor v = make(dt, new double[] {1.5, 0.25}, 2);
          Tensor w = make(dt, new double[] {2.5, -4}, 2);
          Tensor d = v.dot(w)) {
        assertSame(dt, d.dtype());
        assertEquals(2.75, d.item(), 0);
      }
    }
  }

  @Test
  public void complex64ByHand() {
    // A = [[1+2i, i], [2, 1-i]], B = [[3-i, 1], [i, 2]]:
    // (1+2i)(3-i) + i*i = 5+5i - 1 = 4+5i;   (1+2i)*1 + i*2 = 1+4i
    // 2(3-i) + (1-i)i = 6-2i + i+1 = 7-i;    2*1 + (1-i)*2 = 4-2i
    try (Tensor a = complex64(new float[] {1, 2, 0, 1, 2, 0, 1, -1}, 2, 2);
        Tensor b = complex64(new float[] {3, -1, 1, 0, 0, 1, 2, 0}, 2, 2);
        Tensor c = a.mm(b);
        Tensor m = Tensor.matmul(a, b)) {
      assertSame(DType.COMPLEX64, c.dtype());
      assertShape(c, 2, 2);
      float[] want = {4, 5, 1, 4, 7, -1, 4, -2};
      assertArrayEquals(want, reIm(c), 1e-6f);
      assertArrayEquals(want, reIm(m), 1e-6f);
    }
    // dot does not conjugate (torch.dot, not vdot): [1+2i, 3] . [3-i, i] = 5+5i + 3i = 5+8i
    try (Tensor v = complex64(new float[] {1, 2, 3, 0}, 2);
        Tensor w = complex64(new float[] {3, -1, 0, 1}, 2);
        Tensor d = v.dot(w)) {
      assertSame(DType.COMPLEX64, d.dtype());
      assertEquals(0, d.dim());
      assertEquals(new Complex(5, 8), d.itemComplex());
    }
  }

  // ---- errors --------------------------------------------------------------------------

  @Test
  public void pytorchErrors() {
    try (Tensor a = Tensor.ones(new long[] {4, 3}, DType.FLOAT32, device());
        Tensor d = Tensor.ones(new long[] {4, 3}, DType.FLOAT64, device());
        Tensor f = Tensor.ones(new long[] {3, 2}, DType.FLOAT32, device());
        Tensor i = Tensor.ones(new long[] {2, 2}, DType.INT32, device());
        Tensor l = Tensor.ones(new long[] {3}, DType.INT64, device());
        Tensor v = Tensor.ones(new long[] {3}, DType.FLOAT32, device())) {
      CtorchException e = assertStatus(CtorchException.SHAPE, () -> a.mm(a));
      assertEquals("mat1 and mat2 shapes cannot be multiplied (4x3 and 4x3)", e.detail());
      assertEquals("CT_ERR_SHAPE", e.statusName());
      e = assertStatus(CtorchException.SHAPE, () -> Tensor.matmul(a, a)); // matmul: the same
      assertEquals("mat1 and mat2 shapes cannot be multiplied (4x3 and 4x3)", e.detail());
      e = assertStatus(CtorchException.DTYPE, () -> d.mm(f));
      assertEquals("expected m1 and m2 to have the same dtype, but got: double != float",
          e.detail());
      assertEquals("CT_ERR_DTYPE", e.statusName());
      e = assertStatus(CtorchException.DTYPE, () -> i.mm(i));
      assertTrue(e.detail(), e.detail().startsWith("\"mm\" not implemented for 'Int'"));
      e = assertStatus(CtorchException.DTYPE, () -> i.matmul(i));
      assertTrue(e.detail(), e.detail().contains("not implemented for 'Int'"));
      e = assertStatus(CtorchException.DTYPE, () -> l.dot(l));
      assertTrue(e.detail(), e.detail().contains("not implemented for 'Long'"));
      e = assertStatus(CtorchException.SHAPE, () -> v.mm(f));
      assertEquals("self must be a matrix", e.detail());
      e = assertStatus(CtorchException.SHAPE, () -> f.mm(v));
      assertEquals("mat2 must be a matrix", e.detail());
    }
  }

  @Test
  public void closedAndNullOperands() {
    Tensor closed = Tensor.ones(2, 2);
    closed.close();
    try (Tensor a = Tensor.ones(2, 2); Tensor v = Tensor.ones(2)) {
      assertStatus(CtorchException.INVALID_HANDLE, () -> a.mm(closed));
      assertStatus(CtorchException.INVALID_HANDLE, () -> closed.matmul(a));
      assertStatus(CtorchException.INVALID_HANDLE, () -> Tensor.bmm(closed, a));
      assertStatus(CtorchException.INVALID_HANDLE, () -> v.dot(closed));
      assertStatus(CtorchException.INVALID_HANDLE, () -> a.mv(closed));
      assertStatus(CtorchException.INVALID_HANDLE, () -> closed.addmm(a, a));
      assertStatus(CtorchException.INVALID_HANDLE, () -> a.addmm(a, closed, 1, 1));
      assertThrows(NullPointerException.class, () -> a.mm(null));
      assertThrows(NullPointerException.class, () -> Tensor.matmul(null, a));
      assertThrows(NullPointerException.class, () -> Tensor.mv(a, null));
      assertThrows(NullPointerException.class, () -> a.addmm(null, a));
      assertThrows(NullPointerException.class, () -> Tensor.addmm(null, a, a));
      assertThrows(NullPointerException.class, () -> Tensor.addmm(a, a, null, 1, 1));
    }
  }

  // ---- torch.backends.cuda.matmul switches ---------------------------------------------

  @Test
  public void switchDefaultsAndRoundTrips() {
    // nobody changed them in this JVM (one JVM per suite; the other tests restore them)
    assertFalse(Cuda.getAllowTf32());
    assertTrue(Cuda.getAllowFp16ReducedPrecisionReduction());
    assertTrue(Cuda.getAllowBf16ReducedPrecisionReduction());
    try {
      Cuda.setAllowTf32(true);
      assertTrue(Cuda.getAllowTf32());
      Cuda.setAllowTf32(false);
      assertFalse(Cuda.getAllowTf32());
      Cuda.setAllowTf32(true);
      Cuda.setAllowFp16ReducedPrecisionReduction(false);
      assertFalse(Cuda.getAllowFp16ReducedPrecisionReduction());
      assertTrue(Cuda.getAllowBf16ReducedPrecisionReduction()); // independent
      assertTrue(Cuda.getAllowTf32());
      Cuda.setAllowBf16ReducedPrecisionReduction(false);
      assertFalse(Cuda.getAllowBf16ReducedPrecisionReduction());
      Cuda.setAllowFp16ReducedPrecisionReduction(true);
      assertTrue(Cuda.getAllowFp16ReducedPrecisionReduction());
      assertFalse(Cuda.getAllowBf16ReducedPrecisionReduction());
    } finally {
      Cuda.setAllowTf32(false);
      Cuda.setAllowFp16ReducedPrecisionReduction(true);
      Cuda.setAllowBf16ReducedPrecisionReduction(true);
    }
    assertFalse(Cuda.getAllowTf32());
    assertTrue(Cuda.getAllowFp16ReducedPrecisionReduction());
    assertTrue(Cuda.getAllowBf16ReducedPrecisionReduction());
  }

  @Test
  public void switchesAreProcessWide() throws Exception {
    try {
      Thread t = new Thread(() -> Cuda.setAllowTf32(true));
      t.start();
      t.join();
      assertTrue(Cuda.getAllowTf32()); // set on another thread, seen here
    } finally {
      Cuda.setAllowTf32(false);
    }
  }

  @Test
  public void tf32LeavesCpuProductsInFullFloat32() {
    // 1 + 2^-20 needs 21 mantissa bits: TF32 (10 bits) would round it to 1
    float x = 1f + Math.scalb(1f, -20);
    try (Tensor a = Tensor.fromArray(new float[] {x, 0, 0, x}, 2, 2);
        Tensor b = Tensor.fromArray(new float[] {1, 0, 0, 1}, 2, 2)) {
      Cuda.setAllowTf32(true);
      try (Tensor c = a.mm(b)) {
        assertArrayEquals(new float[] {x, 0, 0, x}, c.toFloatArray(), 0f);
      } finally {
        Cuda.setAllowTf32(false);
      }
    }
  }

  // ---- without a GPU -------------------------------------------------------------------

  @Test
  public void currentBlasHandleWithoutCuda() {
    assumeNoCuda();
    CtorchException e = assertStatus(CtorchException.CUDA_UNAVAILABLE, Cuda::currentBlasHandle);
    assertTrue(e.detail(), e.detail().startsWith("CUDA is not available"));
  }

  // ---- GPU -----------------------------------------------------------------------------

  @Test
  public void gpuMmEqualsCpu() {
    assumeCuda();
    int n = 64;
    int k = 33;
    int m = 17;
    try (Tensor a = make(DType.FLOAT32, Device.CPU, vals(n * k, 1), n, k);
        Tensor b = make(DType.FLOAT32, Device.CPU, vals(k * m, 2), k, m);
        Tensor cpu = a.mm(b);
        Tensor ga = a.to(Device.CUDA);
        Tensor gb = b.to(Device.CUDA);
        Tensor gpu = ga.mm(gb);
        Tensor gm = Tensor.matmul(ga, gb)) {
      assertTrue(gpu.isCuda());
      assertSame(DType.FLOAT32, gpu.dtype());
      assertArrayEquals(cpu.toFloatArray(), gpu.toFloatArray(), 1e-5f);
      assertArrayEquals(cpu.toFloatArray(), gm.toFloatArray(), 1e-5f);
    }
    try (Tensor a = make(DType.FLOAT64, Device.CPU, A23, 2, 3);
        Tensor b = make(DType.FLOAT64, Device.CPU, B32, 3, 2);
        Tensor ga = a.to(Device.CUDA);
        Tensor gb = b.to(Device.CUDA);
        Tensor gpu = ga.mm(gb)) {
      assertArrayEquals(AB, gpu.toDoubleArray(), 0);
    }
  }

  @Test
  public void gpuCurrentBlasHandleIsNonzeroAndStable() {
    assumeCuda();
    long h = Cuda.currentBlasHandle();
    assertNotEquals(0L, h);
    assertEquals(h, Cuda.currentBlasHandle());
    try (Stream side = Stream.create(); Cuda.StreamGuard g = Cuda.stream(side)) {
      assertEquals(h, Cuda.currentBlasHandle()); // one handle per thread and device
    }
    assertEquals(h, Cuda.currentBlasHandle());
  }

  @Test
  public void gpuTf32ChangesFloat32Products() {
    assumeCuda();
    try (Tensor a = make(DType.FLOAT32, Device.CUDA, vals(64 * 1024, 21), 64, 1024);
        Tensor b = make(DType.FLOAT32, Device.CUDA, vals(1024 * 64, 22), 1024, 64);
        Tensor full = a.mm(b)) {
      float[] f = full.toFloatArray();
      float[] t;
      Cuda.setAllowTf32(true);
      try (Tensor tf = a.mm(b)) {
        t = tf.toFloatArray();
      } finally {
        Cuda.setAllowTf32(false);
      }
      int differ = 0;
      for (int i = 0; i < f.length; i++) {
        differ += f[i] != t[i] ? 1 : 0;
        assertEquals(f[i], t[i], 0.32f); // within TF32's ~2^-10 per term
      }
      assertTrue("TF32 was used", differ > 0);
    }
  }

  @Test
  public void gpuOperandsOnTwoDevices() {
    assumeCuda();
    try (Tensor cpu = Tensor.ones(2, 2);
        Tensor gpu = Tensor.ones(new long[] {2, 2}, DType.FLOAT32, Device.CUDA)) {
      CtorchException e = assertStatus(CtorchException.DEVICE, () -> gpu.mm(cpu));
      assertTrue(e.detail(), e.detail().startsWith(
          "Expected all tensors to be on the same device"));
      assertStatus(CtorchException.DEVICE, () -> cpu.matmul(gpu));
      assertStatus(CtorchException.DEVICE, () -> cpu.addmm(gpu, gpu));
    }
  }
}
