package org.ctorch;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

import org.junit.Test;

/**
 * What the binding adds to reductions and joining: every overload passes its dims (int and
 * int[], negative, none), keepdim and dtype (null: the default) to the right C function, the
 * two results of max/min(dim) arrive as one {@link ValuesIndices}, and the lists and arrays of
 * cat/stack are marshalled. The reductions' values and dtype rules are the C suite's.
 */
public class ReductionTest extends CtorchTestCase {

  /** [[1, 2, 3], [4, 5, 6]] as float32 on the test device. */
  private static Tensor x() {
    return moved(Tensor.fromArray(new float[] {1, 2, 3, 4, 5, 6}, 2, 3), device());
  }

  private record Case(Function<Tensor, Tensor> op, long[] shape, DType dtype, float... values) {}

  private static Case c(Function<Tensor, Tensor> op, long[] shape, DType dtype, float... v) {
    return new Case(op, shape, dtype, v);
  }

  private static final DType F32 = DType.FLOAT32;
  private static final DType F64 = DType.FLOAT64;
  private static final DType I64 = DType.INT64;
  private static final long[] SCALAR = {};

  @Test
  public void everyOverloadPassesDimsKeepdimAndDType() {
    List<Case> cases = List.of(
        c(t -> t.reduce(ReduceOp.SUM, new int[] {1}, true, F64), shape(2, 1), F64, 6, 15),
        c(t -> t.reduce(ReduceOp.MEAN, null, false, null), SCALAR, F32, 3.5f),
        c(Tensor::sum, SCALAR, F32, 21),
        c(t -> t.sum(F64), SCALAR, F64, 21),
        c(t -> t.sum(0), shape(3), F32, 5, 7, 9),
        c(t -> t.sum(-1, true), shape(2, 1), F32, 6, 15),
        c(t -> t.sum(new int[] {0, 1}, true), shape(1, 1), F32, 21),
        c(t -> t.sum(new int[0], false), SCALAR, F32, 21),
        c(t -> t.sum(new int[] {0}, false, F64), shape(3), F64, 5, 7, 9),
        c(Tensor::mean, SCALAR, F32, 3.5f),
        c(t -> t.mean(F64), SCALAR, F64, 3.5f),
        c(t -> t.mean(1), shape(2), F32, 2, 5),
        c(t -> t.mean(0, true), shape(1, 3), F32, 2.5f, 3.5f, 4.5f),
        c(t -> t.mean(new int[] {1}, false), shape(2), F32, 2, 5),
        c(t -> t.mean(new int[] {-2}, true, F64), shape(1, 3), F64, 2.5f, 3.5f, 4.5f),
        c(Tensor::prod, SCALAR, F32, 720),
        c(t -> t.prod(F64), SCALAR, F64, 720),
        c(t -> t.prod(0), shape(3), F32, 4, 10, 18),
        c(t -> t.prod(1, true), shape(2, 1), F32, 6, 120),
        c(t -> t.prod(new int[] {1}, false, null), shape(2), F32, 6, 120),
        c(Tensor::amax, SCALAR, F32, 6),
        c(t -> t.amax(0), shape(3), F32, 4, 5, 6),
        c(t -> t.amax(new int[] {1}, true), shape(2, 1), F32, 3, 6),
        c(Tensor::amin, SCALAR, F32, 1),
        c(t -> t.amin(1), shape(2), F32, 1, 4),
        c(t -> t.amin(new int[] {0}, true), shape(1, 3), F32, 1, 2, 3),
        c(Tensor::max, SCALAR, F32, 6),
        c(Tensor::min, SCALAR, F32, 1),
        c(Tensor::argmax, SCALAR, I64, 5),
        c(t -> t.argmax(0, true), shape(1, 3), I64, 1, 1, 1),
        c(Tensor::argmin, SCALAR, I64, 0),
        c(t -> t.argmin(-1, false), shape(2), I64, 0, 0),
        c(Tensor::norm, SCALAR, F32, (float) Math.sqrt(91)),
        c(t -> t.norm(1), SCALAR, F32, 21),
        c(t -> t.norm(Double.POSITIVE_INFINITY, new int[] {1}, true), shape(2, 1), F32, 3, 6));
    try (TensorScope scope = TensorScope.open()) {
      Tensor x = x();
      for (int i = 0; i < cases.size(); i++) {
        Case k = cases.get(i);
        Tensor r = k.op.apply(x);
        assertArrayEquals("shape of case " + i, k.shape, r.shape());
        assertSame("dtype of case " + i, k.dtype, r.dtype());
        assertArrayEquals("values of case " + i, k.values, r.toFloatArray(), 1e-5f);
      }
    }
  }

