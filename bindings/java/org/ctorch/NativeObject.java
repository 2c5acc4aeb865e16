package org.ctorch;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.util.function.LongFunction;

/**
 * The lifetime shared by the handle-owning objects other than tensors ({@link Stream},
 * {@link Event}, {@link Generator}): one counted native reference, released by {@link #close()}
 * or, for an object dropped without closing, by the binding's {@link java.lang.ref.Cleaner}.
 */
abstract class NativeObject implements AutoCloseable {
  private final NativeHandle ref;
  private final Cleaner.Cleanable cleanable;
  private final String kind;

  /** Owns handle (a [new reference]); release drops it; kind names the class in errors. */
  NativeObject(long handle, NativeHandle.Release release, String kind) {
    this.ref = new NativeHandle(handle, release);
    this.cleanable = NativeHandle.CLEANER.register(this, ref);
    this.kind = kind;
  }

  /**
   * The native handle; throws a {@link CtorchException} with code 102 when this object is
   * closed. Callers keep {@code this} reachable until the native call returns.
   */
  final long handle() {
    long h = ref.get();
    if (h == 0) {
      throw Native.closed(kind);
    }
    return h;
  }

  /**
   * Another owning reference to the same native object: retain, then make(handle); on failure
   * the extra reference is released.
   */
  final <T> T newReference(NativeHandle.Release retain, NativeHandle.Release release, LongFunction<T> make) {
    try {
      long h = handle();
      Native.check(retain.release(h));
      try {
        return make.apply(h);
      } catch (Throwable e) {
        release.release(h);
        throw e;
      }
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** Releases this reference to the native object. Idempotent. */
  @Override
  public void close() {
    cleanable.clean();
  }

  /** True once {@link #close()} ran (or the object was cleaned). */
  public boolean isClosed() {
    return ref.get() == 0;
  }
}
