package org.ctorch;

import java.util.Objects;

import org.ctorch.swig.ctorch;

/**
 * A CUDA stream: {@code torch.cuda.Stream} for Java (section 13 of ctorch.h).
 *
 * <p><b>Ownership</b> is that of {@link Tensor}: a {@code Stream} owns one reference to a
 * native stream handle; close it (try-with-resources; {@link #close()} is idempotent), or the
 * {@link java.lang.ref.Cleaner} releases it some time after the object becomes unreachable.
 * Every factory ({@link #create}, {@link #currentStream}, {@link #defaultStream},
 * {@link #external}) returns a new object the caller owns, also for the default stream.
 * Closing a {@code Stream} never destroys work queued on it, and a stream that is some
 * thread's current stream stays alive as long as it is current. Using a closed stream throws
 * a {@link CtorchException} with code 102 (CT_ERR_INVALID_HANDLE). Streams do not belong to
 * a {@link TensorScope}.
 *
 * <p><b>Equality</b> is PyTorch's: two {@code Stream} objects are equal when they are on the
 * same device and wrap the same {@code cudaStream_t} ({@link #cudaHandle()}), e.g. two
 * objects for the default stream of cuda:0. Device and handle never change, so
 * {@code equals}, {@code hashCode} and {@code toString} also work on a closed stream.
 *
 * <p><b>Without a GPU</b> every factory throws a {@link CtorchException} with code 301
 * (CT_ERR_CUDA_UNAVAILABLE): no {@code Stream} can exist there.
 *
 * <p>The current stream is per thread and per device, as in PyTorch; use
 * {@link Cuda#stream(Stream)} ({@code with torch.cuda.stream(s):}) to make a stream current
 * for a block and restore the previous one (and the previous device) afterwards.
 */
public final class Stream extends NativeObject {
  static {
    Native.ensureLoaded();
  }

  /** {@code torch.cuda.Stream.priority_range()}: (least, greatest); lower is higher priority. */
  public record PriorityRange(int least, int greatest) {}

  private final int deviceIndex;
  private final long cudaHandle;

  private Stream(long handle, int deviceIndex, long cudaHandle) {
    super(handle, ctorch::ct_stream_release, "Stream");
    this.deviceIndex = deviceIndex;
    this.cudaHandle = cudaHandle;
  }

  /** Takes ownership of a [new reference] stream handle; on failure the handle is released. */
  static Stream wrap(long handle) {
    try {
      int[] dev = {0};
      Native.check(ctorch.ct_stream_device(handle, dev));
      long[] cs = {0};
      Native.check(ctorch.ct_stream_cuda_handle(handle, cs));
      return new Stream(handle, dev[0], cs[0]);
    } catch (Throwable e) {
      ctorch.ct_stream_release(handle);
      throw e;
    }
  }

  /**
   * A {@code Stream} over a handle it now owns, with the given device and cudaStream_t, asking
   * the library nothing: for the suites, which have no other way to make a Stream object on a
   * machine without a GPU (they adopt foreign handles and check that the C layer rejects them).
   */
  static Stream adopt(long handle, int deviceIndex, long cudaHandle) {
    return new Stream(handle, deviceIndex, cudaHandle);
  }

  private static Stream create(Native.LongOutCall c) {
    return wrap(Native.longOut(c));
  }

  /* ============================================================================================
   * Factories
   * ========================================================================================== */

  /** {@code torch.cuda.Stream()}: a new stream on the current device, priority 0. */
  public static Stream create() {
    return create(-1, 0);
  }

  /** {@code torch.cuda.Stream(device)}: a new stream on device (-1: current), priority 0. */
  public static Stream create(int device) {
    return create(device, 0);
  }

  /**
   * {@code torch.cuda.Stream(device, priority)}: a new stream on device (-1: the current
   * device). Lower numbers are higher priorities; 0 is the default; values outside
   * {@link #priorityRange()} are clamped into it, as CUDA and PyTorch do.
   */
  public static Stream create(int device, int priority) {
    return create(out -> ctorch.ct_stream_create(device, priority, out));
  }

  /**
   * {@code torch.cuda.Stream(device="cuda:1", priority=p)}; {@code Device.CUDA} (no index)
   * is the current device. A CPU device throws {@link IllegalArgumentException}.
   */
  public static Stream create(Device device, int priority) {
    return create(Cuda.cudaIndex(device), priority);
  }

  /** {@code torch.cuda.Stream.priority_range()}: (least, greatest), e.g. (0, -5). */
  public static PriorityRange priorityRange() {
    int[] least = {0};
    int[] greatest = {0};
    Native.check(ctorch.ct_stream_priority_range(least, greatest));
    return new PriorityRange(least[0], greatest[0]);
  }

  /** {@code torch.cuda.default_stream()}: the default stream of the current device. */
  public static Stream defaultStream() {
    return defaultStream(-1);
  }

  /** {@code torch.cuda.default_stream(device)} (-1: the current device). */
  public static Stream defaultStream(int device) {
    return create(out -> ctorch.ct_stream_default(device, out));
  }

  /** {@code torch.cuda.current_stream()}: this thread's current stream of the current device. */
  public static Stream currentStream() {
    return currentStream(-1);
  }

  /** {@code torch.cuda.current_stream(device)} (-1: the current device), for this thread. */
  public static Stream currentStream(int device) {
    return create(out -> ctorch.ct_stream_current(device, out));
  }

