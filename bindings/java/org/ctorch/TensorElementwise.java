package org.ctorch;

/**
 * {@link Tensor}'s named elementwise methods (add, sub, ..., neg, exp, ...): one line per
 * op, each delegating to {@link TensorOps}' by-code methods (unary, unary_, binary, rbinary,
 * binary_). Kept in a file of its own so that it can be generated from the ABI's op table: the
 * contract is this class name, {@code extends TensorOps}, the (long handle) constructor, and
 * public methods only of that one-line form.
 */
abstract class TensorElementwise extends TensorOps {
  TensorElementwise(long handle) {
    super(handle);
  }

  public Tensor neg() { return unary(UnaryOp.NEG); }
  public Tensor abs() { return unary(UnaryOp.ABS); }
  public Tensor exp() { return unary(UnaryOp.EXP); }
  public Tensor log() { return unary(UnaryOp.LOG); }
  public Tensor sqrt() { return unary(UnaryOp.SQRT); }
  public Tensor sin() { return unary(UnaryOp.SIN); }
  public Tensor cos() { return unary(UnaryOp.COS); }
  public Tensor tanh() { return unary(UnaryOp.TANH); }
  public Tensor sigmoid() { return unary(UnaryOp.SIGMOID); }
  public Tensor relu() { return unary(UnaryOp.RELU); }
  public Tensor logicalNot() { return unary(UnaryOp.LOGICAL_NOT); }
  public Tensor sign() { return unary(UnaryOp.SIGN); }
  public Tensor floor() { return unary(UnaryOp.FLOOR); }
  public Tensor ceil() { return unary(UnaryOp.CEIL); }
  public Tensor round() { return unary(UnaryOp.ROUND); }
  public Tensor reciprocal() { return unary(UnaryOp.RECIPROCAL); }
  public Tensor square() { return unary(UnaryOp.SQUARE); }

  public Tensor neg_() { return unary_(UnaryOp.NEG); }
  public Tensor abs_() { return unary_(UnaryOp.ABS); }
  public Tensor exp_() { return unary_(UnaryOp.EXP); }
  public Tensor log_() { return unary_(UnaryOp.LOG); }
  public Tensor sqrt_() { return unary_(UnaryOp.SQRT); }
  public Tensor sin_() { return unary_(UnaryOp.SIN); }
  public Tensor cos_() { return unary_(UnaryOp.COS); }
  public Tensor tanh_() { return unary_(UnaryOp.TANH); }
  public Tensor sigmoid_() { return unary_(UnaryOp.SIGMOID); }
  public Tensor relu_() { return unary_(UnaryOp.RELU); }
  public Tensor logicalNot_() { return unary_(UnaryOp.LOGICAL_NOT); }
  public Tensor sign_() { return unary_(UnaryOp.SIGN); }
  public Tensor floor_() { return unary_(UnaryOp.FLOOR); }
  public Tensor ceil_() { return unary_(UnaryOp.CEIL); }
  public Tensor round_() { return unary_(UnaryOp.ROUND); }
  public Tensor reciprocal_() { return unary_(UnaryOp.RECIPROCAL); }
  public Tensor square_() { return unary_(UnaryOp.SQUARE); }


  public Tensor add(Tensor other) { return binary(BinaryOp.ADD, other); }
  public Tensor add(long other) { return binary(BinaryOp.ADD, other); }
  public Tensor add(double other) { return binary(BinaryOp.ADD, other); }
  public Tensor sub(Tensor other) { return binary(BinaryOp.SUB, other); }
  public Tensor sub(long other) { return binary(BinaryOp.SUB, other); }
  public Tensor sub(double other) { return binary(BinaryOp.SUB, other); }
  public Tensor mul(Tensor other) { return binary(BinaryOp.MUL, other); }
  public Tensor mul(long other) { return binary(BinaryOp.MUL, other); }
  public Tensor mul(double other) { return binary(BinaryOp.MUL, other); }
  /** True division: integer inputs give float32. */
  public Tensor div(Tensor other) { return binary(BinaryOp.DIV, other); }
  public Tensor div(long other) { return binary(BinaryOp.DIV, other); }
  public Tensor div(double other) { return binary(BinaryOp.DIV, other); }
  public Tensor pow(Tensor other) { return binary(BinaryOp.POW, other); }
  public Tensor pow(long other) { return binary(BinaryOp.POW, other); }
  public Tensor pow(double other) { return binary(BinaryOp.POW, other); }
  public Tensor remainder(Tensor other) { return binary(BinaryOp.REMAINDER, other); }
  public Tensor remainder(long other) { return binary(BinaryOp.REMAINDER, other); }
  public Tensor remainder(double other) { return binary(BinaryOp.REMAINDER, other); }
  public Tensor floorDivide(Tensor other) { return binary(BinaryOp.FLOOR_DIVIDE, other); }
  public Tensor floorDivide(long other) { return binary(BinaryOp.FLOOR_DIVIDE, other); }
  public Tensor floorDivide(double other) { return binary(BinaryOp.FLOOR_DIVIDE, other); }

