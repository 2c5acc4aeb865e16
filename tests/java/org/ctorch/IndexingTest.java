package org.ctorch;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;

import org.junit.Test;

/**
 * What the binding adds to indexing (section 30 of ctorch.h): every method reaches its C
 * function with its operands in order and dim, value and alpha in their places, the in-place
 * forms return this, where(condition) owns one tensor a dim, errors and closed or null operands
 * map to exceptions. Values over dtypes and layouts, PyTorch's messages and the CUDA device
 * assertion are the C suite's (tests/capi/indexing_test.c).
 */
public class IndexingTest extends CtorchTestCase {

  /** [[0, 1, 2], [3, 4, 5]] as float64 on the test device. */
  private static Tensor x() {
    return moved(Tensor.fromArray(new double[] {0, 1, 2, 3, 4, 5}, 2, 3), device());
  }

  private static Tensor longs(long[] v, long... shape) {
    return moved(Tensor.fromArray(v, shape), device());
  }

  private static Tensor bools(boolean... v) {
    return moved(Tensor.fromArray(v), device());
  }

  @Test
  public void everyMethodByHand() {
    try (TensorScope scope = TensorScope.open()) {
      Tensor x = x();
      assertArrayEquals(new double[] {2, 0, 5, 3}, x.indexSelect(1, longs(new long[] {2, 0}, 2)).toDoubleArray(), 0);
      Tensor i32 = moved(Tensor.fromArray(new int[] {1}), device());
      assertArrayEquals(new double[] {1, 4}, x.indexSelect(1, i32).toDoubleArray(), 0);
      Tensor g = longs(new long[] {1, 1, 0, 2}, 2, 2);
      assertArrayEquals(new double[] {1, 1, 3, 5}, x.gather(1, g).toDoubleArray(), 0);
      assertArrayEquals(new double[] {5, 0}, x.take(longs(new long[] {-1, 0}, 2)).toDoubleArray(), 0);
      Tensor src = moved(Tensor.fromArray(new double[] {10, 20, 30, 40}, 2, 2), device());
      Tensor g2 = longs(new long[] {1, 0, 0, 2}, 2, 2);
      assertArrayEquals(new double[] {20, 10, 2, 30, 4, 40}, x.scatter(1, g2, src).toDoubleArray(), 0);
      assertArrayEquals(new double[] {0, -1, 2, -1, 4, -1}, x.scatter(1, g, -1.0).toDoubleArray(), 0);
      assertArrayEquals(new double[] {0, 31, 2, 33, 4, 45}, x.scatterAdd(1, g, src).toDoubleArray(), 0);
      assertArrayEquals(new double[] {0, 1, 2, 3, 4, 5}, x.toDoubleArray(), 0);
      Tensor y = moved(Tensor.fromArray(new double[6], 3, 2), device());
      assertSame(y, y.indexAdd_(0, longs(new long[] {2, 0}, 2), src, 0.5));
      assertArrayEquals(new double[] {15, 20, 0, 0, 5, 10}, y.toDoubleArray(), 0);
      assertSame(y, y.indexAdd_(0, longs(new long[] {1}, 1), src.narrow(0, 0, 1)));
      assertArrayEquals(new double[] {15, 20, 10, 20, 5, 10}, y.toDoubleArray(), 0);
      Tensor m = bools(true, false, true);
      assertArrayEquals(new double[] {9, 1, 9, 9, 4, 9}, x.maskedFill(m, 9).toDoubleArray(), 0);
      assertArrayEquals(new double[] {0, 2, 3, 5}, x.maskedSelect(m).toDoubleArray(), 0);
      Tensor z = x.maskedFill(m, 0);
      assertSame(z, z.maskedFill_(bools(false, true, false), 7));
      assertArrayEquals(new double[] {0, 7, 0, 0, 7, 0}, z.toDoubleArray(), 0);
      Tensor nz = z.nonzero();
      assertShape(nz, 2, 2);
      assertLongs(nz, 0, 1, 1, 1);
      Tensor[] cols = Tensor.where(z);
      assertEquals(2, cols.length);
      assertLongs(cols[0], 0, 1);
      assertLongs(cols[1], 1, 1);
      Tensor[] one = Tensor.where(Tensor.full(new long[0], 3.0));
      assertEquals(1, one.length);
      assertLongs(one[0], 0);
      // advanced indexing: x[:, [2, 0]], x[[1, 0], [0, 2]]; w[mask] = -1, then += with repeats
      assertArrayEquals(new double[] {2, 0, 5, 3}, x.index(null, longs(new long[] {2, 0}, 2)).toDoubleArray(), 0);
      assertArrayEquals(new double[] {3, 2},
          x.index(longs(new long[] {1, 0}, 2), longs(new long[] {0, 2}, 2)).toDoubleArray(), 0);
      Tensor w = x.clone();
      assertSame(w, w.indexPut_(new Tensor[] {bools(true, false)}, moved(Tensor.full(new long[0], -1.0), device()).to(DType.FLOAT64), false));
      assertArrayEquals(new double[] {-1, -1, -1, 3, 4, 5}, w.toDoubleArray(), 0);
      w.indexPut_(new Tensor[] {null, longs(new long[] {1, 1}, 2)}, moved(Tensor.full(new long[0], 2.0), device()).to(DType.FLOAT64), true);
      assertArrayEquals(new double[] {-1, 3, -1, 3, 8, 5}, w.toDoubleArray(), 0);
    }
  }

