// The elementwise functions with extra arguments on CUDA (impl/ops/cuda/ewfuncs.h): one kernel
// per op and dtype, each the element function of impl/ops/ewfuncs_fn.h (the CPU's too) in the
// engine's kernels (Note [CUDA elementwise kernels], impl/ops/cuda/ew.cuh). Dtypes an op does
// not take are not instantiated.
#include "impl/ops/cuda/ewfuncs.h"
#include "impl/ops/cuda/functors.cuh"
#include "impl/ops/ewfuncs_fn.h"

namespace ct::cuda_ops {

namespace {

// A functor of impl/ops/ewfuncs_fn.h as a kernel functor of one op (kOps 1).
template <typename FN>
struct Fn {
  static constexpr int kOps = 1;
  FN fn;
  template <int, typename... A>
  __device__ auto run(A... x) const { return fn(x...); }
};
template <typename FN>
Fn<FN> fn_of(const FN& f) { return Fn<FN>{f}; }

template <typename C>
constexpr bool is_float_v = std::is_floating_point_v<opmath_t<C>>;
template <typename C>
constexpr bool is_float_or_complex_v = is_float_v<C> || is_complex_v<C>;

[[noreturn]] void bad_dtype(const char* op) { fail(Status::Internal, op, ": unexpected dtype"); }

}  // namespace

void gelu(const Iter<2>& it, DType common, bool tanh_approx, void* stream) {
  ew_entry(common, "gelu kernel", stream, [&](auto c, cudaStream_t s) {
    using C = typename decltype(c)::type;
    if constexpr (is_float_v<C>) launch_ew<C, C>(it, fn_of(ewfn::Gelu{tanh_approx}), s);
    else bad_dtype("gelu");
  });
}

void nan_to_num(const Iter<2>& it, DType common, double nan, double posinf, double neginf, void* stream) {
  ew_entry(common, "nan_to_num kernel", stream, [&](auto c, cudaStream_t s) {
    using C = typename decltype(c)::type;
    if constexpr (is_float_or_complex_v<C>) {
      using T = opmath_t<C>;
      using V = std::remove_cv_t<decltype(ewfn::abs_(T()))>;  // the real type
      launch_ew<C, C>(it, fn_of(ewfn::NanToNum<V>{V(nan), V(posinf), V(neginf)}), s);
    } else {
      bad_dtype("nan_to_num");
    }
  });
}

void clamp_tensor(const Iter<4>& it, DType common, void* stream) {
  ew_entry(common, "clamp kernel", stream, [&](auto c, cudaStream_t s) {
    using C = typename decltype(c)::type;
    if constexpr (!is_complex_v<C> && !std::is_same_v<C, bool>) launch_ew<C, C>(it, fn_of(ewfn::ClampBoth{}), s);
    else bad_dtype("clamp");
  });
}

void lerp_tensor(const Iter<4>& it, DType common, void* stream) {
  ew_entry(common, "lerp kernel", stream, [&](auto c, cudaStream_t s) {
    using C = typename decltype(c)::type;
    if constexpr (is_float_or_complex_v<C>) launch_ew<C, C>(it, fn_of(ewfn::LerpTensor{}), s);
    else bad_dtype("lerp");
  });
}

void lerp_scalar(const Iter<3>& it, DType common, double weight, void* stream) {
  ew_entry(common, "lerp kernel", stream, [&](auto c, cudaStream_t s) {
    using C = typename decltype(c)::type;
    using T = opmath_t<C>;
    if constexpr (is_float_or_complex_v<C>) launch_ew<C, C>(it, fn_of(ewfn::LerpScalar<T>{T(weight)}), s);
    else bad_dtype("lerp");
  });
}

void addcmul(const Iter<4>& it, DType common, double value, void* stream) {
  ew_entry(common, "addcmul kernel", stream, [&](auto c, cudaStream_t s) {
    using C = typename decltype(c)::type;
    using T = opmath_t<C>;
    if constexpr (std::is_same_v<C, bool>) {
      bad_dtype("addcmul");
    } else {
      T v;
      if constexpr (std::is_integral_v<T>) v = static_cast<T>(static_cast<int64_t>(value));
      else v = T(value);
      launch_ew<C, C>(it, fn_of(ewfn::Addcmul<T>{v}), s);
    }
  });
}

void addcdiv(const Iter<4>& it, DType common, double value, void* stream) {
  ew_entry(common, "addcdiv kernel", stream, [&](auto c, cudaStream_t s) {
    using C = typename decltype(c)::type;
    using T = opmath_t<C>;
    if constexpr (is_float_or_complex_v<C>) launch_ew<C, C>(it, fn_of(ewfn::Addcdiv<T>{T(value)}), s);
    else bad_dtype("addcdiv");
  });
}

void isclose(const Iter<3>& it, DType common, double rtol, double atol, bool equal_nan, void* stream) {
  ew_entry(common, "isclose kernel", stream, [&](auto c, cudaStream_t s) {
    using C = typename decltype(c)::type;
    using T = opmath_t<C>;
    if constexpr (std::is_same_v<C, bool>) {
      bad_dtype("isclose");
    } else {
      using F = ewfn::IsClose<C, T>;
      using V = typename F::V;
      launch_ew<C, bool>(it, fn_of(F{V(rtol), V(atol), equal_nan}), s);
    }
  });
}

}  // namespace ct::cuda_ops
