package org.ctorch;

import java.util.Objects;

import org.ctorch.swig.ctorch;

/**
 * {@code torch.cuda.nvtx} for Java (section 22 of ctorch.h): marks and ranges that Nsight
 * Systems ({@code nsys profile -t nvtx,cuda java ...}) and other NVTX tools show on the
 * timeline. No GPU is needed: without a profiler attached every call is a cheap no-op.
 *
 * <p>The values are NVTX's, passed through as torch does: {@link #rangePush} and
 * {@link #rangePop} return the depth the tool reports (0 for the outermost range), and -2
 * ({@link #NO_PUSH_POP_TRACKING}) when no tool is attached; {@link #rangeStart} returns the
 * tool's range id, 0 without a tool.
 *
 * <p>Pushed ranges nest per OS thread, so push and pop on the same thread; {@link #range}
 * does both around a block:
 *
 * <pre>{@code
 * try (Nvtx.Range r = Nvtx.range("step %d", i)) {
 *   ...
 * }
 * }</pre>
 *
 * <p>Messages reach the tool as UTF-8. A {@code null} message throws
 * {@link NullPointerException}; a message containing a NUL character (which would cut the C
 * string short) a {@link CtorchException} with code 100 (CT_ERR_ARGUMENT).
 */
public final class Nvtx {
  static {
    Native.ensureLoaded();
  }

  private Nvtx() {}

  /** What push and pop return when no tool is attached (NVTX_NO_PUSH_POP_TRACKING). */
  public static final int NO_PUSH_POP_TRACKING = -2;

  /** {@code torch.cuda.nvtx.mark(msg)}: an instantaneous event. */
  public static void mark(String msg) {
    String m = message("mark", msg);
    Native.check(ctorch.ct_nvtx_mark(m));
  }

  /**
   * {@code torch.cuda.nvtx.range_push(msg)}: starts a nested range on this thread and returns
   * its zero-based depth as the tool reports it (-2 without a tool).
   */
  public static int rangePush(String msg) {
    String m = message("rangePush", msg);
    return Native.intOut(depth -> ctorch.ct_nvtx_range_push(m, depth));
  }

  /**
   * {@code torch.cuda.nvtx.range_pop()}: ends this thread's innermost pushed range and returns
   * its zero-based depth as the tool reports it (-2 without a tool; negative when the tool
   * reports an error, such as a pop without a push).
   */
  public static int rangePop() {
    return Native.intOut(ctorch::ct_nvtx_range_pop);
  }

  /**
   * {@code torch.cuda.nvtx.range_start(msg)}: starts a range that may end on any thread and
   * returns the tool's id for {@link #rangeEnd} (the 64 bits of NVTX's unsigned id; 0 without
   * a tool).
   */
  public static long rangeStart(String msg) {
    String m = message("rangeStart", msg);
    return Native.longOut(id -> ctorch.ct_nvtx_range_start(m, id));
  }

  /** {@code torch.cuda.nvtx.range_end(id)}: ends the range {@link #rangeStart} returned. */
  public static void rangeEnd(long id) {
    Native.check(ctorch.ct_nvtx_range_end(id));
  }

  /**
   * {@code with torch.cuda.nvtx.range(msg):} pushes a range now and pops it when closed; use
   * with try-with-resources.
   */
  public static Range range(String msg) {
    return new Range(rangePush(msg));
  }

  /**
   * {@code torch.cuda.nvtx.range(msg, *args)}: the message is {@code String.format(format,
   * args)} (torch uses {@code str.format}).
   */
  public static Range range(String format, Object... args) {
    return range(String.format(Objects.requireNonNull(format, "format"), args));
  }

  /** A pushed range; {@link #close()} pops it. */
  public static final class Range implements AutoCloseable {
    private final Thread owner = Thread.currentThread();
    private final int depth;
    private boolean closed;

    private Range(int depth) {
      this.depth = depth;
    }

    /** The depth the push returned (-2 without a tool). */
    public int depth() {
      return depth;
    }

    /** True once closed. */
    public boolean isClosed() {
      return closed;
    }

    /**
     * Pops the range (idempotent). Must run on the thread that opened it, since NVTX nests
     * pushed ranges per thread ({@link IllegalStateException} otherwise).
     */
    @Override
    public void close() {
      if (closed) {
        return;
      }
      Native.checkClosingThread(owner, "an Nvtx.Range", "opened");
      closed = true;
      rangePop();
    }
  }

  private static String message(String where, String msg) {
    Objects.requireNonNull(msg, "msg");
    Native.checkNoNul("Nvtx." + where, msg);
    return msg;
  }
}
