#include "impl/core/error.h"
#include "impl/ops/cuda_dispatch.h"
#include "impl/ops/ops.h"

namespace ct::ops {

Tensor cat(const std::vector<Tensor>& ts, int64_t dim) {
  CT_CHECK(!ts.empty(), Status::Argument, "torch.cat(): expected a non-empty list of Tensors");
  Device dev = common_device(ts, "cat");
  // Legacy rule: 1-D tensors of shape (0,) are skipped.
  std::vector<Tensor> parts;
  for (const Tensor& t : ts)
    if (!(t->dim() == 1 && t->sizes[0] == 0)) parts.push_back(t);
  for (const Tensor& t : ts) {
    CT_CHECK(t->dim() > 0, Status::Shape, "zero-dimensional tensor (at position ", &t - &ts[0],
             ") cannot be concatenated");
  }
  DType res = ts[0]->dtype;
  for (const Tensor& t : ts) res = promote_types(res, t->dtype);
  if (parts.empty()) return empty_tensor({0}, res, ts[0]->device());
  const Tensor& ref = parts[0];
  int64_t nd = ref->dim();
  dim = wrap_dim(dim, nd);
  int64_t total = 0;
  for (size_t k = 0; k < parts.size(); ++k) {
    const Tensor& t = parts[k];
    CT_CHECK(t->dim() == nd, Status::Shape, "Tensors must have same number of dimensions: got ", nd, " and ", t->dim());
    for (int64_t d = 0; d < nd; ++d) {
      if (d == dim) continue;
      CT_CHECK(t->sizes[d] == ref->sizes[d], Status::Shape, "Sizes of tensors must match except in dimension ", dim,
               ". Expected size ", ref->sizes[d], " but got size ", t->sizes[d], " for tensor number ", k, " in the list.");
    }
    total += t->sizes[dim];
  }
  Shape sizes = ref->sizes;
  sizes[dim] = total;
  Tensor out = empty_tensor(sizes, res, dev);
  int64_t off = 0;
  bool one_dtype = true;
  for (const Tensor& t : parts) one_dtype = one_dtype && t->dtype == res;
  if (dev.is_cuda() && one_dtype) {  // Note [One-launch cat]
    CudaScope sc(dev);
    std::vector<cuda_ops::Iter<2>> its;
    its.reserve(parts.size());
    for (const Tensor& t : parts) {
      Tensor slice = narrow(out, dim, off, t->sizes[dim]);
      its.push_back(cuda_iter<2>(t->sizes, {slice.get(), t.get()}));
      off += t->sizes[dim];
    }
    cuda_ops::cat_copy(its, out->itemsize(), sc.stream);
    if (csan::on()) {
      std::vector<cuda::CsanTensor> reads;
      for (const Tensor& t : parts) reads.push_back({t.get(), "tensors"});
      cuda::csan_kernel(sc.stream_ref, "cat", reads, {{out.get(), "out"}});
    }
    return out;
  }
  for (const Tensor& t : parts) {
    copy_(narrow(out, dim, off, t->sizes[dim]), t);
    off += t->sizes[dim];
  }
  return out;
}

Tensor stack(const std::vector<Tensor>& ts, int64_t dim) {
  CT_CHECK(!ts.empty(), Status::Argument, "stack expects a non-empty TensorList");
  for (size_t k = 1; k < ts.size(); ++k) {
    CT_CHECK(ts[k]->sizes == ts[0]->sizes, Status::Shape, "stack expects each tensor to be equal size, but got ",
             shape_str(ts[0]->sizes), " at entry 0 and ", shape_str(ts[k]->sizes), " at entry ", k);
  }
  dim = wrap_dim(dim, ts[0]->dim() + 1);
  std::vector<Tensor> us;
  for (const Tensor& t : ts) us.push_back(unsqueeze(t, dim));
  return cat(us, dim);
}

}  // namespace ct::ops
