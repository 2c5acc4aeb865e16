// Scans (torch.cumsum, cumprod, cummax, cummin, logcumsumexp): the description of one scan both
// devices run, the element rules they share (compiled by gcc and nvcc, so the CPU and CUDA give
// the same values up to the order of floating additions), and the CPU kernel.
// Note [Scan layout]: impl/ops/scan.cc hands the kernels a contiguous input viewed as [O, L, I]
// (O = the sizes before the scanned dim, L = its size, I = the sizes after it) in a kernel dtype
// (int64, float16, bfloat16, float32, float64, complex64, complex128: narrower integers and bool
// are widened to int64 first, which gives the same wraparound and the same order), and
// contiguous outputs of that shape in the same dtype (plus int64 indices for cummax/cummin).
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#ifdef __CUDACC__
#include <cuda/std/limits>
#endif

#include "impl/core/dtype.h"
#include "impl/ops/cpu/convert.h"
#include "impl/ops/scalar_ops.h"

namespace ct {

enum class ScanKind { Sum, Prod, LogSumExp, Max, Min };

struct ScanArgs {
  ScanKind kind = ScanKind::Sum;
  DType dtype = DType::Float32;  // the kernel dtype (Note [Scan layout])
  const void* in = nullptr;
  void* out = nullptr;
  int64_t* indices = nullptr;  // cummax / cummin only
  int64_t O = 1, L = 1, I = 1;
};

namespace scan_math {

// The real math of the device compiling the code (as pow_ in scalar_ops.h).
#ifdef __CUDA_ARCH__
#define CT_SCAN_MATH(f) ::f
#else
#define CT_SCAN_MATH(f) std::f
#endif
#ifdef __CUDACC__
template <typename T> using limits = ::cuda::std::numeric_limits<T>;
#else
template <typename T> using limits = std::numeric_limits<T>;
#endif

template <typename T>
CT_HOST_DEVICE inline bool isnan_(const T& v) {
  if constexpr (is_complex_v<T>) return v.real() != v.real() || v.imag() != v.imag();
  else if constexpr (std::is_floating_point_v<T>) return v != v;
  else return false;
}

// Complex exp, log and log1p from real parts only (std::complex on the CPU, thrust::complex on
// CUDA): exp(x + 0i) is exactly (exp(x), 0), also for x = +inf.
template <typename T>
CT_HOST_DEVICE inline T cexp_(const T& z) {
  using R = typename T::value_type;
  R m = CT_SCAN_MATH(exp)(z.real());
  if (z.imag() == R(0)) return T(m, z.imag());
  return T(m * CT_SCAN_MATH(cos)(z.imag()), m * CT_SCAN_MATH(sin)(z.imag()));
}
template <typename T>
CT_HOST_DEVICE inline T clog_(const T& z) {
  return T(CT_SCAN_MATH(log)(CT_SCAN_MATH(hypot)(z.real(), z.imag())), CT_SCAN_MATH(atan2)(z.imag(), z.real()));
}
// log(1 + z), accurate for small |z| (as c10's complex log1p).
template <typename T>
CT_HOST_DEVICE inline T clog1p_(const T& z) {
  using R = typename T::value_type;
  R x = z.real(), y = z.imag();
  R theta = CT_SCAN_MATH(atan2)(y, x + R(1));
  if (CT_SCAN_MATH(hypot)(x, y) < R(0.5)) {
    R r = x * (R(2) + x) + y * y;
    if (r == R(0)) return T(x, theta);
    return T(R(0.5) * CT_SCAN_MATH(log1p)(r), theta);
  }
  return T(CT_SCAN_MATH(log)(CT_SCAN_MATH(hypot)(x + R(1), y)), theta);
}

// log(exp(x) + exp(y)) as torch's _log_add_exp_helper: x the new element, y the running value.
// NaN propagates; two equal infinities give that infinity (not inf - inf). Complex: the operand
// with the smaller real part is the "min"; two -inf real parts give the min itself.
template <typename T>
CT_HOST_DEVICE inline T log_add_exp(const T& x, const T& y) {
  if constexpr (is_complex_v<T>) {
    using R = typename T::value_type;
    T mn = y, mx = x;
    if (isnan_(y)) mn = mx = y;
    else if (isnan_(x)) mn = mx = x;
    else if (x.real() < y.real()) mn = x, mx = y;
    if (isnan_(mn)) return T(limits<R>::quiet_NaN(), limits<R>::quiet_NaN());
    if (!CT_SCAN_MATH(isfinite)(mn.real()) && mn.real() == mx.real()) {
      if (mn.real() < R(0)) return mn;
      return clog_(cexp_(mn) + cexp_(mx));
    }
    return clog1p_(cexp_(mn - mx)) + mx;
  } else {
    T mn = isnan_(y) ? y : (y < x ? y : x);
    T mx = isnan_(y) ? y : (x < y ? y : x);
    if (mn != mx || CT_SCAN_MATH(isfinite)(mn)) return CT_SCAN_MATH(log1p)(CT_SCAN_MATH(exp)(mn - mx)) + mx;
    return x;
  }
}

// The running value of cumsum / cumprod / logcumsumexp after `a` (everything before) is
// combined with `b` (what follows): integers wrap (two's complement) as torch's int64.
template <typename T>
CT_HOST_DEVICE inline T combine(ScanKind k, const T& a, const T& b) {
  if (k == ScanKind::Sum) return w_add(a, b);
  if (k == ScanKind::Prod) return w_mul(a, b);
  if constexpr (std::is_floating_point_v<T> || is_complex_v<T>) return log_add_exp(b, a);
  else return a;  // logcumsumexp has no integer kernel (checked by the op)
}

// The value combine() starts from: 0, 1, -inf.
template <typename T>
CT_HOST_DEVICE inline T identity(ScanKind k) {
  if (k == ScanKind::Sum) return T(0);
  if (k == ScanKind::Prod) return T(1);
  if constexpr (std::is_floating_point_v<T>) return -limits<T>::infinity();
  else if constexpr (is_complex_v<T>) return T(-limits<typename T::value_type>::infinity(), 0);
  else return T(0);
}

// cummax / cummin: the running extreme and the index it came from. i < 0 is the empty prefix.
template <typename T>
struct ValIdx {
  T v;
  int64_t i;
};

// torch's rule (cummax_cummin_helper on the CPU, binary_op_update on CUDA): the later element b
// wins when it is NaN, or when nothing before was NaN and b >= a (cummax; <= for cummin): equal
// extremes report the last index, and a NaN the index of the last NaN so far.
template <typename T>
CT_HOST_DEVICE inline ValIdx<T> extreme(bool is_max, const ValIdx<T>& a, const ValIdx<T>& b) {
  if (a.i < 0) return b;
  bool take_b = isnan_(b.v) || (!isnan_(a.v) && (is_max ? b.v >= a.v : b.v <= a.v));
  return take_b ? b : a;
}

}  // namespace scan_math

namespace cpu {
// Runs a (Note [Scan layout]) on the host, over threads.
void scan(const ScanArgs& a);
}  // namespace cpu

}  // namespace ct
