package org.ctorch;

import java.lang.ref.Reference;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import org.ctorch.swig.ctorch;

/**
 * {@link Tensor}'s views (they share storage with their base) and cat/stack.
 */
abstract class TensorViews extends TensorData {
  TensorViews(long handle) {
    super(handle);
  }

  /* ============================================================================================
   * Section 8: views (share storage with this tensor; dims may be negative)
   * ========================================================================================== */

  /** {@code t.view(shape)}: one size may be -1. CT_ERR_SHAPE when the strides do not allow it. */
  public Tensor view(long... shape) {
    Objects.requireNonNull(shape, "shape");
    return make(out -> ctorch.ct_view(handle(), shape, shape.length, out));
  }

  /** {@code t.reshape(shape)}: a view when possible, else a contiguous copy. */
  public Tensor reshape(long... shape) {
    Objects.requireNonNull(shape, "shape");
    return make(out -> ctorch.ct_reshape(handle(), shape, shape.length, out));
  }

  /** {@code t.permute(dims)}. */
  public Tensor permute(int... dims) {
    long[] d = toLongs(Objects.requireNonNull(dims, "dims"));
    return make(out -> ctorch.ct_permute(handle(), d, d.length, out));
  }

  /** {@code t.transpose(dim0, dim1)}. */
  public Tensor transpose(int dim0, int dim1) {
    return make(out -> ctorch.ct_transpose(handle(), dim0, dim1, out));
  }

  /** {@code t.narrow(dim, start, length)}. */
  public Tensor narrow(int dim, long start, long length) {
    return make(out -> ctorch.ct_narrow(handle(), dim, start, length, out));
  }

  /** {@code t[..., start:end, ...]} along dim (Python slice clamping). */
  public Tensor slice(int dim, long start, long end) {
    return slice(dim, start, end, 1);
  }

  /** {@code t[..., start:end:step, ...]} along dim; step &gt; 0. */
  public Tensor slice(int dim, long start, long end, long step) {
    return make(out -> ctorch.ct_slice(handle(), dim, start, end, step, out));
  }

  /** {@code t.select(dim, index)}: removes dim; a negative index counts from the end. */
  public Tensor select(int dim, long index) {
    return make(out -> ctorch.ct_select(handle(), dim, index, out));
  }

  /** {@code t.expand(sizes)}: -1 keeps a size; only size-1 dims grow (stride 0). */
  public Tensor expand(long... sizes) {
    Objects.requireNonNull(sizes, "sizes");
    return make(out -> ctorch.ct_expand(handle(), sizes, sizes.length, out));
  }

  /** {@code t.squeeze()}: removes every size-1 dim. */
  public Tensor squeeze() {
    return make(out -> ctorch.ct_squeeze(handle(), out));
  }

  /** {@code t.squeeze(dim)}: removes dim if its size is 1. */
  public Tensor squeeze(int dim) {
    return make(out -> ctorch.ct_squeeze_dim(handle(), dim, out));
  }

  /** {@code t.unsqueeze(dim)}, dim in [-dim()-1, dim()]. */
  public Tensor unsqueeze(int dim) {
    return make(out -> ctorch.ct_unsqueeze(handle(), dim, out));
  }

  /** {@code t.flatten()}. */
  public Tensor flatten() {
    return flatten(0, -1);
  }

  /** {@code t.flatten(start_dim, end_dim)} (a view when possible). */
  public Tensor flatten(int startDim, int endDim) {
    return make(out -> ctorch.ct_flatten(handle(), startDim, endDim, out));
  }

  /** {@code t.contiguous()}: the same tensor when already contiguous, else a copy. */
  public Tensor contiguous() {
    return make(out -> ctorch.ct_contiguous(handle(), out));
  }


  /* ============================================================================================
   * Section 11: joining
   * ========================================================================================== */

  @FunctionalInterface
  private interface JoinCall {
    int call(long[] handles, int n, int dim, long[] out);
  }

  private static Tensor join(List<Tensor> tensors, int dim, JoinCall call) {
    long[] hs = handles(tensors, "tensors");
    try {
      return create(out -> call.call(hs, hs.length, dim, out));
    } finally {
      Reference.reachabilityFence(tensors);
      for (Tensor t : tensors) {
        Reference.reachabilityFence(t);
      }
    }
  }

  /** {@code torch.cat(tensors, dim)}: same shape except in dim, promoted dtypes, one device. */
  public static Tensor cat(List<Tensor> tensors, int dim) {
    return join(tensors, dim, ctorch::ct_cat);
  }

  /** {@code torch.cat(tensors, dim)}. */
  public static Tensor cat(Tensor[] tensors, int dim) {
    return cat(Arrays.asList(Objects.requireNonNull(tensors, "tensors")), dim);
  }

  /** {@code torch.cat(tensors)} along dim 0. */
  public static Tensor cat(Tensor... tensors) {
    return cat(tensors, 0);
  }

  /** {@code torch.stack(tensors, dim)}: tensors of one shape; a new dim at position dim. */
  public static Tensor stack(List<Tensor> tensors, int dim) {
    return join(tensors, dim, ctorch::ct_stack);
  }

  /** {@code torch.stack(tensors, dim)}. */
  public static Tensor stack(Tensor[] tensors, int dim) {
    return stack(Arrays.asList(Objects.requireNonNull(tensors, "tensors")), dim);
  }

  /** {@code torch.stack(tensors)} along dim 0. */
  public static Tensor stack(Tensor... tensors) {
    return stack(tensors, 0);
  }
}
