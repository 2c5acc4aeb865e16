package org.ctorch;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/**
 * What the binding adds to matrix products (section 17 of ctorch.h): every instance and static
 * overload of matmul, mm, bmm, dot, mv and addmm reaches its C function with its operands and
 * scalars in the right order, errors and closed or null operands map to exceptions, and the
 * torch.backends.cuda.matmul switches and the cuBLAS handle are marshalled. Shapes, dtypes,
 * precision and PyTorch's messages are the C suite's (tests/capi/linalg_test.c).
 */
public class LinalgTest extends CtorchTestCase {

  /** A (2, 3) and a (3, 2) float64 matrix and their product, worked out by hand. */
  static final double[] A23 = {1, 2, 3, 4, 5, 6};
  static final double[] B32 = {7, 8, 9, 10, 11, 12};
  static final double[] AB = {58, 64, 139, 154};

  private static Tensor make(double[] values, long... shape) {
    return moved(Tensor.fromArray(values, shape), device());
  }

  /** Each entry point with operands whose order matters (A B != B A), on the test device. */
  @Test
  public void everyEntryPointByHand() {
    try (TensorScope scope = TensorScope.open()) {
      Tensor a = make(A23, 2, 3);
      Tensor b = make(B32, 3, 2);
      assertArrayEquals(AB, a.mm(b).toDoubleArray(), 0);
      assertArrayEquals(AB, Tensor.mm(a, b).toDoubleArray(), 0);
      assertArrayEquals(AB, a.matmul(b).toDoubleArray(), 0);
      assertArrayEquals(AB, Tensor.matmul(a, b).toDoubleArray(), 0);
      assertShape(b.matmul(a), 3, 3);
      Tensor batchA = Tensor.stack(a, a.mul(2));
      Tensor batchB = Tensor.stack(b, b);
      Tensor bmm = batchA.bmm(batchB);
      assertShape(bmm, 2, 2, 2);
      assertArrayEquals(new double[] {58, 64, 139, 154, 116, 128, 278, 308},
          bmm.toDoubleArray(), 0);
      assertArrayEquals(bmm.toDoubleArray(), Tensor.bmm(batchA, batchB).toDoubleArray(), 0);
      Tensor v = make(new double[] {1, 0, -1}, 3);
      Tensor w = make(new double[] {2, 3, 4}, 3);
      assertEquals(-2, v.dot(w).item(), 0);
      assertEquals(-2, Tensor.dot(w, v).item(), 0);
      assertArrayEquals(new double[] {-2, -2}, a.mv(v).toDoubleArray(), 0);
      assertArrayEquals(new double[] {-2, -2}, Tensor.mv(a, v).toDoubleArray(), 0);
      Tensor c = make(new double[] {1, 2, 3, 4}, 2, 2);
      assertArrayEquals(new double[] {59, 66, 142, 158}, c.addmm(a, b).toDoubleArray(), 0);
      assertArrayEquals(new double[] {59, 66, 142, 158}, Tensor.addmm(c, a, b).toDoubleArray(),
          0);
      // beta = 2 scales input, alpha = 0.5 scales the product: the scalars are not swapped.
      double[] scaled = {31, 36, 75.5, 85};
      assertArrayEquals(scaled, c.addmm(a, b, 2, 0.5).toDoubleArray(), 0);
      assertArrayEquals(scaled, Tensor.addmm(c, a, b, 2, 0.5).toDoubleArray(), 0);
    }
  }

  /** Status codes, names and the library's message reach the exception. */
  @Test
  public void errorsAreMapped() {
    try (Tensor a = Tensor.ones(4, 3); Tensor i = Tensor.ones(new long[] {2, 2}, DType.INT32)) {
      CtorchException e = assertStatus(CtorchException.SHAPE, () -> a.mm(a));
      assertEquals("mat1 and mat2 shapes cannot be multiplied (4x3 and 4x3)", e.detail());
      assertEquals("CT_ERR_SHAPE", e.statusName());
      e = assertStatus(CtorchException.DTYPE, () -> i.matmul(i));
      assertTrue(e.detail(), e.detail().contains("not implemented for 'Int'"));
    }
  }

