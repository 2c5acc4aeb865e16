package org.ctorch;

import java.lang.ref.Reference;
import java.util.Objects;

import org.ctorch.swig.ctorch;

/**
 * {@link Tensor}'s row functions: softmax, log_softmax, logsumexp, var/std and their _mean
 * forms, linalg.matrix_norm, layer_norm. Values, dtype rules and PyTorch's messages are the C
 * library's (docs/rowfuncs.md).
 */
abstract class TensorRowFunctions extends TensorIndexing {
  TensorRowFunctions(long handle) {
    super(handle);
  }

  /* ============================================================================================
   * Section 32: row functions. float16/bfloat16 inputs are computed in float32. dims: null or
   * empty means all dims; a dim out of range is code 102 (CT_ERR_INDEX), a dim twice code 100.
   * ========================================================================================== */

  /**
   * {@code torch.softmax(t, dim, dtype=dtype)}: exp(x - max) / sum(exp(x - max)) along dim;
   * dtype null keeps t's dtype, otherwise t is converted to it first. A non-floating result
   * dtype is code 104 (CT_ERR_DTYPE: "\"host_softmax\" not implemented for 'Long'").
   */
  public Tensor softmax(int dim, DType dtype) {
    return make(out -> ctorch.ct_softmax(handle(), dim, dtypeCode(dtype), out));
  }

  /** {@code torch.softmax(t, dim)}. */
  public Tensor softmax(int dim) {
    return softmax(dim, null);
  }

  /** {@code torch.log_softmax(t, dim, dtype=dtype)}, with softmax's dtype rules. */
  public Tensor logSoftmax(int dim, DType dtype) {
    return make(out -> ctorch.ct_log_softmax(handle(), dim, dtypeCode(dtype), out));
  }

  /** {@code torch.log_softmax(t, dim)}. */
  public Tensor logSoftmax(int dim) {
    return logSoftmax(dim, null);
  }

  /**
   * {@code torch.logsumexp(t, dims, keepdim)}: bool and integer inputs give float32; complex
   * inputs are code 500 (CT_ERR_NOT_SUPPORTED).
   */
  public Tensor logsumexp(int[] dims, boolean keepdim) {
    long[] d = toLongs(dims);
    int n = d == null ? 0 : d.length;
    return make(out -> ctorch.ct_logsumexp(handle(), d, n, b(keepdim), out));
  }

  /** {@code torch.logsumexp(t, dim)}. */
  public Tensor logsumexp(int dim) {
    return logsumexp(new int[] {dim}, false);
  }

  private Tensor variance(int[] dims, double correction, boolean keepdim, boolean std) {
    long[] d = toLongs(dims);
    int n = d == null ? 0 : d.length;
    return make(out -> std ? ctorch.ct_std(handle(), d, n, correction, b(keepdim), out)
        : ctorch.ct_var(handle(), d, n, correction, b(keepdim), out));
  }

  private StatMean varianceMean(int[] dims, double correction, boolean keepdim, boolean std) {
    long[] d = toLongs(dims);
    int n = d == null ? 0 : d.length;
    long[] s = {0};
    long[] m = {0};
    run(() -> std ? ctorch.ct_std_mean(handle(), d, n, correction, b(keepdim), s, m)
        : ctorch.ct_var_mean(handle(), d, n, correction, b(keepdim), s, m));
    return TensorReductions.pair(s[0], m[0], StatMean::new);
  }

  /**
   * {@code torch.var(t, dims, correction=correction, keepdim)}: the sum of squared deviations
   * over max(0, N - correction) (1 is PyTorch's default). Complex inputs give the real dtype;
   * bool and integer inputs are code 104.
   */
  public Tensor var(int[] dims, double correction, boolean keepdim) {
    return variance(dims, correction, keepdim, false);
  }

  /** {@code torch.var(t)}: over all elements, correction 1. */
  public Tensor var() {
    return var(null, 1, false);
  }

  /** {@code torch.std(t, dims, correction=correction, keepdim)}: the square root of var. */
  public Tensor std(int[] dims, double correction, boolean keepdim) {
    return variance(dims, correction, keepdim, true);
  }

  /** {@code torch.std(t)}: over all elements, correction 1. */
  public Tensor std() {
    return std(null, 1, false);
  }

  /** {@code torch.var_mean(t, dims, correction=correction, keepdim)}: (variance, mean). */
  public StatMean varMean(int[] dims, double correction, boolean keepdim) {
    return varianceMean(dims, correction, keepdim, false);
  }

  /** {@code torch.std_mean(t, dims, correction=correction, keepdim)}: (std, mean). */
  public StatMean stdMean(int[] dims, double correction, boolean keepdim) {
    return varianceMean(dims, correction, keepdim, true);
  }

  /**
   * {@code torch.linalg.matrix_norm(t, ord, dim=(dim0, dim1), keepdim)} for ord 1, -1,
   * +infinity and -infinity; 2 and -2 need singular values (code 500).
   */
  public Tensor matrixNorm(double ord, int dim0, int dim1, boolean keepdim) {
    return make(out -> ctorch.ct_matrix_norm(handle(), ord, dim0, dim1, b(keepdim), out));
  }

  /** {@code torch.linalg.matrix_norm(t, ord)} over the last two dims. */
  public Tensor matrixNorm(double ord) {
    return matrixNorm(ord, -2, -1, false);
  }

  /**
   * {@code torch.linalg.matrix_norm(t, ord="fro" | "nuc", dim=(dim0, dim1), keepdim)} (and
   * {@code torch.norm(t, "fro", dim)}); "nuc" is code 500.
   */
  public Tensor matrixNorm(String ord, int dim0, int dim1, boolean keepdim) {
    Objects.requireNonNull(ord, "ord");
    return make(out -> ctorch.ct_matrix_norm_str(handle(), ord, dim0, dim1, b(keepdim), out));
  }

  /**
   * {@code torch.nn.functional.layer_norm(t, normalizedShape, weight, bias, eps)} over the last
   * normalizedShape.length dims; weight and bias may be null. The result has t's dtype. Shapes
   * that do not fit are code 103 with PyTorch's messages.
   */
  public Tensor layerNorm(long[] normalizedShape, Tensor weight, Tensor bias, double eps) {
    Objects.requireNonNull(normalizedShape, "normalizedShape");
    long w = weight == null ? 0 : weight.handle();
    long b = bias == null ? 0 : bias.handle();
    try {
      return make(out -> ctorch.ct_layer_norm(handle(), normalizedShape, normalizedShape.length, w, b, eps, out));
    } finally {
      Reference.reachabilityFence(weight);
      Reference.reachabilityFence(bias);
    }
  }

  /** {@code torch.nn.functional.layer_norm(t, normalizedShape)} (no weight or bias, eps 1e-5). */
  public Tensor layerNorm(long... normalizedShape) {
    return layerNorm(normalizedShape, null, null, 1e-5);
  }
}
