package org.ctorch;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.Arrays;
import java.util.List;

import org.junit.Test;

/** Reductions (with dims, keepdim, dtype), max/min with indices, argmax/argmin, norm, cat/stack. */
public class ReductionTest extends CtorchTestCase {

  /** [[0, 1, 2], [3, 4, 5]] as float32 on the test device. */
  private static Tensor x() {
    try (Tensor a = Tensor.fromArray(new float[] {0, 1, 2, 3, 4, 5}, 2, 3)) {
      return a.to(device());
    }
  }

  @Test
  public void sumWithDimsAndKeepdim() {
    try (Tensor x = x();
        Tensor all = x.sum();
        Tensor d0 = x.sum(0);
        Tensor d1k = x.sum(1, true);
        Tensor both = x.sum(new int[] {0, 1}, true);
        Tensor neg = x.sum(-1, false);
        Tensor f64 = x.sum(DType.FLOAT64);
        Tensor d0f64 = x.sum(new int[] {0}, false, DType.FLOAT64);
        Tensor none = x.sum(new int[0], false)) {
      assertEquals(0, all.dim());
      assertSame(DType.FLOAT32, all.dtype());
      assertEquals(15.0, all.item(), 0);
      assertShape(d0, 3);
      assertValues(d0, 3, 5, 7);
      assertShape(d1k, 2, 1);
      assertValues(d1k, 3, 12);
      assertShape(both, 1, 1);
      assertValues(both, 15);
      assertShape(neg, 2);
      assertValues(neg, 3, 12);
      assertSame(DType.FLOAT64, f64.dtype());
      assertEquals(15.0, f64.item(), 0);
      assertSame(DType.FLOAT64, d0f64.dtype());
      assertArrayEquals(new double[] {3, 5, 7}, d0f64.toDoubleArray(), 0);
      assertEquals(0, none.dim()); // no dims: all of them
      assertEquals(15.0, none.item(), 0);
    }
  }

  @Test
  public void sumAndProdOfIntegersAndBoolsAreInt64() {
    try (Tensor i = Tensor.fromArray(new int[] {1, 2, 3, 4}, 2, 2);
        Tensor s = i.sum();
        Tensor s1 = i.sum(1);
        Tensor p = i.prod();
        Tensor b = Tensor.fromArray(new boolean[] {true, false, true});
        Tensor bs = b.sum();
        Tensor bp = b.prod();
        Tensor u = Tensor.fromBytes(new byte[] {(byte) 200, (byte) 100}, DType.UINT8);
        Tensor us = u.sum();
        Tensor i32 = i.sum(new int[] {0}, false, DType.INT32)) {
      assertSame(DType.INT64, s.dtype());
      assertEquals(10, s.itemLong());
      assertSame(DType.INT64, s1.dtype());
      assertLongs(s1, 3, 7);
      assertSame(DType.INT64, p.dtype());
      assertEquals(24, p.itemLong());
      assertSame(DType.INT64, bs.dtype());
      assertEquals(2, bs.itemLong());
      assertSame(DType.INT64, bp.dtype());
      assertEquals(0, bp.itemLong());
      assertEquals(300, us.itemLong()); // no uint8 overflow: accumulates in int64
      assertSame(DType.INT32, i32.dtype());
      assertLongs(i32, 4, 6);
    }
  }

