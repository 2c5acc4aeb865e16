package org.ctorch;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import java.util.List;
import java.util.function.Function;

import org.junit.Test;

/**
 * What the binding adds to views: every view method passes its dims, sizes and indices (int,
 * long, varargs, negative) to C and returns a tensor sharing its base's storage, whose own
 * lifetime keeps the storage alive; the metadata getters marshal shapes, strides and the data
 * pointer; errors map to exceptions. The view rules themselves are the C suite's.
 */
public class ViewTest extends CtorchTestCase {

  /** base = torch.arange(12).view(3, 4) on the test device. */
  private static Tensor base() {
    try (Tensor a = Tensor.arange(0, 12, 1, DType.INT64, device())) {
      return a.view(3, 4);
    }
  }

  private record Case(Function<Tensor, Tensor> op, long[] shape, long[] stride, long offset) {}

  private static Case c(Function<Tensor, Tensor> op, long[] shape, long[] stride, long offset) {
    return new Case(op, shape, stride, offset);
  }

  @Test
  public void everyViewMethodSharesStorage() {
    List<Case> cases = List.of(
        c(t -> t.view(-1), shape(12), shape(1), 0),
        c(t -> t.reshape(2, 6), shape(2, 6), shape(6, 1), 0),
        c(t -> t.permute(1, 0), shape(4, 3), shape(1, 4), 0),
        c(t -> t.transpose(0, -1), shape(4, 3), shape(1, 4), 0),
        c(t -> t.narrow(1, 1, 2), shape(3, 2), shape(4, 1), 1),
        c(t -> t.slice(0, 1, 100), shape(2, 4), shape(4, 1), 4), // Python slice clamping
        c(t -> t.slice(1, 0, 4, 2), shape(3, 2), shape(4, 2), 0),
        c(t -> t.select(1, -1), shape(3), shape(4), 3),
        c(t -> t.expand(2, -1, -1), shape(2, 3, 4), shape(0, 4, 1), 0),
        c(t -> t.unsqueeze(0), shape(1, 3, 4), shape(12, 4, 1), 0),
        c(t -> t.unsqueeze(0).squeeze(), shape(3, 4), shape(4, 1), 0),
        c(t -> t.unsqueeze(-1).squeeze(2), shape(3, 4), shape(4, 1), 0),
        c(Tensor::flatten, shape(12), shape(1), 0),
        c(t -> t.unsqueeze(0).flatten(0, 1), shape(3, 4), shape(4, 1), 0),
        c(Tensor::contiguous, shape(3, 4), shape(4, 1), 0));
    try (TensorScope scope = TensorScope.open()) {
      Tensor b = base();
      assertArrayEquals(shape(4, 1), b.stride());
      assertEquals(4, b.stride(0));
      assertEquals(1, b.stride(-1));
      assertEquals(3, b.size(0));
      assertEquals(4, b.size(-1));
      for (int i = 0; i < cases.size(); i++) {
        Case k = cases.get(i);
        Tensor v = k.op.apply(b);
        assertArrayEquals("shape of case " + i, k.shape, v.shape());
        assertArrayEquals("stride of case " + i, k.stride, v.stride());
        assertEquals("offset of case " + i, k.offset, v.storageOffset());
        assertTrue("storage of case " + i, v.sharesStorage(b));
      }
      assertTrue("contiguous() of a contiguous tensor is the same", b.contiguous().isSame(b));
      Tensor t = b.transpose(0, 1);
      assertFalse(t.isContiguous());
      assertFalse("a copy", t.contiguous().sharesStorage(b));
      assertFalse("reshape had to copy", t.reshape(12).sharesStorage(b));
      // A write through a view is seen through its base.
      b.select(0, 1).narrow(0, 1, 2).fill_(-1);
      assertLongs(b, 0, 1, 2, 3, 4, -1, -1, 7, 8, 9, 10, 11);
    }
  }

  /** data_ptr: a view's address is its base's plus storage_offset * itemsize bytes. */
  @Test
  public void dataPtrOfViews() {
    try (Tensor a = Tensor.arange(0, 12, 1, DType.FLOAT32, Device.CPU);
        Tensor m = a.view(3, 4);
        Tensor row2 = m.select(0, 2);
        Tensor d = Tensor.arange(0, 10, 1, DType.FLOAT64, Device.CPU);
        Tensor dTail = d.narrow(0, 3, 5);
        Tensor copy = row2.clone()) {
      assertNotEquals(0, a.dataPtr());
      assertEquals(8 * 4, row2.dataPtr() - a.dataPtr());
      assertEquals(3 * 8, dTail.dataPtr() - d.dataPtr());
      assertNotEquals(row2.dataPtr(), copy.dataPtr());
    }
    Tensor closed = Tensor.zeros(4);
    closed.close();
    assertStatus(CtorchException.INVALID_HANDLE, closed::dataPtr);
    assertStatus(CtorchException.INVALID_HANDLE, () -> closed.view(2, 2));
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
  public void errorsAreMapped() {
    try (Tensor b = base(); Tensor t = b.transpose(0, 1)) {
      assertStatus(CtorchException.INDEX, () -> b.select(0, 3));
      assertStatus(CtorchException.INDEX, () -> b.size(2));
      assertStatus(CtorchException.INDEX, () -> b.stride(-3));
      CtorchException e = assertStatus(CtorchException.SHAPE, () -> t.view(12));
      assertEquals("CT_ERR_SHAPE", e.statusName());
      assertStatus(CtorchException.SHAPE, () -> b.expand(4, 1));
      org.junit.Assert.assertThrows(CtorchException.class, () -> b.slice(1, 0, 4, 0));
    }
  }
}