  /**
   * {@code torch.cuda.set_stream(s)}: makes s the current stream of its device for this
   * thread (until changed; prefer {@link Cuda#stream(Stream)}, which restores it).
   */
  public static void setCurrent(Stream s) {
    Objects.requireNonNull(s, "stream");
    Native.run(s, () -> ctorch.ct_stream_set_current(s.handle()));
  }

  /**
   * {@code torch.cuda.ExternalStream(stream_ptr)}: wraps a {@code cudaStream_t} created and
   * owned by other code (its bits as a long) on the current device. ctorch never destroys it;
   * keep it alive while ctorch may use it.
   */
  public static Stream external(long cudaStream) {
    return external(cudaStream, -1);
  }

  /** {@code torch.cuda.ExternalStream(stream_ptr, device)} (-1: the current device). */
  public static Stream external(long cudaStream, int device) {
    return create(out -> ctorch.ct_stream_external(cudaStream, device, out));
  }

  /* ============================================================================================
   * Properties and operations
   * ========================================================================================== */

  /** {@code stream.device_index}: the CUDA device index. */
  public int deviceIndex() {
    return Native.intOut(this, out -> ctorch.ct_stream_device(handle(), out));
  }

  /** {@code stream.device}: {@code cuda:N}. */
  public Device device() {
    return Device.cuda(deviceIndex());
  }

  /** {@code stream.priority}. */
  public int priority() {
    return Native.intOut(this, out -> ctorch.ct_stream_priority(handle(), out));
  }

  /** {@code stream.cuda_stream}: the {@code cudaStream_t}'s bits (0 for the default stream). */
  public long cudaHandle() {
    return Native.longOut(this, out -> ctorch.ct_stream_cuda_handle(handle(), out));
  }

  /** {@code stream.synchronize()}: waits until all work queued on this stream is done. */
  public void synchronize() {
    Native.run(this, () -> ctorch.ct_stream_synchronize(handle()));
  }

  /** {@code stream.query()}: true when all work queued on this stream is done (never waits). */
  public boolean query() {
    return Native.intOut(this, out -> ctorch.ct_stream_query(handle(), out)) != 0;
  }

  /**
   * {@code stream.wait_stream(other)}: work queued on this stream after the call waits for
   * the work queued on other before it.
   */
  public void waitStream(Stream other) {
    Objects.requireNonNull(other, "other");
    Native.run(this, other, () -> ctorch.ct_stream_wait_stream(handle(), other.handle()));
  }

  /** {@code stream.wait_event(event)}: work queued on this stream after the call waits for it. */
  public void waitEvent(Event event) {
    Objects.requireNonNull(event, "event");
    Native.run(this, event, () -> ctorch.ct_stream_wait_event(handle(), event.handle()));
  }

  /** {@code stream.record_event(event)}: records event on this stream; returns event. */
  public Event recordEvent(Event event) {
    Objects.requireNonNull(event, "event");
    Native.run(this, event, () -> ctorch.ct_stream_record_event(handle(), event.handle()));
    return event;
  }

  /**
   * {@code stream.record_event()}: records a new event (default flags: no timing, not
   * blocking) on this stream and returns it; the caller owns (closes) it.
   */
  public Event recordEvent() {
    Event e = Event.create();
    try {
      return recordEvent(e);
    } catch (Throwable t) {
      e.close();
      throw t;
    }
  }

  /**
   * A per-stream memory figure, which PyTorch lacks (ct_cuda_memory_stream_stat): a
   * {@code memory_stats}-style value of the blocks and segments the caching allocator handed
   * out while this stream was current on its device. {@code key} is one of
   * {@code allocation}, {@code allocated_bytes}, {@code requested_bytes}, {@code active},
   * {@code active_bytes}, {@code segment}, {@code reserved_bytes}, followed by
   * {@code .current}, {@code .peak}, {@code .allocated} or {@code .freed}, e.g.
   * {@code "allocated_bytes.current"}. Peaks and totals reset with the device's
   * ({@link Cuda#resetPeakMemoryStats(int)}, {@link Cuda#resetAccumulatedMemoryStats(int)}); a
   * stream that never allocated reads 0. An unknown key throws code 100 (CT_ERR_ARGUMENT), a
   * closed stream code 102, another backend than the native caching allocator code 500
   * (CT_ERR_NOT_SUPPORTED); a null key {@link NullPointerException}.
   */
  public long memoryStat(String key) {
    Objects.requireNonNull(key, "key");
    return Native.longOut(this, out -> ctorch.ct_cuda_memory_stream_stat(handle(), key, out));
  }

  /* ============================================================================================
   * Lifetime, equality, printing
   * ========================================================================================== */

  /**
   * Another owning reference to this very same native stream (ct_stream_retain), with its own
   * lifetime. Close it independently.
   */
  public Stream newReference() {
    return newReference(ctorch::ct_stream_retain, ctorch::ct_stream_release, h -> new Stream(h, deviceIndex, cudaHandle));
  }

  /** Equal when on the same device with the same {@code cudaStream_t}, as torch's streams. */
  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Stream)) {
      return false;
    }
    Stream s = (Stream) o;
    return deviceIndex == s.deviceIndex && cudaHandle == s.cudaHandle;
  }

  @Override
  public int hashCode() {
    return 31 * Long.hashCode(cudaHandle) + deviceIndex;
  }

  /** As torch prints it: {@code <torch.cuda.Stream device=cuda:0 cuda_stream=0x0>}. */
  @Override
  public String toString() {
    return "<torch.cuda.Stream device=cuda:" + deviceIndex + " cuda_stream=0x"
        + Long.toHexString(cudaHandle) + (isClosed() ? " (closed)>" : ">");
  }
}