  @Test
  public void meanProdAmaxAmin() {
    try (Tensor x = x();
        Tensor mean = x.mean();
        Tensor m1 = x.mean(1);
        Tensor m0k = x.mean(0, true);
        Tensor mAll = x.mean(new int[] {0, 1}, false);
        Tensor m64 = x.mean(new int[] {1}, true, DType.FLOAT64);
        Tensor mean64 = x.mean(DType.FLOAT64);
        Tensor one = x.add(1);
        Tensor prod = one.prod();
        Tensor prod0 = one.prod(0);
        Tensor prod1k = one.prod(1, true);
        Tensor prod64 = one.prod(DType.FLOAT64);
        Tensor prodDims = one.prod(new int[] {1}, false, DType.FLOAT64);
        Tensor amax = x.amax();
        Tensor amax1 = x.amax(1);
        Tensor amaxK = x.amax(new int[] {0, 1}, true);
        Tensor amin = x.amin();
        Tensor amin0 = x.amin(0);
        Tensor amin1k = x.amin(new int[] {1}, true);
        Tensor viaOp = x.reduce(ReduceOp.SUM, new int[] {1}, false, null)) {
      assertEquals(2.5, mean.item(), 0);
      assertValues(m1, 1, 4);
      assertShape(m0k, 1, 3);
      assertValues(m0k, 1.5f, 2.5f, 3.5f);
      assertEquals(2.5, mAll.item(), 0);
      assertSame(DType.FLOAT64, m64.dtype());
      assertShape(m64, 2, 1);
      assertArrayEquals(new double[] {1, 4}, m64.toDoubleArray(), 0);
      assertSame(DType.FLOAT64, mean64.dtype());
      assertEquals(720.0, prod.item(), 0);
      assertValues(prod0, 4, 10, 18);
      assertShape(prod1k, 2, 1);
      assertValues(prod1k, 6, 120);
      assertSame(DType.FLOAT64, prod64.dtype());
      assertArrayEquals(new double[] {6, 120}, prodDims.toDoubleArray(), 0);
      assertEquals(5.0, amax.item(), 0);
      assertValues(amax1, 2, 5);
      assertShape(amaxK, 1, 1);
      assertValues(amaxK, 5);
      assertEquals(0.0, amin.item(), 0);
      assertValues(amin0, 0, 1, 2);
      assertShape(amin1k, 2, 1);
      assertValues(amin1k, 0, 3);
      assertValues(viaOp, 3, 12);
    }
  }

  @Test
  public void amaxPropagatesNaN() {
    try (Tensor t = Tensor.fromArray(new float[] {1, Float.NaN, 3}); Tensor m = t.amax()) {
      assertTrue(Double.isNaN(m.item()));
    }
  }

  @Test
  public void maxMinWithIndices() {
    try (Tensor t = Tensor.fromArray(new float[] {3, 7, 7, 1, 0, 1}, 2, 3);
        Tensor mx = t.max();
        Tensor mn = t.min();
        ValuesIndices byRow = t.max(1, true);
        ValuesIndices byCol = t.min(0);
        ValuesIndices byRowFlat = t.max(1);
        ValuesIndices minK = t.min(1, true)) {
      assertEquals(0, mx.dim());
      assertEquals(7.0, mx.item(), 0);
      assertEquals(0.0, mn.item(), 0);
      assertShape(byRow.values(), 2, 1);
      assertValues(byRow.values(), 7, 1);
      assertSame(DType.INT64, byRow.indices().dtype());
      assertLongs(byRow.indices(), 1, 0); // first occurrence
      assertShape(byCol.values(), 3);
      assertValues(byCol.values(), 1, 0, 1);
      assertLongs(byCol.indices(), 1, 1, 1);
      assertShape(byRowFlat.indices(), 2);
      assertLongs(minK.indices(), 0, 1);
      assertValues(minK.values(), 3, 0);
    }
    try (Tensor empty = Tensor.zeros(0)) {
      assertStatus(CtorchException.SHAPE, empty::max);
      assertStatus(CtorchException.SHAPE, empty::min);
    }
  }

  @Test
  public void valuesIndicesClosesBoth() {
    Tensor v;
    Tensor i;
    try (Tensor t = Tensor.ones(2, 2); ValuesIndices r = t.max(0, false)) {
      v = r.values();
      i = r.indices();
    }
    assertTrue(v.isClosed());
    assertTrue(i.isClosed());
  }

  @Test
  public void argmaxArgmin() {
    try (Tensor t = Tensor.fromArray(new float[] {3, 1, 0, 5, 5, -2}, 2, 3);
        Tensor am = t.argmax();
        Tensor an = t.argmin();
        Tensor am1 = t.argmax(1, false);
        Tensor an0k = t.argmin(0, true);
        Tensor am0 = t.argmax(0, false);
        Tensor an1 = t.argmin(-1, false);
        Tensor nan = Tensor.fromArray(new float[] {1, Float.NaN, 9});
        Tensor amNaN = nan.argmax()) {
      assertEquals(0, am.dim());
      assertSame(DType.INT64, am.dtype());
      assertEquals(3, am.itemLong()); // first occurrence of 5 in the flattened tensor
      assertEquals(5, an.itemLong());
      assertLongs(am1, 0, 0);
      assertShape(an0k, 1, 3);
      assertLongs(an0k, 0, 0, 1);
      assertLongs(am0, 1, 1, 0);
      assertLongs(an1, 2, 2);
      assertEquals(1, amNaN.itemLong()); // NaN counts as the maximum
    }
  }

