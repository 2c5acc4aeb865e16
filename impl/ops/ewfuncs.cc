// The elementwise functions with extra arguments (impl/ops/ewfuncs.h): PyTorch's checks and
// dtype rules here, the element functions in impl/ops/ewfuncs_fn.h (shared with the CUDA
// kernels of impl/ops/cuda/ewfuncs.cu), the iteration the elementwise engine's (cpu_ew.h on the
// CPU, cuda_iter on CUDA). Results are laid out as their inputs (empty_for).
#include "impl/ops/ewfuncs.h"

#include <cmath>
#include <limits>
#include <vector>

#include "impl/core/error.h"
#include "impl/ops/cpu_ew.h"
#include "impl/ops/cuda/ewfuncs.h"
#include "impl/ops/cuda_dispatch.h"
#include "impl/ops/ewfuncs_fn.h"
#include "impl/ops/indexing.h"
#include "impl/ops/ops.h"

namespace ct::ops {

using namespace ew;

namespace {

[[noreturn]] void not_implemented(const char* op, DType d) {
  fail(Status::DType, "\"", op, "\" not implemented for '", dtype_short(d), "'");
}

bool float_or_complex(DType d) { return is_floating(d) || is_complex(d); }

// f(Tag<C>{}) with C the CPU type of dtype d: f is a generic lambda, so its `if constexpr`
// branches for the dtypes an op refuses are discarded (not compiled).
template <typename T> struct Tag { using type = T; };
template <typename F>
void dispatch(DType d, const char* name, const F& f) {
  CT_DISPATCH_ALL(d, name, [&] { f(Tag<scalar_t>{}); });
}

// One pass of the engine over ts (output first) on the output's device: cuda_f(iter, stream)
// on CUDA, cpu_f(operands) on the CPU. names: the inputs' names for the stream sanitizer.
template <size_t N, typename CpuF, typename CudaF>
void run(const char* op, const std::array<const TensorImpl*, N>& ts, const std::array<const char*, N - 1>& names,
         const CpuF& cpu_f, const CudaF& cuda_f) {
  const TensorImpl* out = ts[0];
  if (out->numel() == 0) return;
  if (out->device().is_cuda()) {
    CudaScope sc(out->device());
    cuda_f(cuda_iter<N>(out->sizes, ts), sc.stream);
    if (csan::on()) {
      std::vector<cuda::CsanTensor> reads;
      for (size_t k = 1; k < N; ++k) reads.push_back({ts[k], names[k - 1]});
      cuda::csan_kernel(sc.stream_ref, op, reads, {{out, "out"}});
    }
    return;
  }
  Operands<N> args{out->sizes, ts};
  cpu_f(args);
}

Shape broadcast3(const Tensor& a, const Tensor& b, const Tensor& c) {
  return broadcast_shapes(broadcast_shapes(a->sizes, b->sizes), c->sizes);
}


}  // namespace

Tensor gelu(const Tensor& t, const std::string& approximate) {
  CT_CHECK(approximate == "none" || approximate == "tanh", Status::Argument,
           "approximate argument must be either none or tanh.");
  if (!is_floating(t->dtype)) not_implemented("GeluKernelImpl", t->dtype);
  const bool tanh_approx = approximate == "tanh";
  Tensor out = empty_for(t->sizes, t->dtype, t->device(), {t.get()});
  run<2>("gelu", {out.get(), t.get()}, {"self"},
         [&](const Operands<2>& args) {
           dispatch(t->dtype, "gelu", [&](auto tag) {
             using scalar_t = typename decltype(tag)::type;
             if constexpr (std::is_floating_point_v<cpu::opmath_t<scalar_t>>)
               cpu_ew<scalar_t, scalar_t>(args, ewfn::Gelu{tanh_approx});
           });
         },
         [&](const cuda_ops::Iter<2>& it, void* s) { cuda_ops::gelu(it, t->dtype, tanh_approx, s); });
  return out;
}

Tensor nan_to_num(const Tensor& t, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  if (!float_or_complex(t->dtype)) return clone(t);  // integers and bool have none (PyTorch: a copy)
  const DType real = to_real(t->dtype);
  // the replacements as PyTorch's static_cast<scalar_t>: rounded to the (real) dtype
  double hi = std::numeric_limits<double>::max();
  if (real == DType::Float32) hi = std::numeric_limits<float>::max();
  if (real == DType::Float16) hi = 65504.0;
  if (real == DType::BFloat16) hi = 3.3895313892515355e38;
  const double vals[3] = {nan.value_or(0.0), posinf.value_or(hi), neginf.value_or(-hi)};
  double r[3] = {};
  dispatch(real, "nan_to_num", [&](auto tag) {
    using scalar_t = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<cpu::opmath_t<scalar_t>>) {
      using T = cpu::opmath_t<scalar_t>;
      for (int k = 0; k < 3; ++k) r[k] = static_cast<double>(static_cast<T>(cpu::convert<scalar_t>(vals[k])));
    }
  });
  Tensor out = empty_for(t->sizes, t->dtype, t->device(), {t.get()});
  run<2>("nan_to_num", {out.get(), t.get()}, {"self"},
         [&](const Operands<2>& args) {
           dispatch(t->dtype, "nan_to_num", [&](auto tag) {
             using scalar_t = typename decltype(tag)::type;
             using T = cpu::opmath_t<scalar_t>;
             if constexpr (std::is_floating_point_v<T>) {
               cpu_ew<scalar_t, scalar_t>(args, ewfn::NanToNum<T>{T(r[0]), T(r[1]), T(r[2])});
             } else if constexpr (cpu::is_complex_v<T>) {
               using V = typename T::value_type;
               cpu_ew<scalar_t, scalar_t>(args, ewfn::NanToNum<V>{V(r[0]), V(r[1]), V(r[2])});
             }
           });
         },
         [&](const cuda_ops::Iter<2>& it, void* s) { cuda_ops::nan_to_num(it, t->dtype, r[0], r[1], r[2], s); });
  return out;
}

