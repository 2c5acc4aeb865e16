// Welford's running (count, mean, sum of squared deviations) and Chan et al.'s combination of
// two, shared by the row kernels of var/std (rowfuncs.cu) and the reduction engine's in-place
// var (reduce.cu, Note [var in place]).
#pragma once
#include <cstdint>

namespace ct::cuda_ops {

// A partial without elements (n == 0) adds nothing.
template <typename A>
struct Welford {
  int64_t n;
  A mean, m2;
};

template <typename A>
struct WelfordOp {
  __device__ __forceinline__ Welford<A> operator()(const Welford<A>& a, const Welford<A>& b) const {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const int64_t n = a.n + b.n;
    const A d = b.mean - a.mean, fb = static_cast<A>(b.n) / static_cast<A>(n);
    return {n, a.mean + d * fb, a.m2 + b.m2 + d * d * static_cast<A>(a.n) * fb};
  }
};

// M2 / max(0, n - correction) (x / 0: inf, 0 / 0: NaN, as PyTorch), its root for std.
template <typename A>
__device__ __forceinline__ A welford_var(const Welford<A>& w, double correction, bool take_sqrt) {
  const double dof = static_cast<double>(w.n) - correction;
  const A v = w.m2 / static_cast<A>(dof > 0 ? dof : 0.0);
  return take_sqrt ? sqrt(v) : v;
}

}  // namespace ct::cuda_ops
