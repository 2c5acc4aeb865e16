// Indexing ops (impl/ops/indexing.h; docs/indexing.md). Each gathering op is one iteration
// over its output with three operands, as PyTorch's gather and index kernels: the output, the
// source restrided (its indexed dim's stride set to 0, the index applied inside the kernel) and
// the index (broadcast where the op reuses it). The kernels copy by element size; on the CPU
// every index is checked first (nothing is written on an error), on CUDA the kernel asserts.
#include "impl/ops/indexing.h"

#include <algorithm>
#include <limits>

#include "impl/alloc/allocator.h"
#include "impl/core/error.h"
#include "impl/cuda/sanitize.h"
#include "impl/ops/cpu/indexing.h"
#include "impl/ops/cuda/indexing.h"
#include "impl/ops/cuda_dispatch.h"
#include "impl/ops/ops.h"

namespace ct::ops {

// The C++ type name PyTorch's TypeMeta prints for a dtype ("masked_fill_ only supports boolean
// masks, but got mask with dtype unsigned char").
const char* cpp_type_name(DType d) {
  switch (d) {
    case DType::Bool: return "bool";
    case DType::UInt8: return "unsigned char";
    case DType::Int8: return "signed char";
    case DType::Int16: return "short int";
    case DType::Int32: return "int";
    case DType::Int64: return "long int";
    case DType::Float16: return "c10::Half";
    case DType::BFloat16: return "c10::BFloat16";
    case DType::Float32: return "float";
    case DType::Float64: return "double";
    case DType::Complex64: return "c10::complex<float>";
    case DType::Complex128: return "c10::complex<double>";
  }
  return "unknown";
}

namespace {


void same_device(const TensorImpl* a, const TensorImpl* b, const char* op) {
  CT_CHECK(a->device() == b->device(), Status::Device, op,
           ": Expected all tensors to be on the same device, but found at least two devices, ", a->device().str(),
           " and ", b->device().str(), "!");
}

// out = src[index] through the restrided operands (see the file comment) into out, a new
// tensor; on the CPU a bad index throws `message(bad)` as Status::Index.
template <typename Msg>
void run_gather(const Tensor& out, const Tensor& src, const Tensor& index, int64_t stride_bytes, int64_t bound,
                bool wrap, const Msg& message, const char* op) {
  if (out->numel() == 0) return;
  const bool idx64 = index->dtype == DType::Int64;
  if (out->device().is_cuda()) {
    CudaScope sc(out->device());
    cuda_ops::index_gather(cuda_iter<3>(out->sizes, {out.get(), src.get(), index.get()}), out->itemsize(), idx64,
                           stride_bytes, bound, wrap, sc.stream);
    CT_CSAN_KERNEL(sc.stream_ref, op, {{src.get(), "self"}, {index.get(), "index"}}, {{out.get(), "out"}});
    return;
  }
  // out is always a new tensor: the kernel checks each index as it copies; on a bad one the
  // first (in the index's order) is found for the message and out is discarded
  if (!cpu::index_gather(cpu::make_operands<3>(out->sizes, {out.get(), src.get(), index.get()}), out->itemsize(),
                         idx64, stride_bytes, bound, wrap)) {
    int64_t bad = 0;
    CT_CHECK(cpu::first_bad_index(index.get(), bound, wrap, &bad), Status::Internal, op,
             ": an index out of range that the check did not find");
    fail(Status::Index, message(bad));
  }
}

// self[index] = src (add: +=) through the restrided operands (self, src, index) over shape, self
// a view of target: on the CPU the index is checked first and `message(bad)` thrown as
// Status::Index.
template <typename Msg>
void run_scatter(const Tensor& target, const Tensor& self, const Tensor& src, const Tensor& index, const Shape& shape,
                 int64_t stride_bytes, int64_t bound, bool wrap, bool add, const Msg& message, const char* op) {
  if (numel_of(shape) == 0) return;
  const bool idx64 = index->dtype == DType::Int64;
  if (self->device().is_cuda()) {
    CudaScope sc(self->device());
    auto it = cuda_iter<3>(shape, {self.get(), src.get(), index.get()});
    if (add) {
      // Note [Paired half atomics]: the bytes of a destination whose elements fill them
      const bool pairs = is_non_overlapping_and_dense(target.get());
      cuda_ops::index_scatter_add(it, self->dtype, idx64, stride_bytes, bound, wrap, pairs ? target->data() : nullptr,
                                  pairs ? target->numel() * target->itemsize() : 0, sc.stream);
    }
    else cuda_ops::index_scatter(it, self->itemsize(), idx64, stride_bytes, bound, wrap, sc.stream);
    CT_CSAN_KERNEL(sc.stream_ref, op, {{src.get(), "src"}, {index.get(), "index"}}, {{self.get(), "self"}});
    return;
  }
  int64_t bad = 0;
  if (cpu::first_bad_index(index.get(), bound, wrap, &bad)) fail(Status::Index, message(bad));
  auto o = cpu::make_operands<3>(shape, {self.get(), src.get(), index.get()});
  if (add) cpu::index_scatter_add(o, self->dtype, idx64, stride_bytes, bound, wrap);
  else cpu::index_scatter(o, self->itemsize(), idx64, stride_bytes, bound, wrap);
}

Shape with_stride(Shape strides, int64_t dim, int64_t s) {
  strides[dim] = s;
  return strides;
}

// t, or t viewed as [1] when 0-dim (PyTorch treats a scalar as one element along dim 0 here).
Tensor at_least_1d(const Tensor& t) { return t->dim() == 0 ? view(t, Shape{1}) : t; }

// The nonzero test of a bool element on the device (Note [nonzero on the device]): one byte,
// nonzero where any bit is set.
constexpr int64_t kBoolBytes = 1;
constexpr uint64_t kBoolMask = 0xff;

// The row-major positions of the true elements of a contiguous bool tensor (int64, [n]).
Tensor true_positions(const Tensor& flags) {
  const int64_t n = flags->numel();
  const bool* f = reinterpret_cast<const bool*>(flags->data());
  if (flags->device().is_cuda()) {
    CudaScope sc(flags->device());
    CudaScratch get(flags->device());
    const int64_t count = cuda_ops::count_nonzero(f, kBoolBytes, kBoolMask, n, get, sc.stream);
    Tensor out = empty(Shape{count}, DType::Int64, flags->device());
    if (count > 0)
      cuda_ops::nonzero_positions(f, kBoolBytes, kBoolMask, n, reinterpret_cast<int64_t*>(out->data()), get,
                                  sc.stream);
    CT_CSAN_KERNEL(sc.stream_ref, "nonzero", {{flags.get(), "self"}}, {{out.get(), "out"}});
    return out;
  }
  const int64_t count = cpu::count_true(f, n);
  Tensor out = empty(Shape{count}, DType::Int64, flags->device());
  cpu::true_positions(f, n, reinterpret_cast<int64_t*>(out->data()));
  return out;
}

void check_fill_mask(const Tensor& mask) {
  CT_CHECK(mask->dtype == DType::Bool, Status::DType,
           "masked_fill_ only supports boolean masks, but got mask with dtype ", cpp_type_name(mask->dtype));
}

}  // namespace

Tensor index_select(const Tensor& t, int64_t dim, const Tensor& index) {
  CT_CHECK(index->dim() <= 1, Status::Index, "index_select(): Index is supposed to be a vector");
  CT_CHECK(index->dtype == DType::Int64 || index->dtype == DType::Int32, Status::DType,
           "index_select(): Expected dtype int32 or int64 for index");
  same_device(t.get(), index.get(), "index_select");
  Tensor t1 = at_least_1d(t);
  dim = wrap_dim(dim, t1->dim());
  const int64_t n = index->numel();
  if (t->dim() == 0)
    CT_CHECK(n == 1, Status::Index, "index_select(): Index to scalar can have only 1 value, got ", n, " value(s)");
  Shape shape = t1->sizes;
  shape[dim] = n;
  Tensor out = empty(shape, t->dtype, t->device());
  const int64_t index_stride = index->dim() == 0 ? 0 : index->strides[0];
  Shape idx_strides(shape.size(), 0);
  idx_strides[dim] = index_stride;
  // a contiguous self as [outer, size, inner]: whole rows of inner elements copied (Note
  // [index_select rows] in impl/ops/cuda/indexing.cu; on the CPU in parallel)
  const auto [outer, inner] = outer_inner(t1.get(), dim);
  if (t1->device().is_cuda() && t1->is_contiguous() && out->numel() > 0) {
    CudaScope sc(out->device());
    if (cuda_ops::index_select_rows(out->data(), t1->data(), index->data(), index_stride * index->itemsize(),
                                    index->dtype == DType::Int64, outer, n, t1->sizes[dim], inner * t1->itemsize(),
                                    sc.stream)) {
      CT_CSAN_KERNEL(sc.stream_ref, "index_select", {{t1.get(), "self"}, {index.get(), "index"}}, {{out.get(), "out"}});
      return t->dim() == 0 ? view(out, Shape{}) : out;
    }
  }
  if (t1->device().is_cpu() && t1->is_contiguous() && out->numel() > 0) {
    int64_t bad = 0;
    if (cpu::first_bad_index(index.get(), t1->sizes[dim], false, &bad)) fail(Status::Index, "index out of range in self");
    cpu::index_select_rows(out->data(), t1->data(), index->data(), index_stride * index->itemsize(),
                           index->dtype == DType::Int64, outer, n, t1->sizes[dim], inner * t1->itemsize());
    return t->dim() == 0 ? view(out, Shape{}) : out;
  }
  Tensor idx = make_view(index, shape, idx_strides, index->offset);
  Tensor src = make_view(t1, shape, with_stride(t1->strides, dim, 0), t1->offset);
  run_gather(out, src, idx, t1->strides[dim] * t1->itemsize(), t1->sizes[dim], false,
             [](int64_t) { return std::string("index out of range in self"); }, "index_select");
  return t->dim() == 0 ? view(out, Shape{}) : out;
}

Tensor gather(const Tensor& t, int64_t dim, const Tensor& index) {
  const int64_t nd = std::max<int64_t>(t->dim(), 1);
  dim = wrap_dim(dim, nd);
  if (index->numel() > 0)
    CT_CHECK(index->dtype == DType::Int64, Status::DType, "gather(): Expected dtype int64 for index");
  same_device(t.get(), index.get(), "gather");
  Tensor out = empty(index->sizes, t->dtype, t->device());
  if (index->numel() == 0) return out;
  CT_CHECK(nd == std::max<int64_t>(index->dim(), 1), Status::Shape,
           "Index tensor must have the same number of dimensions as input tensor");
  Tensor t1 = at_least_1d(t), i1 = at_least_1d(index);
  for (int64_t d = 0; d < nd; ++d)
    CT_CHECK(d == dim || i1->sizes[d] <= t1->sizes[d], Status::Shape, "Size does not match at dimension ", d,
             " expected index ", shape_str(index->sizes), " to be no larger than self ", shape_str(t->sizes),
             " apart from dimension ", dim);
  Tensor o1 = at_least_1d(out);
  Tensor src = make_view(t1, i1->sizes, with_stride(t1->strides, dim, 0), t1->offset);
  const int64_t bound = t1->sizes[dim];
  run_gather(o1, src, i1, t1->strides[dim] * t1->itemsize(), bound, false,
             [&](int64_t v) { return str_cat("index ", v, " is out of bounds for dimension ", dim, " with size ", bound); },
             "gather");
  return out;
}

Tensor take(const Tensor& t, const Tensor& index) {
  CT_CHECK(index->dtype == DType::Int64, Status::DType, "take(): Expected a long tensor for index, but got ",
           dtype_short(index->dtype));
  same_device(t.get(), index.get(), "take");
  Tensor out = empty(index->sizes, t->dtype, t->device());
  if (index->numel() == 0) return out;
  const int64_t n = t->numel();
  CT_CHECK(n > 0, Status::Index, "take(): tried to take from an empty tensor");
  Tensor c = contiguous(t);
  Tensor o1 = at_least_1d(out), i1 = at_least_1d(index);
  Tensor src = make_view(c, o1->sizes, Shape(o1->sizes.size(), 0), c->offset);
  run_gather(o1, src, i1, c->itemsize(), n, true,
             [&](int64_t v) { return str_cat("out of range: tried to access index ", v, " on a tensor of ", n, " elements."); },
             "take");
  return out;
}

namespace {

// PyTorch's scatter and scatter_add checks (scatter_gather_dtype_check, scatter_shape_check),
// then the write: src is a tensor of self's dtype, or a 0-dim CPU scalar (scatter's value).
void scatter_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, bool add, bool is_value,
                  const char* op) {
  const int64_t nd = std::max<int64_t>(self->dim(), 1);
  dim = wrap_dim(dim, nd);
  if (index->numel() > 0)
    CT_CHECK(index->dtype == DType::Int64, Status::DType, op, "(): Expected dtype int64 for index");
  if (!is_value)
    CT_CHECK(src->dtype == self->dtype, Status::DType, op, "(): Expected self.dtype to be equal to src.dtype");
  same_device(self.get(), index.get(), op);
  if (!is_value) same_device(self.get(), src.get(), op);
  if (index->numel() == 0) return;
  CT_CHECK(nd == std::max<int64_t>(index->dim(), 1), Status::Shape,
           "Index tensor must have the same number of dimensions as self tensor");
  Tensor s1 = at_least_1d(self), i1 = at_least_1d(index);
  Tensor src1 = src;
  if (!is_value) {
    CT_CHECK(std::max<int64_t>(src->dim(), 1) == nd, Status::Shape,
             "Index tensor must have the same number of dimensions as src tensor");
    src1 = at_least_1d(src);
    for (int64_t d = 0; d < nd; ++d)
      CT_CHECK(i1->sizes[d] <= src1->sizes[d] && (d == dim || i1->sizes[d] <= s1->sizes[d]), Status::Shape,
               "Expected index ", shape_str(index->sizes), " to be no larger than self ", shape_str(self->sizes),
               " apart from dimension ", dim, " and to be no larger size than src ", shape_str(src->sizes));
    src1 = make_view(src1, i1->sizes, src1->strides, src1->offset);
  } else {
    for (int64_t d = 0; d < nd; ++d)
      CT_CHECK(d == dim || i1->sizes[d] <= s1->sizes[d], Status::Shape, "Expected index ", shape_str(index->sizes),
               " to be no larger than self ", shape_str(self->sizes), " apart from dimension ", dim);
  }
  check_no_internal_overlap(self.get());
  Tensor dst = make_view(s1, i1->sizes, with_stride(s1->strides, dim, 0), s1->offset);
  const int64_t bound = s1->sizes[dim];
  run_scatter(s1, dst, src1, i1, i1->sizes, s1->strides[dim] * s1->itemsize(), bound, false, add,
              [&](int64_t v) { return str_cat("index ", v, " is out of bounds for dimension ", dim, " with size ", bound); },
              op);
}

Tensor scalar_of(double value, DType dtype) { return full(Shape{}, value, dtype, Device{}); }

}  // namespace

