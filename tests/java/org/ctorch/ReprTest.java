package org.ctorch;

import static org.junit.Assert.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.junit.Test;

/** toString() is PyTorch's repr. */
public class ReprTest extends CtorchTestCase {

  private static void assertRepr(String expected, Tensor t) {
    try (t) {
      assertEquals(expected, t.toString());
    }
  }

  @Test
  public void floats() {
    assertRepr("tensor([1., 2.])", Tensor.fromArray(new float[] {1, 2}));
    assertRepr("tensor([1.5000, 2.2500])", Tensor.fromArray(new float[] {1.5f, 2.25f}));
    assertRepr("tensor(2.5000)", Tensor.scalar(2.5f));
    assertRepr("tensor(2.5000, dtype=torch.float64)", Tensor.scalar(2.5));
    assertRepr("tensor([1., 2.], dtype=torch.float64)", Tensor.fromArray(new double[] {1, 2}));
    assertRepr("tensor([-1.,  2.])", Tensor.fromArray(new float[] {-1, 2}));
    assertRepr("tensor([])", Tensor.zeros(0));
    assertRepr("tensor([[1., 2.],\n        [3., 4.]])",
        Tensor.fromArray(new float[] {1, 2, 3, 4}, 2, 2));
    assertRepr("tensor([nan, inf, 1.])",
        Tensor.fromArray(new float[] {Float.NaN, Float.POSITIVE_INFINITY, 1}));
  }

  @Test
  public void halfPrecision() {
    try (Tensor f = Tensor.fromArray(new float[] {1, 2})) {
      assertRepr("tensor([1., 2.], dtype=torch.float16)", f.to(DType.FLOAT16));
    }
  }

  @Test
  public void integersAndBools() {
    assertRepr("tensor([1, 2, 3])", Tensor.fromArray(new long[] {1, 2, 3}));
    assertRepr("tensor(3)", Tensor.scalar(3L));
    assertRepr("tensor([-1, 10])", Tensor.fromArray(new long[] {-1, 10}));
    assertRepr("tensor([1, 2], dtype=torch.int32)", Tensor.fromArray(new int[] {1, 2}));
    assertRepr("tensor([200,   1], dtype=torch.uint8)",
        Tensor.fromBytes(new byte[] {(byte) 200, 1}, DType.UINT8));
    assertRepr("tensor([], dtype=torch.int32)", Tensor.zeros(new long[] {0}, DType.INT32));
    assertRepr("tensor([ True, False])", Tensor.fromArray(new boolean[] {true, false}));
    assertRepr("tensor(True)", Tensor.scalar(true));
    assertRepr("tensor([[0, 1, 2],\n        [3, 4, 5]])", reshape(Tensor.arange(6), 2, 3));
  }

  @Test
  public void complex() {
    ByteBuffer c = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
    c.putFloat(1f).putFloat(2f);
    assertRepr("tensor([1.+2.j])", Tensor.fromBytes(c.array(), DType.COMPLEX64));
  }

  private static Tensor reshape(Tensor t, long... shape) {
    try (t) {
      return t.reshape(shape);
    }
  }
}