Tensor clamp_tensor(const Tensor& t, const Tensor& min, const Tensor& max) {
  CT_CHECK(min || max, Status::Argument, "torch.clamp: At least one of 'min' or 'max' must not be None");
  CT_CHECK(!is_complex(t->dtype) && !(min && is_complex(min->dtype)) && !(max && is_complex(max->dtype)), Status::DType,
           "clamp is not supported for complex types");
  // one bound: torch.maximum / minimum (PyTorch's clamp_Tensor_out does the same)
  if (!max) return binary(BinaryOp::Maximum, t, min);
  if (!min) return binary(BinaryOp::Minimum, t, max);
  Device dev = common_device({t.get(), min.get(), max.get()}, "clamp");
  DType res = result_type({t.get(), min.get(), max.get()});
  if (res == DType::Bool) not_implemented("clamp", res);
  Shape shape = broadcast3(t, min, max);
  Tensor out = empty_for(shape, res, dev, {t.get(), min.get(), max.get()});
  run<4>("clamp", {out.get(), t.get(), min.get(), max.get()}, {"self", "min", "max"},
         [&](const Operands<4>& args) {
           dispatch(res, "clamp", [&](auto tag) {
             using scalar_t = typename decltype(tag)::type;
             if constexpr (!cpu::is_complex_v<scalar_t> && !std::is_same_v<scalar_t, bool>)
               cpu_ew<scalar_t, scalar_t>(args, ewfn::ClampBoth{});
           });
         },
         [&](const cuda_ops::Iter<4>& it, void* s) { cuda_ops::clamp_tensor(it, res, s); });
  return out;
}

namespace {
void check_lerp_end(const Tensor& start, const Tensor& end) {
  CT_CHECK(start->dtype == end->dtype, Status::DType, "expected dtype ", cpp_type_name(start->dtype),
           " for `end` but got dtype ", cpp_type_name(end->dtype));
}
void check_lerp_dtype(DType d, const char* kernel) {
  if (!float_or_complex(d)) not_implemented(kernel, d);
}
}  // namespace

Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight) {
  check_lerp_end(start, end);
  CT_CHECK(weight->dtype == start->dtype, Status::DType, "expected dtype ", cpp_type_name(start->dtype),
           " for `weight` but got dtype ", cpp_type_name(weight->dtype));
  Device dev = common_device({start.get(), end.get(), weight.get()}, "lerp");
  const DType res = start->dtype;
  check_lerp_dtype(res, "lerp_kernel_tensor");
  Tensor out = empty_for(broadcast3(start, end, weight), res, dev, {start.get(), end.get(), weight.get()});
  run<4>("lerp", {out.get(), start.get(), end.get(), weight.get()}, {"self", "end", "weight"},
         [&](const Operands<4>& args) {
           dispatch(res, "lerp", [&](auto tag) {
             using scalar_t = typename decltype(tag)::type;
             if constexpr (std::is_floating_point_v<cpu::opmath_t<scalar_t>> || cpu::is_complex_v<scalar_t>)
               cpu_ew<scalar_t, scalar_t>(args, ewfn::LerpTensor{});
           });
         },
         [&](const cuda_ops::Iter<4>& it, void* s) { cuda_ops::lerp_tensor(it, res, s); });
  return out;
}

Tensor lerp_scalar(const Tensor& start, const Tensor& end, double weight) {
  check_lerp_end(start, end);
  Device dev = common_device({start.get(), end.get()}, "lerp");
  const DType res = start->dtype;
  check_lerp_dtype(res, "lerp_kernel_scalar");
  Tensor out = empty_for(broadcast_shapes(start->sizes, end->sizes), res, dev, {start.get(), end.get()});
  run<3>("lerp", {out.get(), start.get(), end.get()}, {"self", "end"},
         [&](const Operands<3>& args) {
           dispatch(res, "lerp", [&](auto tag) {
             using scalar_t = typename decltype(tag)::type;
             using T = cpu::opmath_t<scalar_t>;
             if constexpr (std::is_floating_point_v<T> || cpu::is_complex_v<T>)
               cpu_ew<scalar_t, scalar_t>(args, ewfn::LerpScalar<T>{T(weight)});
           });
         },
         [&](const cuda_ops::Iter<3>& it, void* s) { cuda_ops::lerp_scalar(it, res, weight, s); });
  return out;
}