void scatter_(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src, bool add) {
  scatter_impl(t, dim, index, src, add, false, add ? "scatter_add" : "scatter");
}

Tensor scatter(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src, bool add) {
  Tensor out = clone(t);
  scatter_(out, dim, index, src, add);
  return out;
}

void scatter_value_(const Tensor& t, int64_t dim, const Tensor& index, double value) {
  scatter_impl(t, dim, index, scalar_of(value, t->dtype), false, true, "scatter");
}

Tensor scatter_value(const Tensor& t, int64_t dim, const Tensor& index, double value) {
  Tensor out = clone(t);
  scatter_value_(out, dim, index, value);
  return out;
}

void index_add_(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source, double alpha) {
  CT_CHECK(index->dim() <= 1, Status::Index, "index_add_(): Index is supposed to be a vector");
  CT_CHECK(index->dtype == DType::Int64 || index->dtype == DType::Int32, Status::DType,
           "index_add_(): Expected dtype int32/int64 for index");
  CT_CHECK(t->dtype == source->dtype, Status::DType, "index_add_(): self (", dtype_short(t->dtype), ") and source (",
           dtype_short(source->dtype), ") must have the same scalar type");
  same_device(t.get(), index.get(), "index_add_");
  same_device(t.get(), source.get(), "index_add_");
  CT_CHECK(!is_integral(t->dtype, true) || alpha == static_cast<double>(static_cast<int64_t>(alpha)), Status::Argument,
           "For integral input tensors, argument alpha must not be a floating point number.");
  Tensor s1 = at_least_1d(t), src1 = at_least_1d(source);
  dim = wrap_dim(dim, s1->dim());
  const int64_t n = index->numel();
  CT_CHECK(src1->dim() == s1->dim(), Status::Shape, "index_add_(): Source/destination tensor must have same slice shapes.");
  CT_CHECK(n == src1->sizes[dim], Status::Index, "index_add_(): Number of indices (", n,
           ") should be equal to source.size(dim) (", src1->sizes[dim], ")");
  for (int64_t d = 0; d < s1->dim(); ++d)
    CT_CHECK(d == dim || src1->sizes[d] == s1->sizes[d], Status::Shape,
             "index_add_(): Source/destination tensor must have same slice shapes. Destination slice shape: ",
             s1->sizes[d], " at dimension ", d, " and source slice shape: ", src1->sizes[d], " at dimension ", d, ".");
  check_no_internal_overlap(t.get());
  if (alpha != 1.0) {
    Tensor a = is_integral(t->dtype, true) ? wrapped_scalar_int(static_cast<int64_t>(alpha)) : wrapped_scalar_double(alpha);
    src1 = to(binary(BinaryOp::Mul, src1, a), t->device(), t->dtype, false);
  }
  const Shape& shape = src1->sizes;
  Shape idx_strides(shape.size(), 0);
  idx_strides[dim] = index->dim() == 0 ? 0 : index->strides[0];
  Tensor idx = make_view(index, shape, idx_strides, index->offset);
  Tensor dst = make_view(s1, shape, with_stride(s1->strides, dim, 0), s1->offset);
  run_scatter(s1, dst, src1, idx, shape, s1->strides[dim] * s1->itemsize(), s1->sizes[dim], false, true,
              [](int64_t) { return std::string("index out of range in self"); }, "index_add_");
}

