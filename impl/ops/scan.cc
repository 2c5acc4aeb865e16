// Scans: PyTorch's checks, dtype rules and special cases (ATen/native/ReduceOps.cpp,
// cuda/ScanKernels.cpp), then one kernel call on the [O, L, I] layout of Note [Scan layout]
// (impl/ops/cpu/scan.h). The order of PyTorch's checks is kept, since it decides which error a
// bad call gets: cumsum/cumprod check the dim first and the dtype only when there is something
// to scan; cummax/cummin check neither for a 0-dim or empty input; logcumsumexp checks the
// dtype before the 0-dim and empty cases on the CPU and after them on CUDA.
#include "impl/ops/scan.h"

#include <string>

#include "impl/alloc/allocator.h"
#include "impl/core/error.h"
#include "impl/ops/cpu/scan.h"
#include "impl/ops/cuda/scan.h"
#include "impl/ops/cuda_dispatch.h"
#include "impl/ops/ops.h"

namespace ct::ops {

namespace {

// "cumsum_out_cpu" / "cumsum_cuda": the names PyTorch's dispatch errors give.
[[noreturn]] void not_implemented(const char* op, const Device& d, const char* cpu_suffix, DType dt) {
  fail(Status::DType, "\"", op, d.is_cpu() ? cpu_suffix : "_cuda", "\" not implemented for '", dtype_short(dt), "'");
}

// Integers and bool scan as int64 (the same wraparound, the same order; Note [Scan layout]).
DType kernel_dtype(DType d) { return is_integral(d, true) ? DType::Int64 : d; }

// t (cast to dtype) as a contiguous tensor.
Tensor as_input(const Tensor& t, DType dtype) {
  Tensor x = t->dtype == dtype ? t : to(t, t->device(), dtype, false);
  return contiguous(x);
}

// Runs kind over the [O, L, I] layout of x (contiguous, a kernel dtype) into out (contiguous,
// x's shape and dtype) and indices (int64, cummax/cummin).
void run_3d(ScanKind kind, const Tensor& x, int64_t O, int64_t L, int64_t I, const Tensor& out, const Tensor* indices,
            const char* name) {
  ScanArgs a;
  a.kind = kind;
  a.dtype = x->dtype;
  a.in = x->data();
  a.out = out->data();
  a.indices = indices ? reinterpret_cast<int64_t*>((*indices)->data()) : nullptr;
  a.O = O;
  a.L = L;
  a.I = I;
  if (x->device().is_cpu()) {
    cpu::scan(a);
    return;
  }
  CudaScope sc(x->device());
  const int64_t bytes = cuda_ops::scan_scratch_bytes(a);
  DataPtr scratch = bytes > 0 ? alloc::allocate(bytes, x->device()) : DataPtr();
  cuda_ops::scan(a, scratch.get(), sc.stream);
  if (indices) CT_CSAN_KERNEL(sc.stream_ref, name, {{x.get(), "self"}}, {{out.get(), "values"}, {indices->get(), "indices"}});
  else CT_CSAN_KERNEL(sc.stream_ref, name, {{x.get(), "self"}}, {{out.get(), "out"}});
}

// Few long lines over an outer dim would leave the GPU nearly idle on CUDA's lines path (one
// thread per line, Note [CUDA scans]): those are transposed to rows ([O, I, L]) and back.
constexpr int64_t kFewLines = 2048, kLongLine = 2048;

// Runs kind over dim (wrapped; x->dim() >= 1, numel > 0) of x (contiguous, a kernel dtype)
// into out (contiguous, x's shape and dtype) and indices (int64, cummax/cummin).
void run(ScanKind kind, const Tensor& x, int64_t dim, const Tensor& out, const Tensor* indices, const char* name) {
  int64_t O = 1, L = x->sizes[dim], I = 1;
  for (int64_t d = 0; d < x->dim(); ++d) {
    if (d < dim) O *= x->sizes[d];
    else if (d > dim) I *= x->sizes[d];
  }
  if (x->device().is_cpu() || I == 1 || O * I >= kFewLines || L < kLongLine) {
    run_3d(kind, x, O, L, I, out, indices, name);
    return;
  }
  auto rows = [&](const Tensor& t) { return permute(view(t, {O, L, I}), {0, 2, 1}); };
  Tensor xt = contiguous(rows(x));
  Tensor yt = empty(xt->sizes, out->dtype, out->device());
  Tensor it = indices ? empty(xt->sizes, DType::Int64, out->device()) : Tensor();
  run_3d(kind, xt, O * I, L, 1, yt, indices ? &it : nullptr, name);
  copy_(rows(out), yt);
  if (indices) copy_(rows(*indices), it);
}

// Scans t (t->dim() >= 1, numel > 0) as `dtype` into a new tensor of that dtype.
Tensor scan_values(ScanKind kind, const Tensor& t, int64_t dim, DType dtype, const char* name) {
  const DType kd = kernel_dtype(dtype);
  // CUDA reads some narrower integers itself into int64 results (cuda_ops::scan_takes)
  const bool own = t->device().is_cuda() && dtype == DType::Int64 && cuda_ops::scan_takes(kind, t->dtype);
  Tensor x = own ? contiguous(t) : as_input(t->dtype == dtype ? t : to(t, t->device(), dtype, false), kd);
  Tensor y = empty(t->sizes, kd, t->device());
  run(kind, x, dim, y, nullptr, name);
  if (kd == dtype) return y;
  Tensor out = empty(t->sizes, dtype, t->device());
  copy_(out, y);
  return out;
}

Tensor cum_op(ScanKind kind, const char* name, const Tensor& t, int64_t dim, bool has_dtype, DType dtype) {
  const int64_t d = wrap_dim(dim, t->dim());
  const DType out_dtype = has_dtype ? dtype : (is_integral(t->dtype, true) ? DType::Int64 : t->dtype);
  if (t->dim() == 0 || t->numel() == 0) {  // result.fill_(self) / an empty result
    Tensor out = empty(t->sizes, out_dtype, t->device());
    if (t->numel() != 0) copy_(out, t);
    return out;
  }
  if (out_dtype == DType::Bool) not_implemented(name, t->device(), "_out_cpu", out_dtype);
  return scan_values(kind, t, d, out_dtype, name);
}

}  // namespace

Tensor cumsum(const Tensor& t, int64_t dim, bool has_dtype, DType dtype) {
  return cum_op(ScanKind::Sum, "cumsum", t, dim, has_dtype, dtype);
}

Tensor cumprod(const Tensor& t, int64_t dim, bool has_dtype, DType dtype) {
  return cum_op(ScanKind::Prod, "cumprod", t, dim, has_dtype, dtype);
}

std::pair<Tensor, Tensor> cummax(const Tensor& t, int64_t dim, bool is_max) {
  const char* name = is_max ? "cummax" : "cummin";
  Tensor values = empty(t->sizes, t->dtype, t->device());
  Tensor indices = empty(t->sizes, DType::Int64, t->device());
  if (t->numel() == 0) return {values, indices};
  if (t->dim() == 0) {  // values.fill_(self); indices.fill_(0), whatever dim is
    copy_(values, t);
    fill_(indices, 0);
    return {values, indices};
  }
  const int64_t d = wrap_dim(dim, t->dim());
  if (is_complex(t->dtype)) not_implemented(name, t->device(), "_cpu", t->dtype);
  const ScanKind kind = is_max ? ScanKind::Max : ScanKind::Min;
  const bool own = t->device().is_cuda() && cuda_ops::scan_takes(kind, t->dtype);  // int32 as itself
  const DType kd = own ? t->dtype : kernel_dtype(t->dtype);
  Tensor x = as_input(t, kd);
  Tensor v = kd == t->dtype ? values : empty(t->sizes, kd, t->device());
  run(kind, x, d, v, &indices, name);
  if (v.get() != values.get()) copy_(values, v);
  return {values, indices};
}

Tensor logcumsumexp(const Tensor& t, int64_t dim) {
  const int64_t d = wrap_dim(dim, t->dim());
  const bool supported = is_floating(t->dtype) || is_complex(t->dtype);
  if (!supported && t->device().is_cpu()) not_implemented("logcumsumexp", t->device(), "_out_cpu", t->dtype);
  if (t->dim() == 0 || t->numel() == 0) {
    Tensor out = empty(t->sizes, t->dtype, t->device());
    if (t->numel() != 0) copy_(out, t);
    return out;
  }
  if (!supported) not_implemented("logcumsumexp", t->device(), "_out_cpu", t->dtype);
  return scan_values(ScanKind::LogSumExp, t, d, t->dtype, "logcumsumexp");
}

}  // namespace ct::ops
