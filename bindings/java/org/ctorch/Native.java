package org.ctorch;

import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

import org.ctorch.swig.ctorch;

/**
 * The one place that touches the JNI library: loads it through {@link NativeLoader} (and
 * installs the {@link OutOfMemoryHook}), turns statuses into exceptions and reads
 * NUL-terminated strings with the "call with cap 0 to get the length" pattern.
 *
 * <p>Every class of {@code org.ctorch} calls the generated {@link ctorch} wrapper only
 * after {@link #ensureLoaded()} ran (each does so in its static initializer), so the first
 * use of any class loads {@code libctorch_jni.so}.
 */
final class Native {
  private Native() {}

  /** CT_OK; the error codes are {@link CtorchException}'s constants (from capi/abi.toml). */
  static final int CT_OK = 0;

  static {
    NativeLoader.load();  // an override directory, the jar's libraries or java.library.path
    // Before any class can make a tensor: CUDA allocations that run out of memory first
    // collect the tensors dropped without close() (OutOfMemoryHook; once per process).
    OutOfMemoryHook.install();
  }

  /**
   * Does nothing; calling it runs the static initializer that loads the JNI library and
   * installs the out-of-memory hook.
   */
  static void ensureLoaded() {}

  /**
   * The constant of {@code values} whose {@code code} is {@code c} (the {@code fromCode} of the
   * enums that carry a C ABI number); IllegalArgumentException naming {@code what} otherwise.
   */
  static <E> E fromCode(E[] values, java.util.function.ToIntFunction<E> code, int c, String what) {
    for (E e : values) {
      if (code.applyAsInt(e) == c) {
        return e;
      }
    }
    throw new IllegalArgumentException("unknown " + what + " " + c);
  }

  /**
   * For the thread-confined guards and scopes: {@link IllegalStateException} ("what must be
   * closed on the thread that made it") unless the calling thread is {@code owner}.
   */
  static void checkClosingThread(Thread owner, String what, String made) {
    if (Thread.currentThread() != owner) {
      throw new IllegalStateException(what + " must be closed on the thread that " + made + " it");
    }
  }

  /**
   * For strings passed to C: a {@link CtorchException} with code 100 (CT_ERR_ARGUMENT) when
   * {@code arg} contains a NUL character, which would cut the C string short ({@code where}:
   * the method, for the message).
   */
  static void checkNoNul(String where, String arg) {
    if (arg.indexOf('\0') >= 0) {
      throw new CtorchException(CtorchException.ARGUMENT,
          CtorchException.statusName(CtorchException.ARGUMENT),
          where + ": argument contains a NUL character: \"" + arg.replace("\0", "\\0") + "\"");
    }
  }

  /**
   * Throws the exception for {@code status} when it is not CT_OK. Must run on the thread that
   * made the failing call, right after it (the message is thread-local in the C library).
   */
  static void check(int status) {
    if (status != CT_OK) {
      throw lastError(status);
    }
  }

  /**
   * The exception for using a closed object ({@code what}: "Tensor", "Stream"...): code 102
   * (CT_ERR_INVALID_HANDLE), as the C library gives for a released handle.
   */
  static CtorchException closed(String what) {
    return new CtorchException(CtorchException.INVALID_HANDLE,
        ctorch.ct_status_name(CtorchException.INVALID_HANDLE),
        "the " + what + " is closed");
  }

  /** The exception for a failed call's status, with this thread's last error message. */
  static CtorchException lastError(int status) {
    String message = lastErrorMessageUtf8();
    String name = ctorch.ct_status_name(status);
    switch (status) {
      case CtorchException.OUT_OF_MEMORY:
        return new CtorchOutOfMemoryException(name, message);
      case CtorchException.TIMEOUT:
        return new CtorchTimeoutException(name, message);
      case CtorchException.DATA_RACE:
        return new CtorchDataRaceException(name, message);
      case CtorchException.COMM:
        return new CtorchCommException(name, message);
      default:
        return new CtorchException(status, name, message);
    }
  }