namespace {
// addcmul / addcdiv: the three tensors promote (torch.result_type) and broadcast
template <typename CpuF, typename CudaF>
Tensor pointwise3(const char* op, const Tensor& t, const Tensor& t1, const Tensor& t2, DType res, const CpuF& cpu_f,
                  const CudaF& cuda_f) {
  Device dev = common_device({t.get(), t1.get(), t2.get()}, op);
  Tensor out = empty_for(broadcast3(t, t1, t2), res, dev, {t.get(), t1.get(), t2.get()});
  run<4>(op, {out.get(), t.get(), t1.get(), t2.get()}, {"self", "tensor1", "tensor2"}, cpu_f, cuda_f);
  return out;
}
}  // namespace

Tensor addcmul(const Tensor& t, const Tensor& t1, const Tensor& t2, double value) {
  const DType res = result_type({t.get(), t1.get(), t2.get()});
  if (res == DType::Bool) not_implemented("addcmul", res);
  return pointwise3(
      "addcmul", t, t1, t2, res,
      [&](const Operands<4>& args) {
        dispatch(res, "addcmul", [&](auto tag) {
          using scalar_t = typename decltype(tag)::type;
          using T = cpu::opmath_t<scalar_t>;
          if constexpr (!std::is_same_v<T, bool>) {
            T v;
            if constexpr (std::is_integral_v<T>) v = static_cast<T>(cpu::convert<int64_t>(value));
            else v = T(value);
            cpu_ew<scalar_t, scalar_t>(args, ewfn::Addcmul<T>{v});
          }
        });
      },
      [&](const cuda_ops::Iter<4>& it, void* s) { cuda_ops::addcmul(it, res, value, s); });
}

Tensor addcdiv(const Tensor& t, const Tensor& t1, const Tensor& t2, double value) {
  CT_CHECK(!(is_integral(t1->dtype, true) && is_integral(t2->dtype, true)), Status::DType,
           "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform "
           "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
           "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
           "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter "
           "implementation: (input + value * tensor1 / tensor2), for all dtypes.");
  const DType res = result_type({t.get(), t1.get(), t2.get()});
  if (!float_or_complex(res)) not_implemented("addcdiv", res);
  return pointwise3(
      "addcdiv", t, t1, t2, res,
      [&](const Operands<4>& args) {
        dispatch(res, "addcdiv", [&](auto tag) {
          using scalar_t = typename decltype(tag)::type;
          using T = cpu::opmath_t<scalar_t>;
          if constexpr (std::is_floating_point_v<T> || cpu::is_complex_v<T>)
            cpu_ew<scalar_t, scalar_t>(args, ewfn::Addcdiv<T>{T(value)});
        });
      },
      [&](const cuda_ops::Iter<4>& it, void* s) { cuda_ops::addcdiv(it, res, value, s); });
}

Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  CT_CHECK(a->dtype == b->dtype, Status::DType, dtype_short(a->dtype), " did not match ", dtype_short(b->dtype));
  CT_CHECK(!(is_complex(a->dtype) && equal_nan), Status::Argument,
           "isclose with equal_nan=True is not supported for complex inputs.");
  CT_CHECK(rtol >= 0, Status::Argument, "rtol must be greater than or equal to zero, but got ", rtol);
  CT_CHECK(atol >= 0, Status::Argument, "atol must be greater than or equal to zero, but got ", atol);
  Device dev = common_device({a.get(), b.get()}, "isclose");
  // bool tensors are compared as the default float dtype (PyTorch converts them)
  const DType common = a->dtype == DType::Bool ? kDefaultFloat : a->dtype;
  Tensor out = empty_for(broadcast_shapes(a->sizes, b->sizes), DType::Bool, dev, {a.get(), b.get()});
  run<3>("isclose", {out.get(), a.get(), b.get()}, {"self", "other"},
         [&](const Operands<3>& args) {
           dispatch(common, "isclose", [&](auto tag) {
             using scalar_t = typename decltype(tag)::type;
             using T = cpu::opmath_t<scalar_t>;
             if constexpr (!std::is_same_v<T, bool>) {
               using F = ewfn::IsClose<scalar_t, T>;
               using V = typename F::V;
               cpu_ew<scalar_t, bool>(args, F{V(rtol), V(atol), equal_nan});
             }
           });
         },
         [&](const cuda_ops::Iter<3>& it, void* s) { cuda_ops::isclose(it, common, rtol, atol, equal_nan, s); });
  return out;
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  Tensor c = isclose(a, b, rtol, atol, equal_nan);
  if (c->numel() == 0) return true;
  // all(): the smallest element of the bool tensor
  return item_int64(max_all(c, false)) != 0;
}

}  // namespace ct::ops
