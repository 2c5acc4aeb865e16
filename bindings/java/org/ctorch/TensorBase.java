package org.ctorch;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.util.Arrays;
import java.util.Objects;

import org.ctorch.swig.ctorch;

/**
 * The handle, its lifetime (close, Cleaner), the call plumbing shared by every operation
 * (reachability fences, status checks) and the metadata of a {@link Tensor}.
 */
abstract class TensorBase implements AutoCloseable {
  static {
    Native.ensureLoaded();
  }

  private static final Cleaner CLEANER = NativeHandle.CLEANER;
  static final int UNDEFINED = DType.UNDEFINED_CODE;

  /**
   * The cleaning action: releases the native reference exactly once. It holds the handle, never
   * the Tensor, so that the Tensor can become unreachable.
   */
  private static final class Releaser implements Runnable {
    private volatile long handle;

    Releaser(long handle) {
      this.handle = handle;
    }

    @Override
    public void run() {
      long h = handle;
      handle = 0;
      if (h != 0) {
        ctorch.ct_tensor_release(h);
        OutOfMemoryHook.cleanupDone();
      }
    }
  }

  private final Releaser releaser;
  private final Cleaner.Cleanable cleanable;

  TensorBase(long handle) {
    this.releaser = new Releaser(handle);
    this.cleanable = CLEANER.register(this, releaser);
  }

  /** This tensor with its public type: in-place operations of the superclasses return it. */
  final Tensor self() {
    return (Tensor) this;
  }

  /** Takes ownership of a [new reference] handle; on failure the handle is released. */
  static Tensor wrap(long handle) {
    Tensor t = wrapUnscoped(handle);
    TensorScope.register(t);
    return t;
  }

  /** wrap() for the binding's own short-lived temporaries: no TensorScope takes them. */
  static Tensor wrapUnscoped(long handle) {
    try {
      return new Tensor(handle);
    } catch (Throwable e) {
      ctorch.ct_tensor_release(handle);
      throw e;
    }
  }

  /**
   * The native handle; throws a {@link CtorchException} with code 102 when this tensor is
   * closed.
   */
  long handle() {
    long h = releaser.handle;
    if (h == 0) {
      throw Native.closed("Tensor");
    }
    return h;
  }

  /**
   * Releases this reference to the native tensor. Idempotent: closing twice does nothing.
   * Views and other tensors sharing the storage stay valid.
   */
  @Override
  public void close() {
    cleanable.clean();
  }

  /** True once {@link Tensor#close()} ran (or the tensor was cleaned). */
  public boolean isClosed() {
    return releaser.handle == 0;
  }

  /* ============================================================================================
   * Plumbing: every native call keeps its tensors reachable until it returns
   * (Reference.reachabilityFence), so the Cleaner cannot release a handle in use.
   * ========================================================================================== */

  /**
   * The handles of a list of tensors, for the C calls that take an array: a null list or
   * element throws NullPointerException naming it ({@code what[i]}), a closed tensor code 102.
   * The caller keeps the tensors reachable until the call returns.
   */
  static long[] handles(java.util.List<Tensor> tensors, String what) {
    Objects.requireNonNull(tensors, what);
    long[] hs = new long[tensors.size()];
    for (int i = 0; i < hs.length; i++) {
      hs[i] = Objects.requireNonNull(tensors.get(i), what + "[" + i + "]").handle();
    }
    return hs;
  }

  /** {@link #handles(java.util.List, String)} of an array (null: NullPointerException naming it). */
  static long[] handles(Tensor[] tensors, String what) {
    Objects.requireNonNull(tensors, what);
    return handles(Arrays.asList(tensors), what);
  }

  /** Keeps tensors (and so the handles taken from them) reachable up to this call. */
  static void fence(java.util.List<Tensor> tensors) {
    Reference.reachabilityFence(tensors);
    for (Tensor t : tensors) {
      Reference.reachabilityFence(t);
    }
  }

  /**
   * Owns the first n [new reference] handles: a Tensor for each; when one cannot be made, the
   * tensors made so far are closed and the other handles released.
   */
  static Tensor[] wrapAll(long[] handles, int n) {
    Tensor[] ts = new Tensor[n];
    int i = 0;
    try {
      for (; i < n; i++) {
        ts[i] = Tensor.wrap(handles[i]);
      }
      return ts;
    } catch (Throwable e) {
      for (int j = 0; j < i; j++) {
        ts[j].close();
      }
      for (int j = i + 1; j < n; j++) { // wrap released handles[i] itself
        ctorch.ct_tensor_release(handles[j]);
      }
      throw e;
    }
  }
  /** Runs a call that produces one [new reference] and wraps it. */
  static Tensor create(Native.LongOutCall c) {
    return wrap(Native.longOut(c));
  }

  /** create(c), keeping this tensor reachable. */
  Tensor make(Native.LongOutCall c) {
    return wrap(Native.longOut(this, c));
  }

  /** create(c), keeping this tensor and other reachable. */
  Tensor make(Tensor other, Native.LongOutCall c) {
    Objects.requireNonNull(other, "other");
    try {
      return create(c);
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(other);
    }
  }

  /** Runs a call with no tensor result, keeping this tensor reachable. */
  void run(Native.StatusCall c) {
    Native.run(this, c);
  }

  /** Runs a call with no tensor result, keeping this tensor and other reachable. */
  void run(Tensor other, Native.StatusCall c) {
    Native.run(this, Objects.requireNonNull(other, "other"), c);
  }