  @Test
  public void maxMinWithIndices() {
    try (Tensor t = Tensor.fromArray(new float[] {3, 7, 7, 1, 0, 1}, 2, 3);
        ValuesIndices byRow = t.max(1, true);
        ValuesIndices byRowFlat = t.max(1);
        ValuesIndices byCol = t.min(0);
        ValuesIndices minK = t.min(1, true)) {
      assertShape(byRow.values(), 2, 1);
      assertValues(byRow.values(), 7, 1);
      assertSame(DType.INT64, byRow.indices().dtype());
      assertLongs(byRow.indices(), 1, 0);
      assertShape(byRowFlat.indices(), 2);
      assertValues(byCol.values(), 1, 0, 1);
      assertLongs(byCol.indices(), 1, 1, 1);
      assertLongs(minK.indices(), 0, 1);
    }
    Tensor v;
    Tensor i;
    try (Tensor t = Tensor.ones(2, 2); ValuesIndices r = t.max(0, false)) {
      v = r.values();
      i = r.indices();
    }
    assertTrue("closing a ValuesIndices closes both", v.isClosed() && i.isClosed());
  }

  @Test
  public void errorsAreMapped() {
    try (Tensor l = Tensor.fromArray(new long[] {1, 2, 3}); Tensor x = x();
        Tensor empty = Tensor.zeros(0)) {
      assertStatus(CtorchException.DTYPE, l::mean);
      assertStatus(CtorchException.INDEX, () -> x.sum(2));
      assertStatus(CtorchException.INDEX, () -> x.max(2, false));
      assertStatus(CtorchException.ARGUMENT, () -> x.sum(new int[] {0, 0}, false));
      assertStatus(CtorchException.SHAPE, empty::max);
    }
  }

  @Test
  public void catAndStack() {
    try (TensorScope scope = TensorScope.open()) {
      Tensor a = Tensor.fromArray(new float[] {1, 2});
      Tensor b = Tensor.fromArray(new float[] {3});
      Tensor m1 = Tensor.fromArray(new float[] {1, 2, 3, 4}, 2, 2);
      Tensor m2 = Tensor.fromArray(new float[] {5, 6}, 2, 1);
      Tensor ints = Tensor.fromArray(new int[] {7, 8});
      Tensor c = Tensor.cat(a, b);
      assertValues(c, 1, 2, 3);
      assertFalse(c.sharesStorage(a));
      assertValues(Tensor.cat(List.of(m1, m2), 1), 1, 2, 5, 3, 4, 6);
      assertValues(Tensor.cat(new Tensor[] {ints, a}, 0), 7, 8, 1, 2);
      assertValues(Tensor.stack(a, a), 1, 2, 1, 2);
      assertValues(Tensor.stack(List.of(a, ints), 1), 1, 7, 2, 8);
      assertValues(Tensor.stack(new Tensor[] {a, a, a}, -1), 1, 1, 1, 2, 2, 2);
      Tensor onDev = a.to(device());
      assertEquals(device().type(), Tensor.cat(List.of(onDev, onDev), 0).device().type());
      assertStatus(CtorchException.SHAPE, () -> Tensor.cat(List.of(m1, m2), 0));
      assertStatus(CtorchException.INDEX, () -> Tensor.stack(List.of(a, a), 3));
      assertThrows(CtorchException.class, () -> Tensor.cat(List.of(), 0));
      assertThrows(NullPointerException.class, () -> Tensor.cat(Arrays.asList(a, null), 0));
      Tensor closed = Tensor.zeros(1);
      closed.close();
      assertStatus(CtorchException.INVALID_HANDLE, () -> Tensor.stack(a, closed));
    }
  }
}
