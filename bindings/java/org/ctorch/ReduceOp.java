package org.ctorch;

/** Reductions over dims ({@code ct_reduce_op}), for {@link Tensor#reduce}. */
public enum ReduceOp {
  /** Bool and integer inputs accumulate and return int64. */
  SUM(0),
  /** Floating or complex inputs only (CT_ERR_DTYPE otherwise). */
  MEAN(1),
  /** Bool and integer inputs return int64. */
  PROD(2),
  /** torch.amax: values only; NaN propagates; no empty reductions. */
  AMAX(3),
  /** torch.amin. */
  AMIN(4);

  private final int code;

  ReduceOp(int code) {
    this.code = code;
  }

  /** The C ABI's number. */
  public int code() {
    return code;
  }
}
