package org.ctorch;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

import org.ctorch.swig.ctorch;

/**
 * DLPack and foreign memory (section 26 of capi/ctorch.h, docs/dlpack.md): zero-copy exchange
 * with other libraries (PyTorch, CuPy, JAX, ONNX Runtime, CUDA code of your own) through
 * DLPack's structs, passed as {@code long} addresses of a {@code DLManagedTensor} or a
 * {@code DLManagedTensorVersioned}.
 *
 * <pre>
 * torch.utils.dlpack.to_dlpack(t)        -&gt;  DLPack.toDLPack(t)            (a {@link Capsule})
 * t.__dlpack__(stream=s)                 -&gt;  DLPack.dlpack(t, s, versioned)
 * t.__dlpack_device__()                  -&gt;  DLPack.dlpackDevice(t)
 * torch.from_dlpack(capsule)             -&gt;  DLPack.fromDLPack(address) / fromDLPackVersioned(address)
 * torch.from_blob(ptr, shape, ...)       -&gt;  DLPack.fromBlob(address, shape, strides, dtype, device, onFree)
 * </pre>
 */
public final class DLPack {
  static {
    Native.ensureLoaded();
  }

  private DLPack() {}

  /**
   * An exported tensor: the address of a DLManagedTensor (or, when {@link #versioned()}, a
   * DLManagedTensorVersioned) that keeps the tensor's memory alive until its deleter runs. Give
   * {@link #address()} to the consumer and call {@link #consume()} (the consumer calls the deleter
   * from then on), or import it back with {@link #importTensor()}. {@link #close()} (or the
   * Cleaner, for a capsule dropped unclosed) calls the deleter of a capsule that no one consumed
   * (ct_dlpack_delete); closing twice, or after consume, does nothing.
   */
  public static final class Capsule implements AutoCloseable {
    private static final class State implements Runnable {
      final AtomicLong address;
      final boolean versioned;

      State(long address, boolean versioned) {
        this.address = new AtomicLong(address);
        this.versioned = versioned;
      }

      @Override
      public void run() {
        long p = address.getAndSet(0);
        if (p != 0) {
          Native.check(ctorch.ct_dlpack_delete(p, versioned ? 1 : 0));
        }
      }
    }

    private final State state;
    private final Cleaner.Cleanable cleanable;

    Capsule(long address, boolean versioned) {
      this.state = new State(address, versioned);
      this.cleanable = NativeHandle.CLEANER.register(this, state);
    }

    /** The struct's address (0 once consumed or closed). */
    public long address() {
      return state.address.get();
    }

    /** True for a DLManagedTensorVersioned, false for a DLManagedTensor. */
    public boolean versioned() {
      return state.versioned;
    }

    /**
     * Says that a consumer took the capsule and returns its address (0 if it was consumed or
     * closed already): from now on the consumer calls the deleter.
     */
    public long consume() {
      return state.address.getAndSet(0);
    }

    /**
     * torch.from_dlpack on this capsule: a ctorch tensor over the same memory, no copy, which
     * owns the capsule from then on. Code 102 once consumed or closed; on another
     * {@link CtorchException} the capsule stays this object's.
     */
    public Tensor importTensor() {
      synchronized (this) {
        long p = state.address.get();
        if (p == 0) {
          throw Native.closed("DLPack.Capsule");
        }
        Tensor t = state.versioned ? fromDLPackVersioned(p) : fromDLPack(p);
        state.address.set(0);
        return t;
      }
    }

    /** Calls the deleter of a capsule that no one consumed. Idempotent. */
    @Override
    public void close() {
      cleanable.clean();
    }
  }

  /**
   * torch.utils.dlpack.to_dlpack(t): a DLManagedTensor (the legacy form) over t's memory, no copy,
   * no stream synchronization. The capsule keeps the memory alive (closing t is fine) until its
   * deleter runs.
   */
  public static Capsule toDLPack(Tensor t) {
    Objects.requireNonNull(t, "t");
    return new Capsule(Native.longOut(t, out -> ctorch.ct_to_dlpack(t.handle(), out)), false);
  }

