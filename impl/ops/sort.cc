// Sorting and selection: checks, shapes and dtypes here (PyTorch's rules and messages); the
// kernels work on contiguous rows (the sorted dim last, Note [Sort rows]) in impl/ops/cpu/sort.cc
// and impl/ops/cuda/sort.cu.
#include "impl/ops/sort.h"

#include <cstring>
#include <limits>
#include <vector>

#include "impl/core/error.h"
#include "impl/ops/cpu/sort.h"
#include "impl/ops/cuda/sort.h"
#include "impl/ops/cuda_dispatch.h"
#include "impl/ops/ops.h"

namespace ct::ops {

namespace {

// Note [Sort rows]: the input with the sorted dim moved last, as contiguous [O, R] rows (no copy
// when it already is). Results are made in that order and handed back as views with the dims
// in their places (dense, not necessarily contiguous).
struct Rows {
  Tensor rows;       // contiguous, dims permuted by perm
  Shape perm;        // perm[i]: the input dim at position i
  int64_t O = 1, R = 1;
};

Rows rows_of(const Tensor& t, int64_t dim) {
  Rows r;
  Tensor x = t->dim() == 0 ? view(t, {1}) : t;
  for (int64_t d = 0; d < x->dim(); ++d)
    if (d != dim) r.perm.push_back(d);
  r.perm.push_back(dim);
  r.rows = contiguous(permute(x, r.perm));
  r.R = x->sizes[dim];
  r.O = r.R == 0 ? 0 : x->numel() / r.R;
  return r;
}

// A result made in rows order (its last dim of size `last`), as a view in the input's dim order.
Tensor unpermute(const Tensor& out, const Rows& r) {
  Shape inv(r.perm.size());
  for (size_t i = 0; i < r.perm.size(); ++i) inv[r.perm[i]] = static_cast<int64_t>(i);
  return permute(out, inv);
}

Shape with_last(const Rows& r, int64_t last) {
  Shape s = r.rows->sizes;
  s.back() = last;
  return s;
}

void check_sortable(const Tensor& t, const char* op, const char* kernel) {
  if (is_complex(t->dtype)) {
    if (std::strcmp(op, "sort") == 0) fail(Status::DType, "sort(): input tensor must be of non-complex type");
    fail(Status::DType, "\"", kernel, "\" not implemented for '", dtype_short(t->dtype), "'");
  }
}

// topk, kthvalue and searchsorted take no bool input (PyTorch's kernels are not built for it).
void check_not_bool(const Tensor& t, const char* kernel) {
  CT_CHECK(t->dtype != DType::Bool, Status::DType, "\"", kernel, "\" not implemented for 'Bool'");
}

// Rows sorted on their device: values (may be skipped) and indices, both [O, k] in rows order,
// k = R (sort) or the first k (topk).
std::pair<Tensor, Tensor> sorted_rows(const Rows& r, int64_t k, bool descending, bool want_values, const char* op) {
  const Device dev = r.rows->device();
  Tensor vals = want_values ? empty_tensor(with_last(r, k), r.rows->dtype, dev) : Tensor();
  Tensor idx = empty_tensor(with_last(r, k), DType::Int64, dev);
  if (r.O * r.R == 0 || k == 0) return {vals, idx};
  if (dev.is_cpu()) {
    cpu::topk_rows(r.rows->data(), r.rows->dtype, r.O, r.R, k, descending, vals ? vals->data() : nullptr,
                   reinterpret_cast<int64_t*>(idx->data()));
    return {vals, idx};
  }
  CudaScope sc(dev);
  CudaScratch get(dev);
  if (k == r.R) {
    cuda_ops::sort_rows(r.rows->data(), r.rows->dtype, r.O, r.R, descending, vals ? vals->data() : nullptr,
                        reinterpret_cast<int64_t*>(idx->data()), get, sc.stream);
    CT_CSAN_KERNEL(sc.stream_ref, op, {{r.rows.get(), "self"}}, {{vals.get(), "values"}, {idx.get(), "indices"}});
    return {vals, idx};
  }
  if (cuda_ops::topk_rows(r.rows->data(), r.rows->dtype, r.O, r.R, k, descending, vals->data(),
                          reinterpret_cast<int64_t*>(idx->data()), get, sc.stream)) {
    CT_CSAN_KERNEL(sc.stream_ref, op, {{r.rows.get(), "self"}}, {{vals.get(), "values"}, {idx.get(), "indices"}});
    return {vals, idx};
  }
  // topk of short rows on CUDA: the whole rows sorted, their first k columns kept
  Tensor all_v = empty_tensor(r.rows->sizes, r.rows->dtype, dev);
  Tensor all_i = empty_tensor(r.rows->sizes, DType::Int64, dev);
  cuda_ops::sort_rows(r.rows->data(), r.rows->dtype, r.O, r.R, descending, all_v->data(),
                      reinterpret_cast<int64_t*>(all_i->data()), get, sc.stream);
  CT_CSAN_KERNEL(sc.stream_ref, op, {{r.rows.get(), "self"}}, {{all_v.get(), "values"}, {all_i.get(), "indices"}});
  const int64_t last = r.rows->dim() - 1;
  copy_(vals, narrow(all_v, last, 0, k));
  copy_(idx, narrow(all_i, last, 0, k));
  return {vals, idx};
}

std::pair<Tensor, Tensor> sort_impl(const Tensor& t, int64_t dim, bool descending, bool want_values) {
  check_sortable(t, "sort", "sort");
  dim = wrap_dim(dim, t->dim());
  Rows r = rows_of(t, dim);
  auto res = sorted_rows(r, r.R, descending, want_values, "sort");
  if (t->dim() == 0) return {want_values ? view(res.first, {}) : Tensor(), view(res.second, {})};
  return {want_values ? unpermute(res.first, r) : Tensor(), unpermute(res.second, r)};
}

}  // namespace

std::pair<Tensor, Tensor> sort(const Tensor& t, int64_t dim, bool descending, bool /*stable: always*/) {
  return sort_impl(t, dim, descending, true);
}

Tensor argsort(const Tensor& t, int64_t dim, bool descending, bool /*stable: always*/) {
  return sort_impl(t, dim, descending, false).second;
}

std::pair<Tensor, Tensor> topk(const Tensor& t, int64_t k, int64_t dim, bool largest, bool /*sorted: always*/) {
  const char* kernel = t->device().is_cuda() ? "topk_out_cuda" : "topk_cpu";
  dim = wrap_dim(dim, t->dim());
  const int64_t slice = t->dim() == 0 ? 1 : t->sizes[dim];
  CT_CHECK(k >= 0 && k <= slice, Status::Index, "selected index k out of range");
  check_sortable(t, "topk", kernel);
  check_not_bool(t, kernel);
  Rows r = rows_of(t, dim);
  auto res = sorted_rows(r, k, largest, true, "topk");
  if (t->dim() == 0) return {view(res.first, {}), view(res.second, {})};
  return {unpermute(res.first, r), unpermute(res.second, r)};
}

std::pair<Tensor, Tensor> kthvalue(const Tensor& t, int64_t k, int64_t dim, bool keepdim) {
  const char* kernel = t->device().is_cuda() ? "kthvalue_cuda" : "kthvalue_cpu";
  dim = wrap_dim(dim, t->dim());
  const int64_t slice = t->dim() == 0 ? 1 : t->sizes[dim];
  CT_CHECK(t->dim() == 0 || slice > 0, Status::Index, "kthvalue(): Expected reduction dim ", dim,
           " to have non-zero size.");
  CT_CHECK(k >= 1 && k <= slice, Status::Index, "kthvalue(): selected number k out of range for dimension ", dim);
  check_sortable(t, "kthvalue", kernel);
  check_not_bool(t, kernel);
  Rows r = rows_of(t, dim);
  Tensor vals = empty_tensor(with_last(r, 1), t->dtype, t->device());
  Tensor idx = empty_tensor(with_last(r, 1), DType::Int64, t->device());
  if (t->device().is_cpu()) {
    if (r.O > 0) cpu::kth_rows(r.rows->data(), t->dtype, r.O, r.R, k - 1, vals->data(), reinterpret_cast<int64_t*>(idx->data()));
  } else if (r.O > 0) {
    bool selected = false;
    {
      CudaScope sc(t->device());
      CudaScratch get(t->device());
      selected = cuda_ops::kth_rows(r.rows->data(), t->dtype, r.O, r.R, k - 1, vals->data(),
                                    reinterpret_cast<int64_t*>(idx->data()), get, sc.stream);
      if (selected)
        CT_CSAN_KERNEL(sc.stream_ref, "kthvalue", {{r.rows.get(), "self"}}, {{vals.get(), "values"}, {idx.get(), "indices"}});
    }
    if (!selected) {  // short rows: sorted whole (Note [CUDA select])
      auto s = sorted_rows(r, r.R, false, true, "kthvalue");
      const int64_t last = r.rows->dim() - 1;
      vals = contiguous(narrow(s.first, last, k - 1, 1));
      idx = contiguous(narrow(s.second, last, k - 1, 1));
    }
  }
  if (t->dim() == 0) return {view(vals, {}), view(idx, {})};
  vals = unpermute(vals, r);
  idx = unpermute(idx, r);
  if (!keepdim) return {squeeze_dim(vals, dim), squeeze_dim(idx, dim)};
  return {vals, idx};
}

UniqueResult unique(const Tensor& t, bool /*sorted: always*/, bool return_inverse, bool return_counts) {
  check_sortable(t, "unique", "unique");
  const Device dev = t->device();
  const int64_t n = t->numel();
  Tensor flat = contiguous(t);
  UniqueResult res;
  Tensor vals = empty_tensor({n}, t->dtype, dev);
  if (return_inverse) res.inverse = empty_tensor(t->sizes, DType::Int64, dev);
  Tensor counts = return_counts ? empty_tensor({n}, DType::Int64, dev) : Tensor();
  int64_t u = 0;
  if (n > 0 && dev.is_cpu()) {
    u = cpu::unique_flat(flat->data(), t->dtype, n, vals->data(),
                         res.inverse ? reinterpret_cast<int64_t*>(res.inverse->data()) : nullptr,
                         counts ? reinterpret_cast<int64_t*>(counts->data()) : nullptr);
  } else if (n > 0) {
    CudaScope sc(dev);
    CudaScratch get(dev);
    u = cuda_ops::unique_flat(flat->data(), t->dtype, n, vals->data(),
                              res.inverse ? reinterpret_cast<int64_t*>(res.inverse->data()) : nullptr,
                              counts ? reinterpret_cast<int64_t*>(counts->data()) : nullptr, get, sc.stream);
    CT_CSAN_KERNEL(sc.stream_ref, "unique", {{flat.get(), "self"}},
                   {{vals.get(), "values"}, {res.inverse.get(), "inverse"}, {counts.get(), "counts"}});
  }
  res.values = narrow(vals, 0, 0, u);
  if (counts) res.counts = narrow(counts, 0, 0, u);
  return res;
}

Tensor searchsorted(const Tensor& seq, const Tensor& values, bool out_int32, bool right, const char* side,
                    const Tensor& sorter) {
  if (side) {
    const std::string s = side;
    CT_CHECK(s == "left" || s == "right", Status::Argument,
             "torch.searchsorted(): side can only be 'left' or 'right' but got ", s);
    CT_CHECK(!right || s == "right", Status::Argument,
             "torch.searchsorted(): side and right can't be set to opposites, got side of ", s, " while right was True");
    right = s == "right";
  }
  CT_CHECK(seq->device() == values->device(), Status::Device,
           "torch.searchsorted(): boundaries and input value tensors should have same device type, but got boundaries "
           "tensor device type ", seq->device().str(), " and input value tensor device type ", values->device().str());
  if (sorter) {
    CT_CHECK(sorter->device() == seq->device(), Status::Device,
             "torch.searchsorted(): sorter and boundary tensors should have same device type, but got sorter tensor "
             "device type ", sorter->device().str(), " and input value tensor device type ", seq->device().str());
    CT_CHECK(sorter->sizes == seq->sizes, Status::Shape,
             "torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor ",
             shape_str(seq->sizes), "and got sorter tensor ", shape_str(sorter->sizes));
    CT_CHECK(sorter->dtype == DType::Int64, Status::DType,
             "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype ", dtype_short(sorter->dtype));
  }
  CT_CHECK(values->dim() > 0 || seq->dim() == 1, Status::Shape,
           "torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension is 1, but we got "
           "boundaries tensor dim(", seq->dim(), ") and input value's dim(", values->dim(), ") numel(", values->numel(), ")");
  CT_CHECK(seq->dim() != 0, Status::Shape,
           "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension");
  bool matched = seq->dim() == values->dim();
  for (int64_t d = 0; matched && d + 1 < seq->dim(); ++d) matched = seq->sizes[d] == values->sizes[d];
  CT_CHECK(seq->dim() == 1 || matched, Status::Shape,
           "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
           "tensor and input value tensor must match, but we got boundaries tensor ", shape_str(seq->sizes),
           " and input value tensor ", shape_str(values->sizes));
  const int64_t L = seq->sizes.back();
  if (out_int32) {
    CT_CHECK(L < std::numeric_limits<int32_t>::max(), Status::Shape,
             "torch.searchsorted(): the size of boundaries' last dimension should be less than ",
             std::numeric_limits<int32_t>::max(), ", but we got ", L);
  }
  const DType common = result_type({seq.get(), values.get()});
  const char* kernel = seq->device().is_cuda() ? "searchsorted_cuda" : "searchsorted_out_cpu";
  CT_CHECK(!is_complex(common) && common != DType::Bool, Status::DType, "\"", kernel, "\" not implemented for '",
           dtype_short(common), "'");
  const Device dev = seq->device();
  Tensor s = contiguous(to(seq, dev, common, false));
  Tensor v = contiguous(to(values, dev, common, false));
  Tensor so = sorter ? contiguous(sorter) : Tensor();
  const int64_t n = v->numel(), S = seq->numel() / std::max<int64_t>(L, 1);
  if (so && so->numel() > 0) {  // PyTorch checks the sorter's range (a host sync on CUDA, as there)
    CT_CHECK(item_int64(reduce(ReduceOp::Amax, so, {}, false, false, DType::Int64)) < L &&
             item_int64(reduce(ReduceOp::Amin, so, {}, false, false, DType::Int64)) >= 0,
             Status::Index, "torch.searchsorted(): sorter index out of range");
  }
  Tensor out = empty_tensor(values->sizes, out_int32 ? DType::Int32 : DType::Int64, dev);
  const int64_t per_row = v->dim() == 0 ? 1 : v->sizes.back();
  if (n == 0) return out;
  const int64_t* sp = so ? reinterpret_cast<const int64_t*>(so->data()) : nullptr;
  if (dev.is_cpu()) {
    cpu::searchsorted(s->data(), sp, seq->dim() == 1 ? 1 : S, L, v->data(), n, per_row, common, right, out_int32,
                      out->data());
  } else {
    CudaScope sc(dev);
    CudaScratch get(dev);
    cuda_ops::searchsorted(s->data(), sp, seq->dim() == 1 ? 1 : S, L, v->data(), n, per_row, common, right, out_int32,
                           out->data(), get, sc.stream);
    CT_CSAN_KERNEL(sc.stream_ref, "searchsorted", {{s.get(), "sorted_sequence"}, {v.get(), "values"}, {so.get(), "sorter"}},
                   {{out.get(), "out"}});
  }
  return out;
}

}  // namespace ct::ops
