package org.ctorch;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.lang.ref.WeakReference;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.ctorch.swig.ctorch;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * The stream sanitizer's binding ({@link CudaSanitizer}, section 24 of ctorch.h): the mode enum
 * against the C constants, the argument error, the report count, the Java callback (kept alive
 * while registered, released once cleared, called from this thread and from a native thread the
 * JVM has never seen, with the report's UTF-8 bytes, an exception it throws kept from C) and
 * {@link CtorchDataRaceException}. The C suite (tests/capi/sanitizer_test.c) owns the races
 * themselves; the GPU cases here are the seed's side-stream race through the Java callback and
 * the exception, skipped (visibly) without CUDA. Each test puts the mode it found back (off
 * unless CTORCH_CUDA_SANITIZER is set) and clears the callback.
 */
public class CudaSanitizerTest extends CtorchTestCase {
  private CudaSanitizer.Mode modeBefore;

  @Before
  public void rememberMode() {
    modeBefore = CudaSanitizer.mode();
  }

  @After
  public void sanitizerBack() {
    CudaSanitizer.setCallback(null);
    CudaSanitizer.setMode(CudaSanitizer.Mode.OFF); // forgets what the test left
    CudaSanitizer.setMode(modeBefore);
  }

  /** Calls the registered C callback as ctorch would; fails the test when it cannot. */
  private static void report(String text, boolean onNewThread) {
    assertEquals("reportForTest0", 0,
        CudaSanitizer.reportForTest0(text.getBytes(StandardCharsets.UTF_8), onNewThread));
  }

  /** The modes are the C constants, and each survives a round trip through ctorch. */
  @Test
  public void modeRoundTrip() {
    assertEquals(ctorch.CT_CSAN_OFF, CudaSanitizer.Mode.OFF.code());
    assertEquals(ctorch.CT_CSAN_ERROR, CudaSanitizer.Mode.ERROR.code());
    assertEquals(ctorch.CT_CSAN_WARN, CudaSanitizer.Mode.WARN.code());
    assertEquals(3, CudaSanitizer.Mode.values().length);
    for (CudaSanitizer.Mode m : new CudaSanitizer.Mode[] {CudaSanitizer.Mode.WARN,
        CudaSanitizer.Mode.OFF, CudaSanitizer.Mode.ERROR, CudaSanitizer.Mode.OFF}) {
      CudaSanitizer.setMode(m);
      assertEquals(m, CudaSanitizer.mode());
      int[] raw = {-1};
      assertEquals(0, ctorch.ct_cuda_sanitizer_mode(raw));
      assertEquals(m.code(), raw[0]);
    }
    CudaSanitizer.enable(); // enable_cuda_sanitizer(): error mode
    assertEquals(CudaSanitizer.Mode.ERROR, CudaSanitizer.mode());
    CudaSanitizer.enable();
    assertEquals(CudaSanitizer.Mode.ERROR, CudaSanitizer.mode());
  }

  /** A mode C does not know is C's argument error; null and unknown codes are refused in Java. */
  @Test
  public void invalidModeRejected() {
    CudaSanitizer.setMode(CudaSanitizer.Mode.WARN);
    CtorchException e = assertThrows(CtorchException.class, () -> CudaSanitizer.setMode(3));
    assertEquals(CtorchException.ARGUMENT, e.code());
    assertEquals("CT_ERR_ARGUMENT", e.statusName());
    assertTrue(e.detail(), e.detail().contains("unknown sanitizer mode 3"));
    e = assertThrows(CtorchException.class, () -> CudaSanitizer.setMode(-1));
    assertEquals(CtorchException.ARGUMENT, e.code());
    assertEquals(CudaSanitizer.Mode.WARN, CudaSanitizer.mode()); // a refused mode changes nothing
    assertThrows(NullPointerException.class, () -> CudaSanitizer.setMode((CudaSanitizer.Mode) null));
    IllegalArgumentException u =
        assertThrows(IllegalArgumentException.class, () -> CudaSanitizer.Mode.fromCode(7));
    assertTrue(u.getMessage(), u.getMessage().contains("ct_csan_mode 7"));
  }

  /** CPU tensors are never checked: ops on them work in error mode and report nothing. */
  @Test
  public void cpuOpsInErrorModeSucceed() {
    CudaSanitizer.enable();
    long n = CudaSanitizer.reportCount();
    assertTrue("report count " + n, n >= 0);
    try (Tensor a = Tensor.ones(4);
        Tensor b = a.add(a)) {
      b.add_(a);
      try (Tensor c = b.sum()) {
        assertEquals(12.0, c.item(), 0.0);
      }
    }
    assertEquals(n, CudaSanitizer.reportCount());
    assertEquals(CudaSanitizer.Mode.ERROR, CudaSanitizer.mode());
  }

  /** Makes a callback that adds to {@code into} and is referenced from nowhere else. */
  private static Consumer<String> collector(List<String> into) {
    return r -> into.add(Thread.currentThread().getName() + "|" + r);
  }

  /**
   * The callback: kept while registered (the test drops its own reference and collects garbage
   * first), called with the report's exact text (UTF-8, outside the Basic Multilingual Plane
   * too) on this thread and on a native thread the JVM has never seen (attached for the call
   * under its own name), released once cleared; after clearing nothing reaches it.
   */
  @Test
  public void callbackKeptAliveAndCalledFromAnyThread() throws InterruptedException {
    List<String> got = Collections.synchronizedList(new ArrayList<>());
    Consumer<String> cb = collector(got);
    WeakReference<Consumer<String>> weak = new WeakReference<>(cb);
    CudaSanitizer.setCallback(cb);
    cb = null;
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(10);
    }
    assertNotNull("the registered callback was collected", weak.get());
    String text = "CSAN race \u00fc \ud83d\ude00\nsum\nnormal_\n";
    report(text, false);
    report(text, true);
    assertEquals(2, got.size());
    assertEquals(Thread.currentThread().getName() + "|" + text, got.get(0));
    assertEquals("ctorch-csan-report|" + text, got.get(1));
    // replacing it releases the first one
    List<String> second = Collections.synchronizedList(new ArrayList<>());
    CudaSanitizer.setCallback(collector(second));
    report("again", true);
    assertEquals(List.of("ctorch-csan-report|again"), second);
    assertEquals(2, got.size());
    CudaSanitizer.setCallback(null);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (weak.get() != null && System.nanoTime() < deadline) {
      System.gc();
      Thread.sleep(20);
    }
    assertNull("a replaced callback is no longer kept", weak.get());
    report("after clearing\n", false); // goes to stderr, not to a callback
    assertEquals(1, second.size());
  }

  /** A callback that throws: nothing escapes into C or into the calling thread, the next works. */
  @Test
  public void throwingCallbackDoesNotEscape() {
    List<String> got = new ArrayList<>();
    CudaSanitizer.setCallback(r -> {
      got.add(r);
      throw new IllegalStateException("thrown by the test's sanitizer callback (expected)");
    });
    report("first\n", false);
    report("second\n", true);
    assertEquals(List.of("first\n", "second\n"), got);
    try (Tensor a = Tensor.ones(2);
        Tensor b = a.mul(3.0)) {
      assertValues(b, 3f, 3f);
    }
  }

  /** The status CT_ERR_DATA_RACE becomes its own subclass, with the code and the message. */
  @Test
  public void dataRaceStatusIsItsOwnException() {
    assertEquals(202, CtorchException.DATA_RACE);
    CtorchException e = Native.lastError(CtorchException.DATA_RACE);
    assertTrue(e.getClass().getName(), e instanceof CtorchDataRaceException);
    assertEquals(202, e.code());
    assertEquals("CT_ERR_DATA_RACE", e.statusName());
  }

  /** A = empty(100, 100) on cuda, normal_ on the current stream. */
  private static Tensor cudaNormal() {
    return Tensor.empty(new long[] {100, 100}, DType.FLOAT32, Device.cuda(0)).normal_(0.0, 1.0);
  }

  /** sum(a) on a new side stream, after side.waitStream(current) when wait is set. */
  private static void sumOnSideStream(Tensor a, boolean wait) {
    try (Stream current = Stream.currentStream();
        Stream side = Stream.create(0)) {
      if (wait) {
        side.waitStream(current);
      }
      try (Cuda.StreamGuard g = Cuda.stream(side);
          Tensor b = a.sum()) {
        assertEquals(a.device(), b.device());
      } finally {
        Cuda.synchronize(); // a stays valid until side is done with it
      }
    }
  }

  /**
   * The seed's side-stream example in warn mode: sum() on a side stream without waiting for
   * normal_() on the current stream is reported through the Java callback (both ops named);
   * with side.waitStream(current) first it is silent.
   */
  @Test
  public void gpuSideStreamRaceReportedThroughCallback() {
    assumeCuda();
    List<String> got = Collections.synchronizedList(new ArrayList<>());
    CudaSanitizer.setMode(CudaSanitizer.Mode.OFF);
    CudaSanitizer.setMode(CudaSanitizer.Mode.WARN);
    CudaSanitizer.setCallback(got::add);
    System.gc();
    long n0 = CudaSanitizer.reportCount();
    try (Tensor a = cudaNormal()) {
      sumOnSideStream(a, false);
    }
    assertEquals(got.toString(), 1, got.size());
    String r = got.get(0);
    assertTrue(r, r.contains("CSAN detected a possible data race"));
    assertTrue(r, r.contains("during kernel:\nsum\nreading from argument(s) self\n"));
    assertTrue(r, r.contains("during kernel:\nnormal_\nwriting to argument(s) self\n"));
    assertEquals(n0 + 1, CudaSanitizer.reportCount());
    try (Tensor a = cudaNormal()) {
      sumOnSideStream(a, true);
    }
    assertEquals(got.toString(), 1, got.size());
    assertEquals(n0 + 1, CudaSanitizer.reportCount());
  }

  /** The same race in error mode: the op throws CtorchDataRaceException; with the wait it works. */
  @Test
  public void gpuSideStreamRaceThrowsInErrorMode() {
    assumeCuda();
    CudaSanitizer.setMode(CudaSanitizer.Mode.OFF);
    CudaSanitizer.enable();
    long n0 = CudaSanitizer.reportCount();
    try (Tensor a = cudaNormal()) {
      CtorchDataRaceException e =
          assertThrows(CtorchDataRaceException.class, () -> sumOnSideStream(a, false));
      assertEquals(CtorchException.DATA_RACE, e.code());
      assertTrue(e.detail(), e.detail().contains("The CUDA stream sanitizer detected 1 error (sum"));
      assertTrue(e.detail(), e.detail().contains("during kernel:\nnormal_\nwriting to argument(s) self\n"));
    }
    assertEquals(n0 + 1, CudaSanitizer.reportCount());
    try (Tensor a = cudaNormal()) {
      sumOnSideStream(a, true);
    }
    assertEquals(n0 + 1, CudaSanitizer.reportCount());
  }
}