namespace {

// Advanced indexing resolved (PyTorch's index / index_put_ rules): the result's shape, t
// restrided over it (0 along the broadcast index dims) and the int64 element offsets (broadcast
// over the index dims, 0 along the others), every index checked and wrapped.
struct AdvancedIndex {
  Shape shape;
  Tensor src;
  Tensor offsets;
};

AdvancedIndex plan_index(const Tensor& t, const std::vector<Tensor>& indices) {
  // bool masks become their nonzero coordinates, one index a dim they cover
  std::vector<Tensor> ix;
  int64_t p = 0;
  for (size_t k = 0; k < indices.size(); ++k) {
    const Tensor& i = indices[k];
    if (!i) {
      ix.push_back(nullptr);
      ++p;
      continue;
    }
    if (i->dtype == DType::Bool) {
      CT_CHECK(i->dim() > 0, Status::NotSupported, "index: a 0-dim boolean index is not supported");
      for (int64_t d = 0; d < i->dim(); ++d)
        CT_CHECK(p + d < t->dim() && i->sizes[d] == t->sizes[p + d], Status::Index, "The shape of the mask ",
                 shape_str(i->sizes), " at index ", d, " does not match the shape of the indexed tensor ",
                 shape_str(t->sizes), " at index ", p + d);
      Tensor m = i->device() == t->device() ? i : to(i, t->device(), DType::Bool, false);
      for (const Tensor& c : nonzero_tuple(m)) ix.push_back(c);
      p += i->dim();
      continue;
    }
    CT_CHECK(i->dtype == DType::Int64 || i->dtype == DType::Int32, Status::Index,
             "tensors used as indices must be long, int, byte or bool tensors");
    ix.push_back(i);
    ++p;
  }
  CT_CHECK(p <= t->dim(), Status::Index, "too many indices for tensor of dimension ", t->dim());
  while (static_cast<int64_t>(ix.size()) < t->dim()) ix.push_back(nullptr);
  // broadcast the index tensors; the indexed dims
  std::vector<int64_t> dims;
  Shape b;
  std::string shapes;
  for (size_t d = 0; d < ix.size(); ++d) {
    if (!ix[d]) continue;
    shapes += (shapes.empty() ? "" : ", ") + shape_str(ix[d]->sizes);
    dims.push_back(static_cast<int64_t>(d));
  }
  CT_CHECK(!dims.empty(), Status::Argument, "index: at least one index tensor is needed");
  b = ix[static_cast<size_t>(dims[0])]->sizes;
  for (int64_t d : dims) {
    try {
      b = broadcast_shapes(b, ix[static_cast<size_t>(d)]->sizes);
    } catch (const Error&) {
      fail(Status::Index, "shape mismatch: indexing tensors could not be broadcast together with shapes ", shapes);
    }
  }
  // offsets: sum of wrapped index * stride, each index checked first
  Tensor off;
  const int64_t nb = numel_of(b);
  for (int64_t d : dims) {
    Tensor i = ix[static_cast<size_t>(d)];
    if (i->device() != t->device()) i = to(i, t->device(), i->dtype, false);
    const int64_t size = t->sizes[d];
    if (nb > 0) {
      if (t->device().is_cuda()) {
        CudaScope sc(t->device());
        cuda_ops::index_check(cuda_iter<1>(i->sizes, {i.get()}), i->dtype == DType::Int64, size, true, sc.stream);
      } else {
        int64_t bad = 0;
        if (cpu::first_bad_index(i.get(), size, true, &bad))
          fail(Status::Index, "index ", bad, " is out of bounds for dimension ", d, " with size ", size);
      }
    }
    if (nb == 0 || size == 0) {
      off = empty(b, DType::Int64, t->device());
      continue;
    }
    Tensor w = binary(BinaryOp::Remainder, to(i, t->device(), DType::Int64, false), wrapped_scalar_int(size));
    Tensor term = binary(BinaryOp::Mul, w, wrapped_scalar_int(t->strides[d]));
    off = off ? binary(BinaryOp::Add, off, term) : term;
  }
  off = expand(off, b);
  // the result's dims: before + b + after when the indexed dims are adjacent, else b first
  bool adjacent = dims.back() - dims.front() + 1 == static_cast<int64_t>(dims.size());
  AdvancedIndex r;
  Shape src_strides, off_strides;
  const int64_t nbd = static_cast<int64_t>(b.size());
  auto add_plain = [&](int64_t d) {
    r.shape.push_back(t->sizes[d]);
    src_strides.push_back(t->strides[d]);
    off_strides.push_back(0);
  };
  auto add_b = [&] {
    for (int64_t k = 0; k < nbd; ++k) {
      r.shape.push_back(b[k]);
      src_strides.push_back(0);
      off_strides.push_back(off->strides[k]);
    }
  };
  const int64_t nd = t->dim();
  if (adjacent) {
    for (int64_t d = 0; d < dims.front(); ++d) add_plain(d);
    add_b();
    for (int64_t d = dims.back() + 1; d < nd; ++d) add_plain(d);
  } else {
    add_b();
    for (int64_t d = 0; d < nd; ++d)
      if (!ix[static_cast<size_t>(d)]) add_plain(d);
  }
  r.src = make_view(t, r.shape, src_strides, t->offset);
  r.offsets = make_view(off, r.shape, off_strides, off->offset);
  return r;
}

constexpr int64_t kNoBound = std::numeric_limits<int64_t>::max();

}  // namespace

