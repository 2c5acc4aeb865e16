package org.ctorch;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.junit.Test;

/** Factories, host arrays in and out, *_like, new_*, to(), clone, copy_, item. */
public class FactoryTest extends CtorchTestCase {

  /** Each factory overload passes its shape, value, dtype and device; defaults fill the rest. */
  @Test
  public void factoryOverloads() {
    Device dev = device();
    try (TensorScope scope = TensorScope.open()) {
      Tensor z = Tensor.zeros(2, 3);
      assertShape(z, 2, 3);
      assertSame(DType.FLOAT32, z.dtype());
      assertEquals(Device.CPU, z.device());
      assertEquals(6, z.numel());
      assertEquals(2, z.dim());
      assertValues(z, 0, 0, 0, 0, 0, 0);
      assertEquals(0, Tensor.zeros().dim()); // zeros(()) is a scalar
      assertLongs(Tensor.zeros(shape(2), DType.INT32), 0, 0);
      assertValues(Tensor.zeros(shape(1), DType.FLOAT64, dev), 0);
      assertValues(Tensor.ones(4), 1, 1, 1, 1);
      assertSame(DType.INT8, Tensor.ones(shape(1), DType.INT8).dtype());
      Tensor o = Tensor.ones(shape(2, 2), DType.BOOL, dev);
      assertEquals(dev.type(), o.device().type());
      assertBools(o, true, true, true, true);
      assertShape(Tensor.empty(3, 0, 2), 3, 0, 2);
      assertSame(DType.INT16, Tensor.empty(shape(5), DType.INT16).dtype());
      assertSame(DType.FLOAT64, Tensor.empty(shape(5), DType.FLOAT64, dev).dtype());
      // full: the Java type of the value picks the dtype, as Python's does.
      assertSame(DType.FLOAT32, Tensor.full(shape(2), 2.5).dtype());
      assertLongs(Tensor.full(shape(2), 7), 7, 7);
      assertSame(DType.INT64, Tensor.full(shape(2), 7).dtype());
      assertBools(Tensor.full(shape(1), true), true);
      assertValues(Tensor.full(shape(2), 1.5, DType.FLOAT16), 1.5f, 1.5f);
      assertEquals(new Complex(2.0, 0.0),
          Tensor.full(shape(1), 2.0, DType.COMPLEX64, Device.CPU).itemComplex());
      assertLongs(Tensor.arange(3), 0, 1, 2);
      assertLongs(Tensor.arange(2, 5), 2, 3, 4);
      assertLongs(Tensor.arange(5, 0, -2), 5, 3, 1);
      assertValues(Tensor.arange(3.0), 0, 1, 2);
      assertValues(Tensor.arange(1, 2.5, 0.5), 1, 1.5f, 2);
      assertArrayEquals(new double[] {0, 0.25, 0.5, 0.75},
          Tensor.arange(0, 1, 0.25, DType.FLOAT64, Device.CPU).toDoubleArray(), 0);
      assertValues(Tensor.linspace(0, 1, 5), 0, 0.25f, 0.5f, 0.75f, 1);
      assertLongs(Tensor.linspace(-2, 2, 3, DType.INT64, dev), -2, 0, 2);
      assertValues(Tensor.eye(2), 1, 0, 0, 1);
      assertValues(Tensor.eye(2, 3), 1, 0, 0, 0, 1, 0);
      Tensor ei = Tensor.eye(2, -1, DType.INT32, Device.CPU);
      assertSame(DType.INT32, ei.dtype());
      assertLongs(ei, 1, 0, 0, 1);
      CtorchException e = assertStatus(CtorchException.ARGUMENT, () -> Tensor.arange(0, 5, 0));
      assertEquals("CT_ERR_ARGUMENT", e.statusName());
      assertStatus(CtorchException.ARGUMENT, () -> Tensor.linspace(0, 1, -1));
    }
  }

