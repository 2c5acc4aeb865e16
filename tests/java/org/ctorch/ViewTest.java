package org.ctorch;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/** Views share storage with their base: a write through one is seen through the other. */
public class ViewTest extends CtorchTestCase {

  /** base = torch.arange(12).view(3, 4) on the test device. */
  private static Tensor base() {
    try (Tensor a = Tensor.arange(0, 12, 1, DType.INT64, device())) {
      return a.view(3, 4);
    }
  }

  @Test
  public void viewSharesStorage() {
    try (Tensor b = base(); Tensor flat = b.view(-1); Tensor fifth = flat.select(0, 5)) {
      assertShape(b, 3, 4);
      assertArrayEquals(new long[] {4, 1}, b.stride());
      assertEquals(4, b.stride(0));
      assertEquals(1, b.stride(-1));
      assertEquals(3, b.size(0));
      assertEquals(4, b.size(-1));
      assertShape(flat, 12);
      assertTrue(flat.sharesStorage(b));
      assertFalse(flat.isSame(b));
      fifth.fill_(-5);
      assertLongs(b, 0, 1, 2, 3, 4, -5, 6, 7, 8, 9, 10, 11);
    }
  }

  @Test
  public void selectNarrowSliceWriteThrough() {
    try (Tensor b = base();
        Tensor row1 = b.select(0, 1);
        Tensor lastCol = b.select(1, -1);
        Tensor mid = b.narrow(1, 1, 2);
        Tensor everyOther = b.slice(1, 0, 4, 2);
        Tensor clamped = b.slice(0, 1, 100)) {
      assertShape(row1, 4);
      assertShape(lastCol, 3);
      assertEquals(3, lastCol.storageOffset());
      assertArrayEquals(new long[] {4}, lastCol.stride());
      assertShape(mid, 3, 2);
      assertEquals(1, mid.storageOffset());
      assertFalse(mid.isContiguous());
      assertShape(everyOther, 3, 2);
      assertArrayEquals(new long[] {4, 2}, everyOther.stride());
      assertShape(clamped, 2, 4); // Python slice clamping
      assertLongs(everyOther, 0, 2, 4, 6, 8, 10);

      row1.fill_(100);
      assertLongs(b, 0, 1, 2, 3, 100, 100, 100, 100, 8, 9, 10, 11);
      lastCol.zero_();
      assertLongs(b, 0, 1, 2, 0, 100, 100, 100, 0, 8, 9, 10, 0);
      mid.add_(1000);
      assertLongs(b, 0, 1001, 1002, 0, 100, 1100, 1100, 0, 8, 1009, 1010, 0);
      everyOther.mul_(-1);
      assertLongs(b, 0, 1001, -1002, 0, -100, 1100, -1100, 0, -8, 1009, -1010, 0);
    }
  }

  /**
   * data_ptr: a view's address is its base's plus storage_offset * itemsize bytes (CPU, so the
   * addresses are host memory); a closed tensor is code 102, not a crash.
   */
  @Test
  public void dataPtrOfViews() {
    try (Tensor a = Tensor.arange(0, 12, 1, DType.FLOAT32, Device.CPU);
        Tensor b = a.view(3, 4);
        Tensor row2 = b.select(0, 2); // offset 8
        Tensor mid = b.narrow(1, 1, 2); // offset 1
        Tensor cell = row2.select(0, 3); // offset 11
        Tensor d = Tensor.arange(0, 10, 1, DType.FLOAT64, Device.CPU);
        Tensor dTail = d.narrow(0, 3, 5); // offset 3
        Tensor s = Tensor.arange(0, 10, 1, DType.INT16, Device.CPU);
        Tensor sTail = s.slice(0, 7, 10, 1)) { // offset 7
      long base = a.dataPtr();
      assertNotEquals(0, base);
      assertEquals(base, b.dataPtr()); // a view with offset 0
      assertEquals(8 * 4, row2.dataPtr() - base);
      assertEquals(1 * 4, mid.dataPtr() - base);
      assertEquals(11 * 4, cell.dataPtr() - base);
      assertEquals(3 * 8, dTail.dataPtr() - d.dataPtr());
      assertEquals(7 * 2, sTail.dataPtr() - s.dataPtr());
      // The same address each time; a copy lives elsewhere.
      assertEquals(row2.dataPtr(), row2.dataPtr());
      try (Tensor copy = row2.clone()) {
        assertNotEquals(row2.dataPtr(), copy.dataPtr());
      }
    }
    Tensor closed = Tensor.zeros(4);
    closed.close();
    CtorchException e = assertStatus(CtorchException.INVALID_HANDLE, closed::dataPtr);
    assertEquals("CT_ERR_INVALID_HANDLE", e.statusName());
  }

