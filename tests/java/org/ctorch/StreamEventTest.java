package org.ctorch;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;

import org.ctorch.swig.ctorch;
import org.junit.Test;

/**
 * {@link Stream}, {@link Event}, the stream guard ({@link Cuda#stream(Stream)}) and the
 * tensor calls about pinned memory and streams (sections 12a, 13, 14 of ctorch.h). Events can
 * be made without a GPU; streams cannot, so without a GPU the suite checks the 301 errors, and
 * uses Stream objects adopted over handles the C layer rejects (foreign or stale) to check
 * that every method gives 102, never a crash. "gpu" tests are skipped (visibly) here.
 */
public class StreamEventTest extends CtorchTestCase {

  /** A stream-table handle whose slot was never allocated (index 0xfffffff0). */
  static final long FOREIGN_STREAM = 0x6000_0001_FFFF_FFF0L;

  /* ============================================================================================
   * Events: everything that needs no recording works without a GPU
   * ========================================================================================== */

  @Test
  public void eventsWithoutRecording() {
    long base = Torch.liveEventCount();
    try (Event plain = Event.create();
        Event timing = Event.create(true);
        Event both = Event.create(true, true)) {
      assertEquals(base + 3, Torch.liveEventCount());
      assertFalse(plain.isTimingEnabled());
      assertFalse(plain.isBlocking());
      assertTrue(timing.isTimingEnabled());
      assertFalse(timing.isBlocking());
      assertTrue(both.isTimingEnabled());
      assertTrue(both.isBlocking());
      // Never recorded: complete, and synchronize returns at once.
      assertTrue(plain.query());
      assertTrue(both.query());
      plain.synchronize();
      both.synchronize();
      assertEquals("<torch.cuda.Event enable_timing=false blocking=false>", plain.toString());
      assertEquals("<torch.cuda.Event enable_timing=true blocking=true>", both.toString());
      assertNotEquals("events compare by identity", plain, timing);
      assertEquals(plain, plain);
    }
    assertEquals(base, Torch.liveEventCount());
  }

  @Test
  public void eventCloseAndReferences() {
    long base = Torch.liveEventCount();
    Event e = Event.create(true);
    Event ref = e.newReference();
    assertNotSame(e, ref);
    assertTrue(ref.isTimingEnabled());
    assertEquals("a reference is not a new handle", base + 1, Torch.liveEventCount());
    e.close();
    assertTrue(e.isClosed());
    assertFalse(ref.isClosed());
    assertTrue(ref.query()); // the native event lives on through ref
    assertEquals(base + 1, Torch.liveEventCount());
    e.close(); // idempotent
    ref.close();
    ref.close();
    assertEquals(base, Torch.liveEventCount());
    assertEquals("<torch.cuda.Event enable_timing=true blocking=false (closed)>", e.toString());
  }

  /** A closed Event throws 102 from every method; close stays harmless. */
  @Test
  public void closedEventGives102() {
    Event e = Event.create();
    e.close();
    for (org.junit.function.ThrowingRunnable r : List.<org.junit.function.ThrowingRunnable>of(
        e::query, e::synchronize, e::record, () -> e.record(null), () -> e.wait(null),
        e::newReference, () -> e.elapsedTime(e))) {
      CtorchException x = assertStatus(CtorchException.INVALID_HANDLE, r);
      assertEquals("CT_ERR_INVALID_HANDLE", x.statusName());
      assertEquals("the Event is closed", x.detail());
    }
    try (Event open = Event.create(true)) {
      assertStatus(CtorchException.INVALID_HANDLE, () -> open.elapsedTime(e));
      assertStatus(CtorchException.INVALID_HANDLE, () -> e.elapsedTime(open));
      assertThrows(NullPointerException.class, () -> open.elapsedTime(null));
    }
    e.close();
  }

