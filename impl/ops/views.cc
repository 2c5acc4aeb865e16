// Views share storage with their input; only sizes, strides and offset change.
#include <algorithm>

#include "impl/core/error.h"
#include "impl/ops/ops.h"

namespace ct::ops {

namespace {

// Fills in one -1 size and checks the element count (PyTorch's infer_size).
Shape infer_size(Shape sizes, int64_t numel) {
  int64_t prod = 1, infer = -1;
  bool zero = false, overflow = false;  // a product past int64 matches no numel, unless a size is 0
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      CT_CHECK(infer < 0, Status::Shape, "only one dimension can be inferred");
      infer = static_cast<int64_t>(i);
    } else {
      CT_CHECK(sizes[i] >= 0, Status::Shape, "invalid shape dimension ", sizes[i]);
      if (sizes[i] == 0) zero = true;
      else if (__builtin_mul_overflow(prod, sizes[i], &prod)) overflow = true;
    }
  }
  if (zero) prod = 0;
  CT_CHECK(zero || !overflow, Status::Shape, "shape '", shape_str(sizes), "' is invalid for input of size ", numel);
  if (infer >= 0) {
    CT_CHECK(prod != 0 && numel % prod == 0, Status::Shape, "shape '", shape_str(sizes),
             "' is invalid for input of size ", numel);
    sizes[infer] = numel / prod;
  } else {
    CT_CHECK(prod == numel, Status::Shape, "shape '", shape_str(sizes), "' is invalid for input of size ", numel);
  }
  return sizes;
}