  @Test
  public void transposePermuteWriteThrough() {
    try (Tensor b = base();
        Tensor t = b.transpose(0, 1);
        Tensor p = b.permute(1, 0);
        Tensor col0 = t.select(0, 0)) {
      assertShape(t, 4, 3);
      assertArrayEquals(new long[] {1, 4}, t.stride());
      assertFalse(t.isContiguous());
      assertTrue(t.sharesStorage(b));
      assertShape(p, 4, 3);
      assertArrayEquals(new long[] {1, 4}, p.stride());
      assertLongs(t, 0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11);
      col0.fill_(-1); // column 0 of b
      assertLongs(b, -1, 1, 2, 3, -1, 5, 6, 7, -1, 9, 10, 11);
    }
    try (Tensor x = Tensor.zeros(2, 3, 4); Tensor y = x.permute(2, 0, 1)) {
      assertShape(y, 4, 2, 3);
      assertArrayEquals(new long[] {1, 12, 4}, y.stride());
    }
  }

  @Test
  public void expandSqueezeUnsqueezeFlatten() {
    try (Tensor col = Tensor.fromArray(new float[] {1, 2, 3}, 3, 1);
        Tensor ex = col.expand(3, 4);
        Tensor ex2 = col.expand(2, -1, 2);
        Tensor u0 = col.unsqueeze(0);
        Tensor uLast = col.unsqueeze(-1);
        Tensor sq = u0.squeeze();
        Tensor sq0 = u0.squeeze(0);
        Tensor sqNoop = col.squeeze(0);
        Tensor fl = u0.flatten();
        Tensor fl12 = uLast.flatten(1, 2)) {
      assertShape(ex, 3, 4);
      assertArrayEquals(new long[] {1, 0}, ex.stride());
      assertValues(ex, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
      assertShape(ex2, 2, 3, 2);
      assertShape(u0, 1, 3, 1);
      assertShape(uLast, 3, 1, 1);
      assertShape(sq, 3);
      assertShape(sq0, 3, 1);
      assertShape(sqNoop, 3, 1); // size 3 is not squeezed
      assertShape(fl, 3);
      assertShape(fl12, 3, 1);
      for (Tensor v : new Tensor[] {ex, ex2, u0, uLast, sq, sq0, sqNoop, fl, fl12}) {
        assertTrue(v.sharesStorage(col));
      }
      sq.mul_(10);
      assertValues(col, 10, 20, 30);
      assertValues(ex, 10, 10, 10, 10, 20, 20, 20, 20, 30, 30, 30, 30);
      assertStatus(CtorchException.SHAPE, () -> col.expand(3, 4, 5).close());
      assertStatus(CtorchException.SHAPE, () -> col.expand(4, 1).close());
    }
  }

  @Test
  public void contiguousReshapeAndViewOfNonContiguous() {
    try (Tensor b = base();
        Tensor t = b.transpose(0, 1);
        Tensor c = t.contiguous();
        Tensor same = b.contiguous();
        Tensor r = t.reshape(12);
        Tensor rv = b.reshape(2, 6);
        Tensor one = Tensor.ones(1);
        Tensor rScalar = one.reshape();
        Tensor flatCopy = t.flatten()) {
      assertFalse(t.isContiguous());
      assertTrue(c.isContiguous());
      assertFalse(c.sharesStorage(b));
      assertLongs(c, 0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11);
      assertArrayEquals(new long[] {3, 1}, c.stride());
      assertTrue(same.isSame(b)); // already contiguous: the same tensor
      assertFalse(r.sharesStorage(b)); // reshape had to copy
      assertLongs(r, 0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11);
      assertTrue(rv.sharesStorage(b)); // reshape could view
      assertShape(rv, 2, 6);
      assertEquals(0, rScalar.dim());
      assertFalse(flatCopy.sharesStorage(b));
      assertStatus(CtorchException.SHAPE, () -> t.view(12)); // strides do not allow a view
      assertStatus(CtorchException.SHAPE, () -> b.view(5, -1));
      assertStatus(CtorchException.SHAPE, () -> b.reshape(7));
    }
  }

  @Test
  public void viewKeepsTheStorageAliveAfterTheBaseIsClosed() {
    Tensor v;
    try (Tensor b = base()) {
      v = b.select(0, 2);
    }
    try (v) {
      assertLongs(v, 8, 9, 10, 11);
      v.add_(1);
      assertLongs(v, 9, 10, 11, 12);
    }
  }

  @Test
  public void badViewArguments() {
    try (Tensor b = base()) {
      assertStatus(CtorchException.INDEX, () -> b.select(0, 3));
      assertStatus(CtorchException.INDEX, () -> b.select(2, 0));
      assertStatus(CtorchException.INDEX, () -> b.transpose(0, 2));
      assertStatus(CtorchException.INDEX, () -> b.unsqueeze(4));
      assertStatus(CtorchException.INDEX, () -> b.size(2));
      assertStatus(CtorchException.INDEX, () -> b.stride(-3));
      assertStatus(CtorchException.INDEX, () -> b.narrow(3, 0, 1));
      assertThrows(() -> b.permute(0, 0));
      assertThrows(() -> b.permute(0));
      assertThrows(() -> b.narrow(1, 2, 5));
      assertThrows(() -> b.slice(1, 0, 4, 0));
    }
  }

  private static void assertThrows(org.junit.function.ThrowingRunnable r) {
    org.junit.Assert.assertThrows(CtorchException.class, r);
  }
}