  @Test
  public void fromEveryJavaArrayType() {
    try (Tensor f = Tensor.fromArray(new float[] {1.5f, -2f, 3f, 4f}, 2, 2);
        Tensor d = Tensor.fromArray(new double[] {0.1, 0.2});
        Tensor l = Tensor.fromArray(new long[] {Long.MAX_VALUE, -1});
        Tensor i = Tensor.fromArray(new int[] {1, -2, 3}, 3, 1);
        Tensor s = Tensor.fromArray(new short[] {-300, 300});
        Tensor b = Tensor.fromArray(new byte[] {-128, 127});
        Tensor z = Tensor.fromArray(new boolean[] {true, false, true})) {
      assertSame(DType.FLOAT32, f.dtype());
      assertShape(f, 2, 2);
      assertArrayEquals(new float[] {1.5f, -2f, 3f, 4f}, f.toFloatArray(), 0);
      assertSame(DType.FLOAT64, d.dtype());
      assertArrayEquals(new double[] {0.1, 0.2}, d.toDoubleArray(), 0);
      assertSame(DType.INT64, l.dtype());
      assertArrayEquals(new long[] {Long.MAX_VALUE, -1}, l.toLongArray());
      assertSame(DType.INT32, i.dtype());
      assertShape(i, 3, 1);
      assertArrayEquals(new int[] {1, -2, 3}, i.toIntArray());
      assertSame(DType.INT16, s.dtype());
      assertArrayEquals(new short[] {-300, 300}, s.toShortArray());
      assertSame(DType.INT8, b.dtype());
      assertArrayEquals(new byte[] {-128, 127}, b.toByteArray());
      assertSame(DType.BOOL, z.dtype());
      assertArrayEquals(new boolean[] {true, false, true}, z.toBooleanArray());
    }
    // The shape must match the data.
    assertStatus(CtorchException.BUFFER_SIZE, () -> Tensor.fromArray(new float[] {1, 2, 3}, 2, 2));
  }

  @Test
  public void fromRawBytes() {
    boolean little = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    // float16 1.0 is 0x3C00, -2.0 is 0xC000.
    byte[] half = little ? new byte[] {0x00, 0x3C, 0x00, (byte) 0xC0}
        : new byte[] {0x3C, 0x00, (byte) 0xC0, 0x00};
    try (Tensor h = Tensor.fromBytes(half, DType.FLOAT16);
        Tensor u = Tensor.fromBytes(new byte[] {(byte) 200, 1, (byte) 255}, DType.UINT8, 3);
        Tensor bf = Tensor.fromBytes(little ? new byte[] {(byte) 0x80, 0x3F}
            : new byte[] {0x3F, (byte) 0x80}, DType.BFLOAT16)) {
      assertSame(DType.FLOAT16, h.dtype());
      assertShape(h, 2);
      assertValues(h, 1f, -2f);
      assertArrayEquals(half, h.toByteArray());
      assertSame(DType.UINT8, u.dtype());
      assertLongs(u, 200, 1, 255);
      assertArrayEquals(new byte[] {(byte) 200, 1, (byte) 255}, u.toByteArray());
      assertValues(bf, 1f); // bfloat16 1.0 is 0x3F80
    }
    ByteBuffer c = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
    c.putFloat(1.5f).putFloat(-2f);
    try (Tensor z = Tensor.fromBytes(c.array(), DType.COMPLEX64, new long[0])) {
      assertEquals(0, z.dim());
      assertEquals(new Complex(1.5, -2.0), z.itemComplex());
      assertEquals(1.5, z.item(), 0); // item() of a complex tensor is the real part
    }
    ByteBuffer c2 = ByteBuffer.allocate(32).order(ByteOrder.nativeOrder());
    c2.putDouble(0.25).putDouble(3).putDouble(-1).putDouble(-0.5);
    try (Tensor z = Tensor.fromBytes(c2.array(), DType.COMPLEX128);
        Tensor second = z.select(0, 1);
        Tensor real = Tensor.fromArray(new double[] {4.5});
        Tensor asComplex = real.to(DType.COMPLEX128)) {
      assertSame(DType.COMPLEX128, z.dtype());
      assertShape(z, 2);
      assertEquals(new Complex(-1, -0.5), second.itemComplex());
      assertArrayEquals(c2.array(), z.toByteArray());
      assertEquals(new Complex(4.5, 0), real.itemComplex()); // a real tensor: imag 0
      assertEquals(new Complex(4.5, 0), asComplex.itemComplex());
    }
  }

