package org.ctorch;

import java.lang.ref.Reference;
import java.util.Objects;

import org.ctorch.swig.ctorch;

/**
 * {@link Tensor}'s sorting and selection: sort, argsort, topk, kthvalue, unique, searchsorted.
 */
abstract class TensorSorting extends TensorScans {
  TensorSorting(long handle) {
    super(handle);
  }

  /* ============================================================================================
   * Section 29: sorting and selection. NaN sorts after everything (ascending puts NaN last,
   * descending first), -0.0 equals 0.0, and sorts are always stable, so CPU and CUDA give the
   * same values and int64 indices. Complex tensors are code 104 (CT_ERR_DTYPE); a dim out of
   * range code 105 (CT_ERR_INDEX).
   * ========================================================================================== */

  /**
   * {@code torch.sort(t, dim, descending, stable)}: the sorted values and the int64 positions
   * they came from, both shaped like this. Closing the result closes both.
   */
  public ValuesIndices sort(int dim, boolean descending, boolean stable) {
    long[] values = {0};
    long[] indices = {0};
    run(() -> ctorch.ct_sort(handle(), dim, b(descending), b(stable), values, indices));
    return TensorReductions.pair(values[0], indices[0]);
  }

  /** {@code t.sort()}: ascending along the last dim. */
  public ValuesIndices sort() {
    return sort(-1, false, false);
  }

  /** {@code torch.argsort(t, dim, descending, stable)}: the indices of {@link #sort} alone. */
  public Tensor argsort(int dim, boolean descending, boolean stable) {
    return make(out -> ctorch.ct_argsort(handle(), dim, b(descending), b(stable), out));
  }

  /**
   * {@code torch.topk(t, k, dim, largest, sorted)}: the k largest (smallest) elements along
   * dim, in order, and their int64 positions. Code 105 "selected index k out of range".
   */
  public ValuesIndices topk(long k, int dim, boolean largest, boolean sorted) {
    long[] values = {0};
    long[] indices = {0};
    run(() -> ctorch.ct_topk(handle(), k, dim, b(largest), b(sorted), values, indices));
    return TensorReductions.pair(values[0], indices[0]);
  }

  /** {@code t.topk(k)}: the k largest along the last dim. */
  public ValuesIndices topk(long k) {
    return topk(k, -1, true, true);
  }

  /**
   * {@code torch.kthvalue(t, k, dim, keepdim)}: the k-th smallest element along dim (k from 1)
   * and its int64 position.
   */
  public ValuesIndices kthvalue(long k, int dim, boolean keepdim) {
    long[] values = {0};
    long[] indices = {0};
    run(() -> ctorch.ct_kthvalue(handle(), k, dim, b(keepdim), values, indices));
    return TensorReductions.pair(values[0], indices[0]);
  }

  /**
   * {@code torch.unique(t, sorted=True, return_inverse, return_counts)} over the flattened
   * tensor: the distinct elements in ascending order (each NaN distinct), the int64 position of
   * each element among them (shaped like this) and the count of each; the last two are
   * {@code null} unless asked for.
   */
  public UniqueResult unique(boolean returnInverse, boolean returnCounts) {
    long[] v = {0};
    long[] i = {0};
    long[] c = {0};
    run(() -> ctorch.ct_unique(handle(), 1, b(returnInverse), b(returnCounts), v, i, c));
    Tensor[] made = new Tensor[3];
    long[] hs = {v[0], i[0], c[0]};
    int k = 0;
    try {
      for (; k < 3; ++k) {
        made[k] = hs[k] == 0 ? null : wrap(hs[k]);
      }
    } catch (Throwable e) {
      for (int j = 0; j < 3; ++j) {
        if (j < k && made[j] != null) {
          made[j].close();
        } else if (j >= k && hs[j] != 0) {
          ctorch.ct_tensor_release(hs[j]);
        }
      }
      throw e;
    }
    return new UniqueResult(made[0], made[1], made[2]);
  }

  /** {@code torch.unique(t)}: the sorted distinct values alone. */
  public Tensor unique() {
    UniqueResult r = unique(false, false);
    return r.values();
  }

  /**
   * {@code torch.searchsorted(this, values, out_int32, right, side, sorter)} with this the sorted
   * sequence (1-D, or the leading dims of values): where each element of values would be
   * inserted into its row to keep it sorted ({@code right} or side "right": after equal
   * elements). side {@code null}: not given; sorter ({@code null}: none) holds the int64
   * positions that sort this. int64 result, int32 with outInt32. Code 100 when side and right
   * disagree.
   */
  public Tensor searchsorted(Tensor values, boolean outInt32, boolean right, String side, Tensor sorter) {
    Objects.requireNonNull(values, "values");
    try {
      return make(values, out -> ctorch.ct_searchsorted(handle(), values.handle(), b(outInt32), b(right), side,
          sorter == null ? 0 : sorter.handle(), out));
    } finally {
      Reference.reachabilityFence(sorter);
    }
  }

  /** {@code torch.searchsorted(this, values)}: left insertion points, int64. */
  public Tensor searchsorted(Tensor values) {
    return searchsorted(values, false, false, null, null);
  }
}
