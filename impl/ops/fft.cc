// torch.fft with PyTorch's argument rules (n / s, dim, norm), through impl/fft (FFTW on the
// CPU, cuFFT on CUDA). Each transform moves its dimensions last, runs one batched transform
// on a contiguous buffer and moves them back.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "impl/core/error.h"
#include "impl/cuda/sanitize.h"
#include "impl/cuda/stream.h"
#include "impl/fft/fft.h"
#include "impl/ops/ops.h"

namespace ct::ops {

namespace {

DType complex_of(DType d, const char* op) {
  switch (d) {
    case DType::Complex64:
    case DType::Complex128: return d;
    case DType::Float64: return DType::Complex128;
    case DType::Float16:
    case DType::BFloat16:
      fail(Status::DType, op, ": Unsupported dtype ", dtype_short(d), " (float16 and bfloat16 FFTs are not supported)");
    default: return DType::Complex64;  // float32, integers and bool promote to float32 first
  }
}

DType real_of(DType complex) { return complex == DType::Complex128 ? DType::Float64 : DType::Float32; }

// A dim of an FFT: a 0-dim tensor has none (PyTorch does not wrap scalars here; wrap_dim would
// accept 0 and -1, and sizes[0] is past the end).
int64_t fft_dim(int64_t d, int64_t nd) {
  CT_CHECK(nd > 0, Status::Index, "Dimension specified as ", d, " but tensor has no dimensions");
  return wrap_dim(d, nd);
}

// dims (wrapped, unique) and signal sizes s (-1: the input's size) as PyTorch's fftn resolves
// them: dims default to the last len(s) dims, or all dims.
void resolve(const Tensor& x, std::vector<int64_t>* s, std::vector<int64_t>* dims, const char* op) {
  int64_t nd = x->dim();
  if (!dims->empty() && !s->empty())
    CT_CHECK(s->size() == dims->size(), Status::Argument, op, ": when given, dim and shape arguments must have the same length");
  if (dims->empty()) {
    size_t k = s->empty() ? static_cast<size_t>(nd) : s->size();
    CT_CHECK(static_cast<int64_t>(k) <= nd, Status::Argument, op, ": got shape with ", k, " values but input tensor only has ",
             nd, " dimensions.");
    for (size_t i = 0; i < k; ++i) dims->push_back(nd - static_cast<int64_t>(k) + static_cast<int64_t>(i));
  }
  for (int64_t& d : *dims) d = fft_dim(d, nd);
  std::vector<int64_t> sorted = *dims;
  std::sort(sorted.begin(), sorted.end());
  CT_CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(), Status::Argument, op,
           ": FFT dims must be unique");
  if (s->empty()) {
    for (int64_t d : *dims) s->push_back(x->sizes[d]);
  } else {
    for (size_t i = 0; i < s->size(); ++i) {
      if ((*s)[i] == -1) (*s)[i] = x->sizes[(*dims)[i]];
      CT_CHECK((*s)[i] >= 1, Status::Argument, "Invalid number of data points (", (*s)[i], ") specified");
    }
  }
}

// x cut or zero-padded to size s[i] along dims[i].
Tensor resize(const Tensor& x, const std::vector<int64_t>& dims, const std::vector<int64_t>& s) {
  Tensor t = x;
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = dims[i], cur = t->sizes[d];
    if (s[i] < cur) {
      t = narrow(t, d, 0, s[i]);
    } else if (s[i] > cur) {
      Shape sz = t->sizes;
      sz[d] = s[i];
      Tensor p = full(sz, 0.0, t->dtype, t->device());
      if (cur > 0) copy_(narrow(p, d, 0, cur), t);
      t = p;
    }
  }
  return t;
}

// Runs `kind` over dims of x (dims moved last); out_last is the size of the last transformed
// dim in the output (C2R: the real length; R2C: n/2 + 1; C2C: unchanged).
Tensor run(const Tensor& x, const std::vector<int64_t>& dims, fft::Kind kind, bool forward, DType out_dtype,
           const std::vector<int64_t>& signal) {
  int64_t nd = x->dim();
  Shape perm;
  for (int64_t d = 0; d < nd; ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) perm.push_back(d);
  for (int64_t d : dims) perm.push_back(d);
  Tensor in = permute(x, perm);
  if (kind == fft::kC2R || !in->is_contiguous()) in = clone(in);  // C2R overwrites its input
  int64_t batch = 1;
  for (size_t i = 0; i + dims.size() < perm.size(); ++i) batch *= in->sizes[i];
  Shape out_sizes = in->sizes;
  if (kind == fft::kR2C) out_sizes.back() = signal.back() / 2 + 1;
  if (kind == fft::kC2R) out_sizes.back() = signal.back();
  Tensor out = empty(out_sizes, out_dtype, x->device());
  fft::execute(kind, forward, kind == fft::kC2R ? out_dtype : real_of(kind == fft::kR2C ? out_dtype : x->dtype),
               x->device(), batch, signal, in->data(), out->data());
  if (csan::on() && out->device().is_cuda())
    cuda::csan_kernel(cuda::current_stream(out->device().index), "fft", {{in.get(), "self"}}, {{out.get(), "out"}});
  Shape inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = static_cast<int64_t>(i);
  return permute(out, inv);
}

// The default output length of a c2r transform whose input dim has m elements: 2 * (m - 1).
int64_t doubled_length(int64_t m) {
  CT_CHECK(m - 1 <= std::numeric_limits<int64_t>::max() / 2, Status::Argument, "Invalid number of data points (2 * ",
           m - 1, ") specified");
  return 2 * (m - 1);
}