  @Test
  public void fromBuffers() {
    ByteBuffer direct = ByteBuffer.allocateDirect(24).order(ByteOrder.nativeOrder());
    direct.putLong(99).putInt(7).putInt(-8).putInt(9).putInt(10);
    direct.position(8); // the bytes between position and limit are read
    try (Tensor t = Tensor.fromBuffer(direct, DType.INT32, Device.CPU, 2, 2);
        Tensor one = Tensor.fromBuffer(direct, DType.INT32, device())) {
      assertShape(t, 2, 2);
      assertLongs(t, 7, -8, 9, 10);
      assertEquals(8, direct.position()); // not moved
      assertShape(one, 4);
      assertLongs(one, 7, -8, 9, 10);
    }
    ByteBuffer heap = ByteBuffer.allocate(16).order(ByteOrder.nativeOrder());
    heap.putDouble(0.5).putDouble(-4.25).flip();
    try (Tensor t = Tensor.fromBuffer(heap, DType.FLOAT64, Device.CPU)) {
      assertArrayEquals(new double[] {0.5, -4.25}, t.toDoubleArray(), 0);
    }
    ByteBuffer odd = ByteBuffer.allocateDirect(6);
    assertStatus(CtorchException.BUFFER_SIZE,
        () -> Tensor.fromBuffer(odd, DType.INT32, Device.CPU, 2));
  }

  @Test
  public void copyToBuffers() {
    assertSame("host buffers are read and written in native order", ByteOrder.nativeOrder(),
        Tensor.byteOrder());
    try (Tensor t = Tensor.fromArray(new int[] {1, 2, 3, 4, 5, 6}, 2, 3);
        Tensor tt = t.transpose(0, 1)) {
      ByteBuffer direct = ByteBuffer.allocateDirect(4 + 24).order(ByteOrder.nativeOrder());
      direct.position(4);
      tt.copyTo(direct); // a non-contiguous tensor comes out C-contiguous
      assertEquals(28, direct.position());
      direct.position(4);
      int[] got = new int[6];
      direct.asIntBuffer().get(got);
      assertArrayEquals(new int[] {1, 4, 2, 5, 3, 6}, got);

      ByteBuffer heap = ByteBuffer.allocate(24).order(ByteOrder.nativeOrder());
      t.copyTo(heap);
      assertEquals(24, heap.position());
      heap.flip();
      heap.asIntBuffer().get(got);
      assertArrayEquals(new int[] {1, 2, 3, 4, 5, 6}, got);

      assertStatus(CtorchException.BUFFER_SIZE, () -> t.copyTo(ByteBuffer.allocateDirect(20)));
    }
  }

  @Test
  public void scalars() {
    try (Tensor d = Tensor.scalar(2.5);
        Tensor f = Tensor.scalar(2.5f);
        Tensor l = Tensor.scalar(-7L);
        Tensor i = Tensor.scalar(7);
        Tensor b = Tensor.scalar(true);
        Tensor h = Tensor.scalar(0.5, DType.FLOAT16)) {
      assertEquals(0, d.dim());
      assertArrayEquals(new long[0], d.shape());
      assertSame(DType.FLOAT64, d.dtype());
      assertSame(DType.FLOAT32, f.dtype());
      assertSame(DType.INT64, l.dtype());
      assertSame(DType.INT32, i.dtype());
      assertSame(DType.BOOL, b.dtype());
      assertSame(DType.FLOAT16, h.dtype());
      assertEquals(2.5, d.item(), 0);
      assertEquals(2.5, f.item(), 0);
      assertEquals(-7, l.itemLong());
      assertEquals(7, i.itemLong());
      assertTrue(b.itemBoolean());
      assertEquals(1.0, b.item(), 0);
      assertEquals(0.5, h.item(), 0);
    }
  }

  @Test
  public void itemConversions() {
    try (Tensor f = Tensor.fromArray(new float[] {-2.7f});
        Tensor big = Tensor.fromArray(new long[] {(1L << 53) + 1});
        Tensor two = Tensor.ones(2)) {
      assertEquals(-2, f.itemLong()); // truncation toward zero, as int(t.item())
      assertEquals(-2.7f, (float) f.item(), 0);
      assertEquals((1L << 53) + 1, big.itemLong());
      assertStatus(CtorchException.SHAPE, two::item);
      assertStatus(CtorchException.SHAPE, two::itemLong);
      assertStatus(CtorchException.SHAPE, two::itemComplex);
    }
  }