  /**
   * This thread's last error message, copied byte-exact with ct_last_error_copy and decoded as
   * UTF-8 (the JNI string conversion would read it as "modified UTF-8").
   */
  static String lastErrorMessageUtf8() {
    long n = ctorch.ct_last_error_copy(null, 0);
    if (n <= 0) {
      return "";
    }
    ByteBuffer buf = ByteBuffer.allocateDirect((int) Math.min(n + 1, Integer.MAX_VALUE - 8));
    long full = ctorch.ct_last_error_copy(buf, buf.capacity());
    int len = (int) Math.min(full, buf.capacity() - 1);
    byte[] bytes = new byte[len];
    buf.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /** A C function with one int64_t out-parameter: out -> status. */
  @FunctionalInterface
  interface LongOutCall {
    int call(long[] out);
  }

  /** A C function with one int32_t out-parameter: out -> status. */
  @FunctionalInterface
  interface IntOutCall {
    int call(int[] out);
  }

  /** Runs {@code call} and returns its out-parameter; a failure throws. */
  static long longOut(LongOutCall call) {
    long[] out = {0};
    check(call.call(out));
    return out[0];
  }

  /** Runs {@code call} and returns its out-parameter; a failure throws. */
  static int intOut(IntOutCall call) {
    int[] out = {0};
    check(call.call(out));
    return out[0];
  }

  /** A C call with no out-parameter: () -> status. */
  @FunctionalInterface
  interface StatusCall {
    int call();
  }

  /** Runs {@code call}, keeping {@code keep} (whose handle it uses) reachable until it returns. */
  static void run(Object keep, StatusCall call) {
    try {
      check(call.call());
    } finally {
      Reference.reachabilityFence(keep);
    }
  }

  /** {@link #run(Object, StatusCall)} with two objects whose handles the call uses. */
  static void run(Object keep, Object keep2, StatusCall call) {
    try {
      check(call.call());
    } finally {
      Reference.reachabilityFence(keep);
      Reference.reachabilityFence(keep2);
    }
  }

  /** {@link #longOut(LongOutCall)}, keeping {@code keep} reachable until the call returns. */
  static long longOut(Object keep, LongOutCall call) {
    try {
      return longOut(call);
    } finally {
      Reference.reachabilityFence(keep);
    }
  }

  /** {@link #intOut(IntOutCall)}, keeping {@code keep} reachable until the call returns. */
  static int intOut(Object keep, IntOutCall call) {
    try {
      return intOut(call);
    } finally {
      Reference.reachabilityFence(keep);
    }
  }

  /** A C function that writes a NUL-terminated string: (buf, cap, needed) -> status. */
  @FunctionalInterface
  interface StringCall {
    int call(ByteBuffer buf, long cap, long[] needed);
  }

  /**
   * Runs {@code call} once with cap 0 to learn the length, then with a buffer of that size.
   * When the first call succeeds (never for a non-empty result) the answer is "".
   */
  static String string(StringCall call) {
    long[] needed = {-1};
    int st = call.call(null, 0, needed);
    ByteBuffer buf = null;
    for (int attempt = 0; ; attempt++) {
      if (st == CT_OK) {
        if (buf == null) {
          return "";
        }
        int len = (int) Math.min(needed[0], buf.capacity() - 1);
        byte[] bytes = new byte[len];
        buf.get(0, bytes);
        return new String(bytes, StandardCharsets.UTF_8);
      }
      if (st != CtorchException.BUFFER_SIZE || attempt > 8) {
        throw lastError(st);
      }
      // needed is set even on CT_ERR_BUFFER_SIZE; if it was not, grow geometrically.
      long want = needed[0] >= 0 ? needed[0] + 1 : (buf == null ? 256 : 2L * buf.capacity());
      if (want > Integer.MAX_VALUE - 8) {
        throw lastError(st);
      }
      buf = ByteBuffer.allocateDirect((int) want);
      needed[0] = -1;
      st = call.call(buf, buf.capacity(), needed);
    }
  }

  /* ---------------------------------------------------------------------------------------- */
  /* Host buffers. Small transfers go through a per-thread direct buffer that is reused.      */
  /* ---------------------------------------------------------------------------------------- */

  private static final int SCRATCH_MAX = 1 << 20;
  private static final ThreadLocal<ByteBuffer> SCRATCH = new ThreadLocal<>();

  /**
   * A direct, native-order buffer with position 0 and limit {@code nbytes}. Buffers up to 1 MiB
   * are a per-thread scratch buffer: use it before the next call to this method on this thread.
   */
  static ByteBuffer hostBuffer(long nbytes) {
    if (nbytes < 0 || nbytes > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(
          "a host transfer of " + nbytes + " bytes does not fit one Java array/buffer");
    }
    int n = (int) nbytes;
    ByteBuffer buf;
    if (n <= SCRATCH_MAX) {
      buf = SCRATCH.get();
      if (buf == null || buf.capacity() < n) {
        int cap = Math.max(256, Integer.highestOneBit(Math.max(n, 1) - 1) << 1);
        buf = ByteBuffer.allocateDirect(Math.min(cap, SCRATCH_MAX));
        if (buf.capacity() < n) {
          buf = ByteBuffer.allocateDirect(n);
        }
        SCRATCH.set(buf);
      }
    } else {
      buf = ByteBuffer.allocateDirect(n);
    }
    buf.clear().limit(n);
    buf.order(ByteOrder.nativeOrder());
    return buf;
  }
}
