package org.ctorch;

import java.util.Objects;

import org.ctorch.swig.ctorch;

/**
 * A CUDA event: {@code torch.cuda.Event} for Java (section 14 of ctorch.h).
 *
 * <p>Ownership is that of {@link Tensor} and {@link Stream}: an {@code Event} owns one
 * reference to a native event handle; close it (idempotent) or the {@link java.lang.ref.Cleaner} releases
 * it after the object becomes unreachable. A closed event throws a {@link CtorchException}
 * with code 102.
 *
 * <p>As in PyTorch the CUDA event itself is created lazily, at the first {@link #record}, on
 * the recording stream's device; so {@link #create} works on a machine without a GPU, and an
 * event never recorded is complete ({@link #query()} is true, {@link #synchronize()} returns
 * at once). Recording or waiting needs a GPU (code 301 without one).
 *
 * <p>{@code equals} is identity, as for any resource.
 */
public final class Event extends NativeObject {
  static {
    Native.ensureLoaded();
  }

  private final boolean enableTiming;
  private final boolean blocking;

  private Event(long handle, boolean enableTiming, boolean blocking) {
    super(handle, ctorch::ct_event_release, "Event");
    this.enableTiming = enableTiming;
    this.blocking = blocking;
  }

  /** {@code torch.cuda.Event()}: no timing, not blocking. */
  public static Event create() {
    return create(false, false);
  }

  /** {@code torch.cuda.Event(enable_timing=enableTiming)}. */
  public static Event create(boolean enableTiming) {
    return create(enableTiming, false);
  }

  /** {@code torch.cuda.Event(enable_timing=enableTiming, blocking=blocking)}. */
  public static Event create(boolean enableTiming, boolean blocking) {
    int flags = (enableTiming ? Cuda.EVENT_ENABLE_TIMING : 0) | (blocking ? Cuda.EVENT_BLOCKING : 0);
    long h = Native.longOut(out -> ctorch.ct_event_create(flags, out));
    try {
      return new Event(h, enableTiming, blocking);
    } catch (Throwable e) {
      ctorch.ct_event_release(h);
      throw e;
    }
  }

  /** Whether the event was created with {@code enable_timing=True}. */
  public boolean isTimingEnabled() {
    return enableTiming;
  }

  /** Whether the event was created with {@code blocking=True}. */
  public boolean isBlocking() {
    return blocking;
  }

  /** {@code event.record()}: records on this thread's current stream of the current device. */
  public void record() {
    record(null);
  }

  /** {@code event.record(stream)}; null is the current stream of the current device. */
  public void record(Stream stream) {
    Native.run(this, stream, () -> ctorch.ct_event_record(handle(), stream == null ? 0 : stream.handle()));
  }

  /**
   * {@code event.wait(stream)}: work queued on stream after the call waits for this event;
   * null is the current stream of the current device ({@code event.wait()}). (Java's
   * {@code Object.wait()} takes the no-argument name, hence the explicit null.)
   */
  public void wait(Stream stream) {
    Native.run(this, stream, () -> ctorch.ct_event_wait(handle(), stream == null ? 0 : stream.handle()));
  }

  /**
   * {@code event.query()}: true when the work recorded by this event is done (never waits;
   * true for an event never recorded).
   */
  public boolean query() {
    return Native.intOut(this, out -> ctorch.ct_event_query(handle(), out)) != 0;
  }

  /** {@code event.synchronize()}: waits until the work recorded by this event is done. */
  public void synchronize() {
    Native.run(this, () -> ctorch.ct_event_synchronize(handle()));
  }

  /**
   * {@code start.elapsed_time(end)}: milliseconds between this event and end, both created
   * with timing enabled, recorded, and end complete. Otherwise code 200 (CT_ERR_STATE).
   */
  public double elapsedTime(Event end) {
    Objects.requireNonNull(end, "end");
    double[] out = {0};
    Native.run(this, end, () -> ctorch.ct_event_elapsed_time(handle(), end.handle(), out));
    return out[0];
  }

  /**
   * Another owning reference to this very same native event (ct_event_retain), with its own
   * lifetime. Close it independently.
   */
  public Event newReference() {
    return newReference(ctorch::ct_event_retain, ctorch::ct_event_release, h -> new Event(h, enableTiming, blocking));
  }

  /** E.g. {@code <torch.cuda.Event enable_timing=true blocking=false>}. */
  @Override
  public String toString() {
    return "<torch.cuda.Event enable_timing=" + enableTiming + " blocking=" + blocking
        + (isClosed() ? " (closed)>" : ">");
  }
}
