package org.ctorch;

import java.lang.ref.Reference;
import java.util.Objects;

import org.ctorch.swig.ctorch;

/**
 * {@link Tensor}'s matrix products: matmul, mm, bmm, dot, mv, addmm.
 */
abstract class TensorLinalg extends TensorRandom {
  TensorLinalg(long handle) {
    super(handle);
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
}
