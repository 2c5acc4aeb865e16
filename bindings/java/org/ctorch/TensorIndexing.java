package org.ctorch;

import java.lang.ref.Reference;
import java.util.Objects;

import org.ctorch.swig.ctorch;

/**
 * {@link Tensor}'s indexing: indexSelect, gather, take, scatter, scatterAdd, indexAdd_,
 * maskedFill, maskedSelect, nonzero and where(condition).
 */
abstract class TensorIndexing extends TensorSorting {
  TensorIndexing(long handle) {
    super(handle);
  }

  /* ============================================================================================
   * Section 30: indexing (docs/indexing.md), with PyTorch's rules and messages. Index tensors
   * are int64 (indexSelect and indexAdd_ also take int32) on this tensor's device (code 300,
   * CT_ERR_DEVICE, otherwise); masks are bool (code 104, CT_ERR_DTYPE, otherwise). An index out
   * of range is code 105 (CT_ERR_INDEX) with PyTorch's message on the CPU, nothing written; on
   * CUDA it fails a device-side assertion, as in PyTorch, reported as code 302 (CT_ERR_CUDA,
   * "device-side assert triggered") by the next CUDA call (by the op itself under
   * CUDA_LAUNCH_BLOCKING=1), after which the process's CUDA context is unusable.
   * ========================================================================================== */

  /** create(c), keeping this tensor and the operands reachable; null operands are refused. */
  private Tensor with(Native.LongOutCall c, Object... operands) {
    try {
      return create(c);
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(operands);
    }
  }

  /**
   * {@code torch.index_select(t, dim, index)}: index 1-D (or 0-dim), int64 or int32, entries in
   * [0, size(dim)) (code 105 "index out of range in self").
   */
  public Tensor indexSelect(int dim, Tensor index) {
    Objects.requireNonNull(index, "index");
    return with(out -> ctorch.ct_index_select(handle(), dim, index.handle(), out), index);
  }

  /**
   * {@code torch.gather(t, dim, index)}: index int64 with this tensor's number of dims; the
   * result has index's shape (code 105 "index 5 is out of bounds for dimension 0 with size 3").
   */
  public Tensor gather(int dim, Tensor index) {
    Objects.requireNonNull(index, "index");
    return with(out -> ctorch.ct_gather(handle(), dim, index.handle(), out), index);
  }

  /** {@code torch.take(t, index)}: this tensor read as 1-D; negative indices count from the end. */
  public Tensor take(Tensor index) {
    Objects.requireNonNull(index, "index");
    return with(out -> ctorch.ct_take(handle(), index.handle(), out), index);
  }

  /**
   * {@code torch.scatter(t, dim, index, src)}: a copy of this tensor with src's elements written
   * where index says (which of repeated indices wins is unspecified on CUDA).
   */
  public Tensor scatter(int dim, Tensor index, Tensor src) {
    Objects.requireNonNull(index, "index");
    Objects.requireNonNull(src, "src");
    return with(out -> ctorch.ct_scatter(handle(), dim, index.handle(), src.handle(), out), index, src);
  }

  /** {@code torch.scatter(t, dim, index, value)}. */
  public Tensor scatter(int dim, Tensor index, double value) {
    Objects.requireNonNull(index, "index");
    return with(out -> ctorch.ct_scatter_value(handle(), dim, index.handle(), value, out), index);
  }

  /**
   * {@code torch.scatter_add(t, dim, index, src)}: repeated indices add up (atomically on CUDA,
   * so float results may differ from the CPU's in the last bits).
   */
  public Tensor scatterAdd(int dim, Tensor index, Tensor src) {
    Objects.requireNonNull(index, "index");
    Objects.requireNonNull(src, "src");
    return with(out -> ctorch.ct_scatter_add(handle(), dim, index.handle(), src.handle(), out), index, src);
  }