Tensor index(const Tensor& t, const std::vector<Tensor>& indices) {
  AdvancedIndex a = plan_index(t, indices);
  Tensor out = empty(a.shape, t->dtype, t->device());
  run_gather(out, a.src, a.offsets, t->itemsize(), kNoBound, false, [](int64_t) { return std::string(); }, "index");
  return out;
}

void index_put_(const Tensor& t, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
  CT_CHECK(values->dtype == t->dtype, Status::DType,
           "Index put requires the source and destination dtypes match, got ", dtype_short(t->dtype),
           " for the destination and ", dtype_short(values->dtype), " for the source.");
  CT_CHECK(values->device() == t->device() || (values->dim() == 0 && values->device().is_cpu()), Status::Device,
           "index_put_: Expected all tensors to be on the same device, but found at least two devices, ",
           t->device().str(), " and ", values->device().str(), "!");
  check_no_internal_overlap(t.get());
  AdvancedIndex a = plan_index(t, indices);
  Tensor v = values->device() == t->device() ? values : to(values, t->device(), t->dtype, false);
  v = expand(v, a.shape);
  run_scatter(t, a.src, v, a.offsets, a.shape, t->itemsize(), kNoBound, false, accumulate,
              [](int64_t) { return std::string(); }, accumulate ? "index_put_ (accumulate)" : "index_put_");
}

