package org.ctorch;

/**
 * Elementwise binary operations ({@code ct_binary_op}) with broadcasting and PyTorch's type
 * promotion, for {@link Tensor#binary(BinaryOp, Tensor)} and its scalar, reverse and in-place
 * forms; each also has its own method ({@code a.add(b)}, {@code a.lt(2)}, ...).
 */
public enum BinaryOp {
  ADD(0),
  /** Not for bool. */
  SUB(1),
  MUL(2),
  /** True division: integers promote to float32. */
  DIV(3),
  POW(4),
  /** Comparisons give bool. */
  EQ(5),
  NE(6),
  LT(7),
  LE(8),
  GT(9),
  GE(10),
  /** Bool result. */
  LOGICAL_AND(11),
  LOGICAL_OR(12),
  LOGICAL_XOR(13),
  /** torch.maximum / torch.minimum (NaN propagates). */
  MAXIMUM(14),
  MINIMUM(15),
  /** torch.floor_divide. */
  FLOOR_DIVIDE(16),
  /** torch.remainder (the sign of the divisor). */
  REMAINDER(17);

  private final int code;

  BinaryOp(int code) {
    this.code = code;
  }

  /** The C ABI's number. */
  public int code() {
    return code;
  }
}
