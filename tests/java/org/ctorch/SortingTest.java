package org.ctorch;

import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/**
 * What the binding adds to sorting and selection: each method passes its dim, flags, k, side
 * and sorter (null or given) to its C function, two results arrive as one
 * {@link ValuesIndices}, unique's as a {@link UniqueResult} with null members when not asked for,
 * and closing a result closes its tensors. Values, dtypes and layouts are the C suite's
 * (tests/capi/sort_test.c).
 */
public class SortingTest extends CtorchTestCase {

  /** [[3, 1, 2], [1, 5, 4]] as float32 on the test device. */
  private static Tensor x() {
    return moved(Tensor.fromArray(new float[] {3, 1, 2, 1, 5, 4}, 2, 3), device());
  }

  @Test
  public void sortArgsortTopkKthvalue() {
    try (Tensor x = x(); ValuesIndices s = x.sort(); ValuesIndices d = x.sort(0, true, true);
        Tensor a = x.argsort(1, true, false); ValuesIndices t = x.topk(2);
        ValuesIndices small = x.topk(1, 0, false, false); ValuesIndices k = x.kthvalue(2, 1, true)) {
      assertValues(s.values(), 1, 2, 3, 1, 4, 5);
      assertLongs(s.indices(), 1, 2, 0, 0, 2, 1);
      assertValues(d.values(), 3, 5, 4, 1, 1, 2);
      assertLongs(d.indices(), 0, 1, 1, 1, 0, 0);
      assertLongs(a, 0, 2, 1, 1, 2, 0);
      assertShape(t.values(), 2, 2);
      assertValues(t.values(), 3, 2, 5, 4);
      assertLongs(t.indices(), 0, 2, 1, 2);
      assertValues(small.values(), 1, 1, 2);
      assertShape(k.values(), 2, 1);
      assertValues(k.values(), 2, 4);
      assertLongs(k.indices(), 2, 2);
      assertStatus(CtorchException.INDEX, () -> x.topk(4));
      assertStatus(CtorchException.INDEX, () -> x.kthvalue(0, 1, false));
      assertStatus(CtorchException.INDEX, () -> x.sort(2, false, false));
    }
  }

  @Test
  public void unique() {
    Tensor inv;
    try (Tensor x = x(); UniqueResult u = x.unique(true, true); UniqueResult only = x.unique(false, false);
        Tensor values = x.unique()) {
      assertValues(u.values(), 1, 2, 3, 4, 5);
      assertShape(u.inverse(), 2, 3);
      assertLongs(u.inverse(), 2, 0, 1, 0, 4, 3);
      assertLongs(u.counts(), 2, 1, 1, 1, 1);
      assertNull(only.inverse());
      assertNull(only.counts());
      assertValues(values, 1, 2, 3, 4, 5);
      inv = u.inverse();
    }
    assertTrue("closing a UniqueResult closes its tensors", inv.isClosed());
  }

  @Test
  public void searchsorted() {
    Device dev = device();
    try (Tensor seq = moved(Tensor.fromArray(new float[] {1, 3, 5, 7}), dev);
        Tensor q = moved(Tensor.fromArray(new float[] {3, 6, 0}), dev);
        Tensor useq = moved(Tensor.fromArray(new float[] {7, 1, 5, 3}), dev);
        Tensor sorter = moved(Tensor.fromArray(new long[] {1, 3, 2, 0}), dev);
        Tensor left = seq.searchsorted(q);
        Tensor right = seq.searchsorted(q, true, true, null, null);
        Tensor side = seq.searchsorted(q, false, false, "right", null);
        Tensor sorted = useq.searchsorted(q, false, false, null, sorter)) {
      assertLongs(left, 1, 3, 0);
      assertSame(DType.INT32, right.dtype());
      assertLongs(side, 2, 3, 0);
      assertLongs(sorted, 1, 3, 0);
      assertStatus(CtorchException.ARGUMENT, () -> seq.searchsorted(q, false, true, "left", null));
      assertThrows(NullPointerException.class, () -> seq.searchsorted(null));
      Tensor closed = Tensor.zeros(1);
      closed.close();
      assertStatus(CtorchException.INVALID_HANDLE, () -> seq.searchsorted(q, false, false, null, closed));
    }
  }
}
