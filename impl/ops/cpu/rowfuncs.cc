// CPU row kernels (Note [CPU row kernels] in impl/ops/cpu/rowfuncs.h).
#include "impl/ops/cpu/rowfuncs.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "impl/core/error.h"
#include "impl/core/half.h"
#include "impl/ops/cpu/parallel.h"
#include "impl/ops/cpu/simd.h"

// The row loops are elementwise over floats (no reassociation: sums go through sum_n), so
// vectorizing them with a scalar remainder, which -O2 does not, gives the same bits.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=dynamic")
#endif

namespace ct::cpu {

namespace {

// The float32 row kernels: x is one row of len floats (the input itself for float32, a
// widened copy for float16/bfloat16); the result goes to y (may be x's buffer for the narrow
// dtypes); tmp is scratch of len floats.
// The row's maximum in 8 lanes (vectorizable; the maximum of non-NaN values does not depend
// on the order, and a NaN anywhere makes the whole row NaN through the sum whatever m is).
float row_max(const float* x, int64_t len) {
  constexpr int64_t kLanes = 8;
  float lane[kLanes];
  for (int64_t j = 0; j < kLanes; ++j) lane[j] = x[0];
  int64_t i = 0;
  for (; i + kLanes <= len; i += kLanes)
    for (int64_t j = 0; j < kLanes; ++j) lane[j] = x[i + j] > lane[j] ? x[i + j] : lane[j];
  float m = x[0];
  for (; i < len; ++i) m = x[i] > m ? x[i] : m;
  for (int64_t j = 0; j < kLanes; ++j) m = lane[j] > m ? lane[j] : m;
  return m;
}

void softmax_row(const float* x, float* y, float* tmp, int64_t len, bool log) {
  const float m = row_max(x, len);
  for (int64_t i = 0; i < len; ++i) tmp[i] = x[i] - m;
  if (log) {
    exp_n(tmp, y, len);
    const float ls = std::log(static_cast<float>(sum_n(y, len)));
    for (int64_t i = 0; i < len; ++i) y[i] = tmp[i] - ls;
  } else {
    exp_n(tmp, y, len);
    const float s = static_cast<float>(sum_n(y, len));
    for (int64_t i = 0; i < len; ++i) y[i] = y[i] / s;
  }
}

void softmax_row(const double* x, double* y, double*, int64_t len, bool log) {
  double m = x[0];
  for (int64_t i = 1; i < len; ++i) m = x[i] > m ? x[i] : m;
  double s = 0;
  for (int64_t i = 0; i < len; ++i) s += std::exp(x[i] - m);
  if (log) {
    const double ls = std::log(s);
    for (int64_t i = 0; i < len; ++i) y[i] = (x[i] - m) - ls;
  } else {
    for (int64_t i = 0; i < len; ++i) y[i] = std::exp(x[i] - m) / s;
  }
}

// A NaN anywhere makes the maximum NaN in the composed path; here it reaches every element
// through the sum, which is the same result (NaN everywhere) without a NaN-aware maximum.
float mean_of(const float* x, int64_t len) { return static_cast<float>(sum_n(x, len) / static_cast<double>(len)); }

void layer_norm_row(const float* x, const float* w, const float* b, float* y, float* tmp, int64_t len, float eps) {
  const float mean = mean_of(x, len);
  for (int64_t i = 0; i < len; ++i) {
    const float d = x[i] - mean;
    y[i] = d;
    tmp[i] = d * d;
  }
  const float rstd = 1.0f / std::sqrt(mean_of(tmp, len) + eps);
  // ((x - mean) * rstd) * w + b, in that order, in one pass
  if (w && b)
    for (int64_t i = 0; i < len; ++i) y[i] = y[i] * rstd * w[i] + b[i];
  else if (w)
    for (int64_t i = 0; i < len; ++i) y[i] = y[i] * rstd * w[i];
  else if (b)
    for (int64_t i = 0; i < len; ++i) y[i] = y[i] * rstd + b[i];
  else
    for (int64_t i = 0; i < len; ++i) y[i] = y[i] * rstd;
}

void layer_norm_row(const double* x, const double* w, const double* b, double* y, double*, int64_t len, double eps) {
  double s = 0;
  for (int64_t i = 0; i < len; ++i) s += x[i];
  const double mean = s / static_cast<double>(len);
  double ss = 0;
  for (int64_t i = 0; i < len; ++i) ss += (x[i] - mean) * (x[i] - mean);
  const double rstd = 1.0 / std::sqrt(ss / static_cast<double>(len) + eps);
  for (int64_t i = 0; i < len; ++i) {
    double v = (x[i] - mean) * rstd;
    if (w) v = v * w[i];
    if (b) v = v + b[i];
    y[i] = v;
  }
}

void exp_of(const float* x, float* y, int64_t n) { exp_n(x, y, n); }
void exp_of(const double* x, double* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::exp(x[i]);
}

// softmax / log_softmax over the middle dim of [outer, L, inner] in blocks of columns (the
// composed path's operations per column: the maximum over the dim, x - max, exp, the sum in
// double rounded to the compute dtype, then e / sum or (x - max) - log(sum)).
template <typename T, typename C>
void softmax_cols_of(const T* x, T* y, int64_t outer, int64_t L, int64_t inner, bool log) {
  constexpr int64_t kBlock = 64;
  const int64_t nb = (inner + kBlock - 1) / kBlock;
  parallel_for(0, outer * nb, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, L * std::min(inner, kBlock))),
               [&](int64_t b, int64_t e) {
    std::vector<C> m(kBlock), z(kBlock), ex(kBlock);
    std::vector<double> s(kBlock);
    std::vector<C> cs(kBlock);
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / nb, i0 = (t % nb) * kBlock, w = std::min(kBlock, inner - i0);
      const T* xb = x + o * L * inner + i0;
      T* yb = y + o * L * inner + i0;
      auto load = [&](int64_t l, C* dst) {
        if constexpr (std::is_same_v<T, C>) std::copy(xb + l * inner, xb + l * inner + w, dst);
        else convert_n(xb + l * inner, dst, w);
      };
      load(0, m.data());
      for (int64_t l = 1; l < L; ++l) {
        load(l, z.data());
        for (int64_t i = 0; i < w; ++i) m[i] = z[i] > m[i] ? z[i] : m[i];
      }
      std::fill(s.begin(), s.end(), 0.0);
      for (int64_t l = 0; l < L; ++l) {
        load(l, z.data());
        for (int64_t i = 0; i < w; ++i) z[i] = z[i] - m[i];
        exp_of(z.data(), ex.data(), w);
        for (int64_t i = 0; i < w; ++i) s[i] += static_cast<double>(ex[i]);
      }
      for (int64_t i = 0; i < w; ++i) cs[i] = log ? std::log(static_cast<C>(s[i])) : static_cast<C>(s[i]);
      for (int64_t l = 0; l < L; ++l) {
        load(l, z.data());
        for (int64_t i = 0; i < w; ++i) z[i] = z[i] - m[i];
        if (log) {
          for (int64_t i = 0; i < w; ++i) z[i] = z[i] - cs[i];
        } else {
          exp_of(z.data(), ex.data(), w);
          for (int64_t i = 0; i < w; ++i) z[i] = ex[i] / cs[i];
        }
        if constexpr (std::is_same_v<T, C>) std::copy(z.data(), z.data() + w, yb + l * inner);
        else convert_n(z.data(), yb + l * inner, w);
      }
    }
  });
}

