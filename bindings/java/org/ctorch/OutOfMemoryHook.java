package org.ctorch;

import java.lang.ref.Cleaner;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The binding's out-of-memory hook (ct_cuda_add_oom_hook, docs/java.md "Memory recovery").
 *
 * <p>A {@link Tensor} dropped without {@code close()} keeps its device memory until the garbage
 * collector notices and the {@link Cleaner} releases it; the Java heap knows nothing of device
 * memory, so that may be never. When a CUDA allocation fails even after the allocator gave its
 * cache back, ctorch calls this hook on the allocating thread, with no ctorch lock held:
 * {@link #onOutOfMemory} runs {@code System.gc()} and waits until the Cleaner has run the
 * cleaning actions of the tensors that became unreachable (at most about one second), and then
 * ctorch retries the allocation once.
 *
 * <p>{@link Native}'s static initializer calls {@link #install()} right after loading the JNI
 * library, so the hook is in place before any class of the binding can make a tensor. The C
 * side (bindings/java/oom_hook_jni.c) registers it once per process.
 *
 * <p>This class depends on nothing else of the binding at class-initialization time (it is
 * initialized from inside Native's initializer; a cycle of initializers could deadlock two
 * threads). The C side finds it through {@link #install0}'s class argument, keeps it loaded
 * with a global reference, and calls {@link #onOutOfMemory} by name: keep that signature.
 */
final class OutOfMemoryHook {
  private OutOfMemoryHook() {}

  /** How long one hook call may take in all: never hang the allocating thread. */
  static final long MAX_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(1000);
  /** The Cleaner is considered done when no cleanup completes for this long. */
  static final long QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
  /** Collections per hook call at most: another one only while the previous freed something. */
  static final int MAX_ROUNDS = 3;

  private static final AtomicLong RUNS = new AtomicLong();
  private static final AtomicLong CLEANUPS = new AtomicLong();
  private static volatile long hookId = -1;
  /** The arguments of the latest call (-1 before any): a diagnostic the suites check. */
  static volatile int lastDevice = -1;
  static volatile long lastRequestedBytes = -1;

  /**
   * Registers the hook with ctorch (once per process: a second call finds it registered and
   * adds nothing) and returns its id. Needs the JNI library loaded. Throws a
   * {@link CtorchException} when ctorch refuses the hook.
   */
  static long install() {
    long[] id = {-1};
    int st = install0(id);
    if (st != Native.CT_OK) {
      throw Native.lastError(st);
    }
    hookId = id[0];
    return id[0];
  }

  /** The hook's id from ct_cuda_add_oom_hook, or -1 before {@link #install()} ran. */
  static long hookId() {
    return hookId;
  }

  /** Times {@link #onOutOfMemory} ran in this process (see {@link Cuda#outOfMemoryHookRuns()}). */
  static long runs() {
    return RUNS.get();
  }

  /** Cleanups (tensor releases by close() or by the Cleaner) completed so far. */
  static long cleanups() {
    return CLEANUPS.get();
  }

  /** Called by every tensor release, after ct_tensor_release returned. */
  static void cleanupDone() {
    CLEANUPS.incrementAndGet();
  }

  /**
   * The hook: called by the C side (on the allocating thread) when device {@code device}
   * cannot serve {@code requestedBytes}. Runs {@link #collect()}. Must not throw (the C side
   * prints and clears anything that escapes).
   */
  static void onOutOfMemory(int device, long requestedBytes) {
    lastDevice = device;
    lastRequestedBytes = requestedBytes;
    RUNS.incrementAndGet();
    collect();
  }

  /**
   * Runs the garbage collector and waits until the Cleaner has run the cleaning actions of the
   * objects it found unreachable: after each {@code System.gc()}, until a sentinel registered
   * with the same Cleaner just before has been cleaned and no tensor cleanup has completed for
   * {@link #QUIET_NANOS} (the Cleaner's queue has no fixed order, so the sentinel alone does
   * not prove that every action ran). Collects again (up to {@link #MAX_ROUNDS} times) while
   * the previous round released something, since a released object can make others
   * unreachable. Bounded by {@link #MAX_WAIT_NANOS} in all. The thread's interrupt status is
   * kept but does not cut the wait short.
   */
  static void collect() {
    long deadline = System.nanoTime() + MAX_WAIT_NANOS;
    boolean interrupted = Thread.interrupted();
    try {
      for (int round = 0; round < MAX_ROUNDS && System.nanoTime() < deadline; round++) {
        long before = CLEANUPS.get();
        CountDownLatch sentinelCleaned = registerSentinel();
        System.gc();
        interrupted |= await(sentinelCleaned, deadline);
        interrupted |= awaitQuiet(deadline);
        if (CLEANUPS.get() == before) {
          break; // this collection released nothing: another would not either
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Registers an object that is unreachable as soon as this method returns with the binding's
   * Cleaner; the returned latch opens when its cleaning action has run.
   */
  private static CountDownLatch registerSentinel() {
    CountDownLatch latch = new CountDownLatch(1);
    NativeHandle.CLEANER.register(new Object(), latch::countDown);
    return latch;
  }

  /** Waits for the latch until the deadline; returns true when the wait was interrupted. */
  private static boolean await(CountDownLatch latch, long deadline) {
    boolean interrupted = false;
    while (true) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return interrupted;
      }
      try {
        if (latch.await(left, TimeUnit.NANOSECONDS)) {
          return interrupted;
        }
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
  }

  /**
   * Waits until no cleanup has completed for {@link #QUIET_NANOS}, or the deadline; returns
   * true when a sleep was interrupted.
   */
  private static boolean awaitQuiet(long deadline) {
    boolean interrupted = false;
    long seen = CLEANUPS.get();
    long quietSince = System.nanoTime();
    while (true) {
      long now = System.nanoTime();
      if (now - quietSince >= QUIET_NANOS || now >= deadline) {
        return interrupted;
      }
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        interrupted = true;
      }
      long c = CLEANUPS.get();
      if (c != seen) {
        seen = c;
        quietSince = System.nanoTime();
      }
    }
  }

  /** Registers the C hook once per process; *id gets its id. Returns a ct_status. */
  private static native int install0(long[] id);

  /**
   * For the suites: calls the registered C hook function as ctorch would, on this thread or
   * on a new native thread unknown to the JVM (which the hook must attach and detach). Returns
   * 0, or -1 when the hook is not registered or the thread cannot be made.
   */
  static native int runHookForTest0(int device, long requestedBytes, boolean onNewThread);
}
