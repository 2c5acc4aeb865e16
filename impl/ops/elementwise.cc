// Elementwise operations: dtype rules, then one of three kernel shapes (unary, binary,
// ternary) over the strided engine of ops/cpu/loops.h.
//
// Note [Compute dtype]: inputs are converted to the op's compute dtype first (a copy of only
// the inputs whose dtype differs; wrapped scalars are 0-dim so this is free), the kernel runs
// on one C++ type, and the result is written in the compute dtype, then converted into the
// output if its dtype differs. float16/bfloat16 compute in float32 and round once at the end,
// which is what PyTorch's kernels do per element, so results match bit for bit.
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

#include "impl/core/error.h"
#include "impl/ops/complex_div.h"
#include "impl/ops/scalar_ops.h"
#include "impl/ops/cpu/convert.h"
#include "impl/ops/cpu/loops.h"
#include "impl/ops/cuda_dispatch.h"
#include "impl/ops/ops.h"

namespace ct::ops {

using cpu::is_complex_v;

namespace {

Tensor as_dtype(const Tensor& t, DType d) { return to(t, t->device(), d, false); }

[[noreturn]] void not_implemented(const char* op, DType d) {
  fail(CT_ERR_DTYPE, "\"", op, "\" not implemented for '", dtype_short(d), "'");
}

template <typename T> T div_(T x, T y) {
  if constexpr (is_complex_v<T>) return complex_div(x, y);
  else return x / y;
}

// ---------------------------------------------------------------------------------------------
// Kernel shapes. out has dtype R, inputs T (all already in the compute dtype).

template <typename R, typename T, typename F>
void unary_kernel(const Tensor& out, const Tensor& a, F f) {
  auto o = cpu::make_operands<2>(out->sizes, {out.get(), a.get()});
  cpu::for_each<2>(o, cpu::kGrainSize, [&](std::array<char*, 2> p, const std::array<int64_t, 2>& st, int64_t n) {
    if (st[0] == sizeof(R) && st[1] == sizeof(T)) {
      R* d = reinterpret_cast<R*>(p[0]);
      const T* x = reinterpret_cast<const T*>(p[1]);
      for (int64_t i = 0; i < n; ++i) d[i] = f(x[i]);
    } else {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<R*>(p[0] + i * st[0]) = f(*reinterpret_cast<const T*>(p[1] + i * st[1]));
    }
  });
}

template <typename R, typename T, typename F>
void binary_kernel(const Tensor& out, const Tensor& a, const Tensor& b, F f) {
  auto o = cpu::make_operands<3>(out->sizes, {out.get(), a.get(), b.get()});
  cpu::for_each<3>(o, cpu::kGrainSize, [&](std::array<char*, 3> p, const std::array<int64_t, 3>& st, int64_t n) {
    R* d = reinterpret_cast<R*>(p[0]);
    const T* x = reinterpret_cast<const T*>(p[1]);
    const T* y = reinterpret_cast<const T*>(p[2]);
    if (st[0] == sizeof(R) && st[1] == sizeof(T) && st[2] == sizeof(T)) {
      for (int64_t i = 0; i < n; ++i) d[i] = f(x[i], y[i]);
    } else if (st[0] == sizeof(R) && st[1] == sizeof(T) && st[2] == 0) {
      const T yv = *y;
      for (int64_t i = 0; i < n; ++i) d[i] = f(x[i], yv);
    } else if (st[0] == sizeof(R) && st[1] == 0 && st[2] == sizeof(T)) {
      const T xv = *x;
      for (int64_t i = 0; i < n; ++i) d[i] = f(xv, y[i]);
    } else {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<R*>(p[0] + i * st[0]) = f(*reinterpret_cast<const T*>(p[1] + i * st[1]),
                                                    *reinterpret_cast<const T*>(p[2] + i * st[2]));
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Unary ops

bool is_float_op(ct_unary_op op) {
  switch (op) {
    case CT_EXP: case CT_LOG: case CT_SQRT: case CT_SIN: case CT_COS: case CT_TANH:
    case CT_SIGMOID: case CT_RECIPROCAL:
      return true;
    default:
      return false;
  }
}

void check_unary_op(ct_unary_op op) {
  CT_CHECK(op >= CT_NEG && op <= CT_SQUARE, CT_ERR_ARGUMENT, "unknown unary op ", op,
           " (expected one of the CT_* unary op constants, 0..16)");
}

// Output dtype of a unary op; throws for unsupported dtypes.
DType unary_result(ct_unary_op op, DType d) {
  const char* name = unary_name(op);
  switch (op) {
    case CT_NEG:
      CT_CHECK(d != DType::Bool, CT_ERR_DTYPE,
               "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
               "to invert a mask, use the `~` or `logical_not()` operator instead.");
      return d;
    case CT_ABS:
      return is_complex(d) ? to_real(d) : d;
    case CT_RELU:
      if (d == DType::Bool || is_complex(d)) not_implemented(name, d);
      return d;
    case CT_LOGICAL_NOT:
      return DType::Bool;
    case CT_SIGN:
      CT_CHECK(!is_complex(d), CT_ERR_DTYPE,
               "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use "
               "torch.sgn instead.");
      return d;
    case CT_FLOOR: case CT_CEIL: case CT_ROUND:
      if (is_complex(d)) not_implemented(name, d);
      return d;
    case CT_SQUARE:
      return d == DType::Bool ? DType::Int64 : d;
    default:
      return is_integral(d, true) ? kDefaultFloat : d;  // float ops
  }
}

template <typename T>
void run_unary(ct_unary_op op, const Tensor& out, const Tensor& a) {
  using R = T;
  switch (op) {
    case CT_NEG:
      if constexpr (!std::is_same_v<T, bool>) unary_kernel<R, T>(out, a, [](T x) { return w_sub(T(0), x); });
      return;
    case CT_ABS:
      if constexpr (is_complex_v<T>) {
        using V = typename T::value_type;
        unary_kernel<V, T>(out, a, [](T x) { return std::abs(x); });
      } else if constexpr (is_int_v<T> && std::is_signed_v<T>) {
        unary_kernel<R, T>(out, a, [](T x) { return x < 0 ? w_sub(T(0), x) : x; });
      } else if constexpr (std::is_floating_point_v<T>) {
        unary_kernel<R, T>(out, a, [](T x) { return std::fabs(x); });
      } else {
        unary_kernel<R, T>(out, a, [](T x) { return x; });
      }
      return;
    case CT_RELU:
      if constexpr (!is_complex_v<T> && !std::is_same_v<T, bool>) {
        unary_kernel<R, T>(out, a, [](T x) { return (x != x) ? x : (x > T(0) ? x : T(0)); });
      }
      return;
    case CT_LOGICAL_NOT:
      unary_kernel<bool, T>(out, a, [](T x) { return x == T(0); });
      return;
    case CT_SIGN:
      if constexpr (!is_complex_v<T>) {
        if constexpr (std::is_same_v<T, bool>) unary_kernel<R, T>(out, a, [](T x) { return x; });
        else unary_kernel<R, T>(out, a, [](T x) { return static_cast<T>((T(0) < x) - (x < T(0))); });
      }
      return;
    case CT_FLOOR: case CT_CEIL: case CT_ROUND:
      if constexpr (std::is_floating_point_v<T>) {
        if (op == CT_FLOOR) unary_kernel<R, T>(out, a, [](T x) { return std::floor(x); });
        else if (op == CT_CEIL) unary_kernel<R, T>(out, a, [](T x) { return std::ceil(x); });
        else unary_kernel<R, T>(out, a, [](T x) { return std::nearbyint(x); });
      } else if constexpr (!is_complex_v<T>) {
        unary_kernel<R, T>(out, a, [](T x) { return x; });
      }
      return;
    case CT_SQUARE:
      unary_kernel<R, T>(out, a, [](T x) { return w_mul(x, x); });
      return;
    default:
      break;
  }
  if constexpr (std::is_floating_point_v<T> || is_complex_v<T>) {
    switch (op) {
      case CT_EXP: unary_kernel<R, T>(out, a, [](T x) { return std::exp(x); }); return;
      case CT_LOG: unary_kernel<R, T>(out, a, [](T x) { return std::log(x); }); return;
      case CT_SQRT: unary_kernel<R, T>(out, a, [](T x) { return std::sqrt(x); }); return;
      case CT_SIN: unary_kernel<R, T>(out, a, [](T x) { return std::sin(x); }); return;
      case CT_COS: unary_kernel<R, T>(out, a, [](T x) { return std::cos(x); }); return;
      case CT_TANH: unary_kernel<R, T>(out, a, [](T x) { return std::tanh(x); }); return;
      case CT_SIGMOID: unary_kernel<R, T>(out, a, [](T x) { return div_(T(1), T(1) + std::exp(-x)); }); return;
      case CT_RECIPROCAL: unary_kernel<R, T>(out, a, [](T x) { return div_(T(1), x); }); return;
      default: break;
    }
  }
  fail(CT_ERR_INTERNAL, "unary op ", op, " reached no kernel for ", dtype_name(a->dtype));
}

// Computes op(a) into a fresh tensor of the op's result dtype.
Tensor unary_impl(ct_unary_op op, const Tensor& a) {
  check_unary_op(op);
  DType res = unary_result(op, a->dtype);
  DType comp_in = compute_dtype(is_float_op(op) ? res : (op == CT_SQUARE ? res : a->dtype));
  if (op == CT_ABS && is_complex(a->dtype)) comp_in = a->dtype;
  if (op == CT_LOGICAL_NOT) comp_in = compute_dtype(a->dtype);
  Tensor x = as_dtype(a, comp_in);
  DType comp_out = (op == CT_LOGICAL_NOT) ? DType::Bool : (op == CT_ABS && is_complex(comp_in) ? to_real(comp_in) : comp_in);
  Tensor tmp = empty_tensor(a->sizes, comp_out, a->device());
  if (a->device().is_cuda()) {
    CudaScope sc(a->device());
    cuda_ops::unary(op, cuda_iter<2>(a->sizes, {tmp.get(), x.get()}), comp_in, sc.stream);
  } else {
    CT_DISPATCH_COMPUTE(comp_in, unary_name(op), [&] { run_unary<scalar_t>(op, tmp, x); });
  }
  return as_dtype(tmp, res);
}

// ---------------------------------------------------------------------------------------------
// Binary ops

void check_binary_op(ct_binary_op op) {
  CT_CHECK(op >= CT_ADD && op <= CT_REMAINDER, CT_ERR_ARGUMENT, "unknown binary op ", op,
           " (expected one of the CT_* binary op constants, 0..17)");
}

bool is_comparison(ct_binary_op op) { return op >= CT_EQ && op <= CT_GE; }
bool is_logical(ct_binary_op op) { return op >= CT_LOGICAL_AND && op <= CT_LOGICAL_XOR; }

struct BinaryPlan {
  DType result;   // dtype of the result
  DType compute;  // dtype the inputs are converted to
};

BinaryPlan binary_plan(ct_binary_op op, const Tensor& a, const Tensor& b) {
  const char* name = binary_name(op);
  DType common = result_type({a, b});
  if (is_logical(op)) return {DType::Bool, DType::Bool};
  if (is_comparison(op)) {
    if (is_complex(common) && op != CT_EQ && op != CT_NE) not_implemented(name, common);
    return {DType::Bool, compute_dtype(common)};
  }
  switch (op) {
    case CT_SUB:
      CT_CHECK(a->dtype != DType::Bool || b->dtype != DType::Bool, CT_ERR_DTYPE,
               "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
               "`^` or `logical_xor()` operator instead.");
      CT_CHECK(a->dtype != DType::Bool && b->dtype != DType::Bool, CT_ERR_DTYPE,
               "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
               "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
      break;
    case CT_DIV:
      if (is_integral(common, true)) common = kDefaultFloat;
      break;
    case CT_POW:
      if (common == DType::Bool) not_implemented(name, common);
      break;
    case CT_MAXIMUM: case CT_MINIMUM:
      if (is_complex(common)) not_implemented(name, common);
      break;
    case CT_FLOOR_DIVIDE: case CT_REMAINDER:
      if (is_complex(common) || common == DType::Bool) not_implemented(name, common);
      break;
    default:
      break;
  }
  return {common, compute_dtype(common)};
}

template <typename T>
void run_binary(ct_binary_op op, const Tensor& out, const Tensor& a, const Tensor& b) {
  switch (op) {
    case CT_ADD: binary_kernel<T, T>(out, a, b, [](T x, T y) { return w_add(x, y); }); return;
    case CT_SUB: if constexpr (!std::is_same_v<T, bool>) { binary_kernel<T, T>(out, a, b, [](T x, T y) { return w_sub(x, y); }); return; } break;
    case CT_MUL: binary_kernel<T, T>(out, a, b, [](T x, T y) { return w_mul(x, y); }); return;
    case CT_DIV:
      if constexpr (is_complex_v<T>) {
        binary_kernel<T, T>(out, a, b, [](T x, T y) { return complex_div(x, y); });
        return;
      } else if constexpr (std::is_floating_point_v<T>) {
        binary_kernel<T, T>(out, a, b, [](T x, T y) { return x / y; });
        return;
      }
      break;
    case CT_POW:
      if constexpr (std::is_floating_point_v<T> || is_complex_v<T>) {
        binary_kernel<T, T>(out, a, b, [](T x, T y) { return std::pow(x, y); });
        return;
      } else if constexpr (is_int_v<T>) {
        binary_kernel<T, T>(out, a, b, [](T x, T y) { return ipow(x, y); });
        return;
      }
      break;
    case CT_EQ: binary_kernel<bool, T>(out, a, b, [](T x, T y) { return x == y; }); return;
    case CT_NE: binary_kernel<bool, T>(out, a, b, [](T x, T y) { return x != y; }); return;
    case CT_LT: case CT_LE: case CT_GT: case CT_GE:
      if constexpr (!is_complex_v<T>) {
        if (op == CT_LT) binary_kernel<bool, T>(out, a, b, [](T x, T y) { return x < y; });
        else if (op == CT_LE) binary_kernel<bool, T>(out, a, b, [](T x, T y) { return x <= y; });
        else if (op == CT_GT) binary_kernel<bool, T>(out, a, b, [](T x, T y) { return x > y; });
        else binary_kernel<bool, T>(out, a, b, [](T x, T y) { return x >= y; });
        return;
      }
      break;
    case CT_LOGICAL_AND: binary_kernel<bool, T>(out, a, b, [](T x, T y) { return (x != T(0)) && (y != T(0)); }); return;
    case CT_LOGICAL_OR: binary_kernel<bool, T>(out, a, b, [](T x, T y) { return (x != T(0)) || (y != T(0)); }); return;
    case CT_LOGICAL_XOR: binary_kernel<bool, T>(out, a, b, [](T x, T y) { return (x != T(0)) != (y != T(0)); }); return;
    case CT_MAXIMUM: case CT_MINIMUM:
      if constexpr (!is_complex_v<T>) {
        bool mx = op == CT_MAXIMUM;
        binary_kernel<T, T>(out, a, b, [mx](T x, T y) {
          if constexpr (std::is_floating_point_v<T>) {
            if (std::isnan(x)) return x;
            if (std::isnan(y)) return y;
          }
          return mx ? (x > y ? x : y) : (x < y ? x : y);
        });
        return;
      }
      break;
    case CT_FLOOR_DIVIDE: case CT_REMAINDER:
      if constexpr (std::is_floating_point_v<T>) {
        if (op == CT_FLOOR_DIVIDE) {
          binary_kernel<T, T>(out, a, b, [](T x, T y) { return floor_div_float(x, y); });
        } else {
          binary_kernel<T, T>(out, a, b, [](T x, T y) { return remainder_float(x, y); });
        }
        return;
      } else if constexpr (is_int_v<T>) {
        bool fd = op == CT_FLOOR_DIVIDE;
        binary_kernel<T, T>(out, a, b, [fd](T x, T y) {
          CT_CHECK(y != 0, CT_ERR_ARGUMENT, "ZeroDivisionError: integer division or modulo by zero");
          return floor_div_int(x, y, fd);
        });
        return;
      }
      break;
    default:
      break;
  }
  fail(CT_ERR_INTERNAL, "binary op ", op, " reached no kernel for ", dtype_name(a->dtype));
}

// Computes op(a, b) with output shape `shape` into a new tensor of the compute output dtype.
Tensor binary_compute(ct_binary_op op, const Tensor& a, const Tensor& b, const BinaryPlan& plan,
                      const Shape& shape, Device dev) {
  Tensor x = as_dtype(a, plan.compute), y = as_dtype(b, plan.compute);
  DType comp_out = (is_comparison(op) || is_logical(op)) ? DType::Bool : plan.compute;
  Tensor tmp = empty_tensor(shape, comp_out, dev);
  if (dev.is_cuda()) {
    CudaScope sc(dev);
    cuda_ops::binary(op, cuda_iter<3>(shape, {tmp.get(), x.get(), y.get()}), plan.compute, sc.stream);
  } else {
    CT_DISPATCH_COMPUTE(plan.compute, binary_name(op), [&] { run_binary<scalar_t>(op, tmp, x, y); });
  }
  return tmp;
}

void check_int_pow_scalar(ct_binary_op op, const Tensor& a, const Tensor& b) {
  // torch.pow(int_tensor, negative_int) is an error (tensor exponents follow ipow instead).
  if (op == CT_POW && b->wrapped_number && is_integral(a->dtype, false) && b->dtype == DType::Int64) {
    int64_t e = *reinterpret_cast<const int64_t*>(b->data());
    CT_CHECK(e >= 0, CT_ERR_ARGUMENT, "Integers to negative integer powers are not allowed.");
  }
}

void check_inplace_cast(DType result, DType self, const char* op) {
  CT_CHECK(can_cast(result, self), CT_ERR_DTYPE, op, ": result type ", dtype_short(result),
           " can't be cast to the desired output type ", dtype_short(self));
}

}  // namespace

const char* unary_name(ct_unary_op op) {
  static const char* names[] = {"neg", "abs", "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid",
                                "relu", "logical_not", "sign", "floor", "ceil", "round", "reciprocal", "square"};
  return (op >= 0 && op <= CT_SQUARE) ? names[op] : "unknown_unary";
}

const char* binary_name(ct_binary_op op) {
  static const char* names[] = {"add", "sub", "mul", "div", "pow", "eq", "ne", "lt", "le", "gt", "ge",
                                "logical_and", "logical_or", "logical_xor", "maximum", "minimum",
                                "floor_divide", "remainder"};
  return (op >= 0 && op <= CT_REMAINDER) ? names[op] : "unknown_binary";
}

Tensor unary(ct_unary_op op, const Tensor& a) { return unary_impl(op, a); }

void unary_(ct_unary_op op, const Tensor& a) {
  check_unary_op(op);
  DType res = unary_result(op, a->dtype);
  check_inplace_cast(res, a->dtype, unary_name(op));
  Tensor r = unary_impl(op, a);
  copy_(a, r);
}

namespace {
// Note [Binary fast path]: the most common small op, two contiguous CUDA tensors of one floating
// dtype, one shape and one device under + - * / maximum minimum, needs none of the general
// path's work (promotion, broadcasting, dtype conversions, dimension collapsing), whose host
// time is most of a small op's cost above the kernel launch (bench/NOTES.md). Its result is the
// general path's: same dtype, same shape, contiguous. nullptr: not applicable.
Tensor binary_fast(ct_binary_op op, const Tensor& a, const Tensor& b) {
  switch (op) {
    case CT_ADD: case CT_SUB: case CT_MUL: case CT_DIV: case CT_MAXIMUM: case CT_MINIMUM: break;
    default: return nullptr;
  }
  DType dt = a->dtype;
  if (b->dtype != dt || (dt != DType::Float32 && dt != DType::Float64)) return nullptr;
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
  return out;
}

// Shared by binary and binary_: checks, promotion, broadcasting, then the kernel. With an
// in-place target, the broadcast shape and the result dtype must fit it.
Tensor binary_checked(ct_binary_op op, const Tensor& a, const Tensor& b, const TensorImpl* inplace) {
  if (!inplace) {
    if (Tensor r = binary_fast(op, a, b)) return r;
  }
  check_binary_op(op);
  Device dev = common_device({a, b}, binary_name(op));
  check_int_pow_scalar(op, a, b);
  BinaryPlan plan = binary_plan(op, a, b);
  Shape shape = broadcast_shapes(a->sizes, b->sizes);
  if (inplace) {
    CT_CHECK(shape == inplace->sizes, CT_ERR_SHAPE, "output with shape ", shape_str(inplace->sizes),
             " doesn't match the broadcast shape ", shape_str(shape));
    // comparison and logical results (bool) can always be stored, as 0/1
    if (!is_comparison(op) && !is_logical(op)) check_inplace_cast(plan.result, inplace->dtype, binary_name(op));
    return binary_compute(op, a, b, plan, shape, dev);
  }
  return as_dtype(binary_compute(op, a, b, plan, shape, dev), plan.result);
}
}  // namespace

Tensor binary(ct_binary_op op, const Tensor& a, const Tensor& b) { return binary_checked(op, a, b, nullptr); }

void binary_(ct_binary_op op, const Tensor& a, const Tensor& b) { copy_(a, binary_checked(op, a, b, a.get())); }

Tensor clamp(const Tensor& a, bool has_min, double mn, bool has_max, double mx) {
  CT_CHECK(has_min || has_max, CT_ERR_ARGUMENT, "torch.clamp: At least one of 'min' or 'max' must not be None");
  CT_CHECK(!is_complex(a->dtype), CT_ERR_DTYPE, "clamp is not supported for complex types");
  // clamp(x, lo, hi) = min(max(x, lo), hi), with Python-number bounds
  auto scalar = [&](double v) {
    bool integral = std::isfinite(v) && v == std::floor(v) && !is_floating(a->dtype);
    return integral ? wrapped_scalar_int(static_cast<int64_t>(v)) : wrapped_scalar_double(v);
  };
  Tensor r = a;
  if (has_min) r = binary(CT_MAXIMUM, r, scalar(mn));
  if (has_max) r = binary(CT_MINIMUM, r, scalar(mx));
  if (r.get() == a.get()) r = clone(a);
  return r;
}

void clamp_(const Tensor& a, bool has_min, double mn, bool has_max, double mx) {
  Tensor r = clamp(a, has_min, mn, has_max, mx);
  check_inplace_cast(r->dtype, a->dtype, "clamp_");
  copy_(a, r);
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  CT_CHECK(cond->dtype == DType::Bool, CT_ERR_DTYPE, "where expected condition to be a boolean tensor, but got a tensor with dtype ",
           dtype_short(cond->dtype));
  Device dev = common_device({cond, a, b}, "where");
  DType res = result_type({a, b});
  Shape shape = broadcast_shapes(broadcast_shapes(cond->sizes, a->sizes), b->sizes);
  Tensor x = as_dtype(a, res), y = as_dtype(b, res);
  Tensor out = empty_tensor(shape, res, dev);
  if (dev.is_cuda()) {
    CudaScope sc(dev);
    cuda_ops::where(cuda_iter<4>(shape, {out.get(), cond.get(), x.get(), y.get()}), itemsize(res), sc.stream);
    return out;
  }
  auto o = cpu::make_operands<4>(shape, {out.get(), cond.get(), x.get(), y.get()});
  CT_DISPATCH_ALL(res, "where", [&] {
    using T = scalar_t;
    cpu::for_each<4>(o, cpu::kGrainSize, [](std::array<char*, 4> p, const std::array<int64_t, 4>& st, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        bool c = *reinterpret_cast<const bool*>(p[1] + i * st[1]);
        *reinterpret_cast<T*>(p[0] + i * st[0]) = *reinterpret_cast<const T*>(p[c ? 2 : 3] + i * st[c ? 2 : 3]);
      }
    });
  });
  return out;
}

void fill_(const Tensor& t, double value) {
  Tensor v = wrapped_scalar_double(value);
  v->wrapped_number = false;
  copy_(t, v);
}

}  // namespace ct::ops
