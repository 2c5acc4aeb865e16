package org.ctorch;

import java.lang.ref.Reference;
import java.util.Objects;

import org.ctorch.swig.ctorch;

/**
 * {@link Tensor}'s elementwise operations by op code (unary, binary, their scalar, reversed
 * and in-place forms), clamp, where and fill; the named methods are in TensorElementwise.
 */
abstract class TensorOps extends TensorViews {
  TensorOps(long handle) {
    super(handle);
  }

  /* ============================================================================================
   * Section 9: elementwise operations (broadcasting, PyTorch's type promotion)
   * ========================================================================================== */

  /** {@code op(t)}. */
  public Tensor unary(UnaryOp op) {
    Objects.requireNonNull(op, "op");
    return make(out -> ctorch.ct_unary(op.code(), handle(), out));
  }

  /**
   * {@code t.op_()} in place; CT_ERR_DTYPE when the result cannot be stored in this dtype
   * (e.g. exp_ on an int64 tensor). Returns this.
   */
  public Tensor unary_(UnaryOp op) {
    Objects.requireNonNull(op, "op");
    run(() -> ctorch.ct_unary_(op.code(), handle()));
    return self();
  }

  /** {@code op(t, other)} with broadcasting and type promotion. */
  public Tensor binary(BinaryOp op, Tensor other) {
    Objects.requireNonNull(op, "op");
    return make(other, out -> ctorch.ct_binary(op.code(), handle(), other.handle(), out));
  }

  /**
   * {@code op(t, s)} with a Python int scalar: it does not widen an integer tensor
   * (int32 + 2 stays int32).
   */
  public Tensor binary(BinaryOp op, long scalar) {
    Objects.requireNonNull(op, "op");
    return make(out -> ctorch.ct_binary_scalar_i(op.code(), handle(), scalar, 0, out));
  }

  /**
   * {@code op(t, s)} with a Python float scalar: an integer tensor becomes float32, a float16
   * tensor stays float16 ("wrapped number" promotion).
   */
  public Tensor binary(BinaryOp op, double scalar) {
    Objects.requireNonNull(op, "op");
    return make(out -> ctorch.ct_binary_scalar_f(op.code(), handle(), scalar, 0, out));
  }

  /** {@code op(s, t)} with a Python int scalar (e.g. {@code 2 - t}). */
  public Tensor rbinary(BinaryOp op, long scalar) {
    Objects.requireNonNull(op, "op");
    return make(out -> ctorch.ct_binary_scalar_i(op.code(), handle(), scalar, 1, out));
  }

  /** {@code op(s, t)} with a Python float scalar (e.g. {@code 2.5 / t}). */
  public Tensor rbinary(BinaryOp op, double scalar) {
    Objects.requireNonNull(op, "op");
    return make(out -> ctorch.ct_binary_scalar_f(op.code(), handle(), scalar, 1, out));
  }

  /**
   * {@code t.op_(other)} in place: other broadcasts to this shape and the promoted dtype must
   * be castable to this dtype. Returns this.
   */
  public Tensor binary_(BinaryOp op, Tensor other) {
    Objects.requireNonNull(op, "op");
    run(other, () -> ctorch.ct_binary_(op.code(), handle(), other.handle()));
    return self();
  }

  /** {@code t.op_(s)} in place with a Python int scalar. Returns this. */
  public Tensor binary_(BinaryOp op, long scalar) {
    Objects.requireNonNull(op, "op");
    run(() -> ctorch.ct_binary_scalar_i_(op.code(), handle(), scalar));
    return self();
  }

  /** {@code t.op_(s)} in place with a Python float scalar. Returns this. */
  public Tensor binary_(BinaryOp op, double scalar) {
    Objects.requireNonNull(op, "op");
    run(() -> ctorch.ct_binary_scalar_f_(op.code(), handle(), scalar));
    return self();
  }

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
    return self();
  }

  /** {@code t.clamp_(min=min)}. Returns this. */
  public Tensor clampMin_(double min) {
    run(() -> ctorch.ct_clamp_(handle(), 1, min, 0, 0));
    return self();
  }

  /** {@code t.clamp_(max=max)}. Returns this. */
  public Tensor clampMax_(double max) {
    run(() -> ctorch.ct_clamp_(handle(), 0, 0, 1, max));
    return self();
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
    return self();
  }

  /** {@code t.zero_()}. Returns this. */
  public Tensor zero_() {
    run(() -> ctorch.ct_zero_(handle()));
    return self();
  }
}