void masked_fill_(const Tensor& t, const Tensor& mask, double value) {
  check_fill_mask(mask);
  same_device(t.get(), mask.get(), "masked_fill_");
  Tensor m = expand(mask, t->sizes);
  check_no_internal_overlap(t.get());
  Tensor v = full(Shape{}, value, t->dtype, Device{});  // checked and converted as fill_'s
  if (t->numel() == 0) return;
  if (t->device().is_cuda()) {
    CudaScope sc(t->device());
    cuda_ops::masked_fill(cuda_iter<2>(t->sizes, {t.get(), m.get()}), t->itemsize(), v->data(), sc.stream);
    CT_CSAN_KERNEL(sc.stream_ref, "masked_fill_", {{mask.get(), "mask"}}, {{t.get(), "self"}});
    return;
  }
  cpu::masked_fill(cpu::make_operands<2>(t->sizes, {t.get(), m.get()}), t->itemsize(), v->data());
}

Tensor masked_fill(const Tensor& t, const Tensor& mask, double value) {
  check_fill_mask(mask);
  same_device(t.get(), mask.get(), "masked_fill");
  Tensor out = clone(expand(t, broadcast_shapes(t->sizes, mask->sizes)));
  masked_fill_(out, mask, value);
  return out;
}

Tensor masked_select(const Tensor& t, const Tensor& mask) {
  CT_CHECK(mask->dtype == DType::Bool, Status::DType, "masked_select: expected BoolTensor for mask");
  same_device(t.get(), mask.get(), "masked_select");
  Shape shape = broadcast_shapes(t->sizes, mask->sizes);
  Tensor pos = true_positions(contiguous(expand(mask, shape)));
  Tensor out = empty(pos->sizes, t->dtype, t->device());
  if (out->numel() == 0) return out;
  Tensor src = contiguous(expand(t, shape));
  Tensor s = make_view(src, pos->sizes, Shape{0}, src->offset);
  run_gather(out, s, pos, src->itemsize(), src->numel(), false, [](int64_t) { return std::string(); }, "masked_select");
  return out;
}