  @Test
  public void likeFactoriesKeepShapeDeviceAndDType() {
    Device dev = device();
    try (Tensor t = Tensor.zeros(shape(2, 3), DType.INT32, dev);
        Tensor e = Tensor.emptyLike(t);
        Tensor z = Tensor.zerosLike(t);
        Tensor o = Tensor.onesLike(t);
        Tensor f = Tensor.fullLike(t, 4);
        Tensor of = Tensor.onesLike(t, DType.FLOAT64);
        Tensor ef = Tensor.emptyLike(t, DType.BOOL);
        Tensor zf = Tensor.zerosLike(t, DType.FLOAT16);
        Tensor ff = Tensor.fullLike(t, 0.5, DType.FLOAT32)) {
      for (Tensor x : new Tensor[] {e, z, o, f, of, ef, zf, ff}) {
        assertShape(x, 2, 3);
        assertEquals(t.device(), x.device());
        assertFalse(x.sharesStorage(t));
      }
      for (Tensor x : new Tensor[] {e, z, o, f}) {
        assertSame(DType.INT32, x.dtype());
      }
      assertLongs(z, 0, 0, 0, 0, 0, 0);
      assertLongs(o, 1, 1, 1, 1, 1, 1);
      assertLongs(f, 4, 4, 4, 4, 4, 4);
      assertSame(DType.FLOAT64, of.dtype());
      assertSame(DType.BOOL, ef.dtype());
      assertSame(DType.FLOAT16, zf.dtype());
      assertSame(DType.FLOAT32, ff.dtype());
      assertValues(ff, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f);
    }
  }

  @Test
  public void newFactoriesKeepDeviceAndDType() {
    Device dev = device();
    try (Tensor t = Tensor.ones(shape(5), DType.FLOAT64, dev);
        Tensor e = t.newEmpty(2, 2);
        Tensor z = t.newZeros(3);
        Tensor o = t.newOnes(1, 2);
        Tensor f = t.newFull(shape(2), 9);
        Tensor zi = t.newZeros(shape(2), DType.INT16);
        Tensor oi = t.newOnes(shape(2), DType.INT8);
        Tensor ei = t.newEmpty(shape(4), DType.UINT8);
        Tensor fi = t.newFull(shape(1), 3, DType.INT64);
        Tensor s = t.newZeros()) {
      for (Tensor x : new Tensor[] {e, z, o, f, zi, oi, ei, fi, s}) {
        assertEquals(t.device(), x.device());
      }
      for (Tensor x : new Tensor[] {e, z, o, f, s}) {
        assertSame(DType.FLOAT64, x.dtype());
      }
      assertShape(e, 2, 2);
      assertShape(s);
      assertArrayEquals(new double[] {0, 0, 0}, z.toDoubleArray(), 0);
      assertShape(o, 1, 2);
      assertArrayEquals(new double[] {1, 1}, o.toDoubleArray(), 0);
      assertArrayEquals(new double[] {9, 9}, f.toDoubleArray(), 0);
      assertSame(DType.INT16, zi.dtype());
      assertSame(DType.INT8, oi.dtype());
      assertLongs(oi, 1, 1);
      assertSame(DType.UINT8, ei.dtype());
      assertSame(DType.INT64, fi.dtype());
      assertLongs(fi, 3);
    }
  }

  @Test
  public void newTensorConvertsToTheDTypeOfItsTensor() {
    try (Tensor ints = Tensor.zeros(shape(1), DType.INT32);
        Tensor floats = Tensor.zeros(shape(1), DType.FLOAT32);
        Tensor a = ints.newTensor(new float[] {1f, 2f, 3f, 4f}, 2, 2);
        Tensor b = floats.newTensor(new long[] {5, 6});
        Tensor c = floats.newTensor(new double[] {0.5});
        Tensor d = floats.newTensor(new int[] {-1, -2, -3});
        Tensor e = ints.newTensor(ByteBuffer.wrap(new byte[] {1, 0, 1}), DType.BOOL,
            DType.FLOAT64)) {
      assertSame(DType.INT32, a.dtype());
      assertShape(a, 2, 2);
      assertArrayEquals(new int[] {1, 2, 3, 4}, a.toIntArray());
      assertSame(DType.FLOAT32, b.dtype());
      assertValues(b, 5f, 6f);
      assertValues(c, 0.5f);
      assertValues(d, -1f, -2f, -3f);
      assertSame(DType.FLOAT64, e.dtype());
      assertArrayEquals(new double[] {1, 0, 1}, e.toDoubleArray(), 0);
    }
  }

