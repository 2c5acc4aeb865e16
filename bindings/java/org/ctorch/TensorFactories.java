package org.ctorch;

import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.function.Consumer;

import org.ctorch.swig.ctorch;

/**
 * {@link Tensor}'s factories: torch.empty/zeros/ones/full/arange/linspace/eye, tensors from
 * Java arrays and buffers, scalars, the *_like and new_* factories.
 */
abstract class TensorFactories extends TensorBase {
  TensorFactories(long handle) {
    super(handle);
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
    Objects.requireNonNull(shape, "shape");
    Objects.requireNonNull(dtype, "dtype");
    Objects.requireNonNull(device, "device");
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
    Objects.requireNonNull(shape, "shape");
    Objects.requireNonNull(dtype, "dtype");
    Objects.requireNonNull(device, "device");
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
    Objects.requireNonNull(shape, "shape");
    Objects.requireNonNull(dtype, "dtype");
    Objects.requireNonNull(device, "device");
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
    Objects.requireNonNull(shape, "shape");
    Objects.requireNonNull(dtype, "dtype");
    Objects.requireNonNull(device, "device");
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
    Objects.requireNonNull(dtype, "dtype");
    Objects.requireNonNull(device, "device");
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
    Objects.requireNonNull(dtype, "dtype");
    Objects.requireNonNull(device, "device");
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
    Objects.requireNonNull(dtype, "dtype");
    Objects.requireNonNull(device, "device");
    return create(out -> ctorch.ct_eye(n, m, dtype.code(), device.type().code(),
        device.index(), out));
  }

  /* ---- from host data ---------------------------------------------------------------------- */

  /* Direct host buffers holding a copy of a Java array, native byte order. */
  static ByteBuffer host(float[] d) { return fill(4L * data(d).length, b -> b.asFloatBuffer().put(d)); }
  static ByteBuffer host(double[] d) { return fill(8L * data(d).length, b -> b.asDoubleBuffer().put(d)); }
  static ByteBuffer host(long[] d) { return fill(8L * data(d).length, b -> b.asLongBuffer().put(d)); }
  static ByteBuffer host(int[] d) { return fill(4L * data(d).length, b -> b.asIntBuffer().put(d)); }
  static ByteBuffer host(short[] d) { return fill(2L * data(d).length, b -> b.asShortBuffer().put(d)); }

  static ByteBuffer host(boolean[] d) {
    return fill(data(d).length, b -> {
      for (int i = 0; i < d.length; i++) {
        b.put(i, d[i] ? (byte) 1 : (byte) 0);
      }
    });
  }

  /** A host-data array argument: NullPointerException "data" when null. */
  private static <A> A data(A array) {
    return Objects.requireNonNull(array, "data");
  }

  private static ByteBuffer fill(long nbytes, Consumer<ByteBuffer> put) {
    ByteBuffer b = Native.hostBuffer(nbytes);
    put.accept(b);
    return b;
  }

  /** Copies a prepared direct host buffer (position 0, limit = nbytes) into a new tensor. */
  private static Tensor fromHost(ByteBuffer buf, DType dtype, Device device, long[] shape) {
    Objects.requireNonNull(shape, "shape");
    long nbytes = buf.limit();
    return create(out -> ctorch.ct_from_buffer(buf, nbytes, shape, shape.length, dtype.code(),
        device.type().code(), device.index(), out));
  }

  /**
   * A 1-D float32 tensor holding a copy of {@code data} ({@code torch.tensor(data)}). The
   * Java element type picks the dtype: float32, float64, int64, int32, int16, int8, bool.
   */
  public static Tensor fromArray(float[] data) {
    return fromArray(data, data(data).length);
  }

  /**
   * A float32 tensor of the given shape holding a copy of {@code data}; the shape's product
   * must equal {@code data.length} (else CT_ERR_BUFFER_SIZE). An explicitly empty shape
   * ({@code new long[0]}) gives a 0-dim tensor of one element.
   */
  public static Tensor fromArray(float[] data, long... shape) {
    return fromHost(host(data), DType.FLOAT32, Device.CPU, shape);
  }

  /** A 1-D float64 tensor holding a copy of {@code data}. */
  public static Tensor fromArray(double[] data) {
    return fromArray(data, data(data).length);
  }

  /** A float64 tensor of the given shape holding a copy of {@code data}. */
  public static Tensor fromArray(double[] data, long... shape) {
    return fromHost(host(data), DType.FLOAT64, Device.CPU, shape);
  }

  /** A 1-D int64 tensor holding a copy of {@code data}. */
  public static Tensor fromArray(long[] data) {
    return fromArray(data, data(data).length);
  }

