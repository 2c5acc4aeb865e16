// Elementwise operations: dtype rules, then one pass of the elementwise engine (Note
// [Elementwise engine] in ops/cpu/loops.h) on either device.
//
// Note [No promotion temporaries]: an op reads every operand in its own dtype and converts each
// element as it loads it: to the op's common dtype C (torch.result_type), then to C's op-math
// type (float for float16/bfloat16, Note [Compute dtype]); the result is rounded to C (or is a
// bool) and converted into the output's dtype as it is stored. That is PyTorch's arithmetic
// (an int32 + float16 add rounds the int32 to float16 first; a float16 add rounds once), done
// without the converted copies of the inputs or the output that a convert-first design needs:
// the only tensor an op allocates is its result (none for in-place forms), which the CUDA suite
// checks with the allocator's counters (tests/capi/layout_test.c). CPU scalars (0-dim CPU
// tensors and wrapped numbers) are converted once, straight to the op-math type, as PyTorch's
// original_scalar_value<opmath_t>; on CUDA they travel in the kernel parameters.
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

#include "impl/core/error.h"
#include "impl/ops/complex_div.h"
#include "impl/ops/scalar_ops.h"
#include "impl/ops/cpu/apply.h"
#include "impl/ops/cpu/convert.h"
#include "impl/ops/cpu/loops.h"
#include "impl/ops/cpu/simd.h"
#include "impl/ops/cpu_ew.h"
#include "impl/ops/cuda_dispatch.h"
#include "impl/ops/ops.h"

