// Row functions (Note [Row functions]): softmax, log_softmax, logsumexp, var/std, matrix_norm
// and layer_norm.
//
// Note [Row functions]: each is written once, for both devices, as a composition of the
// engine's reductions (impl/ops/reduce.cc: amax, sum, mean and vector_norm, which lay any
// input out as rows and reduce them with the devices' row kernels) and its elementwise ops
// (broadcasting the reduced, keepdim values back over the rows). Everything is computed in
// the compute dtype (Note [Compute dtype]: float16/bfloat16 in float32) and rounded once to
// the result dtype. On CUDA, softmax / log_softmax over the last dim, layer_norm, and var / std
// over trailing dims run as fused per-row kernels instead (Note [Row kernels],
// impl/ops/cuda/rowfuncs.cu), and on the CPU softmax / log_softmax and layer_norm run as
// per-row kernels in parallel over rows (softmax over a dim other than the last: by blocks of
// columns) with the composed path's operations (Note [CPU row kernels], impl/ops/cpu/rowfuncs.h).
// The stable forms are PyTorch's: softmax subtracts the row maximum before exp; logsumexp subtracts the maximum unless it is infinite (then 0); var is two-pass
// (the mean, then the sum of squared deviations) divided by max(0, N - correction).
#include "impl/ops/rowfuncs.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "impl/core/error.h"
#include "impl/ops/cpu/rowfuncs.h"
#include "impl/ops/cuda/rowfuncs.h"
#include "impl/ops/cuda_dispatch.h"
#include "impl/ops/ops.h"