  /** A int64 tensor of the given shape holding a copy of {@code data}. */
  public static Tensor fromArray(long[] data, long... shape) {
    return fromHost(host(data), DType.INT64, Device.CPU, shape);
  }

  /** A 1-D int32 tensor holding a copy of {@code data}. */
  public static Tensor fromArray(int[] data) {
    return fromArray(data, data(data).length);
  }

  /** A int32 tensor of the given shape holding a copy of {@code data}. */
  public static Tensor fromArray(int[] data, long... shape) {
    return fromHost(host(data), DType.INT32, Device.CPU, shape);
  }

  /** A 1-D int16 tensor holding a copy of {@code data}. */
  public static Tensor fromArray(short[] data) {
    return fromArray(data, data(data).length);
  }

  /** A int16 tensor of the given shape holding a copy of {@code data}. */
  public static Tensor fromArray(short[] data, long... shape) {
    return fromHost(host(data), DType.INT16, Device.CPU, shape);
  }

  /**
   * A 1-D int8 tensor holding a copy of {@code data} (Java's byte is signed). For uint8 use
   * {@link Tensor#fromBytes(byte[], DType)} with {@link DType#UINT8}.
   */
  public static Tensor fromArray(byte[] data) {
    return fromArray(data, data(data).length);
  }

  /** An int8 tensor of the given shape holding a copy of {@code data}. */
  public static Tensor fromArray(byte[] data, long... shape) {
    return fromBytes(data, DType.INT8, shape);
  }

  /** A 1-D bool tensor holding a copy of {@code data}. */
  public static Tensor fromArray(boolean[] data) {
    return fromArray(data, data(data).length);
  }

  /** A bool tensor of the given shape holding a copy of {@code data}. */
  public static Tensor fromArray(boolean[] data, long... shape) {
    return fromHost(host(data), DType.BOOL, Device.CPU, shape);
  }

  /**
   * A 1-D tensor of {@code dtype} from raw bytes: the elements, native byte order (for uint8,
   * float16, bfloat16, complex, ...). The length must be a multiple of the item size.
   */
  public static Tensor fromBytes(byte[] raw, DType dtype) {
    Objects.requireNonNull(raw, "raw");
    Objects.requireNonNull(dtype, "dtype");
    return fromBytes(raw, dtype, raw.length / dtype.itemSize());
  }

  /**
   * A tensor of {@code dtype} and the given shape from raw bytes: numel * itemsize bytes of
   * the elements, C-contiguous, native byte order.
   */
  public static Tensor fromBytes(byte[] raw, DType dtype, long... shape) {
    Objects.requireNonNull(raw, "raw");
    Objects.requireNonNull(dtype, "dtype");
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
    Objects.requireNonNull(buf, "buf");
    Objects.requireNonNull(dtype, "dtype");
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
    Objects.requireNonNull(shape, "shape");
    Objects.requireNonNull(dtype, "dtype");
    Objects.requireNonNull(device, "device");
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
    return fromArray(new float[] {value}, new long[0]);
  }

  /** A 0-dim int64 tensor ({@code torch.tensor(3)}). */
  public static Tensor scalar(long value) {
    return fromArray(new long[] {value}, new long[0]);
  }

  /** A 0-dim int32 tensor. */
  public static Tensor scalar(int value) {
    return fromArray(new int[] {value}, new long[0]);
  }

  /** A 0-dim bool tensor ({@code torch.tensor(True)}). */
  public static Tensor scalar(boolean value) {
    return fromArray(new boolean[] {value}, new long[0]);
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
    Objects.requireNonNull(t, "t");
    return t.make(out -> ctorch.ct_empty_like(t.handle(), dtypeCode(dtype), out));
  }

  /** {@code torch.zeros_like(t)}. */
  public static Tensor zerosLike(Tensor t) {
    return zerosLike(t, null);
  }

  /** {@code torch.zeros_like(t, dtype=dtype)}; a null dtype keeps t's. */
  public static Tensor zerosLike(Tensor t, DType dtype) {
    Objects.requireNonNull(t, "t");
    return t.make(out -> ctorch.ct_zeros_like(t.handle(), dtypeCode(dtype), out));
  }

  /** {@code torch.ones_like(t)}. */
  public static Tensor onesLike(Tensor t) {
    return onesLike(t, null);
  }

  /** {@code torch.ones_like(t, dtype=dtype)}; a null dtype keeps t's. */
  public static Tensor onesLike(Tensor t, DType dtype) {
    Objects.requireNonNull(t, "t");
    return t.make(out -> ctorch.ct_ones_like(t.handle(), dtypeCode(dtype), out));
  }

  /** {@code torch.full_like(t, value)}. */
  public static Tensor fullLike(Tensor t, double value) {
    return fullLike(t, value, null);
  }