  @Test
  public void closedAndNullOperands() {
    Tensor closed = Tensor.ones(2, 2);
    closed.close();
    try (Tensor a = Tensor.ones(2, 2); Tensor v = Tensor.ones(2)) {
      assertStatus(CtorchException.INVALID_HANDLE, () -> a.mm(closed));
      assertStatus(CtorchException.INVALID_HANDLE, () -> closed.matmul(a));
      assertStatus(CtorchException.INVALID_HANDLE, () -> Tensor.bmm(closed, a));
      assertStatus(CtorchException.INVALID_HANDLE, () -> v.dot(closed));
      assertStatus(CtorchException.INVALID_HANDLE, () -> a.mv(closed));
      assertStatus(CtorchException.INVALID_HANDLE, () -> closed.addmm(a, a));
      assertStatus(CtorchException.INVALID_HANDLE, () -> a.addmm(a, closed, 1, 1));
      assertThrows(NullPointerException.class, () -> a.mm(null));
      assertThrows(NullPointerException.class, () -> Tensor.matmul(null, a));
      assertThrows(NullPointerException.class, () -> Tensor.mv(a, null));
      assertThrows(NullPointerException.class, () -> a.addmm(null, a));
      assertThrows(NullPointerException.class, () -> Tensor.addmm(null, a, a));
      assertThrows(NullPointerException.class, () -> Tensor.addmm(a, a, null, 1, 1));
    }
  }

  /** The three switches are independent booleans, process-wide (set on one thread, seen on all). */
  @Test
  public void matmulSwitches() throws Exception {
    try {
      Cuda.setAllowTf32(false);
      assertFalse(Cuda.getAllowTf32());
      Thread t = new Thread(() -> Cuda.setAllowTf32(true));
      t.start();
      t.join();
      assertTrue(Cuda.getAllowTf32());
      Cuda.setAllowFp16ReducedPrecisionReduction(false);
      assertFalse(Cuda.getAllowFp16ReducedPrecisionReduction());
      assertTrue(Cuda.getAllowBf16ReducedPrecisionReduction());
      Cuda.setAllowBf16ReducedPrecisionReduction(false);
      assertFalse(Cuda.getAllowBf16ReducedPrecisionReduction());
      assertTrue(Cuda.getAllowTf32());
    } finally {
      Cuda.setAllowTf32(false);
      Cuda.setAllowFp16ReducedPrecisionReduction(true);
      Cuda.setAllowBf16ReducedPrecisionReduction(true);
    }
    assertTrue(Cuda.getAllowFp16ReducedPrecisionReduction());
    assertTrue(Cuda.getAllowBf16ReducedPrecisionReduction());
  }

  @Test
  public void currentBlasHandleWithoutCuda() {
    assumeNoCuda();
    CtorchException e = assertStatus(CtorchException.CUDA_UNAVAILABLE, Cuda::currentBlasHandle);
    assertTrue(e.detail(), e.detail().startsWith("CUDA is not available"));
  }

  @Test
  public void gpuBlasHandleAndDevices() {
    assumeCuda();
    long h = Cuda.currentBlasHandle();
    assertNotEquals(0L, h);
    try (Stream side = Stream.create(); Cuda.StreamGuard g = Cuda.stream(side)) {
      assertEquals("one handle per thread and device", h, Cuda.currentBlasHandle());
    }
    try (Tensor cpu = Tensor.ones(2, 2);
        Tensor gpu = Tensor.ones(new long[] {2, 2}, DType.FLOAT32, Device.CUDA)) {
      assertStatus(CtorchException.DEVICE, () -> gpu.mm(cpu));
      assertStatus(CtorchException.DEVICE, () -> cpu.addmm(gpu, gpu));
    }
  }
}