// Note [nonzero's layout]: on CUDA, as PyTorch's, nonzero's [count, nd] result has strides {1,
// count}: each dim's coordinates are one contiguous run (nonzero_tuple's and where(cond)'s
// tensors are contiguous views of it). The positions of the nonzero elements go to the first run
// (cub::DeviceSelect::Flagged, testing the input in place where it is contiguous: Note
// [nonzero on the device]), then become coordinates in place, each run written whole. (Writing
// each element's coordinates side by side, or a bool copy of the input first, ran 1.3x to 2.3x
// torch's time.) On the CPU the result is contiguous, as PyTorch's.
namespace {
// t != 0 as a contiguous bool tensor (t itself, made contiguous, when it is bool).
Tensor nonzero_flags(const Tensor& t) {
  return contiguous(t->dtype == DType::Bool ? t : binary(BinaryOp::Ne, t, wrapped_scalar_int(0)));
}
}  // namespace

Tensor nonzero(const Tensor& t) {
  const int64_t nd = t->dim();
  if (t->device().is_cuda() && nd >= 1 && nd <= cuda_ops::kMaxDims) {
    int64_t bytes = 0;
    uint64_t mask = 0;
    Tensor src = t;
    if (!t->is_contiguous() || !cuda_ops::nonzero_mask(t->dtype, &bytes, &mask)) {
      src = nonzero_flags(t);
      bytes = kBoolBytes;
      mask = kBoolMask;
    }
    CudaScope sc(t->device());
    CudaScratch get(t->device());
    const int64_t n = src->numel();
    const int64_t count = cuda_ops::count_nonzero(src->data(), bytes, mask, n, get, sc.stream);
    if (count == 0) return empty(Shape{0, nd}, DType::Int64, t->device());
    Tensor runs = empty(Shape{nd, count}, DType::Int64, t->device());
    int64_t* o = reinterpret_cast<int64_t*>(runs->data());
    cuda_ops::nonzero_positions(src->data(), bytes, mask, n, o, get, sc.stream);
    cuda_ops::positions_to_coords(o, count, t->sizes.data(), static_cast<int32_t>(nd), sc.stream);
    CT_CSAN_KERNEL(sc.stream_ref, "nonzero", {{src.get(), "self"}}, {{runs.get(), "out"}});
    return transpose(runs, 0, 1);
  }
  Tensor pos = true_positions(nonzero_flags(t));
  const int64_t n = pos->numel();
  Tensor out = empty(Shape{n, nd}, DType::Int64, t->device());
  if (n == 0 || nd == 0) return out;
  int64_t inner = 1;
  for (int64_t d = nd - 1; d >= 0; --d) {
    Tensor col = inner == 1 ? pos : binary(BinaryOp::FloorDivide, pos, wrapped_scalar_int(inner));
    if (d > 0) col = binary(BinaryOp::Remainder, col, wrapped_scalar_int(t->sizes[d]));
    copy_(select(out, 1, d), col);
    inner *= t->sizes[d];
  }
  return out;
}

std::vector<Tensor> nonzero_tuple(const Tensor& t) {
  Tensor nz = nonzero(t);
  std::vector<Tensor> cols;
  if (t->dim() == 0) {  // PyTorch: one tensor, as for a 1-element 1-D input
    cols.push_back(view(nonzero(view(t, Shape{1})), Shape{-1}));
    return cols;
  }
  for (int64_t d = 0; d < t->dim(); ++d) cols.push_back(select(nz, 1, d));
  return cols;
}

}  // namespace ct::ops
