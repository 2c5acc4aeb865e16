// Binary elementwise ops on CUDA (Note [CUDA elementwise kernels]).
#include <cstring>

#include "impl/ops/cuda/functors.cuh"

namespace ct::cuda_ops {

namespace {

// Note [pow with a scalar exponent]: as PyTorch's pow_tensor_scalar_kernel, a floating base
// raised to a CPU scalar (a Python number or a 0-dim CPU tensor) drops the exponent operand and
// runs a unary kernel: 0.5 -> sqrt, -0.5 -> rsqrt, -1 -> reciprocal (all in opmath), and with the
// exponent converted to the base's dtype first, 2 -> x*x, 3 -> x*x*x, -2 -> 1/(x*x) (products
// rounded to the dtype in between, as c10::Half arithmetic does), otherwise pow(x, e).
enum PowMode { kPowGeneral, kPowSquare, kPowCube, kPowInvSquare, kPowSqrt, kPowRsqrt, kPowReciprocal, kPowModes };

template <typename C>
struct PowScalar {
  using T = opmath_t<C>;
  static constexpr int kOps = kPowModes;
  int op;  // PowMode
  T e;     // the exponent, rounded to C
  template <int OP>
  __device__ T run(T x) const {
    auto r = [](T v) { return static_cast<T>(convert<C>(v)); };  // rounding to C (no-op for float/double)
    if constexpr (OP == kPowSquare) return x * x;
    else if constexpr (OP == kPowCube) return r(x * x) * x;
    else if constexpr (OP == kPowInvSquare) return T(1) / r(x * x);
    else if constexpr (OP == kPowSqrt) return sqrt(x);
    else if constexpr (OP == kPowRsqrt) return rsqrt(x);
    else if constexpr (OP == kPowReciprocal) return T(1) / x;
    else return pow(x, e);
  }
};

// The exponent of a CPU scalar operand as a double, if its dtype is real and not reduced.
bool scalar_exponent(const Iter<3>& it, double* e) {
  const auto d = static_cast<DType>(it.dtype[2]);
  if (d == DType::Float16 || d == DType::BFloat16 || d == DType::Complex64 || d == DType::Complex128) return false;
  *e = host_scalar<double>(it.scalar[2], it.dtype[2]);
  return true;
}

template <typename C>
bool pow_scalar(const Iter<3>& it, cudaStream_t s) {
  constexpr bool floating = std::is_floating_point_v<C> || is_reduced_float_v<C>;
  double e = 0;
  if constexpr (!floating) {
    return false;
  } else {
    if ((it.scalar_mask & 6u) != 4u || !scalar_exponent(it, &e)) return false;
    using T = opmath_t<C>;
    // the exponent in the base's dtype (host rounding matches the device's for float/double;
    // for float16/bfloat16 only exact 2, 3 and -2 take the product forms)
    const double ec = std::is_same_v<C, float> ? static_cast<double>(static_cast<float>(e)) : e;
    int mode = e == 0.5 ? kPowSqrt : e == -0.5 ? kPowRsqrt : e == -1.0 ? kPowReciprocal
             : ec == 2.0 ? kPowSquare : ec == 3.0 ? kPowCube : ec == -2.0 ? kPowInvSquare : kPowGeneral;
    Iter<2> u;
    u.ndim = it.ndim;
    u.numel = it.numel;
    for (int d = 0; d < it.ndim; ++d) u.sizes[d] = it.sizes[d];
    for (int k = 0; k < 2; ++k) {
      for (int d = 0; d < it.ndim; ++d) u.strides[k][d] = it.strides[k][d];
      u.data[k] = it.data[k];
      u.dtype[k] = it.dtype[k];
    }
    T ev;
    if constexpr (is_reduced_float_v<C>) ev = static_cast<float>(std::is_same_v<C, half> ? static_cast<float>(__double2half(e)) : static_cast<float>(__double2bfloat16(e)));
    else ev = static_cast<T>(e);
    launch_ew<C, C>(u, PowScalar<C>{mode, ev}, s);
    return true;
  }
}

// Note [Mixed float32 and half operands]: float32 with float16 or bfloat16 operands (a float32
// master copy and half activations) is the common mixed-dtype case: those pairs have typed
// kernels (vectorized when contiguous), others take the dynamic-cast kernel.
template <typename R, typename F>
bool mixed_float(const Iter<3>& it, const F& f, cudaStream_t s) {
  return launch_typed<float, half, float, R, false>(it, f, s) || launch_typed<half, float, float, R, false>(it, f, s) ||
         launch_typed<float, bf16, float, R, false>(it, f, s) || launch_typed<bf16, float, float, R, false>(it, f, s);
}

// Note [Division by a CPU scalar]: torch.cuda divides by a CPU scalar (a Python number or a
// 0-dim CPU tensor) as a multiplication by its reciprocal, computed once on the host in op-math
// from the scalar cast to the common dtype (div_true_kernel_cuda: "this may lose one bit of
// precision compared to computing the division"). ctorch does the same, so its quotients are
// torch.cuda's bit for bit; the CPU divides, as PyTorch's CPU kernel does (so a CPU and a CUDA
// quotient by a scalar may differ in the last bit, as they do in PyTorch).
template <typename C>
bool div_by_reciprocal(const Iter<3>& it, cudaStream_t s) {
  using T = opmath_t<C>;
  if constexpr (!(std::is_floating_point_v<T> || is_complex_v<T>)) {
    return false;
  } else {
    if (!((it.scalar_mask >> 2) & 1u)) return false;
    const T b = convert<T>(host_scalar<C>(it.scalar[2], it.dtype[2]));
    T inv;
    if constexpr (is_complex_v<T>) inv = complex_div(T(1), b);
    else inv = T(1) / b;
    Iter<3> m = it;
    m.dtype[2] = dtype_code<T>();
    set_scalar(m, 2, &inv, sizeof(T));
    launch_ew<C, C>(m, BinaryOfGroup<T, BinaryGroup::Light>{static_cast<int>(BinaryOp::Mul)}, s);
    return true;
  }
}

template <typename C>
void binary_t(BinaryOp op, const Iter<3>& it, cudaStream_t s) {
  using T = opmath_t<C>;
  const bool mixed = std::is_same_v<C, float> && !it.scalar_mask && it.dtype[1] != it.dtype[2];
  auto run = [&](auto group) {
    constexpr BinaryGroup G = decltype(group)::value;
    using R = std::conditional_t<G == BinaryGroup::Bool, bool, C>;
    const BinaryOfGroup<T, G> f{static_cast<int>(op)};
    if constexpr (std::is_same_v<C, float>)
      if (mixed && mixed_float<std::conditional_t<G == BinaryGroup::Bool, bool, float>>(it, f, s)) return;
    launch_ew<C, R>(it, f, s);
  };
  switch (binary_group(op)) {
    case BinaryGroup::Bool: run(std::integral_constant<BinaryGroup, BinaryGroup::Bool>{}); return;
    case BinaryGroup::Light:
      if (op == BinaryOp::Div && div_by_reciprocal<C>(it, s)) return;
      run(std::integral_constant<BinaryGroup, BinaryGroup::Light>{});
      return;
    case BinaryGroup::Heavy:
      if (op == BinaryOp::Pow && pow_scalar<C>(it, s)) return;
      run(std::integral_constant<BinaryGroup, BinaryGroup::Heavy>{});
      return;
  }
}
}  // namespace

void binary(BinaryOp op, const Iter<3>& it, DType common, void* stream) {
  ew_entry(common, "binary kernel", stream, [&](auto c, cudaStream_t s) { binary_t<typename decltype(c)::type>(op, it, s); });
}

}  // namespace ct::cuda_ops
