package org.ctorch;

import java.lang.ref.Cleaner;

/**
 * One owned native reference (a stream, an event, or the previous stream a stream guard must
 * restore) and the cleaning action that releases it: the lifetime pattern of {@link Tensor},
 * shared by the classes that hold other kinds of handles.
 *
 * <p>The owner registers {@code this} with {@link #CLEANER} and keeps the returned
 * {@link Cleaner.Cleanable}; {@code close()} calls {@code clean()}, and the garbage collector's
 * clean-up runs the same action if the owner becomes unreachable first. The action holds the
 * handle value and a static release function, never the owner, so the owner can become
 * unreachable. It releases at most once.
 */
final class NativeHandle implements Runnable {
  /** The one Cleaner (one daemon thread) of the binding. */
  static final Cleaner CLEANER = Cleaner.create();

  /** A C release function: ct_stream_release, ct_event_release... (its status is ignored). */
  @FunctionalInterface
  interface Release {
    int release(long handle);
  }

  private final Release release;
  private volatile long handle;

  NativeHandle(long handle, Release release) {
    this.handle = handle;
    this.release = release;
  }

  /** The handle, or 0 once released or taken. */
  long get() {
    return handle;
  }

  /**
   * Takes the handle out (the caller now owns the reference, e.g. to hand it to a C function
   * that releases it itself); afterwards the cleaning action does nothing. Returns 0 when it
   * was already taken or released.
   */
  synchronized long take() {
    long h = handle;
    handle = 0;
    return h;
  }

  @Override
  public void run() {
    long h = take();
    if (h != 0) {
      release.release(h);
      OutOfMemoryHook.cleanupDone();
    }
  }
}