  /** {@code t.index_add_(dim, index, source, alpha=alpha)}; returns this tensor. */
  public Tensor indexAdd_(int dim, Tensor index, Tensor source, double alpha) {
    Objects.requireNonNull(index, "index");
    Objects.requireNonNull(source, "source");
    try {
      Native.check(ctorch.ct_index_add_(handle(), dim, index.handle(), source.handle(), alpha));
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(index);
      Reference.reachabilityFence(source);
    }
    return self();
  }

  /** {@code t.index_add_(dim, index, source)}. */
  public Tensor indexAdd_(int dim, Tensor index, Tensor source) {
    return indexAdd_(dim, index, source, 1.0);
  }

  /** The handles of an index list, 0 for a null entry (a full slice). */
  private static long[] indexHandles(Tensor[] indices) {
    Objects.requireNonNull(indices, "indices");
    long[] hs = new long[indices.length];
    for (int i = 0; i < indices.length; i++) {
      hs[i] = indices[i] == null ? 0 : indices[i].handle();
    }
    return hs;
  }

  /**
   * {@code t[indices]} (PyTorch's advanced indexing): one entry for each leading dim, null for a
   * full slice ({@code :}), an int64 or int32 tensor (negative entries count from the end) or a
   * bool mask. The index tensors broadcast together (docs/indexing.md: where their dims go).
   */
  public Tensor index(Tensor... indices) {
    long[] hs = indexHandles(indices);
    return with(out -> ctorch.ct_index(handle(), hs, hs.length, out), (Object) indices);
  }

  /**
   * {@code t.index_put_(indices, values, accumulate)} ({@code t[indices] = values}, or {@code +=}
   * with accumulate): values of this tensor's dtype, broadcast. Returns this tensor.
   */
  public Tensor indexPut_(Tensor[] indices, Tensor values, boolean accumulate) {
    Objects.requireNonNull(values, "values");
    long[] hs = indexHandles(indices);
    try {
      Native.check(ctorch.ct_index_put_(handle(), hs, hs.length, values.handle(), accumulate ? 1 : 0));
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(indices);
      Reference.reachabilityFence(values);
    }
    return self();
  }

  /** {@code torch.masked_fill(t, mask, value)}: mask bool, broadcast with this tensor. */
  public Tensor maskedFill(Tensor mask, double value) {
    Objects.requireNonNull(mask, "mask");
    return with(out -> ctorch.ct_masked_fill(handle(), mask.handle(), value, out), mask);
  }

  /** {@code t.masked_fill_(mask, value)}: mask broadcasts to this tensor's shape; returns this. */
  public Tensor maskedFill_(Tensor mask, double value) {
    Objects.requireNonNull(mask, "mask");
    run(mask, () -> ctorch.ct_masked_fill_(handle(), mask.handle(), value));
    return self();
  }

  /**
   * {@code torch.masked_select(t, mask)} ({@code t[mask]}): 1-D, in row-major order. Waits for
   * the GPU (the result's size), as PyTorch's.
   */
  public Tensor maskedSelect(Tensor mask) {
    Objects.requireNonNull(mask, "mask");
    return with(out -> ctorch.ct_masked_select(handle(), mask.handle(), out), mask);
  }

  /** {@code torch.nonzero(t)}: int64 [n, dim()], the coordinates of the nonzero elements. */
  public Tensor nonzero() {
    return make(out -> ctorch.ct_nonzero(handle(), out));
  }

  /**
   * {@code torch.where(condition)} ({@code torch.nonzero(condition, as_tuple=True)}): one int64
   * 1-D tensor a dim of condition (one for a 0-dim condition).
   */
  public static Tensor[] where(Tensor condition) {
    Objects.requireNonNull(condition, "condition");
    long[] outs = new long[Math.max(condition.dim(), 1)];
    int[] n = {0};
    try {
      Native.check(ctorch.ct_where_cond(condition.handle(), outs, outs.length, n));
    } finally {
      Reference.reachabilityFence(condition);
    }
    return wrapAll(outs, n[0]);
  }
}
