// Unary elementwise ops and clamp on CUDA (Note [CUDA elementwise kernels]).
#include "impl/ops/cuda/functors.cuh"

namespace ct::cuda_ops {

namespace {
template <typename C>
void unary_t(UnaryOp op, const Iter<2>& it, cudaStream_t s) {
  using T = opmath_t<C>;
  if (op == UnaryOp::LogicalNot) {
    launch_ew<C, bool>(it, LogicalNot<T>{}, s);
    return;
  }
  if (abi::info(op).bool_result) {  // isnan, isinf, isfinite
    launch_ew<C, bool>(it, UnaryPredicate<T>{static_cast<int>(op)}, s);
    return;
  }
  if constexpr (is_complex_v<C>) {
    if (op == UnaryOp::Abs) {
      launch_ew<C, typename C::value_type>(it, AbsComplex<T>{}, s);
      return;
    }
  }
  launch_ew<C, C>(it, UnaryMath<T>{static_cast<int>(op)}, s);
}
}  // namespace

void unary(UnaryOp op, const Iter<2>& it, DType common, void* stream) {
  ew_entry(common, "unary kernel", stream, [&](auto c, cudaStream_t s) { unary_t<typename decltype(c)::type>(op, it, s); });
}

void clamp(const Iter<2>& it, DType common, bool has_lo, double lo, bool has_hi, double hi, void* stream) {
  switch (common) {
    case DType::Bool: case DType::Complex64: case DType::Complex128:
      fail(Status::Internal, "clamp: unexpected dtype");
    default:
      break;
  }
  ew_entry(common, "clamp kernel", stream, [&](auto c, cudaStream_t s) {
    using C = typename decltype(c)::type;
    using T = opmath_t<C>;
    if constexpr (!is_complex_v<C> && !std::is_same_v<C, bool>) {
      // integral bounds through int64 (no undefined float -> narrow int conversion)
      auto bound = [](double v) {
        if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<int64_t>(v));
        else return static_cast<T>(v);
      };
      launch_ew<C, C>(it, Clamp<T>{bound(lo), bound(hi), has_lo, has_hi}, s);
    }
  });
}

}  // namespace ct::cuda_ops