  /** elapsed_time needs two timing events, both recorded: CT_ERR_STATE otherwise. */
  @Test
  public void elapsedTimeStateErrors() {
    try (Event a = Event.create(true); Event b = Event.create(true);
        Event plain = Event.create()) {
      CtorchException e = assertStatus(CtorchException.STATE, () -> a.elapsedTime(b));
      assertTrue(e.detail(), e.detail().contains("recorded"));
      e = assertStatus(CtorchException.STATE, () -> a.elapsedTime(plain));
      assertTrue(e.detail(), e.detail().contains("enable_timing"));
      e = assertStatus(CtorchException.STATE, () -> plain.elapsedTime(a));
      assertTrue(e.detail(), e.detail().contains("enable_timing"));
    }
  }

  /** Recording or waiting needs the current stream, hence a GPU. */
  @Test
  public void noGpuEventRecordAndWait() {
    assumeNoCuda();
    try (Event e = Event.create(true)) {
      assertNoCuda(e::record);
      assertNoCuda(() -> e.record(null));
      assertNoCuda(() -> e.wait(null));
      assertTrue("a failed record leaves the event unrecorded", e.query());
      assertStatus(CtorchException.STATE, () -> e.elapsedTime(e));
    }
  }

  /**
   * ~10k events, two out of three never closed: the Cleaner releases them after the garbage
   * collector finds them unreachable, as for tensors.
   */
  @Test
  public void cleanerReleasesUnclosedEvents() throws Exception {
    long base = Torch.liveEventCount();
    List<Event> unclosed = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      Event e = Event.create(i % 2 == 0);
      if (i % 3 == 0) {
        e.close();
      } else {
        unclosed.add(e);
      }
    }
    assertEquals(6666, unclosed.size());
    assertEquals(base + 6666, Torch.liveEventCount());
    WeakReference<Event> probe = new WeakReference<>(unclosed.get(0));
    unclosed = null;
    assertEquals("events left after GC", base, awaitCount(base, Torch::liveEventCount));
    assertTrue(probe.get() == null);
  }

  /* ============================================================================================
   * Streams without a GPU: the factories fail with 301
   * ========================================================================================== */

  @Test
  public void noGpuStreamFactories() {
    assumeNoCuda();
    long base = Torch.liveStreamCount();
    assertNoCuda(Stream::create);
    assertNoCuda(() -> Stream.create(0));
    assertNoCuda(() -> Stream.create(-1, -1));
    assertNoCuda(() -> Stream.create(Device.CUDA, 0));
    assertNoCuda(Stream::priorityRange);
    assertNoCuda(Stream::defaultStream);
    assertNoCuda(() -> Stream.defaultStream(0));
    assertNoCuda(Stream::currentStream);
    assertNoCuda(() -> Stream.currentStream(0));
    assertNoCuda(() -> Stream.external(0));
    assertNoCuda(() -> Stream.external(0x1234_5678L, 0));
    assertNoCudaBothForms(Cuda::currentStream, Cuda::currentStream);
    assertNoCudaBothForms(Cuda::defaultStream, Cuda::defaultStream);
    assertThrows(IllegalArgumentException.class, () -> Stream.create(Device.CPU, 0));
    assertEquals(base, Torch.liveStreamCount());
  }

  @Test
  public void noGpuPinMemory() {
    assumeNoCuda();
    try (Tensor t = Tensor.fromArray(new float[] {1, 2, 3})) {
      assertFalse(t.isPinned());
      assertNoCuda(t::pinMemory);
      assertFalse(t.isPinned());
    }
  }

  /* ============================================================================================
   * Stream objects over handles the C layer rejects: 102, never a crash
   * ========================================================================================== */

  @Test
  public void foreignStreamHandlesGive102() {
    long streams = Torch.liveStreamCount();
    try (Tensor t = Tensor.ones(2)) {
      // A handle of the stream kind that was never handed out, and a tensor handle (another
      // kind): the C library validates both and refuses them.
      Stream never = Stream.adopt(FOREIGN_STREAM, 0, 0);
      Stream tensorHandle = Stream.adopt(t.handle(), 0, 7);
      try (Event e = Event.create()) {
        for (Stream s : new Stream[] {never, tensorHandle}) {
          for (org.junit.function.ThrowingRunnable r : List.<org.junit.function.ThrowingRunnable>of(
              s::query, s::synchronize, s::priority, s::deviceIndex, s::device, s::cudaHandle,
              () -> s.waitStream(s), () -> s.waitEvent(e), () -> s.recordEvent(e),
              s::recordEvent, s::newReference, () -> Stream.setCurrent(s),
              () -> Cuda.setStream(s), () -> Cuda.stream(s), () -> t.recordStream(s),
              () -> e.record(s), () -> e.wait(s))) {
            CtorchException x = assertStatus(CtorchException.INVALID_HANDLE, r);
            assertTrue(x.detail(), x.detail().contains("stream handle"));
          }
        }
        assertTrue("the event is untouched", e.query());
      }
      assertEquals(streams, Torch.liveStreamCount());
      never.close(); // the release is refused too (102, ignored by close)
      tensorHandle.close();
      assertTrue(never.isClosed());
      try (Tensor sum = t.sum()) { // the tensor was not released as a "stream"
        assertEquals(2.0, sum.item(), 0);
      }
    }
    assertEquals(streams, Torch.liveStreamCount());
  }

  /**
   * A guard whose restore fails (here: over a handle the C layer never gave out) throws the
   * mapped exception from close(), is closed afterwards, and a second close does nothing.
   */
  @Test
  public void streamGuardCloseFailureIsMappedAndFinal() {
    Cuda.StreamGuard g = new Cuda.StreamGuard(FOREIGN_STREAM, 0);
    assertFalse(g.isClosed());
    assertEquals(0, g.previousDevice());
    CtorchException e = assertStatus(CtorchException.INVALID_HANDLE, g::close);
    assertTrue(e.detail(), e.detail().contains("stream"));
    assertTrue(g.isClosed());
    g.close();
    Torch.clearError();
  }

  /** A closed Stream throws 102 "the Stream is closed" before reaching the C layer. */
  @Test
  public void closedStreamGives102() {
    Stream s = Stream.adopt(FOREIGN_STREAM, 1, 0x10);
    s.close();
    s.close();
    assertTrue(s.isClosed());
    try (Tensor t = Tensor.ones(2); Event e = Event.create()) {
      for (org.junit.function.ThrowingRunnable r : List.<org.junit.function.ThrowingRunnable>of(
          s::query, s::synchronize, s::priority, s::deviceIndex, s::cudaHandle,
          () -> s.waitEvent(e), () -> s.recordEvent(e), s::newReference,
          () -> Stream.setCurrent(s), () -> Cuda.stream(s), () -> t.recordStream(s),
          () -> e.record(s), () -> e.wait(s))) {
        CtorchException x = assertStatus(CtorchException.INVALID_HANDLE, r);
        assertEquals("the Stream is closed", x.detail());
      }
    }
    // Device and handle never change, so equality and printing work on a closed stream.
    assertEquals("<torch.cuda.Stream device=cuda:1 cuda_stream=0x10 (closed)>", s.toString());
  }

  @Test
  public void streamNullArguments() {
    Stream s = Stream.adopt(FOREIGN_STREAM, 0, 0);
    try (Tensor t = Tensor.ones(1)) {
      assertThrows(NullPointerException.class, () -> s.waitStream(null));
      assertThrows(NullPointerException.class, () -> s.waitEvent(null));
      assertThrows(NullPointerException.class, () -> s.recordEvent(null));
      assertThrows(NullPointerException.class, () -> Stream.setCurrent(null));
      assertThrows(NullPointerException.class, () -> t.recordStream(null));
      assertThrows(NullPointerException.class, () -> Stream.create(null, 0));
    } finally {
      s.close();
    }
  }

  /** torch's Stream equality and hash: (device, cuda_stream). */
  @Test
  public void streamEquality() {
    Stream a = Stream.adopt(FOREIGN_STREAM, 0, 0x7f00);
    Stream b = Stream.adopt(FOREIGN_STREAM - 1, 0, 0x7f00);
    Stream otherDevice = Stream.adopt(FOREIGN_STREAM - 2, 1, 0x7f00);
    Stream otherStream = Stream.adopt(FOREIGN_STREAM - 3, 0, 0x7f01);
    try {
      assertEquals(a, b);
      assertEquals(a.hashCode(), b.hashCode());
      assertNotEquals(a, otherDevice);
      assertNotEquals(a, otherStream);
      assertNotEquals(a, null);
      assertNotEquals(a, "stream");
      assertEquals("<torch.cuda.Stream device=cuda:0 cuda_stream=0x7f00>", a.toString());
      a.close();
      assertEquals("closing does not change equality", a, b);
    } finally {
      for (Stream s : new Stream[] {a, b, otherDevice, otherStream}) {
        s.close();
      }
    }
  }

  /* ============================================================================================
   * Tensor calls that need no GPU
   * ========================================================================================== */

  @Test
  public void nonBlockingOnTheCpu() {
    try (Tensor t = Tensor.fromArray(new int[] {1, 2, 3});
        Tensor same = t.to(Device.CPU, true);
        Tensor same2 = t.to(Device.CPU, DType.INT32, true);
        Tensor cast = t.to(Device.CPU, DType.FLOAT64, true);
        Tensor dst = Tensor.zeros(2, 3)) {
      assertTrue("nothing to do: the same tensor", same.isSame(t));
      assertTrue(same2.isSame(t));
      assertFalse(cast.isSame(t));
      assertArrayEquals(new double[] {1, 2, 3}, cast.toDoubleArray(), 0);
      assertFalse(t.isPinned());
      assertFalse(cast.isPinned());
      assertSame(dst, dst.copy_(t, true)); // broadcast (3,) into (2, 3), int32 -> float32
      assertValues(dst, 1, 2, 3, 1, 2, 3);
    }
    Tensor closed = Tensor.zeros(1);
    closed.close();
    assertStatus(CtorchException.INVALID_HANDLE, closed::isPinned);
    assertStatus(CtorchException.INVALID_HANDLE, closed::pinMemory);
  }

  /* ============================================================================================
   * With a GPU (skipped here)
   * ========================================================================================== */

  @Test
  public void gpuStreamBasics() {
    assumeCuda();
    long base = Torch.liveStreamCount();
    Stream.PriorityRange range = Stream.priorityRange();
    assertEquals(0, range.least());
    assertTrue(range.toString(), range.greatest() < 0);
    int dev = Cuda.currentDevice();
    try (Stream s = Stream.create();
        Stream hi = Stream.create(dev, range.greatest());
        Stream clamped = Stream.create(Device.cuda(dev), range.greatest() - 100);
        Stream low = Stream.create(dev, 5);
        Stream def = Stream.defaultStream();
        Stream def2 = Cuda.defaultStream(dev);
        Stream cur = Stream.currentStream()) {
      assertEquals(base + 7, Torch.liveStreamCount()); // def and def2: two handles, one stream
      assertEquals(dev, s.deviceIndex());
      assertEquals(Device.cuda(dev), s.device());
      assertEquals(0, s.priority());
      assertEquals(range.greatest(), hi.priority());
      assertEquals(range.greatest(), clamped.priority());
      assertEquals(range.least(), low.priority());
      assertNotEquals(0, s.cudaHandle());
      assertEquals(0, def.cudaHandle());
      assertEquals(def, def2);
      assertEquals(def.hashCode(), def2.hashCode());
      assertEquals("no stream set: the current stream is the default stream", def, cur);
      assertNotEquals(s, hi);
      assertNotEquals(s, def);
      assertEquals("<torch.cuda.Stream device=cuda:" + dev + " cuda_stream=0x0>", def.toString());
      assertTrue(s.query()); // nothing queued
      s.synchronize();
      try (Stream ref = s.newReference()) {
        assertEquals(s, ref);
        assertEquals("a reference is not a new handle", base + 7, Torch.liveStreamCount());
      }
      // An external stream: the cudaStream_t of s, wrapped again.
      try (Stream ext = Stream.external(s.cudaHandle(), dev);
          Stream ext2 = Stream.external(s.cudaHandle())) {
        assertEquals(s, ext);
        assertEquals(s, ext2);
        assertEquals(s.priority(), ext.priority());
      }
      assertStatus(CtorchException.INDEX, () -> Stream.create(Cuda.deviceCount(), 0));
    }
    assertEquals(base, Torch.liveStreamCount());
  }

  @Test
  public void gpuSetCurrentAndStreamGuard() {
    assumeCuda();
    try (Stream def = Stream.defaultStream(); Stream s = Stream.create()) {
      try (Cuda.StreamGuard g = Cuda.stream(s)) {
        assertFalse(g.isClosed());
        assertEquals(Cuda.currentDevice(), g.previousDevice());
        try (Stream cur = Cuda.currentStream()) {
          assertEquals(s, cur);
        }
        try (Stream s2 = Stream.create(); Cuda.StreamGuard inner = Cuda.stream(s2);
            Stream cur = Stream.currentStream()) {
          assertEquals(s2, cur);
        }
        try (Stream cur = Stream.currentStream()) {
          assertEquals("the inner guard restored s", s, cur);
        }
      }
      try (Stream cur = Stream.currentStream()) {
        assertEquals(def, cur);
      }
      // An exception inside the block restores too.
      assertThrows(IllegalStateException.class, () -> {
        try (Cuda.StreamGuard g = Cuda.stream(s)) {
          throw new IllegalStateException("inside");
        }
      });
      try (Stream cur = Stream.currentStream()) {
        assertEquals(def, cur);
      }
      // set_stream changes it until set back.
      Stream.setCurrent(s);
      try (Stream cur = Stream.currentStream()) {
        assertEquals(s, cur);
      }
      Cuda.setStream(def);
      try (Stream cur = Stream.currentStream()) {
        assertEquals(def, cur);
      }
    }
  }

  /** with torch.cuda.stream(s) on another device switches the device too, and restores both. */
  @Test
  public void gpuStreamGuardSwitchesDevice() {
    assumeCudaDevices(2);
    Cuda.setDevice(0);
    try (Stream s1 = Stream.create(1)) {
      try (Cuda.StreamGuard g = Cuda.stream(s1)) {
        assertEquals(0, g.previousDevice());
        assertEquals(1, Cuda.currentDevice());
        try (Stream cur = Stream.currentStream(1)) {
          assertEquals(s1, cur);
        }
        try (Tensor t = Tensor.ones(new long[] {2}, DType.FLOAT32, Device.CUDA)) {
          assertEquals(Device.cuda(1), t.device());
        }
      }
      assertEquals(0, Cuda.currentDevice());
      try (Stream cur = Stream.currentStream(1); Stream def = Stream.defaultStream(1)) {
        assertEquals(def, cur);
      }
    }
  }

  /** A guard dropped without close: its reference to the previous stream is still released. */
  @Test
  public void gpuUnclosedStreamGuardIsCleaned() throws Exception {
    assumeCuda();
    long base = Torch.liveStreamCount();
    try (Stream def = Stream.currentStream(); Stream s = Stream.create()) {
      Cuda.StreamGuard g = Cuda.stream(s); // never closed
      assertEquals(base + 3, Torch.liveStreamCount());
      assertFalse(g.isClosed());
      g = null;
      Stream.setCurrent(def); // restore by hand
      assertEquals(base + 2, awaitCount(base + 2, Torch::liveStreamCount));
    }
  }

  /** Work on a side stream, ordered with events and wait_stream, gives the right values. */
  @Test
  public void gpuStreamOrdering() {
    assumeCuda();
    try (TensorScope scope = TensorScope.open();
        Stream side = Stream.create();
        Stream main = Stream.currentStream()) {
      Tensor x = Tensor.arange(0, 1 << 20, 1, DType.INT64, Device.CUDA);
      side.waitStream(main); // x is ready before side uses it
      Tensor y;
      try (Cuda.StreamGuard g = Cuda.stream(side)) {
        y = x.mul(2).add(1).sum(); // queued on side
      }
      try (Event done = side.recordEvent()) {
        main.waitEvent(done); // main's later work waits for side's
        x.recordStream(side);
        y.recordStream(side);
        done.synchronize();
        assertTrue(done.query());
        assertTrue(side.query());
      }
      // sum(2i + 1) for i < n = n^2
      assertEquals(1L << 40, y.itemLong());
      try (Event e = Event.create()) {
        assertSame(e, side.recordEvent(e));
        e.wait(main);
        e.wait(null);
        main.synchronize();
        assertTrue(e.query());
      }
    }
  }

  @Test
  public void gpuEventElapsedTime() {
    assumeCuda();
    try (TensorScope scope = TensorScope.open();
        Event start = Event.create(true);
        Event end = Event.create(true, true);
        Stream cur = Stream.currentStream()) {
      start.record();
      Tensor x = Tensor.ones(new long[] {1024, 1024}, DType.FLOAT32, Device.CUDA);
      for (int i = 0; i < 20; i++) {
        x = x.mul(1.0001);
      }
      end.record(cur);
      end.synchronize();
      assertTrue(start.query());
      assertTrue(end.query());
      double ms = start.elapsedTime(end);
      assertTrue("elapsed " + ms, ms >= 0 && ms < 60_000);
      try (Event plain = Event.create()) {
        plain.record();
        plain.synchronize();
        assertStatus(CtorchException.STATE, () -> start.elapsedTime(plain));
      }
    }
  }

  /** pin_memory, then non_blocking copies to the GPU and back (the result is pinned). */
  @Test
  public void gpuPinnedNonBlockingCopies() {
    assumeCuda();
    float[] data = new float[4096];
    for (int i = 0; i < data.length; i++) {
      data[i] = i * 0.5f;
    }
    try (Tensor host = Tensor.fromArray(data);
        Tensor pinned = host.pinMemory();
        Stream cur = Stream.currentStream()) {
      assertFalse(host.isPinned());
      assertTrue(pinned.isPinned());
      assertFalse("pin_memory copies", pinned.sharesStorage(host));
      assertArrayEquals(data, pinned.toFloatArray(), 0f);
      try (Tensor dev = pinned.to(Device.CUDA, true);
          Tensor back = dev.to(Device.CPU, DType.FLOAT32, true)) {
        assertTrue("GPU -> CPU non_blocking gives pinned memory", back.isPinned());
        cur.synchronize();
        assertArrayEquals(data, back.toFloatArray(), 0f);
        try (Tensor zeros = Tensor.zeros(data.length); Tensor dst = zeros.pinMemory()) {
          dst.copy_(dev, true);
          cur.synchronize();
          assertArrayEquals(data, dst.toFloatArray(), 0f);
        }
        CtorchException e = assertStatus(CtorchException.DEVICE, dev::pinMemory);
        assertTrue(e.detail(), e.detail().contains("pin"));
        assertFalse(dev.isPinned());
      }
    }
  }

  @Test
  public void gpuRecordStreamDeviceChecks() {
    assumeCuda();
    try (Stream s = Stream.create(); Tensor cpu = Tensor.ones(2);
        Tensor dev = Tensor.ones(new long[] {2}, DType.FLOAT32, s.device())) {
      dev.recordStream(s);
      assertStatus(CtorchException.DEVICE, () -> cpu.recordStream(s));
    }
  }
}
