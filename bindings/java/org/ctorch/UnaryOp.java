package org.ctorch;

/**
 * Elementwise unary operations ({@code ct_unary_op}), for {@link Tensor#unary(UnaryOp)} and
 * {@link Tensor#unary_(UnaryOp)}; each also has its own method ({@code t.exp()}, ...).
 */
public enum UnaryOp {
  /** -x (not for bool). */
  NEG(0),
  /** |x| (complex: the magnitude, a real result). */
  ABS(1),
  /** e^x; integer and bool inputs promote to float32 (as do the float ops below). */
  EXP(2),
  LOG(3),
  SQRT(4),
  SIN(5),
  COS(6),
  TANH(7),
  SIGMOID(8),
  /** max(x, 0), keeps the dtype (not for bool or complex). */
  RELU(9),
  /** Bool result. */
  LOGICAL_NOT(10),
  /** Keeps the dtype. */
  SIGN(11),
  /** Integers unchanged. */
  FLOOR(12),
  CEIL(13),
  /** Half to even, as torch.round. */
  ROUND(14),
  /** 1/x; integers promote to float32. */
  RECIPROCAL(15),
  /** x*x, keeps the dtype (bool gives int64, as torch.square). */
  SQUARE(16);

  private final int code;

  UnaryOp(int code) {
    this.code = code;
  }

  /** The C ABI's number. */
  public int code() {
    return code;
  }
}