// Runs row(x, y, tmp) over the rows in parallel: C is the compute type; rows of T are widened
// into a per-thread buffer first and narrowed back after (float16/bfloat16).
template <typename T, typename C, typename F>
void for_rows(const void* in, void* out, int64_t rows, int64_t len, const F& row) {
  const T* x = static_cast<const T*>(in);
  T* y = static_cast<T*>(out);
  parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(len, 1)), [&](int64_t lo, int64_t hi) {
    // the row computed in a per-thread buffer that stays in cache, written out once
    std::vector<C> tmp(static_cast<size_t>(len)), wide(static_cast<size_t>(len));
    for (int64_t r = lo; r < hi; ++r) {
      if constexpr (!std::is_same_v<T, C>) {
        convert_n(x + r * len, wide.data(), len);
        row(wide.data(), wide.data(), tmp.data());
        convert_n(wide.data(), y + r * len, len);
      } else {
        row(x + r * len, wide.data(), tmp.data());
        std::copy(wide.data(), wide.data() + len, y + r * len);
      }
    }
  });
}

template <typename F>
void dispatch_rows(DType dtype, const char* op, const void* in, void* out, int64_t rows, int64_t len, const F& row) {
  switch (dtype) {
    case DType::Float32: for_rows<float, float>(in, out, rows, len, row); return;
    case DType::Float16: for_rows<Half, float>(in, out, rows, len, row); return;
    case DType::BFloat16: for_rows<BFloat16, float>(in, out, rows, len, row); return;
    case DType::Float64: for_rows<double, double>(in, out, rows, len, row); return;
    default: fail(Status::Internal, op, ": unsupported dtype ", dtype_name(dtype));
  }
}

}  // namespace

void softmax_rows(const void* in, void* out, int64_t rows, int64_t len, DType dtype, bool log) {
  if (rows == 0 || len == 0) return;
  dispatch_rows(dtype, "softmax_rows", in, out, rows, len,
                [&](const auto* x, auto* y, auto* tmp) { softmax_row(x, y, tmp, len, log); });
}

void softmax_cols(const void* in, void* out, int64_t outer, int64_t L, int64_t inner, DType dtype, bool log) {
  if (outer * L * inner == 0) return;
  switch (dtype) {
    case DType::Float32:
      return softmax_cols_of<float, float>(static_cast<const float*>(in), static_cast<float*>(out), outer, L, inner, log);
    case DType::Float16:
      return softmax_cols_of<Half, float>(static_cast<const Half*>(in), static_cast<Half*>(out), outer, L, inner, log);
    case DType::BFloat16:
      return softmax_cols_of<BFloat16, float>(static_cast<const BFloat16*>(in), static_cast<BFloat16*>(out), outer, L,
                                              inner, log);
    case DType::Float64:
      return softmax_cols_of<double, double>(static_cast<const double*>(in), static_cast<double*>(out), outer, L, inner,
                                             log);
    default: fail(Status::Internal, "softmax_cols: unsupported dtype ", dtype_name(dtype));
  }
}

void layer_norm_rows(const void* in, const void* weight, const void* bias, void* out, int64_t rows, int64_t len,
                     DType dtype, double eps) {
  if (rows == 0 || len == 0) return;
  dispatch_rows(dtype, "layer_norm_rows", in, out, rows, len, [&](const auto* x, auto* y, auto* tmp) {
    using C = std::remove_const_t<std::remove_pointer_t<decltype(x)>>;
    layer_norm_row(x, static_cast<const C*>(weight), static_cast<const C*>(bias), y, tmp, len, static_cast<C>(eps));
  });
}

}  // namespace ct::cpu
