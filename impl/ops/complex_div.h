// Complex division as PyTorch's c10::complex (numpy's algorithm), shared by the CPU and CUDA
// kernels so both devices give the same results: a scaled division that avoids overflow,
// and x / 0 gives (re / 0, im / 0), i.e. a complex inf or nan.
#pragma once

#ifdef __CUDACC__
#define CT_HOST_DEVICE __host__ __device__
#else
#define CT_HOST_DEVICE
#endif

namespace ct {

template <typename C>
CT_HOST_DEVICE inline C complex_div(const C& x, const C& y) {
  using T = decltype(x.real());
  T a = x.real(), b = x.imag(), c = y.real(), d = y.imag();
  T abs_c = c < 0 ? -c : c, abs_d = d < 0 ? -d : d;
  if (abs_c >= abs_d) {
    if (abs_c == T(0) && abs_d == T(0)) return C(a / abs_c, b / abs_d);
    T rat = d / c;
    T scl = T(1) / (c + d * rat);
    return C((a + b * rat) * scl, (b - a * rat) * scl);
  }
  T rat = c / d;
  T scl = T(1) / (d + c * rat);
  return C((a * rat + b) * scl, (b * rat - a) * scl);
}

}  // namespace ct
