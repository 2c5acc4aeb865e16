package org.ctorch;

import org.ctorch.swig.ctorch;

/**
 * {@link Tensor}'s scans along one dim: cumsum, cumprod, cummax, cummin, logcumsumexp.
 */
abstract class TensorScans extends TensorLinalg {
  TensorScans(long handle) {
    super(handle);
  }

  /* ============================================================================================
   * Section 28: scans (torch.cumsum, cumprod, cummax, cummin, logcumsumexp). dim wraps as in
   * PyTorch (-1 is the last); results are new contiguous tensors of this tensor's shape. A dim
   * out of range is code 105 (CT_ERR_INDEX, "Dimension out of range (expected to be in range of
   * [-2, 1], but got 5)"); dtypes PyTorch refuses (logcumsumexp of integers, cummax/cummin of
   * complex, a Bool cumsum) are code 104 (CT_ERR_DTYPE) with its messages.
   * ========================================================================================== */

  /** {@code t.cumsum(dim)}: bool and integers give int64, other dtypes keep theirs. */
  public Tensor cumsum(long dim) {
    return cumsum(dim, null);
  }

  /**
   * {@code t.cumsum(dim, dtype=dtype)}: the result's dtype (the input is cast to it first); null
   * is the default of {@link #cumsum(long)}.
   */
  public Tensor cumsum(long dim, DType dtype) {
    return make(out -> ctorch.ct_cumsum(handle(), dim, dtypeCode(dtype), out));
  }

  /** {@code t.cumprod(dim)}, with the dtype rules of {@link #cumsum(long)}. */
  public Tensor cumprod(long dim) {
    return cumprod(dim, null);
  }

  /** {@code t.cumprod(dim, dtype=dtype)}. */
  public Tensor cumprod(long dim, DType dtype) {
    return make(out -> ctorch.ct_cumprod(handle(), dim, dtypeCode(dtype), out));
  }

  /**
   * {@code t.cummax(dim)}: the running maximum and the int64 index it came from (the last of
   * equal maxima; a NaN, once seen, stays, with the index of the last NaN). Both are the
   * caller's to close.
   */
  public ValuesIndices cummax(long dim) {
    long[] values = {0};
    long[] indices = {0};
    run(() -> ctorch.ct_cummax(handle(), dim, values, indices));
    return pair(values[0], indices[0]);
  }

  /** {@code t.cummin(dim)}: as {@link #cummax(long)} with the minimum. */
  public ValuesIndices cummin(long dim) {
    long[] values = {0};
    long[] indices = {0};
    run(() -> ctorch.ct_cummin(handle(), dim, values, indices));
    return pair(values[0], indices[0]);
  }

  /** {@code t.logcumsumexp(dim)}: log(cumsum(exp(t))) computed stably; floating and complex. */
  public Tensor logcumsumexp(long dim) {
    return make(out -> ctorch.ct_logcumsumexp(handle(), dim, out));
  }
}
