package org.ctorch;

import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.ReadOnlyBufferException;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.IntFunction;

import org.ctorch.swig.ctorch;

/**
 * Data in and out of a {@link Tensor}: to/cpu/cuda/copy_, pinned memory and streams,
 * item, copies into buffers and Java arrays.
 */
abstract class TensorData extends TensorFactories {
  TensorData(long handle) {
    super(handle);
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
    Objects.requireNonNull(dtype, "dtype");
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
   * new tensor; a null dtype keeps the dtype. See {@link Tensor#to(Device, boolean)} for
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
    Objects.requireNonNull(src, "src");
    run(src, () -> ctorch.ct_tensor_copy_(handle(), src.handle(), b(nonBlocking)));
    return self();
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
    return Native.intOut(this, out -> ctorch.ct_tensor_is_pinned(handle(), out)) != 0;
  }

  /**
   * {@code t.record_stream(stream)}: tells the caching allocator that this CUDA tensor's memory
   * is in use on stream, so it is not reused before the work queued there (up to the moment the
   * tensor is freed) is done. The tensor must be on the stream's device (code 300 otherwise).
   */
  public void recordStream(Stream stream) {
    Objects.requireNonNull(stream, "stream");
    Native.run(this, stream, () -> ctorch.ct_tensor_record_stream(handle(), stream.handle()));
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
    return Native.longOut(this, out -> ctorch.ct_tensor_item_int64(handle(), out));
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
   * {@code dst} at its position, and advances the position by {@link Tensor#nbytes()}. Works for
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

  /**
   * The elements converted to {@code dtype} as a new array of numel elements ({@code alloc}),
   * which {@code read} fills from the host copy.
   */
  private <A> A hostArray(DType dtype, IntFunction<A> alloc, BiConsumer<ByteBuffer, A> read) {
    ByteBuffer buf = hostCopy(dtype);
    A a = alloc.apply(buf.limit() / dtype.itemSize());
    read.accept(buf, a);
    return a;
  }

  /** The elements converted to float32 ({@code t.to(torch.float32).flatten().tolist()}). */
  public float[] toFloatArray() {
    return hostArray(DType.FLOAT32, float[]::new, (b, a) -> b.asFloatBuffer().get(a));
  }

  /** The elements converted to float64. */
  public double[] toDoubleArray() {
    return hostArray(DType.FLOAT64, double[]::new, (b, a) -> b.asDoubleBuffer().get(a));
  }

  /** The elements converted to int64 (floating values truncated toward zero). */
  public long[] toLongArray() {
    return hostArray(DType.INT64, long[]::new, (b, a) -> b.asLongBuffer().get(a));
  }

  /** The elements converted to int32. */
  public int[] toIntArray() {
    return hostArray(DType.INT32, int[]::new, (b, a) -> b.asIntBuffer().get(a));
  }

  /** The elements converted to int16. */
  public short[] toShortArray() {
    return hostArray(DType.INT16, short[]::new, (b, a) -> b.asShortBuffer().get(a));
  }

  /** The elements converted to bool (non-zero is true). */
  public boolean[] toBooleanArray() {
    return hostArray(DType.BOOL, boolean[]::new, (b, a) -> {
      for (int i = 0; i < a.length; i++) {
        a[i] = b.get(i) != 0;
      }
    });
  }

  /**
   * The raw bytes of the elements in this tensor's own dtype (numel * itemsize bytes,
   * C-contiguous, native byte order), like {@link Tensor#copyTo(ByteBuffer)}. For int8 and uint8
   * tensors these are the values (read uint8 with {@code b & 0xFF}).
   */
  public byte[] toByteArray() {
    ByteBuffer buf = hostCopy(null);
    byte[] a = new byte[buf.limit()];
    buf.get(0, a);
    return a;
  }


  /** Native byte order, in which every host buffer of this class is read and written. */
  public static ByteOrder byteOrder() {
    return ByteOrder.nativeOrder();
  }
}