  @Test
  public void norms() {
    try (Tensor v = Tensor.fromArray(new float[] {3, -4});
        Tensor n2 = v.norm();
        Tensor n1 = v.norm(1);
        Tensor nInf = v.norm(Double.POSITIVE_INFINITY);
        Tensor nNegInf = v.norm(Double.NEGATIVE_INFINITY);
        Tensor m = Tensor.fromArray(new float[] {3, 4, 6, 8}, 2, 2);
        Tensor rows = m.norm(2, new int[] {1}, true);
        Tensor all = m.norm(2, null, false)) {
      assertEquals(5.0, n2.item(), 1e-6);
      assertEquals(7.0, n1.item(), 0);
      assertEquals(4.0, nInf.item(), 0);
      assertEquals(3.0, nNegInf.item(), 0);
      assertShape(rows, 2, 1);
      assertClose(rows, 1e-5f, 5, 10);
      assertEquals(Math.sqrt(125), all.item(), 1e-5);
    }
  }

  @Test
  public void reductionErrors() {
    try (Tensor l = Tensor.fromArray(new long[] {1, 2, 3});
        Tensor x = x()) {
      assertStatus(CtorchException.DTYPE, l::mean); // mean of an integer tensor
      assertStatus(CtorchException.DTYPE, l::norm);
      assertStatus(CtorchException.INDEX, () -> x.sum(2));
      assertStatus(CtorchException.INDEX, () -> x.sum(-3));
      assertStatus(CtorchException.INDEX, () -> x.max(2, false));
      assertStatus(CtorchException.INDEX, () -> x.argmax(5, false));
      assertStatus(CtorchException.ARGUMENT, () -> x.sum(new int[] {0, 0}, false));
    }
  }

  @Test
  public void catAndStack() {
    Device dev = device();
    try (Tensor a = Tensor.fromArray(new float[] {1, 2});
        Tensor b = Tensor.fromArray(new float[] {3});
        Tensor c = Tensor.cat(a, b);
        Tensor m1 = Tensor.fromArray(new float[] {1, 2, 3, 4}, 2, 2);
        Tensor m2 = Tensor.fromArray(new float[] {5, 6}, 2, 1);
        Tensor c1 = Tensor.cat(List.of(m1, m2), 1);
        Tensor ints = Tensor.fromArray(new int[] {7, 8});
        Tensor mixed = Tensor.cat(new Tensor[] {ints, a}, 0);
        Tensor empty = Tensor.zeros(0);
        Tensor skip = Tensor.cat(Arrays.asList(empty, m1), 0);
        Tensor s0 = Tensor.stack(a, a);
        Tensor s1 = Tensor.stack(List.of(a, ints), 1);
        Tensor sNeg = Tensor.stack(new Tensor[] {a, a, a}, -1);
        Tensor onDev = a.to(dev);
        Tensor cDev = Tensor.cat(List.of(onDev, onDev), 0)) {
      assertValues(c, 1, 2, 3);
      assertShape(c1, 2, 3);
      assertValues(c1, 1, 2, 5, 3, 4, 6);
      assertSame(DType.FLOAT32, mixed.dtype()); // promoted
      assertValues(mixed, 7, 8, 1, 2);
      assertShape(skip, 2, 2); // (0,) tensors are skipped, as in PyTorch
      assertShape(s0, 2, 2);
      assertValues(s0, 1, 2, 1, 2);
      assertShape(s1, 2, 2);
      assertValues(s1, 1, 7, 2, 8);
      assertShape(sNeg, 2, 3);
      assertValues(sNeg, 1, 1, 1, 2, 2, 2);
      assertEquals(dev.type(), cDev.device().type());
      assertValues(cDev, 1, 2, 1, 2);
      assertFalse(c.sharesStorage(a));

      assertStatus(CtorchException.SHAPE, () -> Tensor.cat(List.of(m1, m2), 0));
      assertStatus(CtorchException.SHAPE, () -> Tensor.stack(a, b));
      assertStatus(CtorchException.INDEX, () -> Tensor.stack(List.of(a, a), 3));
      assertThrows(CtorchException.class, () -> Tensor.cat(List.of(), 0));
      assertThrows(NullPointerException.class, () -> Tensor.cat(Arrays.asList(a, null), 0));
    }
  }
}