namespace ct::ops {

using cpu::is_complex_v;
using namespace ew;  // the CPU engine (cpu_ew.h)

namespace {


[[noreturn]] void not_implemented(const char* op, DType d) {
  fail(Status::DType, "\"", op, "\" not implemented for '", dtype_short(d), "'");
}

template <typename T> T div_(T x, T y) {
  if constexpr (is_complex_v<T>) return complex_div(x, y);
  else return x / y;
}


}  // namespace

// In-place targets: no element written twice (PyTorch's assert_no_internal_overlap).
void check_no_internal_overlap(const TensorImpl* t) {
  for (int64_t d = 0; d < t->dim(); ++d) {
    CT_CHECK(!(t->strides[d] == 0 && t->sizes[d] > 1), Status::Argument,
             "unsupported operation: more than one element of the written-to tensor refers to a single memory "
             "location. Please clone() the tensor before performing the operation.");
  }
}

// An input that shares memory with the output without being the very same view would be read
// after being written: such inputs are cloned first.
Tensor unaliased(const Tensor& in, const TensorImpl* out) {
  if (in->storage != out->storage) return in;
  if (in->offset == out->offset && in->sizes == out->sizes && in->strides == out->strides && in->dtype == out->dtype)
    return in;
  return clone(in);
}

namespace {

// ---------------------------------------------------------------------------------------------
// Unary ops

bool is_float_op(UnaryOp op) { return abi::info(op).to_float; }

// Output dtype of a unary op; throws for unsupported dtypes.
DType unary_result(UnaryOp op, DType d) {
  const char* name = unary_name(op);
  if (abi::info(op).bool_result) return DType::Bool;  // isnan, isinf, isfinite: every dtype
  switch (op) {
    case UnaryOp::Neg:
      CT_CHECK(d != DType::Bool, Status::DType,
               "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
               "to invert a mask, use the `~` or `logical_not()` operator instead.");
      return d;
    case UnaryOp::Abs:
      return is_complex(d) ? to_real(d) : d;
    case UnaryOp::Relu:
      if (d == DType::Bool || is_complex(d)) not_implemented(name, d);
      return d;
    case UnaryOp::LogicalNot:
      return DType::Bool;
    case UnaryOp::Sign:
      CT_CHECK(!is_complex(d), Status::DType,
               "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use "
               "torch.sgn instead.");
      return d;
    case UnaryOp::Floor: case UnaryOp::Ceil: case UnaryOp::Round:
      if (is_complex(d)) not_implemented(name, d);
      return d;
    case UnaryOp::Square:
      return d == DType::Bool ? DType::Int64 : d;
    case UnaryOp::Silu:  // floating and complex only (no promotion)
      if (!is_floating(d) && !is_complex(d)) not_implemented(name, d);
      return d;
    case UnaryOp::Erf:
      if (is_complex(d)) not_implemented(name, d);
      return is_integral(d, true) ? kDefaultFloat : d;
    default:
      return is_integral(d, true) ? kDefaultFloat : d;  // float ops
  }
}

// std::exp; for float also on whole runs (cpu::exp_n, the same bits: Note [CPU SIMD kernels]).
template <typename T>
struct ExpOp {
  T operator()(T x) const { return std::exp(x); }
};
template <>
struct ExpOp<float> {
  float operator()(float x) const { return std::exp(x); }
  void operator()(const float* x, float* y, int64_t n) const { cpu::exp_n(x, y, n); }
};

template <typename C>
void run_unary(UnaryOp op, const Operands<2>& args) {
  using T = cpu::opmath_t<C>;
  using R = C;
  switch (op) {
    case UnaryOp::Neg:
      // -x, not 0 - x: neg(+0.0) is -0.0 as in PyTorch; integers wrap (INT_MIN stays INT_MIN).
      if constexpr (is_int_v<T>) cpu_ew<C, R>(args, [](T x) { return w_sub(T(0), x); });
      else if constexpr (!std::is_same_v<T, bool>) cpu_ew<C, R>(args, [](T x) { return T(-x); });
      return;
    case UnaryOp::Abs:
      if constexpr (is_complex_v<T>) {
        using V = typename T::value_type;
        cpu_ew<C, V>(args, [](T x) { return std::abs(x); });
      } else if constexpr (is_int_v<T> && std::is_signed_v<T>) {
        cpu_ew<C, R>(args, [](T x) { return x < 0 ? w_sub(T(0), x) : x; });
      } else if constexpr (std::is_floating_point_v<T>) {
        cpu_ew<C, R>(args, [](T x) { return std::fabs(x); });
      } else {
        cpu_ew<C, R>(args, [](T x) { return x; });
      }
      return;
    case UnaryOp::Relu:
      if constexpr (!is_complex_v<T> && !std::is_same_v<T, bool>) {
        cpu_ew<C, R>(args, [](T x) { return (x != x) ? x : (x > T(0) ? x : T(0)); });
      }
      return;
    case UnaryOp::LogicalNot:
      cpu_ew<C, bool>(args, [](T x) { return x == T(0); });
      return;
    case UnaryOp::Sign:
      if constexpr (!is_complex_v<T>) {
        if constexpr (std::is_same_v<T, bool>) cpu_ew<C, R>(args, [](T x) { return x; });
        else cpu_ew<C, R>(args, [](T x) { return static_cast<T>((T(0) < x) - (x < T(0))); });
      }
      return;
    case UnaryOp::Floor: case UnaryOp::Ceil: case UnaryOp::Round:
      if constexpr (std::is_floating_point_v<T>) {
        if (op == UnaryOp::Floor) cpu_ew<C, R>(args, [](T x) { return std::floor(x); });
        else if (op == UnaryOp::Ceil) cpu_ew<C, R>(args, [](T x) { return std::ceil(x); });
        else cpu_ew<C, R>(args, [](T x) { return std::nearbyint(x); });
      } else if constexpr (!is_complex_v<T>) {
        cpu_ew<C, R>(args, [](T x) { return x; });
      }
      return;
    case UnaryOp::Square:
      cpu_ew<C, R>(args, [](T x) { return w_mul(x, x); });
      return;
    case UnaryOp::Isnan: cpu_ew<C, bool>(args, unary_fn::IsNan{}); return;
    case UnaryOp::Isinf: cpu_ew<C, bool>(args, unary_fn::IsInf{}); return;
    case UnaryOp::Isfinite: cpu_ew<C, bool>(args, unary_fn::IsFinite{}); return;
    case UnaryOp::Erf:
      if constexpr (std::is_floating_point_v<T>) cpu_ew<C, R>(args, unary_fn::Erf{});
      return;
    case UnaryOp::Silu:
      if constexpr (std::is_floating_point_v<T> || is_complex_v<T>) cpu_ew<C, R>(args, unary_fn::Silu{});
      return;
    default:
      break;
  }
  if constexpr (std::is_floating_point_v<T> || is_complex_v<T>) {
    switch (op) {
      case UnaryOp::Exp: cpu_ew<C, R>(args, ExpOp<T>{}); return;
      case UnaryOp::Log: cpu_ew<C, R>(args, [](T x) { return std::log(x); }); return;
      case UnaryOp::Sqrt: cpu_ew<C, R>(args, [](T x) { return std::sqrt(x); }); return;
      case UnaryOp::Sin: cpu_ew<C, R>(args, [](T x) { return std::sin(x); }); return;
      case UnaryOp::Cos: cpu_ew<C, R>(args, [](T x) { return std::cos(x); }); return;
      case UnaryOp::Tanh: cpu_ew<C, R>(args, [](T x) { return std::tanh(x); }); return;
      case UnaryOp::Sigmoid: cpu_ew<C, R>(args, [](T x) { return div_(T(1), T(1) + std::exp(-x)); }); return;
      case UnaryOp::Reciprocal: cpu_ew<C, R>(args, [](T x) { return div_(T(1), x); }); return;
      default: break;
    }
  }
  fail(Status::Internal, "unary op ", op, " reached no kernel for ", dtype_name(dtype_of<C>()));
}

// The dtype unary op `op` reads its input as (Note [No promotion temporaries]).
DType unary_common(UnaryOp op, DType in, DType res) {
  if (is_float_op(op) || op == UnaryOp::Square) return res;
  return in;
}

// op(a) into out (a new tensor, or a itself for the in-place form).
void unary_run(UnaryOp op, const Tensor& out, const Tensor& a) {
  DType common = unary_common(op, a->dtype, unary_result(op, a->dtype));
  if (out->numel() == 0) return;
  if (a->device().is_cuda()) {
    CudaScope sc(a->device());
    cuda_ops::unary(op, cuda_iter<2>(out->sizes, {out.get(), a.get()}), common, sc.stream);
    CT_CSAN_KERNEL(sc.stream_ref, unary_name(op), {{a.get(), "self"}}, {{out.get(), "out"}});
  } else {
    Operands<2> args{out->sizes, {out.get(), a.get()}};
    CT_DISPATCH_ALL(common, unary_name(op), [&] { run_unary<scalar_t>(op, args); });
  }
}

Tensor unary_impl(UnaryOp op, const Tensor& a) {
  DType res = unary_result(op, a->dtype);
  Tensor out = empty_for(a->sizes, res, a->device(), {a.get()});
  unary_run(op, out, a);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Binary ops

bool bool_result(BinaryOp op) { return abi::info(op).kind != BinaryKind::Arith; }

struct BinaryPlan {
  DType result;  // dtype of the result
  DType common;  // dtype the inputs are read as (computed in its op-math type)
};

// The dtype rules of a binary op, from its attributes in capi/abi.toml (Note [Binary op functors]
// in scalar_ops.h): "<op>" not implemented for complex or bool inputs the op does not take,
// integer and bool inputs computed in float32 (div, atan2), bool results for comparisons and
// logical ops.
BinaryPlan binary_plan(BinaryOp op, const Tensor& a, const Tensor& b) {
  const BinaryOpInfo& info = abi::info(op);
  DType common = result_type({a.get(), b.get()});
  if (op == BinaryOp::Sub) {
    CT_CHECK(a->dtype != DType::Bool || b->dtype != DType::Bool, Status::DType,
             "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
             "`^` or `logical_xor()` operator instead.");
    CT_CHECK(a->dtype != DType::Bool && b->dtype != DType::Bool, Status::DType,
             "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
             "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  }
  if (!info.complex && is_complex(common)) not_implemented(info.name, common);
  if (!info.bool_inputs && common == DType::Bool) not_implemented(info.name, common);
  if (info.kind != BinaryKind::Arith) return {DType::Bool, common};
  if (info.to_float && is_integral(common, true)) common = kDefaultFloat;
  return {common, common};
}

// One case per op of the table, each running the op's functor (Note [Binary op functors]).
template <typename C>
void run_binary(BinaryOp op, const Operands<3>& args) {
  using T = cpu::opmath_t<C>;
  switch (op) {
#define CT_BINARY_CASE(NAME, VALUE, TORCH, KIND)                                     \
  case BinaryOp::NAME:                                                               \
    if constexpr (binary_fn::NAME::supports<T>) {                                    \
      using R = std::conditional_t<KIND == BinaryKind::Arith, C, bool>;              \
      cpu_ew<C, R>(args, binary_fn::NAME{});                                         \
      return;                                                                        \
    }                                                                                \
    break;
    CT_ABI_BINARY_OPS(CT_BINARY_CASE)
#undef CT_BINARY_CASE
  }
  fail(Status::Internal, "binary op ", op, " reached no kernel for ", dtype_name(dtype_of<C>()));
}

// op(a, b) into out (broadcast shape; a new tensor, or a for the in-place form).
void binary_run(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, DType common) {
  if (out->numel() == 0) return;
  Device dev = out->device();
  if (dev.is_cuda()) {
    CudaScope sc(dev);
    cuda_ops::binary(op, cuda_iter<3>(out->sizes, {out.get(), a.get(), b.get()}), common, sc.stream);
    CT_CSAN_KERNEL(sc.stream_ref, binary_name(op), {{a.get(), "self"}, {b.get(), "other"}}, {{out.get(), "out"}});
  } else {
    Operands<3> args{out->sizes, {out.get(), a.get(), b.get()}};
    CT_DISPATCH_ALL(common, binary_name(op), [&] { run_binary<scalar_t>(op, args); });
  }
}

void check_int_pow_scalar(BinaryOp op, const Tensor& a, const Tensor& b) {
  // torch.pow(int_tensor, negative_int) is an error (tensor exponents follow ipow instead).
  if (op == BinaryOp::Pow && b->wrapped_number && is_integral(a->dtype, false) && b->dtype == DType::Int64) {
    int64_t e = *reinterpret_cast<const int64_t*>(b->data());
    CT_CHECK(e >= 0, Status::Argument, "Integers to negative integer powers are not allowed.");
  }
}

}  // namespace

void check_inplace_cast(DType result, DType self, const char* op) {
  CT_CHECK(can_cast(result, self), Status::DType, op, ": result type ", dtype_short(result),
           " can't be cast to the desired output type ", dtype_short(self));
}


const char* unary_name(UnaryOp op) { return abi::info(op).name; }

const char* binary_name(BinaryOp op) { return abi::info(op).name; }

Tensor unary(UnaryOp op, const Tensor& a) { return unary_impl(op, a); }

void unary_(UnaryOp op, const Tensor& a) {
  CT_CHECK(abi::info(op).inplace, Status::Argument, "torch has no in-place ", unary_name(op), "_ (", unary_name(op),
           " gives a bool tensor)");
  DType res = unary_result(op, a->dtype);
  check_inplace_cast(res, a->dtype, unary_name(op));
  check_no_internal_overlap(a.get());
  unary_run(op, a, a);
}

namespace {
// Note [Binary fast path]: the most common small op, two contiguous CUDA tensors of one floating
// dtype, one shape and one device under + - * / maximum minimum, needs none of the general
// path's work (promotion, broadcasting, output layout, dimension collapsing), whose host time is
// most of a small op's cost above the kernel launch (bench/NOTES.md). Its result is the general
// path's: same dtype, same shape, contiguous. nullptr: not applicable.
Tensor binary_fast(BinaryOp op, const Tensor& a, const Tensor& b) {
  switch (op) {
    case BinaryOp::Add: case BinaryOp::Sub: case BinaryOp::Mul: case BinaryOp::Div: case BinaryOp::Maximum: case BinaryOp::Minimum: break;
    default: return nullptr;
  }
  DType dt = a->dtype;
  if (b->dtype != dt || !is_floating(dt)) return nullptr;
  if (a->wrapped_number || b->wrapped_number) return nullptr;
  Device dev = a->device();
  if (!dev.is_cuda() || !(b->device() == dev) || a->sizes != b->sizes) return nullptr;
  if (!a->is_contiguous() || !b->is_contiguous()) return nullptr;
  int64_t n = a->numel();
  if (n == 0) return nullptr;
  Tensor out = empty_tensor(a->sizes, dt, dev);
  cuda_ops::Iter<3> it;
  it.ndim = 1;
  it.numel = n;
  it.sizes[0] = n;
  const TensorImpl* ts[3] = {out.get(), a.get(), b.get()};
  for (int k = 0; k < 3; ++k) {
    it.data[k] = ts[k]->data();
    it.strides[k][0] = ts[k]->itemsize();
    it.dtype[k] = static_cast<int32_t>(dt);
  }
  CudaScope sc(dev);
  cuda_ops::binary(op, it, dt, sc.stream);
  CT_CSAN_KERNEL(sc.stream_ref, binary_name(op), {{a.get(), "self"}, {b.get(), "other"}}, {{out.get(), "out"}});
  return out;
}

// Shared by binary and binary_: checks, promotion, broadcasting, then one pass of the engine.
// With an in-place target, the broadcast shape and the result dtype must fit it.
Tensor binary_checked(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor* inplace) {
  if (!inplace) {
    if (Tensor r = binary_fast(op, a, b)) return r;
  }
  Device dev = common_device({a.get(), b.get()}, binary_name(op));
  check_int_pow_scalar(op, a, b);
  BinaryPlan plan = binary_plan(op, a, b);
  Shape shape = broadcast_shapes(a->sizes, b->sizes);
  if (inplace) {
    const Tensor& out = *inplace;
    CT_CHECK(shape == out->sizes, Status::Shape, "output with shape ", shape_str(out->sizes),
             " doesn't match the broadcast shape ", shape_str(shape));
    // comparison and logical results (bool) can always be stored, as 0/1
    if (!bool_result(op)) check_inplace_cast(plan.result, out->dtype, binary_name(op));
    check_no_internal_overlap(out.get());
    binary_run(op, out, a, unaliased(b, out.get()), plan.common);
    return out;
  }
  Tensor out = empty_for(shape, plan.result, dev, {a.get(), b.get()});
  binary_run(op, out, a, b, plan.common);
  return out;
}
}  // namespace

Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b) { return binary_checked(op, a, b, nullptr); }

void binary_(BinaryOp op, const Tensor& a, const Tensor& b) { binary_checked(op, a, b, &a); }

namespace {
// Python-number bounds of clamp: integral values of an integral tensor stay integers (those
// int64 holds; a bound beyond it stays a double, as no Python int that large reaches a kernel).
Tensor clamp_bound(const Tensor& a, double v) {
  bool integral = std::isfinite(v) && v == std::floor(v) && v >= -0x1p63 && v < 0x1p63 && !is_floating(a->dtype);
  return integral ? wrapped_scalar_int(static_cast<int64_t>(v)) : wrapped_scalar_double(v);
}

DType clamp_result(const Tensor& a, bool has_min, double mn, bool has_max, double mx) {
  CT_CHECK(has_min || has_max, Status::Argument, "torch.clamp: At least one of 'min' or 'max' must not be None");
  CT_CHECK(!is_complex(a->dtype), Status::DType, "clamp is not supported for complex types");
  std::vector<Tensor> ops{a};
  if (has_min) ops.push_back(clamp_bound(a, mn));
  if (has_max) ops.push_back(clamp_bound(a, mx));
  DType res = result_type(ops);
  if (res == DType::Bool) not_implemented("clamp", res);
  return res;
}

template <typename C>
void clamp_cpu(const Operands<2>& args, bool has_min, double mn, bool has_max, double mx) {
  using T = cpu::opmath_t<C>;
  if constexpr (!is_complex_v<C> && !std::is_same_v<C, bool>) {
    // (a bound that is not given may hold any double: not converted; the given ones of an
    // integral common dtype are integers int64 holds, clamp_bound)
    auto bound = [](bool given, double v) {
      if (!given) return T(0);
      if constexpr (std::is_integral_v<T>) return static_cast<T>(cpu::convert<int64_t>(v));
      else return static_cast<T>(v);
    };
    const T lo = bound(has_min, mn), hi = bound(has_max, mx);
    cpu_ew<C, C>(args, [=](T x) {
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(x)) return x;
      }
      if (has_min) x = x < lo ? lo : x;
      if (has_max) x = x > hi ? hi : x;
      return x;
    });
  }
}

void clamp_run(const Tensor& out, const Tensor& a, DType common, bool has_min, double mn, bool has_max, double mx) {
  if (out->numel() == 0) return;
  if (a->device().is_cuda()) {
    CudaScope sc(a->device());
    cuda_ops::clamp(cuda_iter<2>(out->sizes, {out.get(), a.get()}), common, has_min, mn, has_max, mx, sc.stream);
    CT_CSAN_KERNEL(sc.stream_ref, "clamp", {{a.get(), "self"}}, {{out.get(), "out"}});
    return;
  }
  Operands<2> args{out->sizes, {out.get(), a.get()}};
  CT_DISPATCH_ALL(common, "clamp", [&] { clamp_cpu<scalar_t>(args, has_min, mn, has_max, mx); });
}
}  // namespace

Tensor clamp(const Tensor& a, bool has_min, double mn, bool has_max, double mx) {
  DType res = clamp_result(a, has_min, mn, has_max, mx);
  Tensor out = empty_for(a->sizes, res, a->device(), {a.get()});
  clamp_run(out, a, res, has_min, mn, has_max, mx);
  return out;
}

void clamp_(const Tensor& a, bool has_min, double mn, bool has_max, double mx) {
  DType res = clamp_result(a, has_min, mn, has_max, mx);
  check_inplace_cast(res, a->dtype, "clamp_");
  check_no_internal_overlap(a.get());
  clamp_run(a, a, res, has_min, mn, has_max, mx);
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  CT_CHECK(cond->dtype == DType::Bool, Status::DType, "where expected condition to be a boolean tensor, but got a tensor with dtype ",
           dtype_short(cond->dtype));
  Device dev = common_device({cond.get(), a.get(), b.get()}, "where");
  DType res = result_type({a.get(), b.get()});
  Shape shape = broadcast_shapes(broadcast_shapes(cond->sizes, a->sizes), b->sizes);
  Tensor out = empty_for(shape, res, dev, {cond.get(), a.get(), b.get()});
  if (out->numel() == 0) return out;
  if (dev.is_cuda()) {
    CudaScope sc(dev);
    cuda_ops::where(cuda_iter<4>(shape, {out.get(), cond.get(), a.get(), b.get()}), res, sc.stream);
    CT_CSAN_KERNEL(sc.stream_ref, "where", {{cond.get(), "condition"}, {a.get(), "self"}, {b.get(), "other"}},
                   {{out.get(), "out"}});
    return out;
  }
  Operands<4> args{shape, {out.get(), cond.get(), a.get(), b.get()}};
  CT_DISPATCH_ALL(res, "where", [&] {
    using T = cpu::opmath_t<scalar_t>;
    cpu_ew<scalar_t, scalar_t>(args, [](T c, T x, T y) { return c != T(0) ? x : y; });
  });
  return out;
}

// torch's checked conversion of a fill value (c10::checked_convert, through Scalar::to<T>): an
// integer dtype takes a value in its range (not NaN or an infinity); float16, bfloat16, float32
// and complex64 a finite value in theirs, an infinity or NaN; float64, complex128 and bool any.
void check_fill_value(double v, DType dt) {
  double lo = 0, hi = 0;
  const char* name = nullptr;
  bool integral = true;
  switch (dt) {
    case DType::UInt8: lo = 0, hi = 255, name = "uint8_t"; break;
    case DType::Int8: lo = -128, hi = 127, name = "int8_t"; break;
    case DType::Int16: lo = -32768, hi = 32767, name = "int16_t"; break;
    case DType::Int32: lo = -2147483648.0, hi = 2147483647.0, name = "int"; break;
    case DType::Int64: lo = -9223372036854775808.0, hi = 9223372036854775807.0, name = "int64_t"; break;
    case DType::Float16: hi = 65504.0, name = "at::Half", integral = false; break;
    case DType::BFloat16: hi = 3.3895313892515355e38, name = "at::BFloat16", integral = false; break;
    case DType::Float32: hi = 3.4028234663852886e38, name = "float", integral = false; break;
    case DType::Complex64: hi = 3.4028234663852886e38, name = "c10::complex<float>", integral = false; break;
    default: return;
  }
  bool ok;
  if (integral) {
    ok = !std::isnan(v) && v >= lo && (dt == DType::Int64 ? v < 9223372036854775808.0 : v <= hi);
  } else {
    ok = !std::isfinite(v) || (v >= -hi && v <= hi);
  }
  CT_CHECK(ok, Status::Argument, "value cannot be converted to type ", name, " without overflow");
}

void fill_(const Tensor& t, double value) {
  check_fill_value(value, t->dtype);
  Tensor v = wrapped_scalar_double(value);
  v->wrapped_number = false;
  copy_(t, v);
}

}  // namespace ct::ops
