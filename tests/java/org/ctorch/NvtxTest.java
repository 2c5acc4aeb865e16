package org.ctorch;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;

import org.ctorch.swig.ctorch;
import org.junit.Test;

/**
 * {@link Nvtx} (section 22): what the binding adds to the C calls. The suite's Bazel target runs
 * under the recording NVTX injection library (tests/capi/with_nvtx_inject.sh sets
 * CTORCH_NVTX_RECORD): then push/pop must return the tool's per-thread depths and every message
 * must reach the tool as its UTF-8 bytes; run without it (the GPU bundle), push and pop return
 * -2 and range ids are 0, NVTX's values without a tool.
 */
public class NvtxTest extends CtorchTestCase {
  static final String RECORD = System.getenv("CTORCH_NVTX_RECORD");
  static final boolean INJECTED = RECORD != null && !RECORD.isEmpty();

  /** The depth push/pop return for a range at depth d: d under the tool, -2 without one. */
  static int depth(int d) {
    return INJECTED ? d : Nvtx.NO_PUSH_POP_TRACKING;
  }

  /** One line of the tool's record: call, thread id, value, message bytes. */
  record Line(String call, long tid, long value, String hex) {}

  static List<Line> record() throws IOException {
    List<Line> out = new ArrayList<>();
    for (String l : Files.readAllLines(Paths.get(RECORD), StandardCharsets.UTF_8)) {
      String[] f = l.split("\t", -1);
      out.add(new Line(f[0], Long.parseLong(f[1]), Long.parseLong(f[2]), f[3]));
    }
    return out;
  }

  static String hex(String s) {
    StringBuilder b = new StringBuilder();
    for (byte x : s.getBytes(StandardCharsets.UTF_8)) {
      b.append(String.format("%02x", x & 0xff));
    }
    return b.toString();
  }

  /** The record's lines for call with message msg. */
  static List<Line> lines(String call, String msg) throws IOException {
    List<Line> out = new ArrayList<>();
    for (Line l : record()) {
      if (l.call().equals(call) && l.hex().equals(hex(msg))) {
        out.add(l);
      }
    }
    return out;
  }

  static Line only(String call, String msg) throws IOException {
    List<Line> l = lines(call, msg);
    assertEquals(call + " \"" + msg + "\" in the record", 1, l.size());
    return l.get(0);
  }

  static String unique(String what) {
    return what + " " + System.nanoTime();
  }

  /** Pushes msgs in order, then pops them all, checking each depth. */
  static void nest(String... msgs) {
    for (int i = 0; i < msgs.length; i++) {
      assertEquals("push " + msgs[i], depth(i), Nvtx.rangePush(msgs[i]));
    }
    for (int i = msgs.length - 1; i >= 0; i--) {
      assertEquals("pop " + msgs[i], depth(i), Nvtx.rangePop());
    }
  }

  @Test
  public void pushPopReturnTheDepth() {
    nest(unique("java outer"), "java inner", "java innermost");
    // a pop with nothing pushed: the tool's error value (-1 here), passed through
    assertEquals(INJECTED ? -1 : -2, Nvtx.rangePop());
  }

  @Test
  public void messagesReachTheToolAsUtf8() throws IOException {
    // two bytes, three bytes and four bytes (outside the BMP: not JNI's modified UTF-8)
    String text = unique("java étape 步 \uD83D\uDE80");
    Nvtx.mark(text);
    nest(text, "");
    long id = Nvtx.rangeStart(text);
    if (!INJECTED) {
      assertEquals(0, id);
      Nvtx.rangeEnd(id);
      return;
    }
    assertNotEquals(0, id);
    Nvtx.rangeEnd(id);
    assertEquals(0, only("mark", text).value());
    assertEquals(0, only("push", text).value());
    assertEquals(id, only("start", text).value());
    assertTrue(lines("push", "").stream().anyMatch(l -> l.value() == 1));
    assertTrue(record().stream().anyMatch(l -> l.call().equals("end") && l.value() == id));
  }

