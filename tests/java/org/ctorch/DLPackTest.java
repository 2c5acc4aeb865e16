package org.ctorch;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.Test;

/**
 * What the binding adds to DLPack and from_blob (section 26 of ctorch.h): capsules as long
 * addresses owned by {@link DLPack.Capsule} (consume, importTensor, close), zero copy checked by
 * data pointer, fromBlob's Runnable deleter run exactly once (when the last tensor using the
 * memory closes, here on another Java thread; never after a
 * failure), errors. The struct's fields, dtypes, layouts and messages are the C suite's
 * (tests/capi/dlpack_test.c).
 */
public class DLPackTest extends CtorchTestCase {

  @Test
  public void exportImportSameMemory() {
    try (Tensor a = Tensor.arange(0, 6, 1, DType.INT64, device()); Tensor m = a.view(2, 3);
        Tensor v = m.transpose(0, 1)) {
      for (boolean versioned : new boolean[] {false, true}) {
        try (DLPack.Capsule c = versioned ? DLPack.toDLPackVersioned(v) : DLPack.toDLPack(v)) {
          assertEquals(versioned, c.versioned());
          assertNotEquals(0, c.address());
          try (Tensor b = c.importTensor()) {
            assertEquals("zero copy", v.dataPtr(), b.dataPtr());
            assertShape(b, 3, 2);
            assertLongs(b, 0, 3, 1, 4, 2, 5);
          }
          assertEquals(0, c.address());
          assertStatus(102, c::importTensor);
        }
      }
      // the raw address route, as another library's consumer takes it
      try (DLPack.Capsule c = DLPack.dlpack(v, -1, true); Tensor b = DLPack.fromDLPackVersioned(c.consume())) {
        assertEquals(v.dataPtr(), b.dataPtr());
      }
      try (DLPack.Capsule c = DLPack.dlpack(v, -1, false); Tensor b = DLPack.fromDLPack(c.consume())) {
        assertLongs(b, 0, 3, 1, 4, 2, 5);
      }
      int[] dev = DLPack.dlpackDevice(v);
      assertEquals(device().type() == DeviceType.CUDA ? 2 : 1, dev[0]);
      assertEquals(0, dev[1]);
      DLPack.Capsule u = DLPack.toDLPack(v); // no one consumes it: close runs its deleter
      u.close();
      u.close();
      assertEquals(0, u.address());
    }
  }

  @Test
  public void fromBlobDeleterRunsOnceAfterTheLastView() throws Exception {
    try (Tensor src = Tensor.arange(10, 16, 1, DType.INT64, device())) {
      AtomicInteger calls = new AtomicInteger();
      long address = src.dataPtr();
      Tensor blob = DLPack.fromBlob(address, new long[] {2, 3}, new long[] {1, 2}, DType.INT64, device(),
          calls::incrementAndGet);
      assertEquals(src.dataPtr(), blob.dataPtr());
      assertLongs(blob, 10, 12, 14, 11, 13, 15);
      Tensor row = blob.select(0, 1);
      DLPack.Capsule c = DLPack.toDLPackVersioned(row);
      blob.close();
      row.close();
      assertEquals("the capsule holds the memory", 0, calls.get());
      Tensor back = c.importTensor();
      assertLongs(back, 11, 13, 15);
      assertNull(onThread(back::close)); // the last reference goes on another thread
      assertEquals(1, calls.get());
      c.close();
      try (Tensor b2 = DLPack.fromBlob(address, new long[] {6}, null, DType.INT64, device(), null)) {
        assertLongs(b2, 10, 11, 12, 13, 14, 15); // no deleter: the caller keeps the memory
      }
      // a deleter that throws: printed, ignored, run once
      Tensor t = DLPack.fromBlob(address, new long[] {1}, null, DType.INT64, device(), () -> {
        calls.incrementAndGet();
        throw new IllegalStateException("thrown by the test's deleter (expected)");
      });
      t.close();
      assertEquals(2, calls.get());
    }
  }

  @Test
  public void errors() {
    AtomicInteger calls = new AtomicInteger();
    try (Tensor x = Tensor.zeros(new long[] {2}, DType.FLOAT32, device())) {
      long p = x.dataPtr();
      CtorchException e = assertStatus(100, () -> DLPack.fromBlob(p, new long[] {2}, new long[] {-1}, DType.FLOAT32,
          device(), calls::incrementAndGet));
      assertTrue(e.detail(), e.detail().startsWith("as_strided: Negative strides are not supported"));
      assertStatus(101, () -> DLPack.fromBlob(0, new long[] {2}, null, DType.FLOAT32, device(), calls::incrementAndGet));
      assertThrows(IllegalArgumentException.class,
          () -> DLPack.fromBlob(p, new long[] {2}, new long[] {1, 1}, DType.FLOAT32, device(), null));
      assertThrows(NullPointerException.class, () -> DLPack.fromBlob(p, null, null, DType.FLOAT32, device(), null));
      assertEquals("a failed fromBlob never runs its deleter", 0, calls.get());
      e = assertStatus(101, () -> DLPack.fromDLPack(0));
      assertTrue(e.detail(), e.detail().contains("argument 'capsule' is NULL"));
      assertStatus(101, () -> DLPack.fromDLPackVersioned(0));
      if (device().type() != DeviceType.CUDA) {
        e = assertStatus(100, () -> DLPack.dlpack(x, 1, true));
        assertEquals("stream should be None on cpu.", e.detail());
      }
      assertThrows(NullPointerException.class, () -> DLPack.toDLPack(null));
      x.close();
      assertStatus(102, () -> DLPack.toDLPack(x));
      assertStatus(102, () -> DLPack.toDLPackVersioned(x));
      assertStatus(102, () -> DLPack.dlpackDevice(x));
    }
  }
}
