package org.ctorch;

import java.lang.ref.Cleaner;

import org.ctorch.swig.ctorch;

/**
 * {@link Cuda}'s stream functions (with {@link #isCurrentStreamCapturing()}, see {@link CudaGraph})
 * and the stream guard.
 */
abstract class CudaStreams extends CudaPlanCache {
  /* ============================================================================================
   * torch.cuda's stream functions (the same as Stream's static methods) and the stream guard
   * ========================================================================================== */

  /** {@code torch.cuda.current_stream()}; see {@link Stream#currentStream()}. */
  public static Stream currentStream() {
    return Stream.currentStream(-1);
  }

  /** {@code torch.cuda.current_stream(device)}; see {@link Stream#currentStream(int)}. */
  public static Stream currentStream(int device) {
    return Stream.currentStream(device);
  }

  /** {@code torch.cuda.default_stream()}; see {@link Stream#defaultStream()}. */
  public static Stream defaultStream() {
    return Stream.defaultStream(-1);
  }

  /** {@code torch.cuda.default_stream(device)}; see {@link Stream#defaultStream(int)}. */
  public static Stream defaultStream(int device) {
    return Stream.defaultStream(device);
  }

  /** {@code torch.cuda.set_stream(s)}; see {@link Stream#setCurrent(Stream)}. */
  public static void setStream(Stream s) {
    Stream.setCurrent(s);
  }

  /**
   * {@code torch.cuda.is_current_stream_capturing()}: true while this thread's current stream
   * of the current device is capturing a {@link CudaGraph} (false without a GPU).
   */
  public static boolean isCurrentStreamCapturing() {
    return Native.intOut(ctorch::ct_cuda_is_current_stream_capturing) != 0;
  }

  /**
   * The guard of {@code with torch.cuda.stream(s):}: s's device and s (as its current stream)
   * were made current when the guard was created; {@link #close()} restores the previous
   * current stream of that device and the previous device. Use with try-with-resources, on
   * one thread:
   *
   * <pre>{@code
   * try (Stream s = Stream.create(); Cuda.StreamGuard g = Cuda.stream(s)) {
   *   y = x.mul(2);                   // queued on s
   * }                                 // the previous stream and device are current again
   * }</pre>
   *
   * The guard holds a reference to the previous stream (ct_stream_guard_enter's
   * {@code prev_stream}); closing the guard gives it back. A guard never closed cannot restore
   * anything (the collector's thread is not the guard's thread), but its reference is still
   * released by the {@link Cleaner} once the guard is unreachable.
   */
  public static final class StreamGuard implements AutoCloseable {
    private final NativeHandle previous; // null: the no-op guard of stream(null)
    private final Cleaner.Cleanable cleanable;
    private final int previousDevice;
    private final Thread owner = Thread.currentThread();

    StreamGuard(long previousStream, int previousDevice) {
      if (previousStream == 0) {
        this.previous = null;
        this.cleanable = null;
      } else {
        this.previous = new NativeHandle(previousStream, ctorch::ct_stream_release);
        this.cleanable = NativeHandle.CLEANER.register(this, previous);
      }
      this.previousDevice = previousDevice;
    }

    /** The device current before the guard, which {@link #close()} restores (-1: none). */
    public int previousDevice() {
      return previousDevice;
    }

    /** True once closed (always true for the no-op guard of {@code stream(null)}). */
    public boolean isClosed() {
      return previous == null || previous.get() == 0;
    }

    /**
     * Restores the previous current stream and device (ct_stream_guard_exit). Idempotent.
     * Must run on the thread that made the guard ({@link IllegalStateException} otherwise).
     * When the restore fails (a {@link CtorchException}), the previous stream's reference is
     * still given back.
     */
    @Override
    public void close() {
      if (isClosed()) {
        return;
      }
      Native.checkClosingThread(owner, "a Cuda.StreamGuard", "made");
      long h = previous.take();
      cleanable.clean(); // the handle is taken: this only unregisters
      if (h == 0) {
        return;
      }
      int st = ctorch.ct_stream_guard_exit(h, previousDevice);
      if (st != Native.CT_OK) {
        CtorchException e = Native.lastError(st); // read before the release below
        ctorch.ct_stream_release(h); // guard_exit releases only on success
        throw e;
      }
    }
  }

  /**
   * {@code with torch.cuda.stream(s):} makes s's device current and s its current stream
   * until the guard is closed. {@code stream(null)} is a guard that does nothing, as torch's
   * {@code stream(None)}. When the guard cannot be made (a closed stream: code 102), nothing
   * changes and nothing is left behind.
   */
  public static StreamGuard stream(Stream s) {
    if (s == null) {
      return new StreamGuard(0, -1);
    }
    long[] prev = {0};
    int[] prevDevice = {-1};
    Native.run(s, () -> ctorch.ct_stream_guard_enter(s.handle(), prev, prevDevice));
    try {
      return new StreamGuard(prev[0], prevDevice[0]);
    } catch (Throwable e) {
      ctorch.ct_stream_guard_exit(prev[0], prevDevice[0]);
      throw e;
    }
  }
}