// Strides for viewing (sizes, strides) as new_sizes without copying, if possible
// (PyTorch's computeStride). Returns false when a copy is needed.
bool compute_view_strides(const Shape& old_sizes, const Shape& old_strides, const Shape& new_sizes, Shape* out) {
  Shape ns(new_sizes.size());
  if (old_sizes.empty()) {
    std::fill(ns.begin(), ns.end(), 1);
    *out = ns;
    return true;
  }
  int64_t numel = 1;
  for (int64_t s : old_sizes) numel *= s;
  if (numel == 0) {
    *out = contiguous_strides(new_sizes);
    return true;
  }
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  int64_t chunk_base_stride = old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(old_sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= old_sizes[d];
    if (d == 0 || (old_sizes[d - 1] != 1 && old_strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
        ns[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        chunk_base_stride = old_strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return false;
  *out = ns;
  return true;
}

}  // namespace

Tensor view(const Tensor& t, Shape sizes) {
  sizes = infer_size(sizes, t->numel());
  Shape st;
  CT_CHECK(compute_view_strides(t->sizes, t->strides, sizes, &st), Status::Shape,
           "view size is not compatible with input tensor's size and stride (at least one dimension spans "
           "across two contiguous subspaces). Use .reshape(...) instead.");
  return make_view(t, sizes, st, t->offset);
}

Tensor reshape(const Tensor& t, Shape sizes) {
  sizes = infer_size(sizes, t->numel());
  Shape st;
  if (compute_view_strides(t->sizes, t->strides, sizes, &st)) return make_view(t, sizes, st, t->offset);
  Tensor c = clone(t);
  return make_view(c, sizes, contiguous_strides(sizes), 0);
}

Tensor permute(const Tensor& t, const Shape& dims) {
  int64_t nd = t->dim();
  CT_CHECK(static_cast<int64_t>(dims.size()) == nd, Status::Shape, "permute(sparse_coo): number of dimensions in the tensor input "
           "does not match the length of the desired ordering of dimensions i.e. input.dim() = ", nd,
           " is not equal to len(dims) = ", dims.size());
  Shape sizes(nd), strides(nd);
  std::vector<bool> seen(nd, false);
  for (int64_t i = 0; i < nd; ++i) {
    int64_t d = wrap_dim(dims[i], nd);
    CT_CHECK(!seen[d], Status::Argument, "permute(): duplicate dims are not allowed.");
    seen[d] = true;
    sizes[i] = t->sizes[d];
    strides[i] = t->strides[d];
  }
  return make_view(t, sizes, strides, t->offset);
}

Tensor transpose(const Tensor& t, int64_t d0, int64_t d1) {
  int64_t nd = t->dim();
  d0 = wrap_dim(d0, nd);
  d1 = wrap_dim(d1, nd);
  Shape sizes = t->sizes, strides = t->strides;
  if (nd > 0) {
    std::swap(sizes[d0], sizes[d1]);
    std::swap(strides[d0], strides[d1]);
  }
  return make_view(t, sizes, strides, t->offset);
}

Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  CT_CHECK(t->dim() > 0, Status::Index, "narrow() cannot be applied to a 0-dim tensor.");
  dim = wrap_dim(dim, t->dim());
  int64_t size = t->sizes[dim];
  CT_CHECK(start >= -size && start <= size, Status::Index, "start out of range (expected to be in range of [", -size,
           ", ", size, "], but got ", start, ")");
  if (start < 0) start += size;
  CT_CHECK(length >= 0, Status::Argument, "narrow(): length must be non-negative.");
  CT_CHECK(start <= size - length, Status::Index, "start (", start, ") + length (", length,
           ") exceeds dimension size (", size, ").");
  Shape sizes = t->sizes;
  sizes[dim] = length;
  return make_view(t, sizes, t->strides, t->offset + start * t->strides[dim]);
}

Tensor slice(const Tensor& t, int64_t dim, int64_t start, int64_t end, int64_t step) {
  CT_CHECK(t->dim() > 0, Status::Index, "slice() cannot be applied to a 0-dim tensor.");
  CT_CHECK(step > 0, Status::Argument, "slice step must be positive, got ", step);
  dim = wrap_dim(dim, t->dim());
  int64_t size = t->sizes[dim];
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::clamp<int64_t>(start, 0, size);
  end = std::clamp<int64_t>(end, start, size);
  Shape sizes = t->sizes, strides = t->strides;
  sizes[dim] = end == start ? 0 : (end - start - 1) / step + 1;  // no end - start + step past int64
  // a step past the size leaves one element: its stride is then free, and stride * step may not fit
  if (__builtin_mul_overflow(strides[dim], step, &strides[dim])) strides[dim] = t->strides[dim];
  return make_view(t, sizes, strides, t->offset + start * t->strides[dim]);
}

Tensor select(const Tensor& t, int64_t dim, int64_t index) {
  CT_CHECK(t->dim() > 0, Status::Index, "select() cannot be applied to a 0-dim tensor.");
  dim = wrap_dim(dim, t->dim());
  int64_t size = t->sizes[dim];
  CT_CHECK(index >= -size && index < size, Status::Index, "select(): index ", index,
           " out of range for tensor of size ", shape_str(t->sizes), " at dimension ", dim);
  if (index < 0) index += size;
  Shape sizes = t->sizes, strides = t->strides;
  sizes.erase(sizes.begin() + dim);
  strides.erase(strides.begin() + dim);
  return make_view(t, sizes, strides, t->offset + index * t->strides[dim]);
}

Tensor expand(const Tensor& t, const Shape& sizes) {
  int64_t nd = static_cast<int64_t>(sizes.size()), td = t->dim();
  CT_CHECK(nd >= td, Status::Shape, "expand: the number of sizes provided (", nd,
           ") must be greater or equal to the number of dimensions in the tensor (", td, ")");
  Shape ns(nd), st(nd);
  for (int64_t i = nd - 1; i >= 0; --i) {
    int64_t j = i - (nd - td);
    int64_t want = sizes[i];
    if (j < 0) {
      CT_CHECK(want >= 0, Status::Shape, "expand: -1 is not allowed in a leading, non-existing dimension ", i);
      ns[i] = want;
      st[i] = 0;
      continue;
    }
    int64_t have = t->sizes[j];
    if (want == -1) want = have;
    if (have == want) {
      ns[i] = have;
      st[i] = t->strides[j];
    } else {
      CT_CHECK(have == 1, Status::Shape, "The expanded size of the tensor (", want,
               ") must match the existing size (", have, ") at non-singleton dimension ", i,
               ".  Target sizes: ", shape_str(sizes), ".  Tensor sizes: ", shape_str(t->sizes));
      CT_CHECK(want >= 0, Status::Shape, "The expanded size of the tensor (", want, ") isn't allowed at dimension ",
               i, ".  Target sizes: ", shape_str(sizes));
      ns[i] = want;
      st[i] = 0;
    }
  }
  numel_of(ns);  // an element count past int64 is CT_ERR_SHAPE (expanding is free, counting is not)
  return make_view(t, ns, st, t->offset);
}

Tensor squeeze(const Tensor& t) {
  Shape sizes, strides;
  for (int64_t i = 0; i < t->dim(); ++i)
    if (t->sizes[i] != 1) { sizes.push_back(t->sizes[i]); strides.push_back(t->strides[i]); }
  return make_view(t, sizes, strides, t->offset);
}

Tensor squeeze_dim(const Tensor& t, int64_t dim) {
  dim = wrap_dim(dim, t->dim());
  Shape sizes = t->sizes, strides = t->strides;
  if (t->dim() > 0 && sizes[dim] == 1) {
    sizes.erase(sizes.begin() + dim);
    strides.erase(strides.begin() + dim);
  }
  return make_view(t, sizes, strides, t->offset);
}

Tensor unsqueeze(const Tensor& t, int64_t dim) {
  dim = wrap_dim(dim, t->dim() + 1);
  Shape sizes = t->sizes, strides = t->strides;
  int64_t st = dim >= t->dim() ? 1 : sizes[dim] * strides[dim];
  sizes.insert(sizes.begin() + dim, 1);
  strides.insert(strides.begin() + dim, st);
  return make_view(t, sizes, strides, t->offset);
}

Tensor flatten(const Tensor& t, int64_t start, int64_t end) {
  if (t->dim() == 0) return reshape(t, {1});
  start = wrap_dim(start, t->dim());
  end = wrap_dim(end, t->dim());
  CT_CHECK(start <= end, Status::Argument, "flatten() has invalid args: start_dim cannot come after end_dim");
  if (start == end) return make_view(t, t->sizes, t->strides, t->offset);
  Shape sizes(t->sizes.begin(), t->sizes.begin() + start);
  int64_t prod = 1;
  for (int64_t i = start; i <= end; ++i) prod *= t->sizes[i];
  sizes.push_back(prod);
  sizes.insert(sizes.end(), t->sizes.begin() + end + 1, t->sizes.end());
  return reshape(t, sizes);
}

bool is_non_overlapping_and_dense(const TensorImpl* t) {
  if (t->is_contiguous()) return true;
  std::vector<int64_t> idx;
  for (int64_t d = 0; d < t->dim(); ++d)
    if (t->sizes[d] != 1) idx.push_back(d);
  std::sort(idx.begin(), idx.end(), [&](int64_t x, int64_t y) { return t->strides[x] < t->strides[y]; });
  int64_t expected = 1;
  for (int64_t d : idx) {
    if (t->strides[d] != expected) return false;
    expected *= t->sizes[d];
  }
  return true;
}

std::pair<int64_t, int64_t> outer_inner(const TensorImpl* t, int64_t dim) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= t->sizes[d];
  for (int64_t d = dim + 1; d < t->dim(); ++d) inner *= t->sizes[d];
  return {outer, inner};
}

}  // namespace ct::ops
