package org.ctorch;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;

import org.ctorch.swig.ctorch;
import org.junit.Test;

/** Every failing status becomes an exception with its code, name and message. */
public class ErrorTest extends CtorchTestCase {

  @Test
  public void exceptionCarriesCodeNameAndMessage() {
    try (Tensor a = Tensor.zeros(2, 3); Tensor b = Tensor.zeros(4)) {
      CtorchException e = assertStatus(CtorchException.SHAPE, () -> a.add(b));
      assertEquals("CT_ERR_SHAPE", e.statusName());
      assertFalse(e.detail().isEmpty());
      assertEquals("CT_ERR_SHAPE (103): " + e.detail(), e.getMessage());
      assertTrue(e instanceof RuntimeException);
      assertFalse(e instanceof CtorchOutOfMemoryException);
      // The C library's thread-local state still holds that error.
      assertEquals(103, Torch.lastErrorCode());
      assertEquals(e.detail(), Torch.lastErrorMessage());
      Torch.clearError();
      assertEquals(0, Torch.lastErrorCode());
      assertEquals("", Torch.lastErrorMessage());
    }
  }

  @Test
  public void statusNames() {
    Object[][] table = {
      {0, "CT_OK"},
      {100, "CT_ERR_ARGUMENT"},
      {101, "CT_ERR_NULL_POINTER"},
      {102, "CT_ERR_INVALID_HANDLE"},
      {103, "CT_ERR_SHAPE"},
      {104, "CT_ERR_DTYPE"},
      {105, "CT_ERR_INDEX"},
      {106, "CT_ERR_BUFFER_SIZE"},
      {107, "CT_ERR_DEVICE_STRING"},
      {200, "CT_ERR_STATE"},
      {300, "CT_ERR_DEVICE"},
      {301, "CT_ERR_CUDA_UNAVAILABLE"},
      {302, "CT_ERR_CUDA"},
      {400, "CT_ERR_OUT_OF_MEMORY"},
      {500, "CT_ERR_NOT_SUPPORTED"},
      {900, "CT_ERR_INTERNAL"},
      {12345, "CT_UNKNOWN"},
      {-1, "CT_UNKNOWN"},
    };
    for (Object[] row : table) {
      assertEquals(row[1], CtorchException.statusName((Integer) row[0]));
    }
    assertEquals(103, CtorchException.SHAPE);
    assertEquals(400, CtorchException.OUT_OF_MEMORY);
  }

  @Test
  public void outOfMemoryHasItsOwnException() {
    // 2^45 float32 elements: 128 TiB, more than any host can map.
    CtorchException e = assertThrows(CtorchOutOfMemoryException.class,
        () -> Tensor.empty(1L << 45));
    assertEquals(400, e.code());
    assertEquals("CT_ERR_OUT_OF_MEMORY", e.statusName());
    assertFalse(e.detail().isEmpty());
  }

  @Test
  public void closedTensorIsAnErrorNotACrash() {
    Tensor t = Tensor.ones(3);
    Tensor other = Tensor.ones(3);
    t.close();
    assertTrue(t.isClosed());
    CtorchException e = assertStatus(CtorchException.INVALID_HANDLE, t::dim);
    assertEquals("CT_ERR_INVALID_HANDLE", e.statusName());
    assertStatus(CtorchException.INVALID_HANDLE, t::shape);
    assertStatus(CtorchException.INVALID_HANDLE, t::toFloatArray);
    assertStatus(CtorchException.INVALID_HANDLE, () -> t.add(1));
    assertStatus(CtorchException.INVALID_HANDLE, () -> other.add(t));
    assertStatus(CtorchException.INVALID_HANDLE, () -> t.add_(other));
    assertStatus(CtorchException.INVALID_HANDLE, () -> other.copy_(t));
    assertStatus(CtorchException.INVALID_HANDLE, () -> Tensor.cat(List.of(other, t), 0));
    assertStatus(CtorchException.INVALID_HANDLE, () -> Tensor.zerosLike(t));
    assertStatus(CtorchException.INVALID_HANDLE, t::newReference);
    assertEquals("tensor(<closed>)", t.toString());
    t.close(); // harmless
    t.close();
    assertValues(other, 1, 1, 1); // the failed calls did not touch it
    other.close();
    other.close();
  }

  @Test
  public void nullArgumentsAreNullPointerExceptions() {
    try (Tensor t = Tensor.ones(2)) {
      assertThrows(NullPointerException.class, () -> t.add((Tensor) null));
      assertThrows(NullPointerException.class, () -> Tensor.where(null, t, t));
      assertThrows(NullPointerException.class, () -> t.to((Device) null));
      assertThrows(NullPointerException.class, () -> t.copyTo(null));
    }
  }

  /** The error state is per thread: each thread reads its own failure. */
  @Test
  public void lastErrorIsThreadLocal() throws Exception {
    CyclicBarrier bothFailed = new CyclicBarrier(2);
    AtomicInteger codeA = new AtomicInteger();
    AtomicInteger codeB = new AtomicInteger();
    Throwable[] failure = new Throwable[1];
    Thread a = new Thread(() -> {
      try (Tensor x = Tensor.zeros(2); Tensor y = Tensor.zeros(3)) {
        ctorch.ct_binary(0, x.handle(), y.handle(), new long[1]); // shape error
        bothFailed.await(30, java.util.concurrent.TimeUnit.SECONDS);
        codeA.set(Torch.lastErrorCode());
      } catch (Throwable t) {
        failure[0] = t;
      }
    });
    Thread b = new Thread(() -> {
      try (Tensor x = Tensor.zeros(2)) {
        ctorch.ct_tensor_size(x.handle(), 7, new long[1]); // index error
        bothFailed.await(30, java.util.concurrent.TimeUnit.SECONDS);
        codeB.set(Torch.lastErrorCode());
      } catch (Throwable t) {
        failure[0] = t;
      }
    });
    a.start();
    b.start();
    a.join();
    b.join();
    if (failure[0] != null) {
      throw new AssertionError(failure[0]);
    }
    assertEquals(CtorchException.SHAPE, codeA.get());
    assertEquals(CtorchException.INDEX, codeB.get());
  }
}