  /** {@code s - t} ({@code torch.rsub(t, s)}). */
  public Tensor rsub(long scalar) { return rbinary(BinaryOp.SUB, scalar); }
  public Tensor rsub(double scalar) { return rbinary(BinaryOp.SUB, scalar); }
  /** {@code s / t}. */
  public Tensor rdiv(long scalar) { return rbinary(BinaryOp.DIV, scalar); }
  public Tensor rdiv(double scalar) { return rbinary(BinaryOp.DIV, scalar); }
  /** {@code s ** t}. */
  public Tensor rpow(long scalar) { return rbinary(BinaryOp.POW, scalar); }
  public Tensor rpow(double scalar) { return rbinary(BinaryOp.POW, scalar); }

  public Tensor eq(Tensor other) { return binary(BinaryOp.EQ, other); }
  public Tensor eq(long other) { return binary(BinaryOp.EQ, other); }
  public Tensor eq(double other) { return binary(BinaryOp.EQ, other); }
  public Tensor ne(Tensor other) { return binary(BinaryOp.NE, other); }
  public Tensor ne(long other) { return binary(BinaryOp.NE, other); }
  public Tensor ne(double other) { return binary(BinaryOp.NE, other); }
  public Tensor lt(Tensor other) { return binary(BinaryOp.LT, other); }
  public Tensor lt(long other) { return binary(BinaryOp.LT, other); }
  public Tensor lt(double other) { return binary(BinaryOp.LT, other); }
  public Tensor le(Tensor other) { return binary(BinaryOp.LE, other); }
  public Tensor le(long other) { return binary(BinaryOp.LE, other); }
  public Tensor le(double other) { return binary(BinaryOp.LE, other); }
  public Tensor gt(Tensor other) { return binary(BinaryOp.GT, other); }
  public Tensor gt(long other) { return binary(BinaryOp.GT, other); }
  public Tensor gt(double other) { return binary(BinaryOp.GT, other); }
  public Tensor ge(Tensor other) { return binary(BinaryOp.GE, other); }
  public Tensor ge(long other) { return binary(BinaryOp.GE, other); }
  public Tensor ge(double other) { return binary(BinaryOp.GE, other); }

  public Tensor logicalAnd(Tensor other) { return binary(BinaryOp.LOGICAL_AND, other); }
  public Tensor logicalOr(Tensor other) { return binary(BinaryOp.LOGICAL_OR, other); }
  public Tensor logicalXor(Tensor other) { return binary(BinaryOp.LOGICAL_XOR, other); }
  /** {@code torch.maximum(t, other)} (NaN propagates). */
  public Tensor maximum(Tensor other) { return binary(BinaryOp.MAXIMUM, other); }
  /** {@code torch.minimum(t, other)} (NaN propagates). */
  public Tensor minimum(Tensor other) { return binary(BinaryOp.MINIMUM, other); }

  public Tensor add_(Tensor other) { return binary_(BinaryOp.ADD, other); }
  public Tensor add_(long other) { return binary_(BinaryOp.ADD, other); }
  public Tensor add_(double other) { return binary_(BinaryOp.ADD, other); }
  public Tensor sub_(Tensor other) { return binary_(BinaryOp.SUB, other); }
  public Tensor sub_(long other) { return binary_(BinaryOp.SUB, other); }
  public Tensor sub_(double other) { return binary_(BinaryOp.SUB, other); }
  public Tensor mul_(Tensor other) { return binary_(BinaryOp.MUL, other); }
  public Tensor mul_(long other) { return binary_(BinaryOp.MUL, other); }
  public Tensor mul_(double other) { return binary_(BinaryOp.MUL, other); }
  public Tensor div_(Tensor other) { return binary_(BinaryOp.DIV, other); }
  public Tensor div_(long other) { return binary_(BinaryOp.DIV, other); }
  public Tensor div_(double other) { return binary_(BinaryOp.DIV, other); }
  public Tensor pow_(Tensor other) { return binary_(BinaryOp.POW, other); }
  public Tensor pow_(long other) { return binary_(BinaryOp.POW, other); }
  public Tensor pow_(double other) { return binary_(BinaryOp.POW, other); }
  public Tensor remainder_(Tensor other) { return binary_(BinaryOp.REMAINDER, other); }
  public Tensor remainder_(long other) { return binary_(BinaryOp.REMAINDER, other); }
  public Tensor remainder_(double other) { return binary_(BinaryOp.REMAINDER, other); }
  public Tensor floorDivide_(Tensor other) { return binary_(BinaryOp.FLOOR_DIVIDE, other); }
  public Tensor floorDivide_(long other) { return binary_(BinaryOp.FLOOR_DIVIDE, other); }
  public Tensor floorDivide_(double other) { return binary_(BinaryOp.FLOOR_DIVIDE, other); }
  public Tensor maximum_(Tensor other) { return binary_(BinaryOp.MAXIMUM, other); }
  public Tensor minimum_(Tensor other) { return binary_(BinaryOp.MINIMUM, other); }
}