  static int dtypeCode(DType dtype) {
    return dtype == null ? UNDEFINED : dtype.code();
  }

  static int b(boolean v) {
    return v ? 1 : 0;
  }

  static long[] toLongs(int[] dims) {
    if (dims == null) {
      return null;
    }
    long[] r = new long[dims.length];
    for (int i = 0; i < dims.length; i++) {
      r[i] = dims[i];
    }
    return r;
  }

  /* ============================================================================================
   * Section 5: metadata
   * ========================================================================================== */

  @FunctionalInterface
  private interface DimsCall {
    int call(long tensor, long[] dst, int capacity, int[] ndim);
  }

  /** Sizes or strides: into 8 slots first (one call for almost every tensor), else again. */
  private long[] dims(DimsCall c) {
    long[] dst = new long[8];
    int[] ndim = {0};
    run(() -> c.call(handle(), dst, dst.length, ndim));
    if (ndim[0] <= dst.length) {
      return Arrays.copyOf(dst, ndim[0]);
    }
    long[] big = new long[ndim[0]];
    run(() -> c.call(handle(), big, big.length, ndim));
    return big;
  }

  /** {@code t.dim()}: number of dimensions (0 for a scalar tensor). */
  public int dim() {
    return Native.intOut(this, out -> ctorch.ct_tensor_dim(handle(), out));
  }

  /** {@code t.shape} / {@code t.size()}: the sizes. */
  public long[] shape() {
    return dims(ctorch::ct_tensor_sizes);
  }

  /** {@code t.size(dim)}; negative dims count from the end. */
  public long size(int dim) {
    return Native.longOut(this, out -> ctorch.ct_tensor_size(handle(), dim, out));
  }

  /** {@code t.stride()}: strides in elements. */
  public long[] stride() {
    return dims(ctorch::ct_tensor_strides);
  }

  /** {@code t.stride(dim)}. */
  public long stride(int dim) {
    return Native.longOut(this, out -> ctorch.ct_tensor_stride(handle(), dim, out));
  }

  /** {@code t.numel()}. */
  public long numel() {
    return Native.longOut(this, out -> ctorch.ct_tensor_numel(handle(), out));
  }

  /** {@code t.storage_offset()}, in elements. */
  public long storageOffset() {
    return Native.longOut(this, out -> ctorch.ct_tensor_storage_offset(handle(), out));
  }

  /** {@code t.dtype}. */
  public DType dtype() {
    int[] out = {0};
    run(() -> ctorch.ct_tensor_dtype(handle(), out));
    return DType.fromCode(out[0]);
  }

  /** {@code t.element_size()}: bytes per element. */
  public int elementSize() {
    return dtype().itemSize();
  }

  /** {@code t.nbytes}: numel * element size. */
  public long nbytes() {
    return numel() * elementSize();
  }

  /** {@code t.device}; CUDA tensors report a concrete index ("cuda:0"). */
  public Device device() {
    return Device.out(this, (type, index) -> ctorch.ct_tensor_device(handle(), type, index));
  }

  /** {@code t.is_cuda}. */
  public boolean isCuda() {
    return device().isCuda();
  }

  /** {@code t.is_contiguous()}. */
  public boolean isContiguous() {
    return Native.intOut(this, out -> ctorch.ct_tensor_is_contiguous(handle(), out)) != 0;
  }

  /**
   * {@code t.data_ptr()}: the address of the first element, in host memory for a CPU tensor
   * and device memory for a CUDA one (0 for an empty tensor), for handing the data to other
   * native libraries. A view's address is its base's plus {@code storageOffset() *
   * elementSize()} bytes. The address is borrowed: it stays valid only while the storage
   * lives (while this tensor or another view of the storage is open); Java never dereferences
   * it. A closed tensor throws code 102 (CT_ERR_INVALID_HANDLE).
   */
  public long dataPtr() {
    return Native.longOut(this, out -> ctorch.ct_tensor_data_ptr(handle(), out));
  }

  /** True when both tensors use the same storage (a view and its base, for instance). */
  public boolean sharesStorage(Tensor other) {
    int[] out = {0};
    run(other, () -> ctorch.ct_tensor_shares_storage(handle(), other.handle(), out));
    return out[0] != 0;
  }

  /** Python's {@code a is b}: both objects reference the very same native tensor. */
  public boolean isSame(Tensor other) {
    int[] out = {0};
    run(other, () -> ctorch.ct_tensor_is_same(handle(), other.handle(), out));
    return out[0] != 0;
  }

  /**
   * Another owning reference to this very same tensor ({@code isSame} is true): what Python's
   * {@code b = a} gives, with its own lifetime. Close it independently.
   */
  public Tensor newReference() {
    try {
      long h = handle();
      Native.check(ctorch.ct_tensor_retain(h));
      return wrap(h);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * PyTorch's repr, e.g. {@code tensor([1., 2.])} or
   * {@code tensor([1, 2], device='cuda:0', dtype=torch.int32)}. A closed tensor prints as
   * {@code tensor(<closed>)} instead of throwing.
   */
  @Override
  public String toString() {
    if (isClosed()) {
      return "tensor(<closed>)";
    }
    try {
      long h = handle();
      return Native.string((buf, cap, needed) -> ctorch.ct_tensor_repr(h, buf, cap, needed));
    } finally {
      Reference.reachabilityFence(this);
    }
  }
}
