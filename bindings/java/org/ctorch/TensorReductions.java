package org.ctorch;

import org.ctorch.swig.ctorch;

/**
 * {@link Tensor}'s reductions: sum, mean, prod, amax/amin, max/min, argmax/argmin, norm.
 */
abstract class TensorReductions extends TensorElementwise {
  TensorReductions(long handle) {
    super(handle);
  }

  /* ============================================================================================
   * Section 10: reductions
   * ========================================================================================== */

  /**
   * {@code op} over {@code dims} (null or empty: all dims); keepdim keeps them with size 1;
   * {@code dtype} (null: the default) is the dtype to accumulate and return in.
   */
  public Tensor reduce(ReduceOp op, int[] dims, boolean keepdim, DType dtype) {
    java.util.Objects.requireNonNull(op, "op");
    long[] d = toLongs(dims);
    int n = d == null ? 0 : d.length;
    return make(out -> ctorch.ct_reduce(op.code(), handle(), d, n, b(keepdim),
        dtypeCode(dtype), out));
  }

  /** {@code t.sum()}: bool and integers give int64. */
  public Tensor sum() { return reduce(ReduceOp.SUM, null, false, null); }
  /** {@code t.sum(dtype=dtype)}. */
  public Tensor sum(DType dtype) { return reduce(ReduceOp.SUM, null, false, dtype); }
  /** {@code t.sum(dim)}. */
  public Tensor sum(int dim) { return reduce(ReduceOp.SUM, new int[] {dim}, false, null); }
  /** {@code t.sum(dim, keepdim)}. */
  public Tensor sum(int dim, boolean keepdim) {
    return reduce(ReduceOp.SUM, new int[] {dim}, keepdim, null);
  }
  /** {@code t.sum(dims, keepdim)}. */
  public Tensor sum(int[] dims, boolean keepdim) {
    return reduce(ReduceOp.SUM, dims, keepdim, null);
  }
  /** {@code t.sum(dims, keepdim, dtype=dtype)}. */
  public Tensor sum(int[] dims, boolean keepdim, DType dtype) {
    return reduce(ReduceOp.SUM, dims, keepdim, dtype);
  }

  /** {@code t.mean()}: floating or complex tensors only (CT_ERR_DTYPE otherwise). */
  public Tensor mean() { return reduce(ReduceOp.MEAN, null, false, null); }
  public Tensor mean(DType dtype) { return reduce(ReduceOp.MEAN, null, false, dtype); }
  public Tensor mean(int dim) { return reduce(ReduceOp.MEAN, new int[] {dim}, false, null); }
  public Tensor mean(int dim, boolean keepdim) {
    return reduce(ReduceOp.MEAN, new int[] {dim}, keepdim, null);
  }
  public Tensor mean(int[] dims, boolean keepdim) {
    return reduce(ReduceOp.MEAN, dims, keepdim, null);
  }
  public Tensor mean(int[] dims, boolean keepdim, DType dtype) {
    return reduce(ReduceOp.MEAN, dims, keepdim, dtype);
  }

  /** {@code t.prod()}: bool and integers give int64. */
  public Tensor prod() { return reduce(ReduceOp.PROD, null, false, null); }
  public Tensor prod(DType dtype) { return reduce(ReduceOp.PROD, null, false, dtype); }
  public Tensor prod(int dim) { return reduce(ReduceOp.PROD, new int[] {dim}, false, null); }
  public Tensor prod(int dim, boolean keepdim) {
    return reduce(ReduceOp.PROD, new int[] {dim}, keepdim, null);
  }
  public Tensor prod(int[] dims, boolean keepdim, DType dtype) {
    return reduce(ReduceOp.PROD, dims, keepdim, dtype);
  }

  /** {@code t.amax()}: the maximum over all elements. */
  public Tensor amax() { return reduce(ReduceOp.AMAX, null, false, null); }
  public Tensor amax(int dim) { return reduce(ReduceOp.AMAX, new int[] {dim}, false, null); }
  public Tensor amax(int[] dims, boolean keepdim) {
    return reduce(ReduceOp.AMAX, dims, keepdim, null);
  }