  @Test
  public void rangeIdsCrossThreads() throws Exception {
    String msg = unique("java started");
    long id = Nvtx.rangeStart(msg);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread t = new Thread(() -> {
      try {
        Nvtx.rangeEnd(id);
      } catch (Throwable e) {
        failure.set(e);
      }
    });
    t.start();
    t.join();
    assertEquals(null, failure.get());
    if (INJECTED) {
      Line start = only("start", msg);
      Line end = record().stream().filter(l -> l.call().equals("end") && l.value() == id)
          .findFirst().orElseThrow();
      assertNotEquals("ended on another thread", start.tid(), end.tid());
    }
  }

  @Test
  public void nullAndNulMessages() {
    assertThrows(NullPointerException.class, () -> Nvtx.mark(null));
    assertThrows(NullPointerException.class, () -> Nvtx.rangePush(null));
    assertThrows(NullPointerException.class, () -> Nvtx.rangeStart(null));
    assertThrows(NullPointerException.class, () -> Nvtx.range(null));
    assertThrows(NullPointerException.class, () -> Nvtx.range(null, 1));
    for (ThrowingRunnableCall r : new ThrowingRunnableCall[] {
        () -> Nvtx.mark("a\0b"), () -> Nvtx.rangePush("\0"), () -> Nvtx.rangeStart("x\0"),
        () -> Nvtx.range("a\0%d", 1)}) {
      CtorchException e = assertStatus(CtorchException.ARGUMENT, r::run);
      assertTrue(e.detail(), e.detail().contains("contains a NUL character"));
    }
    // the raw wrapper passes a null String as NULL: the C layer's error
    assertEquals(CtorchException.NULL_POINTER, ctorch.ct_nvtx_mark(null));
    assertTrue(Native.lastErrorMessageUtf8().contains("argument 'msg' is NULL"));
    // nothing was left pushed by the refused calls
    nest("after refusals");
  }

  interface ThrowingRunnableCall {
    void run();
  }

  @Test
  public void scopedRangePopsWhenTheBodyThrows() throws IOException {
    String msg = unique("java step");
    RuntimeException thrown = assertThrows(RuntimeException.class, () -> {
      try (Nvtx.Range r = Nvtx.range("%s %d", msg, 7)) {
        assertEquals(depth(0), r.depth());
        try (Nvtx.Range inner = Nvtx.range("inner")) {
          assertEquals(depth(1), inner.depth());
          throw new RuntimeException("body failed");
        }
      }
    });
    assertEquals("body failed", thrown.getMessage());
    // both ranges were popped: a new push is at depth 0 again
    nest("after the scope");
    if (INJECTED) {
      assertEquals(0, only("push", msg + " 7").value());
    }
  }

  @Test
  public void scopedRangeClosesOnceOnItsThread() throws Exception {
    Nvtx.Range r = Nvtx.range("java closed twice");
    assertFalse(r.isClosed());
    Throwable other = onThread(r::close);
    assertTrue(String.valueOf(other), other instanceof IllegalStateException);
    assertFalse(r.isClosed());
    r.close();
    r.close(); // idempotent: one pop only
    assertTrue(r.isClosed());
    nest("after close");
  }

  @Test
  public void depthsArePerThread() throws Exception {
    CyclicBarrier barrier = new CyclicBarrier(2);
    int[][] depths = new int[2][4];
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread[] threads = new Thread[2];
    for (int i = 0; i < 2; i++) {
      int k = i;
      threads[i] = new Thread(() -> {
        try {
          depths[k][0] = Nvtx.rangePush("java thread " + k + " outer");
          barrier.await(); // both threads hold one range now
          depths[k][1] = Nvtx.rangePush("java thread " + k + " inner");
          barrier.await();
          depths[k][2] = Nvtx.rangePop();
          depths[k][3] = Nvtx.rangePop();
        } catch (Throwable e) {
          failure.set(e);
        }
      });
      threads[i].start();
    }
    for (Thread t : threads) {
      t.join();
    }
    assertEquals(null, failure.get());
    for (int k = 0; k < 2; k++) {
      assertEquals(depth(0), depths[k][0]);
      assertEquals(depth(1), depths[k][1]);
      assertEquals(depth(1), depths[k][2]);
      assertEquals(depth(0), depths[k][3]);
    }
  }
}