namespace ct::ops {

namespace {

Tensor scalar(double v) { return wrapped_scalar_double(v); }

// The sorted, wrapped, distinct dims dims names (empty: all dims) and the number of elements
// they hold together.
std::vector<int64_t> reduced_dims(const Tensor& t, const std::vector<int64_t>& dims, int64_t* count) {
  std::vector<int64_t> out;
  int64_t nd = t->dim();
  if (dims.empty()) {
    for (int64_t d = 0; d < nd; ++d) out.push_back(d);
  } else {
    for (int64_t d : dims) {
      int64_t w = wrap_dim(d, nd);
      CT_CHECK(std::find(out.begin(), out.end(), w) == out.end() || nd == 0, Status::Argument, "dim ", w,
               " appears multiple times in the list of dims");
      if (nd > 0) out.push_back(w);
    }
  }
  std::sort(out.begin(), out.end());
  int64_t n = 1;
  for (int64_t d : out) n *= t->sizes[d];
  *count = n;
  return out;
}

// Whether the sorted reduced dims dl are the trailing dims of t (a per-row kernel's layout once
// t is contiguous).
bool trailing_dims(const Tensor& t, const std::vector<int64_t>& dl) {
  const int64_t nd = t->dim();
  return !dl.empty() && dl.back() == nd - 1 && dl.front() == nd - static_cast<int64_t>(dl.size());
}

// The result shape of reducing t over its trailing dims dl (trailing_dims).
Shape trailing_out_shape(const Tensor& t, const std::vector<int64_t>& dl, bool keepdim) {
  Shape out;
  for (int64_t d = 0; d < t->dim(); ++d) {
    if (d < dl.front()) out.push_back(t->sizes[d]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

Tensor as_compute(const Tensor& t, DType d) { return to(t, t->device(), compute_dtype(d), false); }

Tensor to_dtype(const Tensor& t, DType d) { return to(t, t->device(), d, false); }

}  // namespace

Tensor softmax(const Tensor& t, int64_t dim, bool has_dtype, DType dtype, bool log) {
  DType in = has_dtype ? dtype : t->dtype;
  // PyTorch's CUDA kernel names the dispatch that has no such dtype (docs/differences.md).
  CT_CHECK(is_floating(in), Status::DType, "\"host_softmax\" not implemented for '", dtype_short(in), "'");
  int64_t d = wrap_dim(dim, t->dim());
  if (t->numel() == 0) return empty(t->sizes, in, t->device());
  if (t->device().is_cuda() && t->dim() >= 1 && d == t->dim() - 1) {
    Tensor x = contiguous(to_dtype(t, in));
    Tensor out = empty(x->sizes, in, x->device());
    const int64_t len = x->sizes.back();
    CudaScope sc(x->device());
    cuda_ops::softmax_rows(x->data(), out->data(), x->numel() / len, len, in, log, sc.stream);
    CT_CSAN_KERNEL(sc.stream_ref, log ? "log_softmax" : "softmax", {{x.get(), "self"}}, {{out.get(), "out"}});
    return out;
  }
  const auto [outer, inner] = t->dim() >= 1 ? outer_inner(t.get(), d) : std::pair<int64_t, int64_t>{1, 1};
  if (t->device().is_cuda() && t->dim() >= 1) {
    if (cuda_ops::softmax_cols_ok(outer, t->sizes[d], inner)) {
      Tensor x = contiguous(to_dtype(t, in));
      Tensor out = empty(x->sizes, in, x->device());
      CudaScope sc(x->device());
      cuda_ops::softmax_cols(x->data(), out->data(), outer, t->sizes[d], inner, in, log, sc.stream);
      CT_CSAN_KERNEL(sc.stream_ref, log ? "log_softmax" : "softmax", {{x.get(), "self"}}, {{out.get(), "out"}});
      return out;
    }
  }
  if (t->device().is_cpu() && t->dim() >= 1) {  // Note [CPU row kernels]: rows over the last dim, else columns
    Tensor x = contiguous(to_dtype(t, in));
    Tensor out = empty(x->sizes, in, x->device());
    if (d == t->dim() - 1) cpu::softmax_rows(x->data(), out->data(), outer, t->sizes[d], in, log);
    else cpu::softmax_cols(x->data(), out->data(), outer, t->sizes[d], inner, in, log);
    return out;
  }
  Tensor x = as_compute(t, in);
  if (x->dim() == 0) x = reshape(x, Shape{1});
  Tensor m = reduce(ReduceOp::Amax, x, {d}, true, false, x->dtype);
  Tensor z = binary(BinaryOp::Sub, x, m);
  Tensor e = unary(UnaryOp::Exp, z);
  Tensor s = reduce(ReduceOp::Sum, e, {d}, true, false, x->dtype);
  Tensor r = log ? binary(BinaryOp::Sub, z, unary(UnaryOp::Log, s)) : binary(BinaryOp::Div, e, s);
  if (t->dim() == 0) r = reshape(r, Shape{});
  return to_dtype(r, in);
}

Tensor logsumexp(const Tensor& t, const std::vector<int64_t>& dims, bool keepdim) {
  CT_CHECK(!is_complex(t->dtype), Status::NotSupported, "logsumexp: complex input (", dtype_short(t->dtype),
           ") is not supported by ctorch");
  // Integer and bool inputs give the default float dtype, as PyTorch.
  DType rd = is_integral(t->dtype, true) ? kDefaultFloat : t->dtype;
  int64_t n = 0;
  std::vector<int64_t> dl = reduced_dims(t, dims, &n);
  if (t->device().is_cuda() && n > 0 && trailing_dims(t, dl)) {  // Note [logsumexp rows]
    Tensor x = contiguous(to_dtype(t, rd));
    Tensor out = empty(trailing_out_shape(t, dl, keepdim), rd, t->device());
    CudaScope sc(x->device());
    cuda_ops::logsumexp_rows(x->data(), out->data(), x->numel() / n, n, rd, sc.stream);
    CT_CSAN_KERNEL(sc.stream_ref, "logsumexp", {{x.get(), "self"}}, {{out.get(), "out"}});
    return out;
  }
  Tensor x = as_compute(t, rd);
  if (n == 0) {  // log(0) = -inf for every output element
    return to_dtype(unary(UnaryOp::Log, reduce(ReduceOp::Sum, x, dl, keepdim, false, x->dtype)), rd);
  }
  Tensor m = reduce(ReduceOp::Amax, x, dl, true, false, x->dtype);
  Tensor inf_max = binary(BinaryOp::Eq, unary(UnaryOp::Abs, m), scalar(std::numeric_limits<double>::infinity()));
  m = where(inf_max, scalar(0.0), m);
  Tensor s = reduce(ReduceOp::Sum, unary(UnaryOp::Exp, binary(BinaryOp::Sub, x, m)), dl, keepdim, false, x->dtype);
  Tensor r = binary(BinaryOp::Add, unary(UnaryOp::Log, s), reshape(m, s->sizes));
  return to_dtype(r, rd);
}

std::pair<Tensor, Tensor> var_mean(const Tensor& t, const std::vector<int64_t>& dims, double correction,
                                   bool keepdim, bool take_sqrt) {
  CT_CHECK(is_floating(t->dtype) || is_complex(t->dtype), Status::DType,
           "std and var only support floating point and complex dtypes");
  int64_t n = 0;
  std::vector<int64_t> dl = reduced_dims(t, dims, &n);
  // On CUDA, reduced dims that are the trailing dims of a contiguous real tensor: Welford per row
  // (Note [Welford by vectors]); other layouts read in place by the reduction engine where it can
  // (Note [var in place]); trailing dims of anything else copied to rows.
  const bool rows = t->device().is_cuda() && is_floating(t->dtype) && trailing_dims(t, dl) && n > 0;
  std::pair<Tensor, Tensor> r;
  if (!(rows && t->is_contiguous()) && n > 0 && var_mean_in_place(t, dims, correction, keepdim, take_sqrt, &r))
    return r;
  if (rows) {
    Tensor x = contiguous(t);
    const Shape out_shape = trailing_out_shape(t, dl, keepdim);
    Tensor v = empty(out_shape, t->dtype, t->device()), mean = empty(out_shape, t->dtype, t->device());
    CudaScope sc(x->device());
    cuda_ops::var_rows(x->data(), v->data(), mean->data(), x->numel() / n, n, t->dtype, correction, take_sqrt,
                       sc.stream);
    CT_CSAN_KERNEL(sc.stream_ref, take_sqrt ? "std_mean" : "var_mean", {{x.get(), "self"}},
                   {{v.get(), "out"}, {mean.get(), "mean"}});
    return {v, mean};
  }
  Tensor x = as_compute(t, t->dtype);
  Tensor mean = reduce(ReduceOp::Mean, x, dl, true, false, x->dtype);
  Tensor dev = binary(BinaryOp::Sub, x, mean);
  if (is_complex(t->dtype)) dev = unary(UnaryOp::Abs, dev);  // |x - mean|, real
  Tensor ss = reduce(ReduceOp::Sum, unary(UnaryOp::Square, dev), dl, keepdim, false, dev->dtype);
  // max(0, N - correction): 0 gives inf (or NaN for 0/0), as PyTorch.
  Tensor v = binary(BinaryOp::Div, ss, scalar(std::max(0.0, static_cast<double>(n) - correction)));
  if (take_sqrt) v = unary(UnaryOp::Sqrt, v);
  return {to_dtype(v, to_real(t->dtype)), to_dtype(reshape(mean, v->sizes), t->dtype)};
}

Tensor var(const Tensor& t, const std::vector<int64_t>& dims, double correction, bool keepdim, bool take_sqrt) {
  return var_mean(t, dims, correction, keepdim, take_sqrt).first;
}

namespace {

void check_matrix_norm(const Tensor& t, int64_t* d0, int64_t* d1) {
  CT_CHECK(t->dim() >= 2, Status::Shape, "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
  CT_CHECK(is_floating(t->dtype) || is_complex(t->dtype), Status::DType,
           "linalg.matrix_norm: Expected a floating point or complex tensor as input. Got ", dtype_short(t->dtype));
  *d0 = wrap_dim(*d0, t->dim());
  *d1 = wrap_dim(*d1, t->dim());
  CT_CHECK(*d0 != *d1, Status::Argument, "linalg.matrix_norm: dims must be different. Got (", *d0, ", ", *d1, ")");
}

// The shape without dims d0 and d1 (keepdim false).
Shape drop_dims(const Shape& s, int64_t d0, int64_t d1) {
  Shape out;
  for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d) {
    if (d != d0 && d != d1) out.push_back(s[d]);
  }
  return out;
}

}  // namespace

Tensor matrix_norm(const Tensor& t, double ord, int64_t d0, int64_t d1, bool keepdim) {
  check_matrix_norm(t, &d0, &d1);
  if (ord == 2 || ord == -2) {
    fail(Status::NotSupported, "linalg.matrix_norm: ord ", ord,
         " needs the singular values (torch.linalg.svdvals), which ctorch does not compute");
  }
  CT_CHECK(std::fabs(ord) == 1 || std::isinf(ord), Status::Argument, "linalg.matrix_norm: Order ", ord,
           " not supported.");
  // ord 1: the largest column sum of |A| (sum over rows d0, then max over d1); inf: the
  // largest row sum; the negative orders take the smallest.
  int64_t sum_dim = std::isinf(ord) ? d1 : d0, pick_dim = std::isinf(ord) ? d0 : d1;
  Tensor sums = norm(t, 1.0, {sum_dim}, true);
  Tensor r = reduce(ord > 0 ? ReduceOp::Amax : ReduceOp::Amin, sums, {pick_dim}, true, false, sums->dtype);
  return keepdim ? r : reshape(r, drop_dims(r->sizes, d0, d1));
}

Tensor matrix_norm_str(const Tensor& t, const std::string& ord, int64_t d0, int64_t d1, bool keepdim) {
  check_matrix_norm(t, &d0, &d1);
  if (ord == "nuc") {
    fail(Status::NotSupported,
         "linalg.matrix_norm: ord 'nuc' needs the singular values (torch.linalg.svdvals), which ctorch does not compute");
  }
  CT_CHECK(ord == "fro", Status::Argument, "linalg.matrix_norm: Order ", ord, " not supported.");
  return norm(t, 2.0, {d0, d1}, keepdim);
}

Tensor layer_norm(const Tensor& t, const Shape& ns, const Tensor& weight, const Tensor& bias, double eps) {
  std::string nss = shape_str(ns);
  CT_CHECK(!ns.empty(), Status::Argument,
           "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got "
           "normalized_shape = ",
           nss);
  CT_CHECK(!weight || weight->sizes == ns, Status::Shape,
           "Expected weight to be of same shape as normalized_shape, but got weight of shape ",
           weight ? shape_str(weight->sizes) : "", " and normalized_shape = ", nss);
  CT_CHECK(!bias || bias->sizes == ns, Status::Shape,
           "Expected bias to be of same shape as normalized_shape, but got bias of shape ",
           bias ? shape_str(bias->sizes) : "", " and normalized_shape = ", nss);
  int64_t nd = t->dim(), nn = static_cast<int64_t>(ns.size());
  bool fits = nd >= nn;
  for (int64_t i = 0; fits && i < nn; ++i) fits = t->sizes[nd - nn + i] == ns[i];
  if (!fits) {
    std::ostringstream ss;
    ss << "Given normalized_shape=" << nss << ", expected input with shape [*";
    for (int64_t s : ns) ss << ", " << s;
    ss << "], but got input of size" << shape_str(t->sizes);
    fail(Status::Shape, ss.str());
  }
  CT_CHECK(is_floating(t->dtype), Status::DType, "\"LayerNormKernelImpl\" not implemented for '",
           dtype_short(t->dtype), "'");
  for (const Tensor& p : {weight, bias}) {
    CT_CHECK(!p || is_floating(p->dtype), Status::DType, "layer_norm: expected a floating point weight and bias, got ",
             p ? dtype_short(p->dtype) : "");
  }
  if (weight) common_device({t.get(), weight.get()}, "layer_norm");
  if (bias) common_device({t.get(), bias.get()}, "layer_norm");
  if (t->numel() == 0) return empty(t->sizes, t->dtype, t->device());
  if (t->device().is_cuda() && (!weight || weight->dtype == t->dtype) && (!bias || bias->dtype == t->dtype)) {
    Tensor x = contiguous(t), w = weight ? contiguous(weight) : Tensor(), b = bias ? contiguous(bias) : Tensor();
    Tensor out = empty(x->sizes, x->dtype, x->device());
    const int64_t len = numel_of(ns);
    CudaScope sc(x->device());
    cuda_ops::layer_norm_rows(x->data(), w ? w->data() : nullptr, b ? b->data() : nullptr, out->data(),
                              x->numel() / len, len, x->dtype, eps, sc.stream);
    CT_CSAN_KERNEL(sc.stream_ref, "layer_norm", {{x.get(), "input"}, {w.get(), "weight"}, {b.get(), "bias"}},
                   {{out.get(), "out"}});
    return out;
  }
  if (t->device().is_cpu()) {  // Note [CPU row kernels]
    const DType comp = compute_dtype(t->dtype);
    Tensor x = contiguous(t);
    Tensor w = weight ? contiguous(to_dtype(weight, comp)) : Tensor(), b = bias ? contiguous(to_dtype(bias, comp)) : Tensor();
    Tensor out = empty(x->sizes, x->dtype, x->device());
    const int64_t len = numel_of(ns);
    cpu::layer_norm_rows(x->data(), w ? w->data() : nullptr, b ? b->data() : nullptr, out->data(), x->numel() / len,
                         len, x->dtype, eps);
    return out;
  }
  std::vector<int64_t> dl;
  for (int64_t d = nd - nn; d < nd; ++d) dl.push_back(d);
  Tensor x = as_compute(t, t->dtype);
  Tensor mean = reduce(ReduceOp::Mean, x, dl, true, false, x->dtype);
  Tensor dev = binary(BinaryOp::Sub, x, mean);
  Tensor v = reduce(ReduceOp::Mean, unary(UnaryOp::Square, dev), dl, true, false, x->dtype);
  Tensor rstd = unary(UnaryOp::Reciprocal, unary(UnaryOp::Sqrt, binary(BinaryOp::Add, v, scalar(eps))));
  Tensor y = binary(BinaryOp::Mul, dev, rstd);
  if (weight) y = binary(BinaryOp::Mul, y, to_dtype(weight, x->dtype));
  if (bias) y = binary(BinaryOp::Add, y, to_dtype(bias, x->dtype));
  return to_dtype(y, t->dtype);
}

}  // namespace ct::ops