  /** {@code t.amin()}. */
  public Tensor amin() { return reduce(ReduceOp.AMIN, null, false, null); }
  public Tensor amin(int dim) { return reduce(ReduceOp.AMIN, new int[] {dim}, false, null); }
  public Tensor amin(int[] dims, boolean keepdim) {
    return reduce(ReduceOp.AMIN, dims, keepdim, null);
  }

  /** {@code t.max()}: a 0-dim tensor; CT_ERR_SHAPE for an empty tensor. */
  public Tensor max() {
    return make(out -> ctorch.ct_max(handle(), out));
  }

  /** {@code t.min()}. */
  public Tensor min() {
    return make(out -> ctorch.ct_min(handle(), out));
  }

  /** {@code t.max(dim, keepdim)}: values and int64 indices (first occurrence). */
  public ValuesIndices max(int dim, boolean keepdim) {
    long[] values = {0};
    long[] indices = {0};
    run(() -> ctorch.ct_max_dim(handle(), dim, b(keepdim), values, indices));
    return pair(values[0], indices[0]);
  }

  /** {@code t.max(dim)}. */
  public ValuesIndices max(int dim) {
    return max(dim, false);
  }

  /** {@code t.min(dim, keepdim)}. */
  public ValuesIndices min(int dim, boolean keepdim) {
    long[] values = {0};
    long[] indices = {0};
    run(() -> ctorch.ct_min_dim(handle(), dim, b(keepdim), values, indices));
    return pair(values[0], indices[0]);
  }

  /** {@code t.min(dim)}. */
  public ValuesIndices min(int dim) {
    return min(dim, false);
  }

  static ValuesIndices pair(long values, long indices) {
    return pair(values, indices, ValuesIndices::new);
  }

  /** Wraps two [new reference]s and makes r of them; on failure neither is left open. */
  static <R> R pair(long first, long second, java.util.function.BiFunction<Tensor, Tensor, R> r) {
    Tensor v;
    try {
      v = wrap(first);
    } catch (Throwable e) {
      ctorch.ct_tensor_release(second);
      throw e;
    }
    Tensor i;
    try {
      i = wrap(second);
    } catch (Throwable e) {
      v.close();
      throw e;
    }
    return r.apply(v, i);
  }

  /** {@code t.argmax()}: over the flattened tensor, a 0-dim int64 tensor. */
  public Tensor argmax() {
    return make(out -> ctorch.ct_argmax(handle(), 0, 0, 0, out));
  }

  /** {@code t.argmax(dim, keepdim)}. */
  public Tensor argmax(int dim, boolean keepdim) {
    return make(out -> ctorch.ct_argmax(handle(), 1, dim, b(keepdim), out));
  }

  /** {@code t.argmin()}. */
  public Tensor argmin() {
    return make(out -> ctorch.ct_argmin(handle(), 0, 0, 0, out));
  }

  /** {@code t.argmin(dim, keepdim)}. */
  public Tensor argmin(int dim, boolean keepdim) {
    return make(out -> ctorch.ct_argmin(handle(), 1, dim, b(keepdim), out));
  }

  /** {@code torch.linalg.vector_norm(t)}: the 2-norm over all elements. */
  public Tensor norm() {
    return norm(2.0, null, false);
  }

  /** {@code torch.linalg.vector_norm(t, ord=p)}; p may be any real or +-infinity. */
  public Tensor norm(double p) {
    return norm(p, null, false);
  }

  /**
   * {@code torch.linalg.vector_norm(t, ord=p, dim=dims, keepdim=keepdim)}; floating or complex
   * inputs only (complex gives a real result).
   */
  public Tensor norm(double p, int[] dims, boolean keepdim) {
    long[] d = toLongs(dims);
    int n = d == null ? 0 : d.length;
    return make(out -> ctorch.ct_norm(handle(), p, d, n, b(keepdim), out));
  }
}