// PyTorch's norm modes: "backward" (0): forward unscaled, inverse 1/n; "forward" (1): the
// reverse; "ortho" (2): 1/sqrt(n) both ways.
Tensor normalize(Tensor t, int norm, bool forward, const std::vector<int64_t>& signal) {
  CT_CHECK(norm >= 0 && norm <= 2, Status::Argument, "Invalid normalization mode: ", norm,
           " (expected CT_FFT_NORM_BACKWARD, FORWARD or ORTHO)");
  double n = 1;
  for (int64_t s : signal) n *= static_cast<double>(s);
  double scale = 1.0;
  if (norm == 2) scale = 1.0 / std::sqrt(n);
  else if ((norm == 0 && !forward) || (norm == 1 && forward)) scale = 1.0 / n;
  if (scale == 1.0) return t;
  return binary(BinaryOp::Mul, t, wrapped_scalar_double(scale));
}

Tensor as_complex(const Tensor& x, const char* op) {
  DType c = complex_of(x->dtype, op);
  return x->dtype == c ? x : to(x, x->device(), c, false);
}

// conj(z) as a new contiguous tensor: the imaginary parts of a copy, seen as reals, negated.
Tensor conj_copy(const Tensor& z) {
  Tensor c = clone(z);
  Shape sz = c->sizes, st;
  sz.push_back(2);
  st.resize(sz.size());
  int64_t acc = 1;
  for (int64_t i = static_cast<int64_t>(sz.size()) - 1; i >= 0; --i) st[i] = acc, acc *= sz[i];
  Tensor re = make_view(c, sz, st, c->offset * 2);
  re->dtype = real_of(c->dtype);
  binary_(BinaryOp::Mul, select(re, -1, 1), wrapped_scalar_double(-1.0));
  return c;
}

}  // namespace

Tensor fftn_c2c(const Tensor& x, std::vector<int64_t> s, std::vector<int64_t> dims, int norm, bool forward) {
  const char* op = forward ? "fftn" : "ifftn";
  resolve(x, &s, &dims, op);
  Tensor in = resize(as_complex(x, op), dims, s);
  if (dims.empty()) return clone(in);
  return normalize(run(in, dims, fft::kC2C, forward, in->dtype, s), norm, forward, s);
}

Tensor rfftn(const Tensor& x, std::vector<int64_t> s, std::vector<int64_t> dims, int norm) {
  CT_CHECK(!is_complex(x->dtype), Status::DType, "rfftn expects a real-valued input tensor, but got ",
           dtype_short(x->dtype));
  resolve(x, &s, &dims, "rfftn");
  CT_CHECK(!dims.empty(), Status::Argument, "rfftn must transform at least one axis");
  DType c = complex_of(x->dtype, "rfftn");
  Tensor in = resize(to(x, x->device(), real_of(c), false), dims, s);
  return normalize(run(in, dims, fft::kR2C, true, c, s), norm, true, s);
}

Tensor irfftn(const Tensor& x, std::vector<int64_t> s, std::vector<int64_t> dims, int norm) {
  bool given = !s.empty();
  std::vector<int64_t> s_in = s;
  resolve(x, &s_in, &dims, "irfftn");
  CT_CHECK(!dims.empty(), Status::Argument, "irfftn must transform at least one axis");
  // the last dim: the output length (given, or 2 * (m - 1)); the input there is n / 2 + 1
  int64_t last = given && s.back() != -1 ? s.back() : doubled_length(x->sizes[dims.back()]);
  CT_CHECK(last >= 1, Status::Argument, "Invalid number of data points (", last, ") specified");
  std::vector<int64_t> signal = s_in;
  signal.back() = last;
  std::vector<int64_t> in_sizes = s_in;
  in_sizes.back() = last / 2 + 1;
  Tensor in = resize(as_complex(x, "irfftn"), dims, in_sizes);
  return normalize(run(in, dims, fft::kC2R, false, real_of(in->dtype), signal), norm, false, signal);
}

Tensor hfft(const Tensor& x, int64_t n, int64_t dim, int norm) {
  // the FFT of a Hermitian signal given by its first half: c2r of the conjugate, scaled as a
  // forward transform
  Tensor z = as_complex(x, "hfft");
  int64_t d = fft_dim(dim, z->dim());
  int64_t last = n != -1 ? n : doubled_length(z->sizes[d]);
  CT_CHECK(last >= 1, Status::Argument, "Invalid number of data points (", last, ") specified");
  Tensor in = conj_copy(resize(z, {d}, {last / 2 + 1}));
  return normalize(run(in, {d}, fft::kC2R, false, real_of(in->dtype), {last}), norm, true, {last});
}

Tensor fftfreq(int64_t n, double d, DType dtype, Device dev) {
  CT_CHECK(n >= 1, Status::Argument, "fftfreq: n must be positive, got ", n);
  // filled in place: the allocator reports a huge n as out of memory
  Tensor h = empty_tensor({n}, DType::Float64, Device{DeviceType::CPU, -1});
  auto* v = reinterpret_cast<double*>(h->data());
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<double>(i < (n + 1) / 2 ? i : i - n) / (d * n);
  return to(h, dev, dtype, true);
}

Tensor fftshift(const Tensor& x, std::vector<int64_t> dims, bool inverse) {
  if (dims.empty())
    for (int64_t d = 0; d < x->dim(); ++d) dims.push_back(d);
  Tensor t = x;
  for (int64_t dd : dims) {
    int64_t d = fft_dim(dd, x->dim()), n = t->sizes[d];
    if (n <= 1) continue;
    int64_t shift = inverse ? n - n / 2 : n / 2;  // roll right by shift
    t = cat({narrow(t, d, n - shift, shift), narrow(t, d, 0, n - shift)}, d);
  }
  return t == x ? clone(x) : t;
}

}  // namespace ct::ops