  @Test
  public void toReturnsTheSameTensorWhenNothingChanges() {
    try (Tensor t = Tensor.fromArray(new float[] {1.5f, -2.5f});
        Tensor same = t.to(Device.CPU);
        Tensor sameDType = t.to(DType.FLOAT32);
        Tensor both = t.to(Device.CPU, DType.FLOAT32);
        Tensor forced = t.to(Device.CPU, null, false, true);
        Tensor d = t.to(DType.FLOAT64);
        Tensor i = t.to(Device.CPU, DType.INT32);
        Tensor cpu = t.cpu()) {
      assertTrue(same.isSame(t));
      assertTrue(sameDType.isSame(t));
      assertTrue(both.isSame(t));
      assertTrue(cpu.isSame(t));
      assertFalse(forced.isSame(t));
      assertFalse(forced.sharesStorage(t));
      assertSame(DType.FLOAT64, d.dtype());
      assertArrayEquals(new double[] {1.5, -2.5}, d.toDoubleArray(), 0);
      assertSame(DType.INT32, i.dtype());
      assertArrayEquals(new int[] {1, -2}, i.toIntArray());
      // Writing through the same tensor is seen through t.
      same.fill_(3);
      assertValues(t, 3f, 3f);
      assertValues(forced, 1.5f, -2.5f);
    }
  }

  @Test
  public void toArraysConvert() {
    try (Tensor t = Tensor.fromArray(new float[] {1.5f, -2.5f, 0f})) {
      assertArrayEquals(new int[] {1, -2, 0}, t.toIntArray());
      assertArrayEquals(new long[] {1, -2, 0}, t.toLongArray());
      assertArrayEquals(new short[] {1, -2, 0}, t.toShortArray());
      assertArrayEquals(new boolean[] {true, true, false}, t.toBooleanArray());
      assertArrayEquals(new double[] {1.5, -2.5, 0}, t.toDoubleArray(), 0);
      assertEquals(12, t.toByteArray().length); // raw bytes of 3 float32
      assertEquals(4, t.elementSize());
      assertEquals(12, t.nbytes());
    }
  }

  @Test
  public void cloneAndCopy() {
    try (Tensor t = Tensor.fromArray(new float[] {1, 2, 3});
        Tensor c = t.clone();
        Tensor dst = Tensor.zeros(shape(2, 3), DType.FLOAT64)) {
      assertFalse(c.sharesStorage(t));
      assertValues(c, 1, 2, 3);
      c.fill_(0);
      assertValues(t, 1, 2, 3);

      assertSame(dst, dst.copy_(t)); // broadcast (3,) -> (2,3), float32 -> float64
      assertArrayEquals(new double[] {1, 2, 3, 1, 2, 3}, dst.toDoubleArray(), 0);
      dst.copy_(t, true);
      assertArrayEquals(new double[] {1, 2, 3, 1, 2, 3}, dst.toDoubleArray(), 0);
      assertSame(DType.FLOAT64, dst.dtype());
      try (Tensor wrong = Tensor.ones(4)) {
        assertStatus(CtorchException.SHAPE, () -> dst.copy_(wrong));
      }
    }
  }

  /** The overloads and accessors the other tests leave out, each once. */
  @Test
  public void remainingOverloads() {
    try (TensorScope scope = TensorScope.open()) {
      Tensor f = Tensor.zeros(shape(1), DType.FLOAT64);
      assertFalse(f.isCuda());
      assertArrayEquals(new double[] {1.5}, f.newTensor(new float[] {1.5f}).toDoubleArray(), 0);
      assertShape(f.newTensor(new double[] {1, 2}, 2, 1), 2, 1);
      assertShape(f.newTensor(new long[] {1, 2}, 1, 2), 1, 2);
      assertSame(DType.FLOAT64, f.newTensor(new int[] {1, 2}, 2).dtype());
      ByteBuffer b = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
      b.putInt(3).putInt(4).flip();
      Tensor fromInts = f.newTensor(b, DType.INT32, null, 2, 1);
      assertShape(fromInts, 2, 1);
      assertArrayEquals(new double[] {3, 4}, fromInts.toDoubleArray(), 0);
      assertBools(Tensor.fromArray(new boolean[] {true, false}, 2, 1), true, false);
      assertShape(Tensor.fromArray(new byte[] {1, 2}, 1, 2), 1, 2);
      assertShape(Tensor.fromArray(new short[] {1, 2}, 2, 1), 2, 1);
      Complex c = Tensor.full(shape(1), 2.0, DType.COMPLEX64, Device.CPU).itemComplex();
      assertEquals(2.0, c.real(), 0);
      assertEquals(0.0, c.imag(), 0);
      assertSame(DeviceType.CUDA, DeviceType.fromCode(DeviceType.CUDA.code()));
      if (!Cuda.isAvailable()) {
        assertNoCuda(() -> f.cuda(0));
      }
    }
  }
}