  @Test
  public void errorsAndOperandsAreChecked() {
    try (TensorScope scope = TensorScope.open()) {
      Tensor x = Tensor.fromArray(new double[] {0, 1, 2});
      Tensor f = Tensor.fromArray(new float[] {0});
      CtorchException e = assertStatus(CtorchException.DTYPE, () -> x.indexSelect(0, f));
      assertEquals("index_select(): Expected dtype int32 or int64 for index", e.detail());
      e = assertStatus(CtorchException.INDEX, () -> x.take(Tensor.fromArray(new long[] {3})));
      assertEquals("out of range: tried to access index 3 on a tensor of 3 elements.", e.detail());
      e = assertStatus(CtorchException.INDEX, () -> x.gather(0, Tensor.fromArray(new long[] {3})));
      assertEquals("index 3 is out of bounds for dimension 0 with size 3", e.detail());
      assertStatus(CtorchException.DTYPE, () -> x.maskedFill(f, 1));
      assertStatus(CtorchException.DTYPE, () -> x.maskedSelect(f));
      assertStatus(CtorchException.INDEX, () -> x.indexAdd_(0, Tensor.fromArray(new long[] {5}), Tensor.fromArray(new double[] {1})));
      Tensor i = Tensor.fromArray(new long[] {0});
      assertEquals("index", assertThrows(NullPointerException.class, () -> x.indexSelect(0, null)).getMessage());
      assertEquals("index", assertThrows(NullPointerException.class, () -> x.gather(0, null)).getMessage());
      assertEquals("index", assertThrows(NullPointerException.class, () -> x.take(null)).getMessage());
      assertEquals("src", assertThrows(NullPointerException.class, () -> x.scatter(0, i, (Tensor) null)).getMessage());
      assertEquals("index", assertThrows(NullPointerException.class, () -> x.scatter(0, null, 1.0)).getMessage());
      assertEquals("src", assertThrows(NullPointerException.class, () -> x.scatterAdd(0, i, null)).getMessage());
      assertEquals("source", assertThrows(NullPointerException.class, () -> x.indexAdd_(0, i, null)).getMessage());
      assertEquals("mask", assertThrows(NullPointerException.class, () -> x.maskedFill(null, 1)).getMessage());
      assertEquals("mask", assertThrows(NullPointerException.class, () -> x.maskedFill_(null, 1)).getMessage());
      assertEquals("mask", assertThrows(NullPointerException.class, () -> x.maskedSelect(null)).getMessage());
      assertEquals("condition", assertThrows(NullPointerException.class, () -> Tensor.where(null)).getMessage());
      assertEquals("indices", assertThrows(NullPointerException.class, () -> x.index((Tensor[]) null)).getMessage());
      assertEquals("values", assertThrows(NullPointerException.class, () -> x.indexPut_(new Tensor[] {i}, null, false)).getMessage());
      e = assertStatus(CtorchException.INDEX, () -> x.index(Tensor.fromArray(new long[] {5})));
      assertEquals("index 5 is out of bounds for dimension 0 with size 3", e.detail());
      Tensor closed = Tensor.fromArray(new long[] {0});
      closed.close();
      assertStatus(CtorchException.INVALID_HANDLE, () -> x.take(closed));
      assertStatus(CtorchException.INVALID_HANDLE, () -> closed.nonzero());
      assertStatus(CtorchException.INVALID_HANDLE, () -> Tensor.where(closed));
      assertStatus(CtorchException.INVALID_HANDLE, () -> x.index(closed));
      assertStatus(CtorchException.INVALID_HANDLE, () -> x.indexPut_(new Tensor[] {i}, closed, true));
    }
  }
}
