// Random ops (torch.rand, randn, randint, *_like, uniform_, normal_, random_, bernoulli_) on
// both devices, drawing from a Philox generator as torch.cuda does (impl/rng).
#include <cmath>
#include <limits>

#include "impl/core/error.h"
#include "impl/cuda/capture.h"
#include "impl/cuda/runtime.h"
#include "impl/ops/cuda_dispatch.h"
#include "impl/ops/ops.h"
#include "impl/rng/generator.h"
#include "impl/rng/params.h"

namespace ct::ops {

namespace {

using rng::GeneratorPtr;

rng::Generator& generator_for(const Tensor& t, const GeneratorPtr& gen) {
  Device d = t->device();
  if (!gen) return *rng::default_generator(d);
  CT_CHECK(gen->device().type == d.type, Status::Device, "Expected a '", d.is_cuda() ? "cuda" : "cpu",
           "' device type for generator but found '", gen->device().is_cuda() ? "cuda" : "cpu", "'");
  CT_CHECK(d.is_cpu() || gen->device().index == d.index, Status::Device, "the generator is on ", gen->device().str(),
           " but the tensor is on ", d.str());
  return *gen;
}

// Fills t with numel draws of `draw` (Note [Random launch geometry]).
void fill(const Tensor& t, int draw, const rng::Params& p, const GeneratorPtr& gen, const char* op) {
  rng::Generator& g = generator_for(t, gen);
  int64_t n = t->numel();
  if (n == 0) return;
  Tensor out = t->is_contiguous() ? t : empty(t->sizes, t->dtype, t->device());
  Device d = t->device();
  rng::Geometry geo = rng::geometry(n, rng::unroll_of(draw), d.is_cuda() ? d.index : -1);
  if (d.is_cuda()) {
    CudaScope sc(d);
    // Note [Graph-safe Philox]
    rng::PhiloxArgs a = g.philox(geo.counter_offset, cuda::capture_of(static_cast<cudaStream_t>(sc.stream)));
    rng::cuda_fill(out->data(), n, static_cast<int32_t>(t->dtype), draw, p, a.seed, a.offset, a.state, geo.grid,
                   sc.stream);
    cuda::check_launch(op, static_cast<cudaStream_t>(sc.stream));
    CT_CSAN_KERNEL(sc.stream_ref, op, {}, {{out.get(), "self"}});
  } else {
    rng::PhiloxArgs a = g.philox(geo.counter_offset);
    rng::cpu_fill(out->data(), n, static_cast<int32_t>(t->dtype), draw, p, a.seed, a.offset, geo.threads);
  }
  if (out.get() != t.get()) copy_(t, out);
}

void need_float(const Tensor& t, const char* op) {
  CT_CHECK(is_floating(t->dtype), Status::DType, "\"", op, "\" not implemented for '", dtype_short(t->dtype),
           "' (expected float32, float64, float16 or bfloat16)");
}

double round_to(DType d, double v) {
  switch (d) {
    case DType::Float32: return static_cast<float>(v);
    case DType::Float16: return static_cast<float>(Half(static_cast<float>(v)));
    case DType::BFloat16: return static_cast<float>(BFloat16(static_cast<float>(v)));
    default: return v;
  }
}

// [min, max] of an integer dtype (floats: the integers they hold exactly, as PyTorch's checks).
void int_bounds(DType d, int64_t* lo, int64_t* hi) {
  switch (d) {
    case DType::Bool: *lo = 0, *hi = 1; return;
    case DType::UInt8: *lo = 0, *hi = 255; return;
    case DType::Int8: *lo = -128, *hi = 127; return;
    case DType::Int16: *lo = -32768, *hi = 32767; return;
    case DType::Int32: *lo = INT32_MIN, *hi = INT32_MAX; return;
    case DType::Float16: *lo = -(1 << 11), *hi = 1 << 11; return;
    case DType::BFloat16: *lo = -(1 << 8), *hi = 1 << 8; return;
    case DType::Float32: *lo = -(1LL << 24), *hi = 1LL << 24; return;
    case DType::Float64: *lo = -(1LL << 53), *hi = 1LL << 53; return;
    default: *lo = INT64_MIN, *hi = INT64_MAX; return;
  }
}

}  // namespace

void uniform_(const Tensor& t, double from, double to, const GeneratorPtr& gen) {
  need_float(t, "uniform_");
  CT_CHECK(from <= to, Status::Argument, "uniform_ expects to return a [from, to) range, but found from=", from,
           " > to=", to);
  CT_CHECK(std::isfinite(to - from), Status::Argument, "uniform_ expects to-from <= std::numeric_limits<",
           dtype_short(t->dtype), ">::max(), but found to=", to, " and from=", from,
           " which result in to-from to exceed the limit");
  rng::Params p;
  p.mode = rng::kModeUniform;
  p.b = round_to(t->dtype, from);
  p.c = round_to(t->dtype, to);
  p.a = round_to(t->dtype, p.c - p.b);  // (to - from) in the dtype, as PyTorch's range
  fill(t, t->dtype == DType::Float64 ? rng::kUniform2Double : rng::kUniform4, p, gen, "uniform_");
}

void normal_(const Tensor& t, double mean, double std, const GeneratorPtr& gen) {
  need_float(t, "normal_");
  CT_CHECK(std >= 0.0, Status::Argument, "normal expects std >= 0.0, but found std ", std);
  rng::Params p;
  p.mode = rng::kModeNormal;
  p.a = std;
  p.b = mean;
  fill(t, t->dtype == DType::Float64 ? rng::kNormal2Double : rng::kNormal4, p, gen, "normal_");
}

void random_(const Tensor& t, const GeneratorPtr& gen) {
  CT_CHECK(!is_complex(t->dtype), Status::DType, "\"random_\" not implemented for '", dtype_short(t->dtype), "'");
  rng::Params p;
  p.mode = rng::kModeIntFull;
  bool wide = t->dtype == DType::Float64 || t->dtype == DType::Int64;
  fill(t, wide ? rng::kBits64x2 : rng::kBits32x4, p, gen, "random_");
}

void random_range_(const Tensor& t, int64_t from, int64_t to, const GeneratorPtr& gen) {
  CT_CHECK(!is_complex(t->dtype), Status::DType, "\"random_\" not implemented for '", dtype_short(t->dtype), "'");
  CT_CHECK(from < to, Status::Argument, "random_ expects 'from' to be less than 'to', but got from=", from,
           " >= to=", to);
  int64_t lo, hi;
  int_bounds(t->dtype, &lo, &hi);
  CT_CHECK(from >= lo && from <= hi, Status::Argument, "from is out of bounds for ", dtype_short(t->dtype));
  CT_CHECK(to - 1 >= lo && to - 1 <= hi, Status::Argument, "to - 1 is out of bounds for ", dtype_short(t->dtype));
  rng::Params p;
  p.mode = rng::kModeIntFromTo;
  p.range = static_cast<uint64_t>(to) - static_cast<uint64_t>(from);
  p.base = from;
  fill(t, p.range >= (1ULL << 28) ? rng::kBits64x2 : rng::kBits32x4, p, gen, "random_");
}

void bernoulli_(const Tensor& t, double prob, const GeneratorPtr& gen) {
  CT_CHECK(!is_complex(t->dtype), Status::DType, "\"bernoulli_\" not implemented for '", dtype_short(t->dtype), "'");
  CT_CHECK(prob >= 0.0 && prob <= 1.0, Status::Argument, "bernoulli_ expects p to be in [0, 1], but got p=", prob);
  rng::Params p;
  p.mode = rng::kModeBernoulli;
  p.a = prob;
  fill(t, t->dtype == DType::Float64 ? rng::kUniform2Double : rng::kUniform4, p, gen, "bernoulli_");
}

Tensor rand(Shape sizes, DType dtype, Device dev, const GeneratorPtr& gen) {
  Tensor t = empty(std::move(sizes), dtype, dev);
  uniform_(t, 0.0, 1.0, gen);
  return t;
}

Tensor randn(Shape sizes, DType dtype, Device dev, const GeneratorPtr& gen) {
  Tensor t = empty(std::move(sizes), dtype, dev);
  normal_(t, 0.0, 1.0, gen);
  return t;
}

Tensor randint(int64_t low, int64_t high, Shape sizes, DType dtype, Device dev, const GeneratorPtr& gen) {
  Tensor t = empty(std::move(sizes), dtype, dev);
  random_range_(t, low, high, gen);
  return t;
}

}  // namespace ct::ops
