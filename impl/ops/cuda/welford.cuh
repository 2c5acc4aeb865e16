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

// Note [Infinite means]: the mean of partials (ma over na elements, mb over nb; fb = nb / (na +
// nb), d = mb - ma) is ma + d * fb, Welford's form, except where d is not finite: an infinite
// mean then meets a finite one (d = -inf + ... = NaN in that form) and the weighted average
// ma * (1 - fb) + mb * fb keeps the infinity, so the mean of finite values and +inf is +inf (as
// the CPU's sum / n), and of +inf and -inf NaN. PyTorch's Welford gives NaN for the first.
template <typename A>
__device__ __forceinline__ A merged_mean(A ma, A mb, A fb) {
  const A d = mb - ma;
  return isfinite(d) ? ma + d * fb : ma * (A(1) - fb) + mb * fb;
}

template <typename A>
struct WelfordOp {
  __device__ __forceinline__ Welford<A> operator()(const Welford<A>& a, const Welford<A>& b) const {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const int64_t n = a.n + b.n;
    const A d = b.mean - a.mean, fb = static_cast<A>(b.n) / static_cast<A>(n);
    return {n, merged_mean(a.mean, b.mean, fb), a.m2 + b.m2 + d * d * static_cast<A>(a.n) * fb};
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
