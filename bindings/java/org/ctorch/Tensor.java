package org.ctorch;

import java.lang.ref.Cleaner;

/**
 * A tensor with PyTorch's semantics: {@code torch.Tensor} for Java.
 *
 * <p><b>Ownership.</b> A {@code Tensor} owns one reference to a native tensor. Close it
 * (try-with-resources) as soon as it is no longer needed; {@link #close()} is idempotent. A
 * tensor that becomes unreachable without being closed is released by a {@link Cleaner} some
 * time after the garbage collector notices, so forgetting {@code close()} leaks nothing in the
 * long run, but device memory is only given back when the collector runs. Every operation
 * returns a new {@code Tensor} the caller owns, also when PyTorch would return the same tensor
 * ({@link #to(Device)} on the right device, {@link #contiguous()} on a contiguous tensor):
 * that is a second reference to the very same tensor ({@link #isSame(Tensor)} is true),
 * closed independently. In-place operations (names ending in {@code _}) return {@code this}.
 *
 * <p>A {@link TensorScope} closes every tensor created on its thread while it is open, for
 * code with many temporaries.
 *
 * <p><b>Views</b> ({@link #view}, {@link #transpose}, {@link #select}, ...) share storage with
 * their base, as in PyTorch: writing through one is seen through the other; the storage lives
 * as long as any tensor using it is open.
 *
 * <p><b>Errors.</b> Every failure of the C library becomes a {@link CtorchException} (with
 * the status code, its name and the message); using a closed tensor throws one with code 102
 * (CT_ERR_INVALID_HANDLE). {@code null} arguments throw {@link NullPointerException}.
 *
 * <p><b>Threads.</b> Any method may be called from any thread. As in PyTorch, an in-place
 * write must not race with other uses of the same tensor, and a tensor must not be closed
 * while another thread is still using it.
 *
 * <p>{@link #equals(Object)} is identity, as for any resource; compare values with
 * {@link #eq(Tensor)} or the {@code to*Array()} methods. {@link #toString()} is PyTorch's repr.
 */
public final class Tensor extends TensorFunctions implements AutoCloseable {
  /*
   * The methods live in a chain of package-private abstract classes, one concern per file,
   * whose public members Tensor inherits (as java.lang.StringBuilder inherits those of
   * AbstractStringBuilder): TensorBase (handle, lifetime, call plumbing, metadata) <-
   * TensorFactories <- TensorData (to, item, copies out) <- TensorViews (and cat/stack) <-
   * TensorOps (ops by code, clamp, where, fill) <- TensorElementwise (the named ops) <-
   * TensorReductions <- TensorRandom <- TensorLinalg <- TensorScans <- Tensor. See docs/java.md.
   */

  /** Takes ownership of handle; only wrap() calls this. */
  Tensor(long handle) {
    super(handle);
  }
}
