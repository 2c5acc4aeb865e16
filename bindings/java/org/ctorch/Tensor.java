package org.ctorch;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.ReadOnlyBufferException;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import org.ctorch.swig.ctorch;

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
public final class Tensor implements AutoCloseable {
  static {
    Native.ensureLoaded();
  }

  private static final Cleaner CLEANER = NativeHandle.CLEANER;
  private static final int UNDEFINED = Native.CT_DTYPE_UNDEFINED;

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

  private Tensor(long handle) {
    this.releaser = new Releaser(handle);
    this.cleanable = CLEANER.register(this, releaser);
  }

  /** Takes ownership of a [new reference] handle; on failure the handle is released. */
  static Tensor wrap(long handle) {
    Tensor t = wrapUnscoped(handle);
    TensorScope.register(t);
    return t;
  }

  /** wrap() for the binding's own short-lived temporaries: no TensorScope takes them. */
  private static Tensor wrapUnscoped(long handle) {
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
      throw new CtorchException(Native.CT_ERR_INVALID_HANDLE,
          CtorchException.statusName(Native.CT_ERR_INVALID_HANDLE),
          "the Tensor is closed");
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

  /** True once {@link #close()} ran (or the tensor was cleaned). */
  public boolean isClosed() {
    return releaser.handle == 0;
  }

  /* ============================================================================================
   * Plumbing: every native call keeps its tensors reachable until it returns
   * (Reference.reachabilityFence), so the Cleaner cannot release a handle in use.
   * ========================================================================================== */

  @FunctionalInterface
  private interface OutCall {
    int call(long[] out);
  }

  @FunctionalInterface
  private interface StatusCall {
    int call();
  }

  /** Runs a call that produces one [new reference] and wraps it. */
  private static Tensor create(OutCall c) {
    long[] out = {0};
    Native.check(c.call(out));
    return wrap(out[0]);
  }

  /** create(c), keeping this tensor reachable. */
  private Tensor make(OutCall c) {
    try {
      return create(c);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** create(c), keeping this tensor and other reachable. */
  private Tensor make(Tensor other, OutCall c) {
    Objects.requireNonNull(other, "other");
    try {
      return create(c);
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(other);
    }
  }

  /** Runs a call with no tensor result, keeping this tensor reachable. */
  private void run(StatusCall c) {
    try {
      Native.check(c.call());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** Runs a call with no tensor result, keeping this tensor and other reachable. */
  private void run(Tensor other, StatusCall c) {
    Objects.requireNonNull(other, "other");
    try {
      Native.check(c.call());
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(other);
    }
  }

  private static int dtypeCode(DType dtype) {
    return dtype == null ? UNDEFINED : dtype.code();
  }

  private static int b(boolean v) {
    return v ? 1 : 0;
  }

  private static long[] toLongs(int[] dims) {
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

  /** {@code t.dim()}: number of dimensions (0 for a scalar tensor). */
  public int dim() {
    int[] out = {0};
    run(() -> ctorch.ct_tensor_dim(handle(), out));
    return out[0];
  }

  /** {@code t.shape} / {@code t.size()}: the sizes. */
  public long[] shape() {
    long[] dst = new long[8];
    int[] ndim = {0};
    run(() -> ctorch.ct_tensor_sizes(handle(), dst, dst.length, ndim));
    if (ndim[0] <= dst.length) {
      return Arrays.copyOf(dst, ndim[0]);
    }
    long[] big = new long[ndim[0]];
    run(() -> ctorch.ct_tensor_sizes(handle(), big, big.length, ndim));
    return big;
  }

  /** {@code t.size(dim)}; negative dims count from the end. */
  public long size(int dim) {
    long[] out = {0};
    run(() -> ctorch.ct_tensor_size(handle(), dim, out));
    return out[0];
  }

  /** {@code t.stride()}: strides in elements. */
  public long[] stride() {
    long[] dst = new long[8];
    int[] ndim = {0};
    run(() -> ctorch.ct_tensor_strides(handle(), dst, dst.length, ndim));
    if (ndim[0] <= dst.length) {
      return Arrays.copyOf(dst, ndim[0]);
    }
    long[] big = new long[ndim[0]];
    run(() -> ctorch.ct_tensor_strides(handle(), big, big.length, ndim));
    return big;
  }

  /** {@code t.stride(dim)}. */
  public long stride(int dim) {
    long[] out = {0};
    run(() -> ctorch.ct_tensor_stride(handle(), dim, out));
    return out[0];
  }

  /** {@code t.numel()}. */
  public long numel() {
    long[] out = {0};
    run(() -> ctorch.ct_tensor_numel(handle(), out));
    return out[0];
  }

  /** {@code t.storage_offset()}, in elements. */
  public long storageOffset() {
    long[] out = {0};
    run(() -> ctorch.ct_tensor_storage_offset(handle(), out));
    return out[0];
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
    int[] type = {0};
    int[] index = {0};
    run(() -> ctorch.ct_tensor_device(handle(), type, index));
    return Device.of(DeviceType.fromCode(type[0]), index[0]);
  }

  /** {@code t.is_cuda}. */
  public boolean isCuda() {
    return device().isCuda();
  }

  /** {@code t.is_contiguous()}. */
  public boolean isContiguous() {
    int[] out = {0};
    run(() -> ctorch.ct_tensor_is_contiguous(handle(), out));
    return out[0] != 0;
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
    long[] out = {0};
    run(() -> ctorch.ct_tensor_data_ptr(handle(), out));
    return out[0];
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

  /* ============================================================================================
   * Section 6: factories (defaults: float32 on the CPU, as torch's default dtype and device)
   * ========================================================================================== */

  /** {@code torch.empty(shape)}: float32 on the CPU, uninitialized. */
  public static Tensor empty(long... shape) {
    return empty(shape, DType.FLOAT32, Device.CPU);
  }

  /** {@code torch.empty(shape, dtype=dtype)}. */
  public static Tensor empty(long[] shape, DType dtype) {
    return empty(shape, dtype, Device.CPU);
  }

  /** {@code torch.empty(shape, dtype=dtype, device=device)}. */
  public static Tensor empty(long[] shape, DType dtype, Device device) {
    return create(out -> ctorch.ct_empty(shape, shape.length, dtype.code(),
        device.type().code(), device.index(), out));
  }

  /** {@code torch.zeros(shape)}: float32 on the CPU. */
  public static Tensor zeros(long... shape) {
    return zeros(shape, DType.FLOAT32, Device.CPU);
  }

  /** {@code torch.zeros(shape, dtype=dtype)}. */
  public static Tensor zeros(long[] shape, DType dtype) {
    return zeros(shape, dtype, Device.CPU);
  }

  /** {@code torch.zeros(shape, dtype=dtype, device=device)}. */
  public static Tensor zeros(long[] shape, DType dtype, Device device) {
    return create(out -> ctorch.ct_zeros(shape, shape.length, dtype.code(),
        device.type().code(), device.index(), out));
  }

  /** {@code torch.ones(shape)}: float32 on the CPU. */
  public static Tensor ones(long... shape) {
    return ones(shape, DType.FLOAT32, Device.CPU);
  }

  /** {@code torch.ones(shape, dtype=dtype)}. */
  public static Tensor ones(long[] shape, DType dtype) {
    return ones(shape, dtype, Device.CPU);
  }

  /** {@code torch.ones(shape, dtype=dtype, device=device)}. */
  public static Tensor ones(long[] shape, DType dtype, Device device) {
    return create(out -> ctorch.ct_ones(shape, shape.length, dtype.code(),
        device.type().code(), device.index(), out));
  }

  /** {@code torch.full(shape, 2.5)}: a floating fill value gives float32, as in torch. */
  public static Tensor full(long[] shape, double value) {
    return full(shape, value, DType.FLOAT32, Device.CPU);
  }

  /** {@code torch.full(shape, 3)}: an integer fill value gives int64, as in torch. */
  public static Tensor full(long[] shape, long value) {
    return full(shape, (double) value, DType.INT64, Device.CPU);
  }

  /** {@code torch.full(shape, True)}: a bool fill value gives bool, as in torch. */
  public static Tensor full(long[] shape, boolean value) {
    return full(shape, value ? 1.0 : 0.0, DType.BOOL, Device.CPU);
  }

  /** {@code torch.full(shape, value, dtype=dtype)}. */
  public static Tensor full(long[] shape, double value, DType dtype) {
    return full(shape, value, dtype, Device.CPU);
  }

  /** {@code torch.full(shape, value, dtype=dtype, device=device)}. */
  public static Tensor full(long[] shape, double value, DType dtype, Device device) {
    return create(out -> ctorch.ct_full(shape, shape.length, value, dtype.code(),
        device.type().code(), device.index(), out));
  }

  /** {@code torch.arange(end)} with an integer end: int64, as in torch. */
  public static Tensor arange(long end) {
    return arange(0, end, 1, DType.INT64, Device.CPU);
  }

  /** {@code torch.arange(start, end)} with integers: int64. */
  public static Tensor arange(long start, long end) {
    return arange(start, end, 1, DType.INT64, Device.CPU);
  }

  /** {@code torch.arange(start, end, step)} with integers: int64. */
  public static Tensor arange(long start, long end, long step) {
    return arange(start, end, step, DType.INT64, Device.CPU);
  }

  /** {@code torch.arange(end)} with a floating end: float32. */
  public static Tensor arange(double end) {
    return arange(0, end, 1, DType.FLOAT32, Device.CPU);
  }

  /** {@code torch.arange(start, end, step)} with a floating argument: float32. */
  public static Tensor arange(double start, double end, double step) {
    return arange(start, end, step, DType.FLOAT32, Device.CPU);
  }

  /**
   * {@code torch.arange(start, end, step, dtype=dtype, device=device)}: ceil((end - start) /
   * step) elements. A zero step or one whose sign disagrees with end - start is CT_ERR_ARGUMENT.
   */
  public static Tensor arange(double start, double end, double step, DType dtype,
      Device device) {
    return create(out -> ctorch.ct_arange(start, end, step, dtype.code(),
        device.type().code(), device.index(), out));
  }

  /** {@code torch.linspace(start, end, steps)}: float32. */
  public static Tensor linspace(double start, double end, long steps) {
    return linspace(start, end, steps, DType.FLOAT32, Device.CPU);
  }

  /** {@code torch.linspace(start, end, steps, dtype=dtype, device=device)}. */
  public static Tensor linspace(double start, double end, long steps, DType dtype,
      Device device) {
    return create(out -> ctorch.ct_linspace(start, end, steps, dtype.code(),
        device.type().code(), device.index(), out));
  }

  /** {@code torch.eye(n)}: float32. */
  public static Tensor eye(long n) {
    return eye(n, -1, DType.FLOAT32, Device.CPU);
  }

  /** {@code torch.eye(n, m)}: float32. */
  public static Tensor eye(long n, long m) {
    return eye(n, m, DType.FLOAT32, Device.CPU);
  }

  /** {@code torch.eye(n, m, dtype=dtype, device=device)}; m &lt; 0 means m = n. */
  public static Tensor eye(long n, long m, DType dtype, Device device) {
    return create(out -> ctorch.ct_eye(n, m, dtype.code(), device.type().code(),
        device.index(), out));
  }

  /* ---- from host data ---------------------------------------------------------------------- */

  /** Copies a prepared direct host buffer (position 0, limit = nbytes) into a new tensor. */
  private static Tensor fromHost(ByteBuffer buf, DType dtype, Device device, long[] shape) {
    long nbytes = buf.limit();
    return create(out -> ctorch.ct_from_buffer(buf, nbytes, shape, shape.length, dtype.code(),
        device.type().code(), device.index(), out));
  }

  /**
   * A 1-D float32 tensor holding a copy of {@code data} ({@code torch.tensor(data)}). The
   * Java element type picks the dtype: float32, float64, int64, int32, int16, int8, bool.
   */
  public static Tensor fromArray(float[] data) {
    return fromArray(data, data.length);
  }

  /**
   * A float32 tensor of the given shape holding a copy of {@code data}; the shape's product
   * must equal {@code data.length} (else CT_ERR_BUFFER_SIZE). An explicitly empty shape
   * ({@code new long[0]}) gives a 0-dim tensor of one element.
   */
  public static Tensor fromArray(float[] data, long... shape) {
    ByteBuffer buf = Native.hostBuffer(4L * data.length);
    buf.asFloatBuffer().put(data);
    return fromHost(buf, DType.FLOAT32, Device.CPU, shape);
  }

  /** A 1-D float64 tensor holding a copy of {@code data}. */
  public static Tensor fromArray(double[] data) {
    return fromArray(data, data.length);
  }

  /** A float64 tensor of the given shape holding a copy of {@code data}. */
  public static Tensor fromArray(double[] data, long... shape) {
    ByteBuffer buf = Native.hostBuffer(8L * data.length);
    buf.asDoubleBuffer().put(data);
    return fromHost(buf, DType.FLOAT64, Device.CPU, shape);
  }

  /** A 1-D int64 tensor holding a copy of {@code data}. */
  public static Tensor fromArray(long[] data) {
    return fromArray(data, data.length);
  }

  /** A int64 tensor of the given shape holding a copy of {@code data}. */
  public static Tensor fromArray(long[] data, long... shape) {
    ByteBuffer buf = Native.hostBuffer(8L * data.length);
    buf.asLongBuffer().put(data);
    return fromHost(buf, DType.INT64, Device.CPU, shape);
  }

  /** A 1-D int32 tensor holding a copy of {@code data}. */
  public static Tensor fromArray(int[] data) {
    return fromArray(data, data.length);
  }

  /** A int32 tensor of the given shape holding a copy of {@code data}. */
  public static Tensor fromArray(int[] data, long... shape) {
    ByteBuffer buf = Native.hostBuffer(4L * data.length);
    buf.asIntBuffer().put(data);
    return fromHost(buf, DType.INT32, Device.CPU, shape);
  }

  /** A 1-D int16 tensor holding a copy of {@code data}. */
  public static Tensor fromArray(short[] data) {
    return fromArray(data, data.length);
  }

  /** A int16 tensor of the given shape holding a copy of {@code data}. */
  public static Tensor fromArray(short[] data, long... shape) {
    ByteBuffer buf = Native.hostBuffer(2L * data.length);
    buf.asShortBuffer().put(data);
    return fromHost(buf, DType.INT16, Device.CPU, shape);
  }

  /**
   * A 1-D int8 tensor holding a copy of {@code data} (Java's byte is signed). For uint8 use
   * {@link #fromBytes(byte[], DType)} with {@link DType#UINT8}.
   */
  public static Tensor fromArray(byte[] data) {
    return fromArray(data, data.length);
  }

  /** An int8 tensor of the given shape holding a copy of {@code data}. */
  public static Tensor fromArray(byte[] data, long... shape) {
    return fromBytes(data, DType.INT8, shape);
  }

  /** A 1-D bool tensor holding a copy of {@code data}. */
  public static Tensor fromArray(boolean[] data) {
    return fromArray(data, data.length);
  }

  /** A bool tensor of the given shape holding a copy of {@code data}. */
  public static Tensor fromArray(boolean[] data, long... shape) {
    ByteBuffer buf = Native.hostBuffer(data.length);
    for (int i = 0; i < data.length; i++) {
      buf.put(i, data[i] ? (byte) 1 : (byte) 0);
    }
    return fromHost(buf, DType.BOOL, Device.CPU, shape);
  }

  /**
   * A 1-D tensor of {@code dtype} from raw bytes: the elements, native byte order (for uint8,
   * float16, bfloat16, complex, ...). The length must be a multiple of the item size.
   */
  public static Tensor fromBytes(byte[] raw, DType dtype) {
    return fromBytes(raw, dtype, raw.length / dtype.itemSize());
  }

  /**
   * A tensor of {@code dtype} and the given shape from raw bytes: numel * itemsize bytes of
   * the elements, C-contiguous, native byte order.
   */
  public static Tensor fromBytes(byte[] raw, DType dtype, long... shape) {
    ByteBuffer buf = Native.hostBuffer(raw.length);
    buf.put(0, raw);
    return fromHost(buf, dtype, Device.CPU, shape);
  }

  /**
   * {@code torch.frombuffer(buf, dtype).to(device)} as one copy: a 1-D tensor of the bytes
   * between the buffer's position and limit, read as elements of {@code dtype} in native byte
   * order (whatever {@code buf.order()} says). The buffer's position is not changed.
   */
  public static Tensor fromBuffer(ByteBuffer buf, DType dtype, Device device) {
    return fromBuffer(buf, dtype, device, buf.remaining() / dtype.itemSize());
  }

  /**
   * {@code torch.frombuffer(buf, dtype).reshape(shape).to(device)} as one copy: the bytes
   * between the buffer's position and limit, read as C-contiguous elements of {@code dtype} in
   * native byte order. Their number must be exactly numel * itemsize (else
   * CT_ERR_BUFFER_SIZE). The buffer's position is not changed. Direct buffers are read in
   * place; others go through a temporary copy.
   */
  public static Tensor fromBuffer(ByteBuffer buf, DType dtype, Device device, long... shape) {
    Objects.requireNonNull(buf, "buf");
    ByteBuffer src = readable(buf);
    long nbytes = src.remaining();
    try {
      return create(out -> ctorch.ct_from_buffer(src, nbytes, shape, shape.length,
          dtype.code(), device.type().code(), device.index(), out));
    } finally {
      Reference.reachabilityFence(buf);
    }
  }

  /** The bytes of buf between position and limit as a direct buffer starting at index 0. */
  private static ByteBuffer readable(ByteBuffer buf) {
    if (buf.isDirect()) {
      return buf.slice();
    }
    ByteBuffer src = Native.hostBuffer(buf.remaining());
    src.put(0, buf, buf.position(), buf.remaining());
    return src;
  }

  /** A 0-dim float64 tensor ({@code torch.tensor(value, dtype=torch.float64)}). */
  public static Tensor scalar(double value) {
    return scalar(value, DType.FLOAT64);
  }

  /** A 0-dim float32 tensor. */
  public static Tensor scalar(float value) {
    ByteBuffer buf = Native.hostBuffer(4);
    buf.putFloat(0, value);
    return fromHost(buf, DType.FLOAT32, Device.CPU, new long[0]);
  }

  /** A 0-dim int64 tensor ({@code torch.tensor(3)}). */
  public static Tensor scalar(long value) {
    ByteBuffer buf = Native.hostBuffer(8);
    buf.putLong(0, value);
    return fromHost(buf, DType.INT64, Device.CPU, new long[0]);
  }

  /** A 0-dim int32 tensor. */
  public static Tensor scalar(int value) {
    ByteBuffer buf = Native.hostBuffer(4);
    buf.putInt(0, value);
    return fromHost(buf, DType.INT32, Device.CPU, new long[0]);
  }

  /** A 0-dim bool tensor ({@code torch.tensor(True)}). */
  public static Tensor scalar(boolean value) {
    ByteBuffer buf = Native.hostBuffer(1);
    buf.put(0, value ? (byte) 1 : (byte) 0);
    return fromHost(buf, DType.BOOL, Device.CPU, new long[0]);
  }

  /** A 0-dim tensor of {@code dtype} holding {@code value} converted as torch.full does. */
  public static Tensor scalar(double value, DType dtype) {
    return full(new long[0], value, dtype, Device.CPU);
  }

  /* ---- *_like ------------------------------------------------------------------------------ */

  /** {@code torch.empty_like(t)}: same shape, dtype and device. */
  public static Tensor emptyLike(Tensor t) {
    return emptyLike(t, null);
  }

  /** {@code torch.empty_like(t, dtype=dtype)}; a null dtype keeps t's. */
  public static Tensor emptyLike(Tensor t, DType dtype) {
    return t.make(out -> ctorch.ct_empty_like(t.handle(), dtypeCode(dtype), out));
  }

  /** {@code torch.zeros_like(t)}. */
  public static Tensor zerosLike(Tensor t) {
    return zerosLike(t, null);
  }

  /** {@code torch.zeros_like(t, dtype=dtype)}; a null dtype keeps t's. */
  public static Tensor zerosLike(Tensor t, DType dtype) {
    return t.make(out -> ctorch.ct_zeros_like(t.handle(), dtypeCode(dtype), out));
  }

  /** {@code torch.ones_like(t)}. */
  public static Tensor onesLike(Tensor t) {
    return onesLike(t, null);
  }

  /** {@code torch.ones_like(t, dtype=dtype)}; a null dtype keeps t's. */
  public static Tensor onesLike(Tensor t, DType dtype) {
    return t.make(out -> ctorch.ct_ones_like(t.handle(), dtypeCode(dtype), out));
  }

  /** {@code torch.full_like(t, value)}. */
  public static Tensor fullLike(Tensor t, double value) {
    return fullLike(t, value, null);
  }

  /** {@code torch.full_like(t, value, dtype=dtype)}; a null dtype keeps t's. */
  public static Tensor fullLike(Tensor t, double value, DType dtype) {
    return t.make(out -> ctorch.ct_full_like(t.handle(), value, dtypeCode(dtype), out));
  }

  /* ---- new_* ------------------------------------------------------------------------------- */

  /** {@code t.new_empty(shape)}: this tensor's dtype and device. */
  public Tensor newEmpty(long... shape) {
    return newEmpty(shape, null);
  }

  /** {@code t.new_empty(shape, dtype=dtype)}; a null dtype keeps this tensor's. */
  public Tensor newEmpty(long[] shape, DType dtype) {
    return make(out -> ctorch.ct_new_empty(handle(), shape, shape.length, dtypeCode(dtype), out));
  }

  /** {@code t.new_zeros(shape)}. */
  public Tensor newZeros(long... shape) {
    return newZeros(shape, null);
  }

  /** {@code t.new_zeros(shape, dtype=dtype)}. */
  public Tensor newZeros(long[] shape, DType dtype) {
    return make(out -> ctorch.ct_new_zeros(handle(), shape, shape.length, dtypeCode(dtype), out));
  }

  /** {@code t.new_ones(shape)}. */
  public Tensor newOnes(long... shape) {
    return newOnes(shape, null);
  }

  /** {@code t.new_ones(shape, dtype=dtype)}. */
  public Tensor newOnes(long[] shape, DType dtype) {
    return make(out -> ctorch.ct_new_ones(handle(), shape, shape.length, dtypeCode(dtype), out));
  }

  /** {@code t.new_full(shape, value)}. */
  public Tensor newFull(long[] shape, double value) {
    return newFull(shape, value, null);
  }

  /** {@code t.new_full(shape, value, dtype=dtype)}. */
  public Tensor newFull(long[] shape, double value, DType dtype) {
    return make(out -> ctorch.ct_new_full(handle(), shape, shape.length, value,
        dtypeCode(dtype), out));
  }

  /**
   * {@code t.new_tensor(data, dtype=dtype)}: the bytes between the buffer's position and limit
   * are elements of {@code bufferDType} (native order, C-contiguous), converted to
   * {@code dtype} (null: this tensor's dtype), on this tensor's device. 1-D.
   */
  public Tensor newTensor(ByteBuffer data, DType bufferDType, DType dtype) {
    return newTensor(data, bufferDType, dtype, data.remaining() / bufferDType.itemSize());
  }

  /** {@code t.new_tensor(data, dtype=dtype)} with the given shape. */
  public Tensor newTensor(ByteBuffer data, DType bufferDType, DType dtype, long... shape) {
    Objects.requireNonNull(data, "data");
    ByteBuffer src = readable(data);
    long nbytes = src.remaining();
    try {
      return make(out -> ctorch.ct_new_tensor(handle(), src, nbytes, shape, shape.length,
          bufferDType.code(), dtypeCode(dtype), out));
    } finally {
      Reference.reachabilityFence(data);
    }
  }

  /** {@code t.new_tensor(data)}: 1-D, float values converted to this tensor's dtype and device. */
  public Tensor newTensor(float[] data) {
    return newTensor(data, data.length);
  }

  /** {@code t.new_tensor(data)} with the given shape. */
  public Tensor newTensor(float[] data, long... shape) {
    ByteBuffer buf = Native.hostBuffer(4L * data.length);
    buf.asFloatBuffer().put(data);
    return newTensor(buf, DType.FLOAT32, null, shape);
  }

  /** {@code t.new_tensor(data)}: 1-D, double values converted to this tensor's dtype and device. */
  public Tensor newTensor(double[] data) {
    return newTensor(data, data.length);
  }

  /** {@code t.new_tensor(data)} with the given shape. */
  public Tensor newTensor(double[] data, long... shape) {
    ByteBuffer buf = Native.hostBuffer(8L * data.length);
    buf.asDoubleBuffer().put(data);
    return newTensor(buf, DType.FLOAT64, null, shape);
  }

  /** {@code t.new_tensor(data)}: 1-D, long values converted to this tensor's dtype and device. */
  public Tensor newTensor(long[] data) {
    return newTensor(data, data.length);
  }

  /** {@code t.new_tensor(data)} with the given shape. */
  public Tensor newTensor(long[] data, long... shape) {
    ByteBuffer buf = Native.hostBuffer(8L * data.length);
    buf.asLongBuffer().put(data);
    return newTensor(buf, DType.INT64, null, shape);
  }

  /** {@code t.new_tensor(data)}: 1-D, int values converted to this tensor's dtype and device. */
  public Tensor newTensor(int[] data) {
    return newTensor(data, data.length);
  }

  /** {@code t.new_tensor(data)} with the given shape. */
  public Tensor newTensor(int[] data, long... shape) {
    ByteBuffer buf = Native.hostBuffer(4L * data.length);
    buf.asIntBuffer().put(data);
    return newTensor(buf, DType.INT32, null, shape);
  }

  /* ============================================================================================
   * Section 7: moving data
   * ========================================================================================== */

  /**
   * {@code t.to(device)}. When the tensor is already there, the result is the same tensor (a
   * new reference to it: {@code isSame} is true), as in PyTorch.
   */
  public Tensor to(Device device) {
    return to(device, null, false, false);
  }

  /** {@code t.to(dtype)}, on this tensor's device; the same tensor when nothing changes. */
  public Tensor to(DType dtype) {
    return to(device(), dtype, false, false);
  }

  /** {@code t.to(device, dtype)}; a null dtype keeps the dtype. */
  public Tensor to(Device device, DType dtype) {
    return to(device, dtype, false, false);
  }

  /**
   * {@code t.to(device, non_blocking=nonBlocking)}. With nonBlocking, a copy from pinned host
   * memory to the GPU, or from the GPU to the CPU (the result is then pinned), returns at once:
   * synchronize (the stream, an event or the device) before reading the result.
   */
  public Tensor to(Device device, boolean nonBlocking) {
    return to(device, null, nonBlocking, false);
  }

  /** {@code t.to(device, dtype, non_blocking)}; a null dtype keeps the dtype. */
  public Tensor to(Device device, DType dtype, boolean nonBlocking) {
    return to(device, dtype, nonBlocking, false);
  }

  /**
   * {@code t.to(device, dtype, non_blocking, copy)}: with {@code copy} the result is always a
   * new tensor; a null dtype keeps the dtype. See {@link #to(Device, boolean)} for
   * nonBlocking.
   */
  public Tensor to(Device device, DType dtype, boolean nonBlocking, boolean copy) {
    Objects.requireNonNull(device, "device");
    return make(out -> ctorch.ct_tensor_to(handle(), device.type().code(), device.index(),
        dtypeCode(dtype), b(nonBlocking), b(copy), out));
  }

  /** {@code t.cpu()}. */
  public Tensor cpu() {
    return to(Device.CPU);
  }

  /** {@code t.cuda()}: to the current CUDA device. */
  public Tensor cuda() {
    return to(Device.CUDA);
  }

  /** {@code t.cuda(index)}. */
  public Tensor cuda(int index) {
    return to(Device.cuda(index));
  }

  /**
   * {@code t.copy_(src)}: copies src into this tensor, broadcasting src to this shape and
   * converting dtype and device. Returns this.
   */
  public Tensor copy_(Tensor src) {
    return copy_(src, false);
  }

  /**
   * {@code t.copy_(src, non_blocking)}. Returns this. With nonBlocking, a copy between pinned
   * host memory and the GPU returns before it is done (synchronize before reading).
   */
  public Tensor copy_(Tensor src, boolean nonBlocking) {
    run(src, () -> ctorch.ct_tensor_copy_(handle(), src.handle(), b(nonBlocking)));
    return this;
  }

  /* ============================================================================================
   * Section 12a: pinned memory and streams of a tensor
   * ========================================================================================== */

  /**
   * {@code t.pin_memory()}: a copy of this CPU tensor in page-locked host memory, from which
   * non_blocking copies to the GPU are truly asynchronous. Code 300 (CT_ERR_DEVICE) for a
   * CUDA tensor, 301 without CUDA.
   */
  public Tensor pinMemory() {
    return make(out -> ctorch.ct_tensor_pin_memory(handle(), out));
  }

  /** {@code t.is_pinned()}: whether the storage is pinned host memory (works without CUDA). */
  public boolean isPinned() {
    int[] out = {0};
    run(() -> ctorch.ct_tensor_is_pinned(handle(), out));
    return out[0] != 0;
  }

  /**
   * {@code t.record_stream(stream)}: tells the caching allocator that this CUDA tensor's memory
   * is in use on stream, so it is not reused before the work queued there (up to the moment the
   * tensor is freed) is done. The tensor must be on the stream's device (code 300 otherwise).
   */
  public void recordStream(Stream stream) {
    Objects.requireNonNull(stream, "stream");
    try {
      Native.check(ctorch.ct_tensor_record_stream(handle(), stream.handle()));
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(stream);
    }
  }

  /** {@code t.clone()}: a contiguous copy with its own storage. */
  @Override
  public Tensor clone() {
    return make(out -> ctorch.ct_tensor_clone(handle(), out));
  }

  /**
   * {@code t.item()} of a one-element tensor, as a double (complex: the real part; bool: 0 or
   * 1). CT_ERR_SHAPE when numel != 1.
   */
  public double item() {
    double[] out = {0};
    run(() -> ctorch.ct_tensor_item_double(handle(), out));
    return out[0];
  }

  /** {@code int(t.item())}: floating values are truncated toward zero. */
  public long itemLong() {
    long[] out = {0};
    run(() -> ctorch.ct_tensor_item_int64(handle(), out));
    return out[0];
  }

  /** {@code bool(t.item())}. */
  public boolean itemBoolean() {
    return item() != 0;
  }

  /** {@code complex(t.item())} of a complex (or real) tensor. */
  public Complex itemComplex() {
    double[] re = {0};
    double[] im = {0};
    run(() -> ctorch.ct_tensor_item_complex(handle(), re, im));
    return new Complex(re[0], im[0]);
  }

  /**
   * Copies the elements, in this tensor's dtype, C-contiguous, native byte order, into
   * {@code dst} at its position, and advances the position by {@link #nbytes()}. Works for
   * tensors on any device (synchronous). CT_ERR_BUFFER_SIZE when fewer bytes remain.
   */
  public void copyTo(ByteBuffer dst) {
    Objects.requireNonNull(dst, "dst");
    if (dst.isReadOnly()) {
      throw new ReadOnlyBufferException();
    }
    long need = nbytes();
    long avail = dst.remaining();
    long n = Math.min(need, avail); // a short buffer gives the C library's CT_ERR_BUFFER_SIZE
    if (dst.isDirect()) {
      ByteBuffer view = dst.slice();
      run(() -> ctorch.ct_tensor_copy_to_buffer(handle(), view, n));
      Reference.reachabilityFence(dst);
    } else {
      ByteBuffer tmp = Native.hostBuffer(n);
      run(() -> ctorch.ct_tensor_copy_to_buffer(handle(), tmp, n));
      dst.put(dst.position(), tmp, 0, (int) n);
    }
    dst.position(dst.position() + (int) n);
  }

  /** The elements converted to {@code dtype}, on the CPU, in a (scratch) native-order buffer. */
  private ByteBuffer hostCopy(DType dtype) {
    long[] out = {0};
    run(() -> ctorch.ct_tensor_to(handle(), DeviceType.CPU.code(), -1, dtypeCode(dtype), 0, 0,
        out));
    try (Tensor c = wrapUnscoped(out[0])) {
      long n = c.nbytes();
      ByteBuffer buf = Native.hostBuffer(n);
      c.run(() -> ctorch.ct_tensor_copy_to_buffer(c.handle(), buf, n));
      return buf;
    }
  }

  /** The elements converted to float32 ({@code t.to(torch.float32).flatten().tolist()}). */
  public float[] toFloatArray() {
    ByteBuffer buf = hostCopy(DType.FLOAT32);
    float[] a = new float[buf.limit() / 4];
    buf.asFloatBuffer().get(a);
    return a;
  }

  /** The elements converted to float64. */
  public double[] toDoubleArray() {
    ByteBuffer buf = hostCopy(DType.FLOAT64);
    double[] a = new double[buf.limit() / 8];
    buf.asDoubleBuffer().get(a);
    return a;
  }

  /** The elements converted to int64 (floating values truncated toward zero). */
  public long[] toLongArray() {
    ByteBuffer buf = hostCopy(DType.INT64);
    long[] a = new long[buf.limit() / 8];
    buf.asLongBuffer().get(a);
    return a;
  }

  /** The elements converted to int32. */
  public int[] toIntArray() {
    ByteBuffer buf = hostCopy(DType.INT32);
    int[] a = new int[buf.limit() / 4];
    buf.asIntBuffer().get(a);
    return a;
  }

  /** The elements converted to int16. */
  public short[] toShortArray() {
    ByteBuffer buf = hostCopy(DType.INT16);
    short[] a = new short[buf.limit() / 2];
    buf.asShortBuffer().get(a);
    return a;
  }

  /** The elements converted to bool (non-zero is true). */
  public boolean[] toBooleanArray() {
    ByteBuffer buf = hostCopy(DType.BOOL);
    boolean[] a = new boolean[buf.limit()];
    for (int i = 0; i < a.length; i++) {
      a[i] = buf.get(i) != 0;
    }
    return a;
  }

  /**
   * The raw bytes of the elements in this tensor's own dtype (numel * itemsize bytes,
   * C-contiguous, native byte order), like {@link #copyTo(ByteBuffer)}. For int8 and uint8
   * tensors these are the values (read uint8 with {@code b & 0xFF}).
   */
  public byte[] toByteArray() {
    ByteBuffer buf = hostCopy(null);
    byte[] a = new byte[buf.limit()];
    buf.get(0, a);
    return a;
  }

  /* ============================================================================================
   * Section 8: views (share storage with this tensor; dims may be negative)
   * ========================================================================================== */

  /** {@code t.view(shape)}: one size may be -1. CT_ERR_SHAPE when the strides do not allow it. */
  public Tensor view(long... shape) {
    return make(out -> ctorch.ct_view(handle(), shape, shape.length, out));
  }

  /** {@code t.reshape(shape)}: a view when possible, else a contiguous copy. */
  public Tensor reshape(long... shape) {
    return make(out -> ctorch.ct_reshape(handle(), shape, shape.length, out));
  }

  /** {@code t.permute(dims)}. */
  public Tensor permute(int... dims) {
    long[] d = toLongs(dims);
    return make(out -> ctorch.ct_permute(handle(), d, d.length, out));
  }

  /** {@code t.transpose(dim0, dim1)}. */
  public Tensor transpose(int dim0, int dim1) {
    return make(out -> ctorch.ct_transpose(handle(), dim0, dim1, out));
  }

  /** {@code t.narrow(dim, start, length)}. */
  public Tensor narrow(int dim, long start, long length) {
    return make(out -> ctorch.ct_narrow(handle(), dim, start, length, out));
  }

  /** {@code t[..., start:end, ...]} along dim (Python slice clamping). */
  public Tensor slice(int dim, long start, long end) {
    return slice(dim, start, end, 1);
  }

  /** {@code t[..., start:end:step, ...]} along dim; step &gt; 0. */
  public Tensor slice(int dim, long start, long end, long step) {
    return make(out -> ctorch.ct_slice(handle(), dim, start, end, step, out));
  }

  /** {@code t.select(dim, index)}: removes dim; a negative index counts from the end. */
  public Tensor select(int dim, long index) {
    return make(out -> ctorch.ct_select(handle(), dim, index, out));
  }

  /** {@code t.expand(sizes)}: -1 keeps a size; only size-1 dims grow (stride 0). */
  public Tensor expand(long... sizes) {
    return make(out -> ctorch.ct_expand(handle(), sizes, sizes.length, out));
  }

  /** {@code t.squeeze()}: removes every size-1 dim. */
  public Tensor squeeze() {
    return make(out -> ctorch.ct_squeeze(handle(), out));
  }

  /** {@code t.squeeze(dim)}: removes dim if its size is 1. */
  public Tensor squeeze(int dim) {
    return make(out -> ctorch.ct_squeeze_dim(handle(), dim, out));
  }

  /** {@code t.unsqueeze(dim)}, dim in [-dim()-1, dim()]. */
  public Tensor unsqueeze(int dim) {
    return make(out -> ctorch.ct_unsqueeze(handle(), dim, out));
  }

  /** {@code t.flatten()}. */
  public Tensor flatten() {
    return flatten(0, -1);
  }

  /** {@code t.flatten(start_dim, end_dim)} (a view when possible). */
  public Tensor flatten(int startDim, int endDim) {
    return make(out -> ctorch.ct_flatten(handle(), startDim, endDim, out));
  }

  /** {@code t.contiguous()}: the same tensor when already contiguous, else a copy. */
  public Tensor contiguous() {
    return make(out -> ctorch.ct_contiguous(handle(), out));
  }

  /* ============================================================================================
   * Section 9: elementwise operations (broadcasting, PyTorch's type promotion)
   * ========================================================================================== */

  /** {@code op(t)}. */
  public Tensor unary(UnaryOp op) {
    return make(out -> ctorch.ct_unary(op.code(), handle(), out));
  }

  /**
   * {@code t.op_()} in place; CT_ERR_DTYPE when the result cannot be stored in this dtype
   * (e.g. exp_ on an int64 tensor). Returns this.
   */
  public Tensor unary_(UnaryOp op) {
    run(() -> ctorch.ct_unary_(op.code(), handle()));
    return this;
  }

  public Tensor neg() { return unary(UnaryOp.NEG); }
  public Tensor abs() { return unary(UnaryOp.ABS); }
  public Tensor exp() { return unary(UnaryOp.EXP); }
  public Tensor log() { return unary(UnaryOp.LOG); }
  public Tensor sqrt() { return unary(UnaryOp.SQRT); }
  public Tensor sin() { return unary(UnaryOp.SIN); }
  public Tensor cos() { return unary(UnaryOp.COS); }
  public Tensor tanh() { return unary(UnaryOp.TANH); }
  public Tensor sigmoid() { return unary(UnaryOp.SIGMOID); }
  public Tensor relu() { return unary(UnaryOp.RELU); }
  public Tensor logicalNot() { return unary(UnaryOp.LOGICAL_NOT); }
  public Tensor sign() { return unary(UnaryOp.SIGN); }
  public Tensor floor() { return unary(UnaryOp.FLOOR); }
  public Tensor ceil() { return unary(UnaryOp.CEIL); }
  public Tensor round() { return unary(UnaryOp.ROUND); }
  public Tensor reciprocal() { return unary(UnaryOp.RECIPROCAL); }
  public Tensor square() { return unary(UnaryOp.SQUARE); }

  public Tensor neg_() { return unary_(UnaryOp.NEG); }
  public Tensor abs_() { return unary_(UnaryOp.ABS); }
  public Tensor exp_() { return unary_(UnaryOp.EXP); }
  public Tensor log_() { return unary_(UnaryOp.LOG); }
  public Tensor sqrt_() { return unary_(UnaryOp.SQRT); }
  public Tensor sin_() { return unary_(UnaryOp.SIN); }
  public Tensor cos_() { return unary_(UnaryOp.COS); }
  public Tensor tanh_() { return unary_(UnaryOp.TANH); }
  public Tensor sigmoid_() { return unary_(UnaryOp.SIGMOID); }
  public Tensor relu_() { return unary_(UnaryOp.RELU); }
  public Tensor logicalNot_() { return unary_(UnaryOp.LOGICAL_NOT); }
  public Tensor sign_() { return unary_(UnaryOp.SIGN); }
  public Tensor floor_() { return unary_(UnaryOp.FLOOR); }
  public Tensor ceil_() { return unary_(UnaryOp.CEIL); }
  public Tensor round_() { return unary_(UnaryOp.ROUND); }
  public Tensor reciprocal_() { return unary_(UnaryOp.RECIPROCAL); }
  public Tensor square_() { return unary_(UnaryOp.SQUARE); }

  /** {@code op(t, other)} with broadcasting and type promotion. */
  public Tensor binary(BinaryOp op, Tensor other) {
    return make(other, out -> ctorch.ct_binary(op.code(), handle(), other.handle(), out));
  }

  /**
   * {@code op(t, s)} with a Python int scalar: it does not widen an integer tensor
   * (int32 + 2 stays int32).
   */
  public Tensor binary(BinaryOp op, long scalar) {
    return make(out -> ctorch.ct_binary_scalar_i(op.code(), handle(), scalar, 0, out));
  }

  /**
   * {@code op(t, s)} with a Python float scalar: an integer tensor becomes float32, a float16
   * tensor stays float16 ("wrapped number" promotion).
   */
  public Tensor binary(BinaryOp op, double scalar) {
    return make(out -> ctorch.ct_binary_scalar_f(op.code(), handle(), scalar, 0, out));
  }

  /** {@code op(s, t)} with a Python int scalar (e.g. {@code 2 - t}). */
  public Tensor rbinary(BinaryOp op, long scalar) {
    return make(out -> ctorch.ct_binary_scalar_i(op.code(), handle(), scalar, 1, out));
  }

  /** {@code op(s, t)} with a Python float scalar (e.g. {@code 2.5 / t}). */
  public Tensor rbinary(BinaryOp op, double scalar) {
    return make(out -> ctorch.ct_binary_scalar_f(op.code(), handle(), scalar, 1, out));
  }

  /**
   * {@code t.op_(other)} in place: other broadcasts to this shape and the promoted dtype must
   * be castable to this dtype. Returns this.
   */
  public Tensor binary_(BinaryOp op, Tensor other) {
    run(other, () -> ctorch.ct_binary_(op.code(), handle(), other.handle()));
    return this;
  }

  /** {@code t.op_(s)} in place with a Python int scalar. Returns this. */
  public Tensor binary_(BinaryOp op, long scalar) {
    run(() -> ctorch.ct_binary_scalar_i_(op.code(), handle(), scalar));
    return this;
  }

  /** {@code t.op_(s)} in place with a Python float scalar. Returns this. */
  public Tensor binary_(BinaryOp op, double scalar) {
    run(() -> ctorch.ct_binary_scalar_f_(op.code(), handle(), scalar));
    return this;
  }

  public Tensor add(Tensor other) { return binary(BinaryOp.ADD, other); }
  public Tensor add(long other) { return binary(BinaryOp.ADD, other); }
  public Tensor add(double other) { return binary(BinaryOp.ADD, other); }
  public Tensor sub(Tensor other) { return binary(BinaryOp.SUB, other); }
  public Tensor sub(long other) { return binary(BinaryOp.SUB, other); }
  public Tensor sub(double other) { return binary(BinaryOp.SUB, other); }
  public Tensor mul(Tensor other) { return binary(BinaryOp.MUL, other); }
  public Tensor mul(long other) { return binary(BinaryOp.MUL, other); }
  public Tensor mul(double other) { return binary(BinaryOp.MUL, other); }
  /** True division: integer inputs give float32. */
  public Tensor div(Tensor other) { return binary(BinaryOp.DIV, other); }
  public Tensor div(long other) { return binary(BinaryOp.DIV, other); }
  public Tensor div(double other) { return binary(BinaryOp.DIV, other); }
  public Tensor pow(Tensor other) { return binary(BinaryOp.POW, other); }
  public Tensor pow(long other) { return binary(BinaryOp.POW, other); }
  public Tensor pow(double other) { return binary(BinaryOp.POW, other); }
  public Tensor remainder(Tensor other) { return binary(BinaryOp.REMAINDER, other); }
  public Tensor remainder(long other) { return binary(BinaryOp.REMAINDER, other); }
  public Tensor remainder(double other) { return binary(BinaryOp.REMAINDER, other); }
  public Tensor floorDivide(Tensor other) { return binary(BinaryOp.FLOOR_DIVIDE, other); }
  public Tensor floorDivide(long other) { return binary(BinaryOp.FLOOR_DIVIDE, other); }
  public Tensor floorDivide(double other) { return binary(BinaryOp.FLOOR_DIVIDE, other); }

  /** {@code s - t} ({@code torch.rsub(t, s)}). */
  public Tensor rsub(long scalar) { return rbinary(BinaryOp.SUB, scalar); }
  public Tensor rsub(double scalar) { return rbinary(BinaryOp.SUB, scalar); }
  /** {@code s / t}. */
  public Tensor rdiv(long scalar) { return rbinary(BinaryOp.DIV, scalar); }
  public Tensor rdiv(double scalar) { return rbinary(BinaryOp.DIV, scalar); }
  /** {@code s ** t}. */
  public Tensor rpow(long scalar) { return rbinary(BinaryOp.POW, scalar); }
  public Tensor rpow(double scalar) { return rbinary(BinaryOp.POW, scalar); }

  public Tensor eq(Tensor other) { return binary(BinaryOp.EQ, other); }
  public Tensor eq(long other) { return binary(BinaryOp.EQ, other); }
  public Tensor eq(double other) { return binary(BinaryOp.EQ, other); }
  public Tensor ne(Tensor other) { return binary(BinaryOp.NE, other); }
  public Tensor ne(long other) { return binary(BinaryOp.NE, other); }
  public Tensor ne(double other) { return binary(BinaryOp.NE, other); }
  public Tensor lt(Tensor other) { return binary(BinaryOp.LT, other); }
  public Tensor lt(long other) { return binary(BinaryOp.LT, other); }
  public Tensor lt(double other) { return binary(BinaryOp.LT, other); }
  public Tensor le(Tensor other) { return binary(BinaryOp.LE, other); }
  public Tensor le(long other) { return binary(BinaryOp.LE, other); }
  public Tensor le(double other) { return binary(BinaryOp.LE, other); }
  public Tensor gt(Tensor other) { return binary(BinaryOp.GT, other); }
  public Tensor gt(long other) { return binary(BinaryOp.GT, other); }
  public Tensor gt(double other) { return binary(BinaryOp.GT, other); }
  public Tensor ge(Tensor other) { return binary(BinaryOp.GE, other); }
  public Tensor ge(long other) { return binary(BinaryOp.GE, other); }
  public Tensor ge(double other) { return binary(BinaryOp.GE, other); }

  public Tensor logicalAnd(Tensor other) { return binary(BinaryOp.LOGICAL_AND, other); }
  public Tensor logicalOr(Tensor other) { return binary(BinaryOp.LOGICAL_OR, other); }
  public Tensor logicalXor(Tensor other) { return binary(BinaryOp.LOGICAL_XOR, other); }
  /** {@code torch.maximum(t, other)} (NaN propagates). */
  public Tensor maximum(Tensor other) { return binary(BinaryOp.MAXIMUM, other); }
  /** {@code torch.minimum(t, other)} (NaN propagates). */
  public Tensor minimum(Tensor other) { return binary(BinaryOp.MINIMUM, other); }

  public Tensor add_(Tensor other) { return binary_(BinaryOp.ADD, other); }
  public Tensor add_(long other) { return binary_(BinaryOp.ADD, other); }
  public Tensor add_(double other) { return binary_(BinaryOp.ADD, other); }
  public Tensor sub_(Tensor other) { return binary_(BinaryOp.SUB, other); }
  public Tensor sub_(long other) { return binary_(BinaryOp.SUB, other); }
  public Tensor sub_(double other) { return binary_(BinaryOp.SUB, other); }
  public Tensor mul_(Tensor other) { return binary_(BinaryOp.MUL, other); }
  public Tensor mul_(long other) { return binary_(BinaryOp.MUL, other); }
  public Tensor mul_(double other) { return binary_(BinaryOp.MUL, other); }
  public Tensor div_(Tensor other) { return binary_(BinaryOp.DIV, other); }
  public Tensor div_(long other) { return binary_(BinaryOp.DIV, other); }
  public Tensor div_(double other) { return binary_(BinaryOp.DIV, other); }
  public Tensor pow_(Tensor other) { return binary_(BinaryOp.POW, other); }
  public Tensor pow_(long other) { return binary_(BinaryOp.POW, other); }
  public Tensor pow_(double other) { return binary_(BinaryOp.POW, other); }
  public Tensor remainder_(Tensor other) { return binary_(BinaryOp.REMAINDER, other); }
  public Tensor remainder_(long other) { return binary_(BinaryOp.REMAINDER, other); }
  public Tensor remainder_(double other) { return binary_(BinaryOp.REMAINDER, other); }
  public Tensor floorDivide_(Tensor other) { return binary_(BinaryOp.FLOOR_DIVIDE, other); }
  public Tensor floorDivide_(long other) { return binary_(BinaryOp.FLOOR_DIVIDE, other); }
  public Tensor floorDivide_(double other) { return binary_(BinaryOp.FLOOR_DIVIDE, other); }
  public Tensor maximum_(Tensor other) { return binary_(BinaryOp.MAXIMUM, other); }
  public Tensor minimum_(Tensor other) { return binary_(BinaryOp.MINIMUM, other); }

  /**
   * {@code torch.clamp(t, min, max)}. Bounds are Python floats for a floating tensor and must
   * be integral values for an integer one.
   */
  public Tensor clamp(double min, double max) {
    return make(out -> ctorch.ct_clamp(handle(), 1, min, 1, max, out));
  }

  /** {@code torch.clamp(t, min=min)}. */
  public Tensor clampMin(double min) {
    return make(out -> ctorch.ct_clamp(handle(), 1, min, 0, 0, out));
  }

  /** {@code torch.clamp(t, max=max)}. */
  public Tensor clampMax(double max) {
    return make(out -> ctorch.ct_clamp(handle(), 0, 0, 1, max, out));
  }

  /** {@code t.clamp_(min, max)}. Returns this. */
  public Tensor clamp_(double min, double max) {
    run(() -> ctorch.ct_clamp_(handle(), 1, min, 1, max));
    return this;
  }

  /** {@code t.clamp_(min=min)}. Returns this. */
  public Tensor clampMin_(double min) {
    run(() -> ctorch.ct_clamp_(handle(), 1, min, 0, 0));
    return this;
  }

  /** {@code t.clamp_(max=max)}. Returns this. */
  public Tensor clampMax_(double max) {
    run(() -> ctorch.ct_clamp_(handle(), 0, 0, 1, max));
    return this;
  }

  /** {@code torch.where(cond, a, b)}: cond must be bool; a and b promote; all broadcast. */
  public static Tensor where(Tensor cond, Tensor a, Tensor b) {
    Objects.requireNonNull(cond, "cond");
    Objects.requireNonNull(a, "a");
    Objects.requireNonNull(b, "b");
    try {
      return create(out -> ctorch.ct_where(cond.handle(), a.handle(), b.handle(), out));
    } finally {
      Reference.reachabilityFence(cond);
      Reference.reachabilityFence(a);
      Reference.reachabilityFence(b);
    }
  }

  /** {@code t.fill_(value)}. Returns this. */
  public Tensor fill_(double value) {
    run(() -> ctorch.ct_fill_(handle(), value));
    return this;
  }

  /** {@code t.zero_()}. Returns this. */
  public Tensor zero_() {
    run(() -> ctorch.ct_zero_(handle()));
    return this;
  }

  /* ============================================================================================
   * Section 10: reductions
   * ========================================================================================== */

  /**
   * {@code op} over {@code dims} (null or empty: all dims); keepdim keeps them with size 1;
   * {@code dtype} (null: the default) is the dtype to accumulate and return in.
   */
  public Tensor reduce(ReduceOp op, int[] dims, boolean keepdim, DType dtype) {
    long[] d = toLongs(dims);
    int n = d == null ? 0 : d.length;
    return make(out -> ctorch.ct_reduce(op.code(), handle(), d, n, b(keepdim),
        dtypeCode(dtype), out));
  }

  /** {@code t.sum()}: bool and integers give int64. */
  public Tensor sum() { return reduce(ReduceOp.SUM, null, false, null); }
  /** {@code t.sum(dtype=dtype)}. */
  public Tensor sum(DType dtype) { return reduce(ReduceOp.SUM, null, false, dtype); }
  /** {@code t.sum(dim)}. */
  public Tensor sum(int dim) { return reduce(ReduceOp.SUM, new int[] {dim}, false, null); }
  /** {@code t.sum(dim, keepdim)}. */
  public Tensor sum(int dim, boolean keepdim) {
    return reduce(ReduceOp.SUM, new int[] {dim}, keepdim, null);
  }
  /** {@code t.sum(dims, keepdim)}. */
  public Tensor sum(int[] dims, boolean keepdim) {
    return reduce(ReduceOp.SUM, dims, keepdim, null);
  }
  /** {@code t.sum(dims, keepdim, dtype=dtype)}. */
  public Tensor sum(int[] dims, boolean keepdim, DType dtype) {
    return reduce(ReduceOp.SUM, dims, keepdim, dtype);
  }

  /** {@code t.mean()}: floating or complex tensors only (CT_ERR_DTYPE otherwise). */
  public Tensor mean() { return reduce(ReduceOp.MEAN, null, false, null); }
  public Tensor mean(DType dtype) { return reduce(ReduceOp.MEAN, null, false, dtype); }
  public Tensor mean(int dim) { return reduce(ReduceOp.MEAN, new int[] {dim}, false, null); }
  public Tensor mean(int dim, boolean keepdim) {
    return reduce(ReduceOp.MEAN, new int[] {dim}, keepdim, null);
  }
  public Tensor mean(int[] dims, boolean keepdim) {
    return reduce(ReduceOp.MEAN, dims, keepdim, null);
  }
  public Tensor mean(int[] dims, boolean keepdim, DType dtype) {
    return reduce(ReduceOp.MEAN, dims, keepdim, dtype);
  }

  /** {@code t.prod()}: bool and integers give int64. */
  public Tensor prod() { return reduce(ReduceOp.PROD, null, false, null); }
  public Tensor prod(DType dtype) { return reduce(ReduceOp.PROD, null, false, dtype); }
  public Tensor prod(int dim) { return reduce(ReduceOp.PROD, new int[] {dim}, false, null); }
  public Tensor prod(int dim, boolean keepdim) {
    return reduce(ReduceOp.PROD, new int[] {dim}, keepdim, null);
  }
  public Tensor prod(int[] dims, boolean keepdim, DType dtype) {
    return reduce(ReduceOp.PROD, dims, keepdim, dtype);
  }

  /** {@code t.amax()}: the maximum over all elements. */
  public Tensor amax() { return reduce(ReduceOp.AMAX, null, false, null); }
  public Tensor amax(int dim) { return reduce(ReduceOp.AMAX, new int[] {dim}, false, null); }
  public Tensor amax(int[] dims, boolean keepdim) {
    return reduce(ReduceOp.AMAX, dims, keepdim, null);
  }

  /** {@code t.amin()}. */
  public Tensor amin() { return reduce(ReduceOp.AMIN, null, false, null); }
  public Tensor amin(int dim) { return reduce(ReduceOp.AMIN, new int[] {dim}, false, null); }
  public Tensor amin(int[] dims, boolean keepdim) {
    return reduce(ReduceOp.AMIN, dims, keepdim, null);
  }

  /** {@code t.max()}: a 0-dim tensor; CT_ERR_SHAPE for an empty tensor. */
  public Tensor max() {
    return make(out -> ctorch.ct_max(handle(), out));
  }

  /** {@code t.min()}. */
  public Tensor min() {
    return make(out -> ctorch.ct_min(handle(), out));
  }

  /** {@code t.max(dim, keepdim)}: values and int64 indices (first occurrence). */
  public ValuesIndices max(int dim, boolean keepdim) {
    long[] values = {0};
    long[] indices = {0};
    run(() -> ctorch.ct_max_dim(handle(), dim, b(keepdim), values, indices));
    return pair(values[0], indices[0]);
  }

  /** {@code t.max(dim)}. */
  public ValuesIndices max(int dim) {
    return max(dim, false);
  }

  /** {@code t.min(dim, keepdim)}. */
  public ValuesIndices min(int dim, boolean keepdim) {
    long[] values = {0};
    long[] indices = {0};
    run(() -> ctorch.ct_min_dim(handle(), dim, b(keepdim), values, indices));
    return pair(values[0], indices[0]);
  }

  /** {@code t.min(dim)}. */
  public ValuesIndices min(int dim) {
    return min(dim, false);
  }

  private static ValuesIndices pair(long values, long indices) {
    Tensor v;
    try {
      v = wrap(values);
    } catch (Throwable e) {
      ctorch.ct_tensor_release(indices);
      throw e;
    }
    Tensor i;
    try {
      i = wrap(indices);
    } catch (Throwable e) {
      v.close();
      throw e;
    }
    return new ValuesIndices(v, i);
  }

  /** {@code t.argmax()}: over the flattened tensor, a 0-dim int64 tensor. */
  public Tensor argmax() {
    return make(out -> ctorch.ct_argmax(handle(), 0, 0, 0, out));
  }

  /** {@code t.argmax(dim, keepdim)}. */
  public Tensor argmax(int dim, boolean keepdim) {
    return make(out -> ctorch.ct_argmax(handle(), 1, dim, b(keepdim), out));
  }

  /** {@code t.argmin()}. */
  public Tensor argmin() {
    return make(out -> ctorch.ct_argmin(handle(), 0, 0, 0, out));
  }

  /** {@code t.argmin(dim, keepdim)}. */
  public Tensor argmin(int dim, boolean keepdim) {
    return make(out -> ctorch.ct_argmin(handle(), 1, dim, b(keepdim), out));
  }

  /** {@code torch.linalg.vector_norm(t)}: the 2-norm over all elements. */
  public Tensor norm() {
    return norm(2.0, null, false);
  }

  /** {@code torch.linalg.vector_norm(t, ord=p)}; p may be any real or +-infinity. */
  public Tensor norm(double p) {
    return norm(p, null, false);
  }

  /**
   * {@code torch.linalg.vector_norm(t, ord=p, dim=dims, keepdim=keepdim)}; floating or complex
   * inputs only (complex gives a real result).
   */
  public Tensor norm(double p, int[] dims, boolean keepdim) {
    long[] d = toLongs(dims);
    int n = d == null ? 0 : d.length;
    return make(out -> ctorch.ct_norm(handle(), p, d, n, b(keepdim), out));
  }

  /* ============================================================================================
   * Section 11: joining
   * ========================================================================================== */

  @FunctionalInterface
  private interface JoinCall {
    int call(long[] handles, int n, int dim, long[] out);
  }

  private static Tensor join(List<Tensor> tensors, int dim, JoinCall call) {
    Objects.requireNonNull(tensors, "tensors");
    long[] hs = new long[tensors.size()];
    for (int i = 0; i < hs.length; i++) {
      hs[i] = Objects.requireNonNull(tensors.get(i), "tensors[" + i + "]").handle();
    }
    try {
      return create(out -> call.call(hs, hs.length, dim, out));
    } finally {
      Reference.reachabilityFence(tensors);
      for (Tensor t : tensors) {
        Reference.reachabilityFence(t);
      }
    }
  }

  /** {@code torch.cat(tensors, dim)}: same shape except in dim, promoted dtypes, one device. */
  public static Tensor cat(List<Tensor> tensors, int dim) {
    return join(tensors, dim, ctorch::ct_cat);
  }

  /** {@code torch.cat(tensors, dim)}. */
  public static Tensor cat(Tensor[] tensors, int dim) {
    return cat(Arrays.asList(tensors), dim);
  }

  /** {@code torch.cat(tensors)} along dim 0. */
  public static Tensor cat(Tensor... tensors) {
    return cat(Arrays.asList(tensors), 0);
  }

  /** {@code torch.stack(tensors, dim)}: tensors of one shape; a new dim at position dim. */
  public static Tensor stack(List<Tensor> tensors, int dim) {
    return join(tensors, dim, ctorch::ct_stack);
  }

  /** {@code torch.stack(tensors, dim)}. */
  public static Tensor stack(Tensor[] tensors, int dim) {
    return stack(Arrays.asList(tensors), dim);
  }

  /** {@code torch.stack(tensors)} along dim 0. */
  public static Tensor stack(Tensor... tensors) {
    return stack(Arrays.asList(tensors), 0);
  }

  /* ============================================================================================
   * Section 16: random numbers. Every op draws from the generator it is given, or, without one
   * (or with null), from the default generator of the tensor's device; see Generator. Factories
   * default to the CPU and torch's default dtypes (float32; int64 for randint); a null dtype
   * also means the default.
   * ========================================================================================== */

  /** Runs an in-place random op on this tensor with an optional generator. Returns this. */
  private Tensor drawInPlace(Generator gen, GenCall c) {
    try {
      Native.check(c.call(handle(), Generator.handleOf(gen)));
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(gen);
    }
    return this;
  }

  @FunctionalInterface
  private interface GenCall {
    int call(long tensor, long gen);
  }

  @FunctionalInterface
  private interface GenOutCall {
    int call(long gen, long[] out);
  }

  /** A random factory with an optional generator. */
  private static Tensor drawNew(Generator gen, GenOutCall c) {
    try {
      return create(out -> c.call(Generator.handleOf(gen), out));
    } finally {
      Reference.reachabilityFence(gen);
    }
  }

  /** {@code torch.rand(shape)}: uniform values in [0, 1), float32 on the CPU. */
  public static Tensor rand(long... shape) {
    return rand(shape, DType.FLOAT32, Device.CPU, null);
  }

  /** {@code torch.rand(shape, generator=gen)}: float32 on the CPU. */
  public static Tensor rand(long[] shape, Generator gen) {
    return rand(shape, DType.FLOAT32, Device.CPU, gen);
  }

  /** {@code torch.rand(shape, dtype=dtype, device=device)}. */
  public static Tensor rand(long[] shape, DType dtype, Device device) {
    return rand(shape, dtype, device, null);
  }

  /**
   * {@code torch.rand(shape, generator=gen, dtype=dtype, device=device)}: uniform values in
   * [0, 1); dtype float32 (null), float64, float16 or bfloat16 (else code 104, CT_ERR_DTYPE).
   * A generator of another device than {@code device} is code 300 (CT_ERR_DEVICE); a null one
   * is the device's default generator.
   */
  public static Tensor rand(long[] shape, DType dtype, Device device, Generator gen) {
    Objects.requireNonNull(shape, "shape");
    Objects.requireNonNull(device, "device");
    return drawNew(gen, (g, out) -> ctorch.ct_rand(shape, shape.length, dtypeCode(dtype),
        device.type().code(), device.index(), g, out));
  }

  /** {@code torch.randn(shape)}: standard normal values, float32 on the CPU. */
  public static Tensor randn(long... shape) {
    return randn(shape, DType.FLOAT32, Device.CPU, null);
  }

  /** {@code torch.randn(shape, generator=gen)}: float32 on the CPU. */
  public static Tensor randn(long[] shape, Generator gen) {
    return randn(shape, DType.FLOAT32, Device.CPU, gen);
  }

  /** {@code torch.randn(shape, dtype=dtype, device=device)}. */
  public static Tensor randn(long[] shape, DType dtype, Device device) {
    return randn(shape, dtype, device, null);
  }

  /**
   * {@code torch.randn(shape, generator=gen, dtype=dtype, device=device)}: standard normal
   * values; the dtypes and errors of {@link #rand(long[], DType, Device, Generator)}.
   */
  public static Tensor randn(long[] shape, DType dtype, Device device, Generator gen) {
    Objects.requireNonNull(shape, "shape");
    Objects.requireNonNull(device, "device");
    return drawNew(gen, (g, out) -> ctorch.ct_randn(shape, shape.length, dtypeCode(dtype),
        device.type().code(), device.index(), g, out));
  }

  /** {@code torch.randint(low, high, shape)}: integers in [low, high), int64 on the CPU. */
  public static Tensor randint(long low, long high, long... shape) {
    return randint(low, high, shape, DType.INT64, Device.CPU, null);
  }

  /** {@code torch.randint(low, high, shape, generator=gen)}: int64 on the CPU. */
  public static Tensor randint(long low, long high, long[] shape, Generator gen) {
    return randint(low, high, shape, DType.INT64, Device.CPU, gen);
  }

  /** {@code torch.randint(low, high, shape, dtype=dtype, device=device)}. */
  public static Tensor randint(long low, long high, long[] shape, DType dtype, Device device) {
    return randint(low, high, shape, dtype, device, null);
  }

  /**
   * {@code torch.randint(low, high, shape, generator=gen, dtype=dtype, device=device)}:
   * integers in [low, high) for every real dtype (null: int64). Code 100 (CT_ERR_ARGUMENT)
   * when low &gt;= high or the range does not fit the dtype; 300 for a generator of another
   * device.
   */
  public static Tensor randint(long low, long high, long[] shape, DType dtype, Device device,
      Generator gen) {
    Objects.requireNonNull(shape, "shape");
    Objects.requireNonNull(device, "device");
    return drawNew(gen, (g, out) -> ctorch.ct_randint(low, high, shape, shape.length,
        dtypeCode(dtype), device.type().code(), device.index(), g, out));
  }

  /** {@code torch.rand_like(t)}: t's shape, dtype and device. */
  public static Tensor randLike(Tensor t) {
    return randLike(t, null, null);
  }

  /** {@code torch.rand_like(t, dtype=dtype)}; a null dtype keeps t's. */
  public static Tensor randLike(Tensor t, DType dtype) {
    return randLike(t, dtype, null);
  }

  /**
   * {@code torch.rand_like(t, dtype=dtype, generator=gen)}: uniform values in [0, 1) of t's
   * shape on t's device; a null dtype keeps t's (which must then be a float dtype, else code
   * 104), a null generator is the device's default one.
   */
  public static Tensor randLike(Tensor t, DType dtype, Generator gen) {
    Objects.requireNonNull(t, "t");
    try {
      return t.make(out -> ctorch.ct_rand_like(t.handle(), dtypeCode(dtype),
          Generator.handleOf(gen), out));
    } finally {
      Reference.reachabilityFence(gen);
    }
  }

  /** {@code torch.randn_like(t)}: t's shape, dtype and device. */
  public static Tensor randnLike(Tensor t) {
    return randnLike(t, null, null);
  }

  /** {@code torch.randn_like(t, dtype=dtype)}; a null dtype keeps t's. */
  public static Tensor randnLike(Tensor t, DType dtype) {
    return randnLike(t, dtype, null);
  }

  /**
   * {@code torch.randn_like(t, dtype=dtype, generator=gen)}: standard normal values of t's
   * shape on t's device; nulls as in {@link #randLike(Tensor, DType, Generator)}.
   */
  public static Tensor randnLike(Tensor t, DType dtype, Generator gen) {
    Objects.requireNonNull(t, "t");
    try {
      return t.make(out -> ctorch.ct_randn_like(t.handle(), dtypeCode(dtype),
          Generator.handleOf(gen), out));
    } finally {
      Reference.reachabilityFence(gen);
    }
  }

  /** {@code t.uniform_()}: uniform values in [0, 1). Returns this. */
  public Tensor uniform_() {
    return uniform_(0.0, 1.0, null);
  }

  /** {@code t.uniform_(from, to)}. Returns this. */
  public Tensor uniform_(double from, double to) {
    return uniform_(from, to, null);
  }

  /**
   * {@code t.uniform_(from, to, generator=gen)}: uniform values in [from, to), for float32,
   * float64, float16 and bfloat16 tensors (else code 104). Code 100 (CT_ERR_ARGUMENT) when
   * from &gt; to or to - from overflows; 300 for a generator of another device. Returns this.
   */
  public Tensor uniform_(double from, double to, Generator gen) {
    return drawInPlace(gen, (h, g) -> ctorch.ct_tensor_uniform_(h, from, to, g));
  }

  /** {@code t.normal_()}: standard normal values. Returns this. */
  public Tensor normal_() {
    return normal_(0.0, 1.0, null);
  }

  /** {@code t.normal_(mean, std)}. Returns this. */
  public Tensor normal_(double mean, double std) {
    return normal_(mean, std, null);
  }

  /**
   * {@code t.normal_(mean, std, generator=gen)}: normal values, for the float dtypes of
   * {@link #uniform_(double, double, Generator)}. Code 100 when std &lt; 0. Returns this.
   */
  public Tensor normal_(double mean, double std, Generator gen) {
    return drawInPlace(gen, (h, g) -> ctorch.ct_tensor_normal_(h, mean, std, g));
  }

  /**
   * {@code t.random_()}: integers over the dtype's range (bool: 0 or 1; float dtypes: the
   * integers in [0, 2^mantissa digits]), for every real dtype (complex: code 104). Returns this.
   */
  public Tensor random_() {
    return random_(null);
  }

  /** {@code t.random_(generator=gen)}: see {@link #random_()}. Returns this. */
  public Tensor random_(Generator gen) {
    return drawInPlace(gen, ctorch::ct_tensor_random_);
  }

  /** {@code t.random_(to)}: integers in [0, to). Returns this. */
  public Tensor random_(long to) {
    return random_(0, to, null);
  }

  /** {@code t.random_(to, generator=gen)}: integers in [0, to). Returns this. */
  public Tensor random_(long to, Generator gen) {
    return random_(0, to, gen);
  }

  /** {@code t.random_(from, to)}: integers in [from, to). Returns this. */
  public Tensor random_(long from, long to) {
    return random_(from, to, null);
  }

  /**
   * {@code t.random_(from, to, generator=gen)}: integers in [from, to), for every real dtype.
   * Code 100 when from &gt;= to or a bound does not fit the dtype. Returns this.
   */
  public Tensor random_(long from, long to, Generator gen) {
    return drawInPlace(gen, (h, g) -> ctorch.ct_tensor_random_range_(h, from, to, g));
  }

  /** {@code t.bernoulli_()}: 1 with probability 0.5, else 0. Returns this. */
  public Tensor bernoulli_() {
    return bernoulli_(0.5, null);
  }

  /** {@code t.bernoulli_(p)}. Returns this. */
  public Tensor bernoulli_(double p) {
    return bernoulli_(p, null);
  }

  /**
   * {@code t.bernoulli_(p, generator=gen)}: 1 with probability p, else 0, for every real
   * dtype. Code 100 unless 0 &lt;= p &lt;= 1. Returns this.
   */
  public Tensor bernoulli_(double p, Generator gen) {
    return drawInPlace(gen, (h, g) -> ctorch.ct_tensor_bernoulli_(h, p, g));
  }

  /* ============================================================================================
   * Section 17: matrix products (torch.matmul, mm, bmm, dot, mv, addmm). OpenBLAS on the CPU,
   * cuBLAS on CUDA devices, both loaded at first use (code 500, CT_ERR_NOT_SUPPORTED, naming
   * the missing library, without them). Both operands have one dtype among float32, float64,
   * float16, bfloat16, complex64 and complex128 (code 104, CT_ERR_DTYPE, otherwise: no
   * promotion) and live on one device (code 300, CT_ERR_DEVICE); shapes that do not fit are
   * code 103 (CT_ERR_SHAPE) with PyTorch's messages. float32 products on CUDA follow
   * Cuda.setAllowTf32.
   * ========================================================================================== */

  /**
   * {@code t @ other} ({@code torch.matmul(t, other)}): 1-D x 1-D is {@link #dot} (a 0-dim
   * result), 2-D x 2-D is {@link #mm}, 2-D x 1-D is {@link #mv}, a 1-D left operand is a row
   * and a 1-D right operand a column that are removed from the result, and dims before the
   * last two are batch dims that broadcast: (2, 1, 3, 4) x (5, 4, 2) is (2, 5, 3, 2). A 0-dim
   * operand is code 103.
   */
  public Tensor matmul(Tensor other) {
    return make(other, out -> ctorch.ct_matmul(handle(), other.handle(), out));
  }

  /** {@code torch.matmul(a, b)}: {@code a.matmul(b)}, see {@link #matmul(Tensor)}. */
  public static Tensor matmul(Tensor a, Tensor b) {
    return Objects.requireNonNull(a, "a").matmul(Objects.requireNonNull(b, "b"));
  }

  /**
   * {@code t.mm(other)}: the matrix product of this (n, k) matrix and an (k, m) one, an (n, m)
   * matrix. Code 103 when either is not 2-D ("self must be a matrix", "mat2 must be a
   * matrix") or the sizes do not fit ("mat1 and mat2 shapes cannot be multiplied (4x3 and
   * 4x3)").
   */
  public Tensor mm(Tensor other) {
    return make(other, out -> ctorch.ct_mm(handle(), other.handle(), out));
  }

  /** {@code torch.mm(a, b)}: {@code a.mm(b)}, see {@link #mm(Tensor)}. */
  public static Tensor mm(Tensor a, Tensor b) {
    return Objects.requireNonNull(a, "a").mm(Objects.requireNonNull(b, "b"));
  }

  /**
   * {@code t.bmm(other)}: batched matrix products of this (b, n, k) tensor and a (b, k, m) one,
   * a (b, n, m) tensor; no broadcasting (use {@link #matmul} for that). Code 103 when either
   * is not 3-D or the batch or inner sizes differ.
   */
  public Tensor bmm(Tensor other) {
    return make(other, out -> ctorch.ct_bmm(handle(), other.handle(), out));
  }

  /** {@code torch.bmm(a, b)}: {@code a.bmm(b)}, see {@link #bmm(Tensor)}. */
  public static Tensor bmm(Tensor a, Tensor b) {
    return Objects.requireNonNull(a, "a").bmm(Objects.requireNonNull(b, "b"));
  }

  /**
   * {@code t.dot(other)}: the inner product of two 1-D tensors of one length, a 0-dim tensor
   * (no complex conjugation, as torch.dot). Code 103 for other dims or lengths, 104 for two
   * dtypes.
   */
  public Tensor dot(Tensor other) {
    return make(other, out -> ctorch.ct_dot(handle(), other.handle(), out));
  }

  /** {@code torch.dot(a, b)}: {@code a.dot(b)}, see {@link #dot(Tensor)}. */
  public static Tensor dot(Tensor a, Tensor b) {
    return Objects.requireNonNull(a, "a").dot(Objects.requireNonNull(b, "b"));
  }

  /**
   * {@code t.mv(vec)}: this (n, m) matrix times a vector of length m, a vector of length n.
   * Code 103 for other dims or sizes.
   */
  public Tensor mv(Tensor vec) {
    Objects.requireNonNull(vec, "vec");
    return make(vec, out -> ctorch.ct_mv(handle(), vec.handle(), out));
  }

  /** {@code torch.mv(mat, vec)}: {@code mat.mv(vec)}, see {@link #mv(Tensor)}. */
  public static Tensor mv(Tensor mat, Tensor vec) {
    return Objects.requireNonNull(mat, "mat").mv(Objects.requireNonNull(vec, "vec"));
  }

  /**
   * {@code t.addmm(m1, m2)}: {@code t + m1 @ m2} ({@code beta = alpha = 1}); see
   * {@link #addmm(Tensor, Tensor, double, double)}.
   */
  public Tensor addmm(Tensor m1, Tensor m2) {
    return addmm(m1, m2, 1.0, 1.0);
  }

  /**
   * {@code t.addmm(m1, m2, beta=beta, alpha=alpha)}: {@code beta * t + alpha * (m1 @ m2)}, with
   * this tensor (at most 2-D, the dtype of m1 and m2) broadcast to the product's shape. With
   * {@code beta == 0} this tensor's values are ignored: NaN and infinity in it do not
   * propagate, as in PyTorch. Errors as {@link #mm(Tensor)}; code 104 when this tensor's
   * dtype differs from m1's, 300 when its device does.
   */
  public Tensor addmm(Tensor m1, Tensor m2, double beta, double alpha) {
    Objects.requireNonNull(m1, "m1");
    Objects.requireNonNull(m2, "m2");
    try {
      return create(out -> ctorch.ct_addmm(handle(), m1.handle(), m2.handle(), beta, alpha,
          out));
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(m1);
      Reference.reachabilityFence(m2);
    }
  }

  /** {@code torch.addmm(input, m1, m2)}: {@code input.addmm(m1, m2)}. */
  public static Tensor addmm(Tensor input, Tensor m1, Tensor m2) {
    return Objects.requireNonNull(input, "input").addmm(m1, m2, 1.0, 1.0);
  }

  /**
   * {@code torch.addmm(input, m1, m2, beta=beta, alpha=alpha)}:
   * {@code input.addmm(m1, m2, beta, alpha)}, see
   * {@link #addmm(Tensor, Tensor, double, double)}.
   */
  public static Tensor addmm(Tensor input, Tensor m1, Tensor m2, double beta, double alpha) {
    return Objects.requireNonNull(input, "input").addmm(m1, m2, beta, alpha);
  }

  /** Native byte order, in which every host buffer of this class is read and written. */
  public static ByteOrder byteOrder() {
    return ByteOrder.nativeOrder();
  }
}