  /** {@link #toDLPack(Tensor)} as a DLManagedTensorVersioned (version 1.1, flags 0). */
  public static Capsule toDLPackVersioned(Tensor t) {
    Objects.requireNonNull(t, "t");
    return new Capsule(Native.longOut(t, out -> ctorch.ct_to_dlpack_versioned(t.handle(), out)), true);
  }

  /**
   * t.__dlpack__(stream=stream): the consumer's CUDA stream (a cudaStream_t as a long; 1 the
   * default stream; -1 no synchronization; CPU tensors take -1 only) waits, through an event, for
   * the work queued so far on the current stream of t's device; then t is exported (versioned: a
   * DLManagedTensorVersioned, else a DLManagedTensor). Code 100: "stream should be None on cpu.",
   * "per-thread default stream is not supported." (2), "unsupported stream 0 for ROCm/CUDA".
   */
  public static Capsule dlpack(Tensor t, long stream, boolean versioned) {
    Objects.requireNonNull(t, "t");
    return new Capsule(Native.longOut(t, out -> ctorch.ct_tensor_dlpack(t.handle(), stream, versioned ? 1 : 0, out)),
        versioned);
  }

  /** t.__dlpack_device__(): {DLPack device type (1 kDLCPU, 2 kDLCUDA), device id}. */
  public static int[] dlpackDevice(Tensor t) {
    Objects.requireNonNull(t, "t");
    int[] type = {0};
    int[] id = {0};
    try {
      Native.check(ctorch.ct_tensor_dlpack_device(t.handle(), type, id));
    } finally {
      Reference.reachabilityFence(t);
    }
    return new int[] {type[0], id[0]};
  }

  /**
   * torch.from_dlpack on a DLManagedTensor (the legacy form) that another library made, by
   * address: a tensor over its memory, no copy, which owns the struct on success (its deleter
   * runs once, when the last tensor using the memory is closed). On a {@link CtorchException}
   * the caller still owns the struct.
   */
  public static Tensor fromDLPack(long address) {
    return TensorBase.create(out -> ctorch.ct_from_dlpack(address, out));
  }

  /** {@link #fromDLPack(long)} for a DLManagedTensorVersioned (major version 1; code 500 otherwise). */
  public static Tensor fromDLPackVersioned(long address) {
    return TensorBase.create(out -> ctorch.ct_from_dlpack_versioned(address, out));
  }

  /**
   * torch.from_blob(address, shape, strides, deleter=onFree, dtype=, device=): a tensor over memory
   * that ctorch did not allocate (host memory, or CUDA memory of that device; 0 only without
   * elements), no copy. strides (in elements) may be null: C-contiguous. onFree, if not null,
   * runs exactly once when the last tensor using the memory (views included) is closed or
   * cleaned, on whatever thread that happens (an exception it throws is printed and ignored);
   * never when fromBlob throws. A null onFree leaves the memory to the caller, who keeps it valid
   * while any tensor uses it: close-able owners do so by closing their memory in onFree.
   */
  public static Tensor fromBlob(long address, long[] shape, long[] strides, DType dtype, Device device,
      Runnable onFree) {
    Objects.requireNonNull(shape, "shape");
    Objects.requireNonNull(dtype, "dtype");
    Objects.requireNonNull(device, "device");
    if (strides != null && strides.length != shape.length) {
      throw new IllegalArgumentException("strides has " + strides.length + " values, shape " + shape.length);
    }
    long[] out = {0};
    int st = fromBlob0(address, shape, strides, dtype.code(), device.type().code(), device.index(), onFree, out);
    if (st == -1) {
      throw new IllegalStateException("ctorch: fromBlob could not be called"); // a JNI exception is pending first
    }
    Native.check(st);
    return TensorBase.wrap(out[0]);
  }

  private static native int fromBlob0(long address, long[] sizes, long[] strides, int dtype, int devType,
      int devIndex, Runnable onFree, long[] out);
}
