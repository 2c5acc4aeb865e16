#include <cmath>
#include <cstring>

#include "impl/core/error.h"
#include "impl/ops/cpu/convert.h"
#include "impl/ops/cpu/parallel.h"
#include "impl/ops/cuda_dispatch.h"
#include "impl/ops/ops.h"

namespace ct::ops {

namespace {
// Writes f(i) (a double) converted to dtype into every element of the contiguous tensor t.
// On CUDA the same formula runs in a kernel (`kind` and a, b, c, d as in fill_pattern).
template <typename F>
void fill_indexed(const Tensor& t, F f, int kind, double a, double b, int64_t c, double d) {
  if (t->device().is_cuda()) {
    CudaScope sc(t->device());
    cuda_ops::fill_pattern(t->data(), t->numel(), t->dtype, kind, a, b, c, d, sc.stream);
    CT_CSAN_KERNEL(sc.stream_ref, "factory", {}, {{t.get(), "out"}});
    return;
  }
  CT_DISPATCH_ALL(t->dtype, "factory", [&] {
    scalar_t* d = reinterpret_cast<scalar_t*>(t->data());
    cpu::parallel_for(0, t->numel(), cpu::kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) d[i] = cpu::convert<scalar_t>(f(i));
    });
  });
}
}  // namespace

Tensor empty(Shape sizes, DType dtype, Device dev) {
  Tensor t = empty_tensor(std::move(sizes), dtype, dev);
  // Uninitialized bytes are no bools (a bool other than 0 or 1 is undefined behaviour in the
  // kernels): a bool tensor starts all false, on the CPU and (a fill on the current stream) on
  // CUDA. Only this public factory pays it; the ops' own outputs are written before any read.
  if (dtype == DType::Bool && t->numel() > 0) {
    if (dev.is_cpu()) std::memset(t->data(), 0, static_cast<size_t>(t->numel()));
    else fill_(t, 0.0);
  }
  return t;
}

Tensor full(const Shape& sizes, double value, DType dtype, Device dev) {
  check_fill_value(value, dtype);  // before allocating
  Tensor t = empty_tensor(sizes, dtype, dev);
  fill_(t, value);
  return t;
}

Tensor arange(double start, double end, double step, DType dtype, Device dev) {
  // torch.arange's checks and texts: ATen's RangeUtils.h (the range, a nonzero step, its sign)
  // and torch._refs.arange's finite step ("step must be finite but got inf"; ATen's own checks
  // let an infinite step through to an empty tensor and call a NaN step not nonzero).
  CT_CHECK(std::isfinite(start) && std::isfinite(end), Status::Argument, "arange: unsupported range: ", start, " -> ", end);
  CT_CHECK(std::isfinite(step), Status::Argument, "arange: step must be finite but got ", step);
  CT_CHECK(step != 0, Status::Argument, "arange: step must be nonzero");
  CT_CHECK((step > 0 && end >= start) || (step < 0 && end <= start), Status::Argument,
           "arange: upper bound and larger bound inconsistent with step sign (start ", start, ", end ", end,
           ", step ", step, ")");
  CT_CHECK(!is_complex(dtype) && dtype != DType::Bool, Status::DType, "\"arange\" not implemented for '", dtype_short(dtype), "'");
  double n = std::ceil((end - start) / step);
  CT_CHECK(n >= 0 && n < 9.2e18, Status::Argument, "arange: invalid number of elements ", n);
  Tensor t = empty_tensor({static_cast<int64_t>(n)}, dtype, dev);
  fill_indexed(t, [&](int64_t i) { return start + static_cast<double>(i) * step; }, 0, start, step, 0, 0);
  return t;
}

Tensor linspace(double start, double end, int64_t steps, DType dtype, Device dev) {
  CT_CHECK(steps >= 0, Status::Argument, "linspace: number of steps must be non-negative, got ", steps);
  CT_CHECK(dtype != DType::Bool, Status::DType, "\"linspace\" not implemented for 'Bool'");
  Tensor t = empty_tensor({steps}, dtype, dev);
  if (steps == 0) return t;
  if (steps == 1) {
    fill_indexed(t, [&](int64_t) { return start; }, 3, start, 0, 0, 0);
    return t;
  }
  // Symmetric evaluation from both ends, as PyTorch's CPU kernel.
  double step = (end - start) / static_cast<double>(steps - 1);
  int64_t half = steps / 2;
  fill_indexed(t, [&](int64_t i) {
    return i < half ? start + step * static_cast<double>(i)
                    : end - step * static_cast<double>(steps - i - 1);
  }, 1, start, step, steps, end);
  return t;
}

Tensor eye(int64_t n, int64_t m, DType dtype, Device dev) {
  if (m == -1) m = n;  // torch's m=None
  CT_CHECK(n >= 0, Status::Argument, "eye: n must be greater or equal to 0, got ", n);
  CT_CHECK(m >= 0, Status::Argument, "eye: m must be greater or equal to 0, got ", m);
  Tensor t = empty_tensor({n, m}, dtype, dev);
  fill_indexed(t, [&](int64_t i) { return (i / m == i % m) ? 1.0 : 0.0; }, 2, 0, 0, m, 0);
  return t;
}

}  // namespace ct::ops
