// Matrix products with PyTorch's shape rules (matmul, mm, bmm, addmm, dot, mv), all through one
// batched gemm on contiguous row-major operands (impl/blas).
#include <string>

#include "impl/blas/blas.h"
#include "impl/core/error.h"
#include "impl/cuda/sanitize.h"
#include "impl/cuda/stream.h"
#include "impl/ops/ops.h"

namespace ct::ops {

namespace {

bool blas_dtype(DType d) { return is_floating(d) || is_complex(d); }

const char* c_name(DType d) {  // as PyTorch's "expected ... same dtype, but got: float != double"
  switch (d) {
    case DType::Float32: return "float";
    case DType::Float64: return "double";
    case DType::Float16: return "c10::Half";
    case DType::BFloat16: return "c10::BFloat16";
    case DType::Complex64: return "c10::complex<float>";
    case DType::Complex128: return "c10::complex<double>";
    default: return dtype_short(d);
  }
}

void check_pair(const Tensor& a, const Tensor& b, const char* op) {
  CT_CHECK(a->device() == b->device(), Status::Device,
           "Expected all tensors to be on the same device, but found at least two devices, ", a->device().str(), " and ",
           b->device().str(), "! (when checking argument for ", op, ")");
  CT_CHECK(a->dtype == b->dtype, Status::DType, "expected m1 and m2 to have the same dtype, but got: ", c_name(a->dtype),
           " != ", c_name(b->dtype));
  CT_CHECK(blas_dtype(a->dtype), Status::DType, "\"", op, "\" not implemented for '", dtype_short(a->dtype),
           "' (expected float32, float64, float16, bfloat16, complex64 or complex128)");
}

std::string dims_str(const Shape& s) {
  std::string r;
  for (size_t i = 0; i < s.size(); ++i) r += (i ? "x" : "") + std::to_string(s[i]);
  return r;
}

// C[b] = A[b] B[b] for A (batch, n, k) and B (batch, k, m) of any strides.
Tensor batched(const Tensor& a3, const Tensor& b3) {
  Tensor a = contiguous(a3), b = contiguous(b3);
  int64_t batch = a->sizes[0], n = a->sizes[1], k = a->sizes[2], m = b->sizes[2];
  Tensor c = empty({batch, n, m}, a->dtype, a->device());
  blas::gemm(a->dtype, a->device(), batch, n, m, k, a->data(), b->data(), c->data());
  if (csan::on() && c->device().is_cuda())
    cuda::csan_kernel(cuda::current_stream(c->device().index), "matmul", {{a.get(), "self"}, {b.get(), "other"}},
                      {{c.get(), "out"}});
  return c;
}

}  // namespace

Tensor mm(const Tensor& a, const Tensor& b) {
  CT_CHECK(a->dim() == 2, Status::Shape, "self must be a matrix");
  CT_CHECK(b->dim() == 2, Status::Shape, "mat2 must be a matrix");
  check_pair(a, b, "mm");
  CT_CHECK(a->sizes[1] == b->sizes[0], Status::Shape, "mat1 and mat2 shapes cannot be multiplied (", dims_str(a->sizes),
           " and ", dims_str(b->sizes), ")");
  return squeeze_dim(batched(unsqueeze(a, 0), unsqueeze(b, 0)), 0);
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  CT_CHECK(a->dim() == 3, Status::Shape, "batch1 must be a 3D tensor");
  CT_CHECK(b->dim() == 3, Status::Shape, "batch2 must be a 3D tensor");
  check_pair(a, b, "bmm");
  CT_CHECK(b->sizes[0] == a->sizes[0] && b->sizes[1] == a->sizes[2], Status::Shape,
           "Expected size for first two dimensions of batch2 tensor to be: [", a->sizes[0], ", ", a->sizes[2],
           "] but got: [", b->sizes[0], ", ", b->sizes[1], "].");
  return batched(a, b);
}

Tensor dot(const Tensor& a, const Tensor& b) {
  CT_CHECK(a->dim() == 1 && b->dim() == 1, Status::Shape, "1D tensors expected, but got ", a->dim(), "D and ", b->dim(),
           "D tensors");
  CT_CHECK(a->dtype == b->dtype, Status::DType, "dot : expected both vectors to have same dtype, but found ",
           dtype_short(a->dtype), " and ", dtype_short(b->dtype));
  check_pair(a, b, "dot");
  CT_CHECK(a->sizes[0] == b->sizes[0], Status::Shape, "inconsistent tensor size, expected tensor [", a->sizes[0],
           "] and src [", b->sizes[0], "] to have the same number of elements, but got ", a->sizes[0], " and ",
           b->sizes[0], " elements respectively");
  Tensor r = batched(view(a, {1, 1, a->sizes[0]}), view(b, {1, b->sizes[0], 1}));
  return view(r, {});
}

Tensor mv(const Tensor& a, const Tensor& v) {
  CT_CHECK(a->dim() == 2 && v->dim() == 1, Status::Shape, "vector + matrix @ vector expected, got 1, ", a->dim(), ", ",
           v->dim());
  check_pair(a, v, "mv");
  CT_CHECK(a->sizes[1] == v->sizes[0], Status::Shape, "size mismatch, got input (", a->sizes[0], "), mat (",
           dims_str(a->sizes), "), vec (", v->sizes[0], ")");
  return view(batched(unsqueeze(a, 0), view(v, {1, v->sizes[0], 1})), {a->sizes[0]});
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  int64_t da = a->dim(), db = b->dim();
  CT_CHECK(da > 0 && db > 0, Status::Shape, "both arguments to matmul need to be at least 1D, but they are ", da, "D and ",
           db, "D");
  if (da == 1 && db == 1) return dot(a, b);
  if (da == 2 && db == 1) return mv(a, b);
  if (da == 1 && db == 2) return squeeze_dim(mm(unsqueeze(a, 0), b), 0);
  if (da == 2 && db == 2) return mm(a, b);
  check_pair(a, b, "matmul");
  // batched, with broadcast batch dimensions; 1-D operands become a row / a column
  Tensor x = da == 1 ? unsqueeze(a, 0) : a;
  Tensor y = db == 1 ? unsqueeze(b, 1) : b;
  int64_t n = x->sizes[x->dim() - 2], k = x->sizes[x->dim() - 1];
  int64_t k2 = y->sizes[y->dim() - 2], m = y->sizes[y->dim() - 1];
  CT_CHECK(k == k2, Status::Shape, "Expected size for first two dimensions of batch2 tensor to be: [", k, "] but got: [",
           k2, "] (matmul of ", dims_str(a->sizes), " and ", dims_str(b->sizes), ")");
  Shape ba(x->sizes.begin(), x->sizes.end() - 2), bb(y->sizes.begin(), y->sizes.end() - 2);
  Shape batch = broadcast_shapes(ba, bb);
  int64_t nb = 1;
  for (int64_t s : batch) nb *= s;
  Shape xs = batch, ys = batch;
  xs.push_back(n), xs.push_back(k);
  ys.push_back(k), ys.push_back(m);
  Tensor c = batched(reshape(expand(x, xs), {nb, n, k}), reshape(expand(y, ys), {nb, k, m}));
  Shape out = batch;
  if (da > 1) out.push_back(n);
  if (db > 1) out.push_back(m);
  return view(c, out);
}

Tensor addmm(const Tensor& input, const Tensor& m1, const Tensor& m2, double beta, double alpha) {
  CT_CHECK(input->device() == m1->device(), Status::Device,
           "Expected all tensors to be on the same device, but found at least two devices, ", input->device().str(),
           " and ", m1->device().str(), "!");
  CT_CHECK(input->dtype == m1->dtype, Status::DType, "self and mat2 must have the same dtype, but got ",
           c_name(input->dtype), " and ", c_name(m1->dtype));
  Tensor p = mm(m1, m2);
  // the input broadcasts to the product's shape (not the other way round)
  CT_CHECK(input->dim() <= 2 && broadcast_shapes(input->sizes, p->sizes) == p->sizes, Status::Shape,
           "The expanded size of the tensor must match: addmm's input of shape [", dims_str(input->sizes),
           "] cannot be broadcast to the product's shape [", dims_str(p->sizes), "]");
  if (alpha != 1.0) p = binary(BinaryOp::Mul, p, wrapped_scalar_double(alpha));
  if (beta == 0.0) return p;  // input is ignored (NaN and inf in it do not propagate), as PyTorch
  Tensor in = beta == 1.0 ? input : binary(BinaryOp::Mul, input, wrapped_scalar_double(beta));
  return binary(BinaryOp::Add, p, in);
}

}  // namespace ct::ops
