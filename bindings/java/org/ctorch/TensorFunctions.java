package org.ctorch;

import java.lang.ref.Reference;
import java.util.Objects;

import org.ctorch.swig.ctorch;

/**
 * {@link Tensor}'s elementwise functions with extra arguments (ctorch.h section 31): gelu,
 * nan_to_num, clamp by tensors, lerp, addcmul, addcdiv, where with scalars, isclose, allclose.
 * isnan, isinf, isfinite, erf and silu are table ops ({@link TensorElementwise}). Values, dtype
 * rules and PyTorch's messages are the C library's (docs/ewfuncs.md).
 */
abstract class TensorFunctions extends TensorRowFunctions {
  TensorFunctions(long handle) {
    super(handle);
  }

  /**
   * {@code torch.nn.functional.gelu(t, approximate=approximate)}: "none" (exact, with erf) or
   * "tanh"; another string is code 100, a non-floating tensor code 104.
   */
  public Tensor gelu(String approximate) {
    Objects.requireNonNull(approximate, "approximate");
    return make(out -> ctorch.ct_gelu(handle(), approximate, out));
  }

  /** {@code torch.nn.functional.gelu(t)}. */
  public Tensor gelu() {
    return gelu("none");
  }

  /**
   * {@code torch.nan_to_num(t, nan, posinf, neginf)}; null means None (nan 0, posinf the
   * dtype's largest finite value, neginf its lowest). Integer and bool tensors come back as a copy.
   */
  public Tensor nanToNum(Double nan, Double posinf, Double neginf) {
    return make(out -> ctorch.ct_nan_to_num(handle(), nan == null ? 0 : 1, nan == null ? 0 : nan,
        posinf == null ? 0 : 1, posinf == null ? 0 : posinf, neginf == null ? 0 : 1, neginf == null ? 0 : neginf, out));
  }

  /**
   * {@code torch.clamp(t, min, max)} with tensor bounds (either may be null, not both): NaN where
   * any operand is NaN; the three promote and broadcast.
   */
  public Tensor clamp(Tensor min, Tensor max) {
    long lo = min == null ? 0 : min.handle();
    long hi = max == null ? 0 : max.handle();
    try {
      return make(out -> ctorch.ct_clamp_tensor(handle(), lo, hi, out));
    } finally {
      Reference.reachabilityFence(min);
      Reference.reachabilityFence(max);
    }
  }

  /**
   * {@code torch.lerp(t, end, weight)}: t + weight * (end - t). end and weight must have t's
   * dtype (code 104 otherwise).
   */
  public Tensor lerp(Tensor end, Tensor weight) {
    Objects.requireNonNull(weight, "weight");
    try {
      return make(end, out -> ctorch.ct_lerp(handle(), end.handle(), weight.handle(), out));
    } finally {
      Reference.reachabilityFence(weight);
    }
  }

  /** {@code torch.lerp(t, end, weight)} with a Python float weight. */
  public Tensor lerp(Tensor end, double weight) {
    return make(end, out -> ctorch.ct_lerp_scalar(handle(), end.handle(), weight, out));
  }

  private Tensor pointwise(Tensor tensor1, Tensor tensor2, double value, boolean divide) {
    Objects.requireNonNull(tensor2, "tensor2");
    try {
      return make(tensor1, out -> divide ? ctorch.ct_addcdiv(handle(), tensor1.handle(), tensor2.handle(), value, out)
          : ctorch.ct_addcmul(handle(), tensor1.handle(), tensor2.handle(), value, out));
    } finally {
      Reference.reachabilityFence(tensor2);
    }
  }

  /** {@code torch.addcmul(t, tensor1, tensor2, value=value)}: t + value * tensor1 * tensor2. */
  public Tensor addcmul(Tensor tensor1, Tensor tensor2, double value) {
    return pointwise(tensor1, tensor2, value, false);
  }

  /**
   * {@code torch.addcdiv(t, tensor1, tensor2, value=value)}: t + value * (tensor1 / tensor2);
   * integer tensor1 and tensor2 are code 104 (PyTorch's message).
   */
  public Tensor addcdiv(Tensor tensor1, Tensor tensor2, double value) {
    return pointwise(tensor1, tensor2, value, true);
  }

  private static Tensor whereScalar(Tensor cond, Tensor x, Native.LongOutCall c) {
    Objects.requireNonNull(cond, "cond");
    Objects.requireNonNull(x, "x");
    try {
      return create(c);
    } finally {
      Reference.reachabilityFence(cond);
      Reference.reachabilityFence(x);
    }
  }

  /**
   * {@code torch.where(cond, x, y)} with a Python float y (a wrapped number: a float16 x stays
   * float16, an integer x gives float32).
   */
  public static Tensor where(Tensor cond, Tensor x, double y) {
    return whereScalar(cond, x, out -> ctorch.ct_where_scalar_f(cond.handle(), x.handle(), y, 0, out));
  }

  /** {@code torch.where(cond, x, y)} with a Python float x. */
  public static Tensor where(Tensor cond, double x, Tensor y) {
    return whereScalar(cond, y, out -> ctorch.ct_where_scalar_f(cond.handle(), y.handle(), x, 1, out));
  }

  /** {@code torch.where(cond, x, y)} with a Python int y (an int32 x stays int32). */
  public static Tensor where(Tensor cond, Tensor x, long y) {
    return whereScalar(cond, x, out -> ctorch.ct_where_scalar_i(cond.handle(), x.handle(), y, 0, out));
  }

  /** {@code torch.where(cond, x, y)} with a Python int x. */
  public static Tensor where(Tensor cond, long x, Tensor y) {
    return whereScalar(cond, y, out -> ctorch.ct_where_scalar_i(cond.handle(), y.handle(), x, 1, out));
  }

  /** {@code torch.where(cond, x, y)} with two Python floats: float32, of cond's shape and device. */
  public static Tensor where(Tensor cond, double x, double y) {
    Objects.requireNonNull(cond, "cond");
    return cond.make(out -> ctorch.ct_where_scalars_f(cond.handle(), x, y, out));
  }

  /** {@code torch.where(cond, x, y)} with two Python ints: int64. */
  public static Tensor where(Tensor cond, long x, long y) {
    Objects.requireNonNull(cond, "cond");
    return cond.make(out -> ctorch.ct_where_scalars_i(cond.handle(), x, y, out));
  }

  /** {@code torch.isclose(t, other, rtol, atol, equal_nan)}: a bool tensor. */
  public Tensor isclose(Tensor other, double rtol, double atol, boolean equalNan) {
    return make(other, out -> ctorch.ct_isclose(handle(), other.handle(), rtol, atol, b(equalNan), out));
  }

  /** {@code torch.isclose(t, other)} (rtol 1e-5, atol 1e-8). */
  public Tensor isclose(Tensor other) {
    return isclose(other, 1e-5, 1e-8, false);
  }

  /**
   * {@code torch.allclose(t, other, rtol, atol, equal_nan)} (true for empty tensors;
   * synchronizes with a CUDA device).
   */
  public boolean allclose(Tensor other, double rtol, double atol, boolean equalNan) {
    int[] r = {0};
    run(other, () -> ctorch.ct_allclose(handle(), other.handle(), rtol, atol, b(equalNan), r));
    return r[0] != 0;
  }

  /** {@code torch.allclose(t, other)} (rtol 1e-5, atol 1e-8). */
  public boolean allclose(Tensor other) {
    return allclose(other, 1e-5, 1e-8, false);
  }
}