  /** {@code torch.full_like(t, value, dtype=dtype)}; a null dtype keeps t's. */
  public static Tensor fullLike(Tensor t, double value, DType dtype) {
    Objects.requireNonNull(t, "t");
    return t.make(out -> ctorch.ct_full_like(t.handle(), value, dtypeCode(dtype), out));
  }

  /* ---- new_* ------------------------------------------------------------------------------- */

  /** {@code t.new_empty(shape)}: this tensor's dtype and device. */
  public Tensor newEmpty(long... shape) {
    return newEmpty(shape, null);
  }

  /** {@code t.new_empty(shape, dtype=dtype)}; a null dtype keeps this tensor's. */
  public Tensor newEmpty(long[] shape, DType dtype) {
    Objects.requireNonNull(shape, "shape");
    return make(out -> ctorch.ct_new_empty(handle(), shape, shape.length, dtypeCode(dtype), out));
  }

  /** {@code t.new_zeros(shape)}. */
  public Tensor newZeros(long... shape) {
    return newZeros(shape, null);
  }

  /** {@code t.new_zeros(shape, dtype=dtype)}. */
  public Tensor newZeros(long[] shape, DType dtype) {
    Objects.requireNonNull(shape, "shape");
    return make(out -> ctorch.ct_new_zeros(handle(), shape, shape.length, dtypeCode(dtype), out));
  }

  /** {@code t.new_ones(shape)}. */
  public Tensor newOnes(long... shape) {
    return newOnes(shape, null);
  }

  /** {@code t.new_ones(shape, dtype=dtype)}. */
  public Tensor newOnes(long[] shape, DType dtype) {
    Objects.requireNonNull(shape, "shape");
    return make(out -> ctorch.ct_new_ones(handle(), shape, shape.length, dtypeCode(dtype), out));
  }

  /** {@code t.new_full(shape, value)}. */
  public Tensor newFull(long[] shape, double value) {
    return newFull(shape, value, null);
  }

  /** {@code t.new_full(shape, value, dtype=dtype)}. */
  public Tensor newFull(long[] shape, double value, DType dtype) {
    Objects.requireNonNull(shape, "shape");
    return make(out -> ctorch.ct_new_full(handle(), shape, shape.length, value,
        dtypeCode(dtype), out));
  }

  /**
   * {@code t.new_tensor(data, dtype=dtype)}: the bytes between the buffer's position and limit
   * are elements of {@code bufferDType} (native order, C-contiguous), converted to
   * {@code dtype} (null: this tensor's dtype), on this tensor's device. 1-D.
   */
  public Tensor newTensor(ByteBuffer data, DType bufferDType, DType dtype) {
    Objects.requireNonNull(data, "data");
    Objects.requireNonNull(bufferDType, "bufferDType");
    return newTensor(data, bufferDType, dtype, data.remaining() / bufferDType.itemSize());
  }

  /** {@code t.new_tensor(data, dtype=dtype)} with the given shape. */
  public Tensor newTensor(ByteBuffer data, DType bufferDType, DType dtype, long... shape) {
    Objects.requireNonNull(data, "data");
    Objects.requireNonNull(bufferDType, "bufferDType");
    Objects.requireNonNull(shape, "shape");
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
    return newTensor(data, data(data).length);
  }

  /** {@code t.new_tensor(data)} with the given shape. */
  public Tensor newTensor(float[] data, long... shape) {
    return newTensor(host(data), DType.FLOAT32, null, shape);
  }

  /** {@code t.new_tensor(data)}: 1-D, double values converted to this tensor's dtype and device. */
  public Tensor newTensor(double[] data) {
    return newTensor(data, data(data).length);
  }

  /** {@code t.new_tensor(data)} with the given shape. */
  public Tensor newTensor(double[] data, long... shape) {
    return newTensor(host(data), DType.FLOAT64, null, shape);
  }

  /** {@code t.new_tensor(data)}: 1-D, long values converted to this tensor's dtype and device. */
  public Tensor newTensor(long[] data) {
    return newTensor(data, data(data).length);
  }

  /** {@code t.new_tensor(data)} with the given shape. */
  public Tensor newTensor(long[] data, long... shape) {
    return newTensor(host(data), DType.INT64, null, shape);
  }

  /** {@code t.new_tensor(data)}: 1-D, int values converted to this tensor's dtype and device. */
  public Tensor newTensor(int[] data) {
    return newTensor(data, data(data).length);
  }

  /** {@code t.new_tensor(data)} with the given shape. */
  public Tensor newTensor(int[] data, long... shape) {
    return newTensor(host(data), DType.INT32, null, shape);
  }
}
