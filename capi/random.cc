// Section 16 of ctorch.h: generators and random ops.
#include <cstring>
#include <vector>

#include "capi/api.h"
#include "capi/handles.h"
#include "impl/cuda/runtime.h"
#include "impl/ops/ops.h"
#include "impl/rng/generator.h"

using namespace ct;
using namespace ct::capi;
using rng::GeneratorPtr;

namespace {

GeneratorPtr gen_arg(ct_generator g) {
  if (!g) return nullptr;
  return GeneratorTable::get().lookup(g, "gen");
}

GeneratorPtr need_gen(ct_generator g) { return GeneratorTable::get().lookup(g, "generator"); }

// draw(sizes, dtype, device, gen) in t's shape and on t's device; dtype: t's when undefined.
template <typename Draw>
Tensor random_like(ct_tensor t, ct_dtype dtype, ct_generator gen, Draw draw) {
  Tensor x = get(t);
  return draw(x->sizes, dtype_or(dtype, x->dtype), x->device(), gen_arg(gen));
}

void put_gen(ct_generator* out, GeneratorPtr g) { *out = GeneratorTable::get().add(std::move(g)); }

std::vector<GeneratorPtr> cuda_defaults() {
  std::vector<GeneratorPtr> v;
  int n = cuda::is_available() ? cuda::device_count() : 0;
  for (int i = 0; i < n; ++i) v.push_back(rng::default_generator(Device{DeviceType::CUDA, i}));
  return v;
}

const GeneratorPtr& cuda_default(int32_t device) {
  return rng::default_generator(Device{DeviceType::CUDA, cuda::resolve_device(device)});
}

void write_state(const GeneratorPtr& g, void* buf, int64_t cap, int64_t* needed) {
  if (needed) *needed = rng::kStateSize;
  CT_CHECK(cap >= rng::kStateSize, CT_ERR_BUFFER_SIZE, "buffer of ", cap, " bytes is too small for the ",
           rng::kStateSize, "-byte generator state");
  need(buf, "buf");
  auto s = g->get_state();
  std::memcpy(buf, s.data(), s.size());
}

DType float_or(ct_dtype d) { return d == CT_DTYPE_UNDEFINED ? kDefaultFloat : dtype_arg(d); }

}  // namespace

extern "C" {

CT_API ct_status ct_generator_create(ct_device_type type, int32_t index, ct_generator* out) {
  CT_API_BEGIN
  need(out, "out");
  Device d = device_arg(type, index);
  put_gen(out, std::make_shared<rng::Generator>(d));
  CT_API_END
}

CT_API ct_status ct_default_generator(ct_device_type type, int32_t index, ct_generator* out) {
  CT_API_BEGIN
  need(out, "out");
  put_gen(out, rng::default_generator(device_arg(type, index)));
  CT_API_END
}

CT_API ct_status ct_generator_retain(ct_generator g) {
  CT_API_BEGIN
  GeneratorTable::get().retain(g);
  CT_API_END
}

CT_API ct_status ct_generator_release(ct_generator g) {
  CT_API_BEGIN
  GeneratorTable::get().release(g);
  CT_API_END
}

CT_API ct_status ct_live_generator_count(int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = GeneratorTable::get().live();
  CT_API_END
}

CT_API ct_status ct_generator_device(ct_generator g, ct_device_type* type, int32_t* index) {
  CT_API_BEGIN
  put_device(need_gen(g)->device(), type, index);
  CT_API_END
}

CT_API ct_status ct_generator_manual_seed(ct_generator g, int64_t seed) {
  CT_API_BEGIN
  need_gen(g)->manual_seed(static_cast<uint64_t>(seed));
  CT_API_END
}

CT_API ct_status ct_generator_seed(ct_generator g, int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = static_cast<int64_t>(need_gen(g)->seed());
  CT_API_END
}

CT_API ct_status ct_generator_initial_seed(ct_generator g, int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = static_cast<int64_t>(need_gen(g)->initial_seed());
  CT_API_END
}

CT_API ct_status ct_generator_offset(ct_generator g, int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = static_cast<int64_t>(need_gen(g)->offset());
  CT_API_END
}

CT_API ct_status ct_generator_get_state(ct_generator g, void* buf, int64_t cap, int64_t* needed) {
  CT_API_BEGIN
  write_state(need_gen(g), buf, cap, needed);
  CT_API_END
}

CT_API ct_status ct_generator_set_state(ct_generator g, const void* data, int64_t len) {
  CT_API_BEGIN
  GeneratorPtr gp = need_gen(g);
  need(data, "data");
  gp->set_state(static_cast<const uint8_t*>(data), len);
  CT_API_END
}

CT_API ct_status ct_manual_seed(int64_t seed) {
  CT_API_BEGIN
  rng::default_generator(Device{DeviceType::CPU, -1})->manual_seed(static_cast<uint64_t>(seed));
  for (auto& g : cuda_defaults()) g->manual_seed(static_cast<uint64_t>(seed));
  CT_API_END
}

CT_API ct_status ct_seed(int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  uint64_t s = rng::nondeterministic_seed();
  rng::default_generator(Device{DeviceType::CPU, -1})->manual_seed(s);
  for (auto& g : cuda_defaults()) g->manual_seed(s);
  *out = static_cast<int64_t>(s);
  CT_API_END
}

CT_API ct_status ct_initial_seed(int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  *out = static_cast<int64_t>(rng::default_generator(Device{DeviceType::CPU, -1})->initial_seed());
  CT_API_END
}

CT_API ct_status ct_cuda_manual_seed(int64_t seed) {
  CT_API_BEGIN
  if (!cuda::is_available()) return CT_OK;  // as torch.cuda.manual_seed: silently ignored
  cuda_default(-1)->manual_seed(static_cast<uint64_t>(seed));
  CT_API_END
}

CT_API ct_status ct_cuda_manual_seed_all(int64_t seed) {
  CT_API_BEGIN
  for (auto& g : cuda_defaults()) g->manual_seed(static_cast<uint64_t>(seed));
  CT_API_END
}

CT_API ct_status ct_cuda_seed(void) {
  CT_API_BEGIN
  if (!cuda::is_available()) return CT_OK;
  cuda_default(-1)->seed();
  CT_API_END
}

CT_API ct_status ct_cuda_seed_all(void) {
  CT_API_BEGIN
  uint64_t s = rng::nondeterministic_seed();
  for (auto& g : cuda_defaults()) g->manual_seed(s);
  CT_API_END
}

CT_API ct_status ct_cuda_initial_seed(int64_t* out) {
  CT_API_BEGIN
  need(out, "out");
  cuda::check_available();
  *out = static_cast<int64_t>(cuda_default(-1)->initial_seed());
  CT_API_END
}

CT_API ct_status ct_cuda_get_rng_state(int32_t device, void* buf, int64_t cap, int64_t* needed) {
  CT_API_BEGIN
  cuda::check_available();
  write_state(cuda_default(device), buf, cap, needed);
  CT_API_END
}

CT_API ct_status ct_cuda_set_rng_state(const void* data, int64_t len, int32_t device) {
  CT_API_BEGIN
  cuda::check_available();
  need(data, "data");
  cuda_default(device)->set_state(static_cast<const uint8_t*>(data), len);
  CT_API_END
}

CT_API ct_status ct_cuda_get_rng_state_all(void* buf, int64_t cap, int64_t* needed) {
  CT_API_BEGIN
  auto gens = cuda_defaults();
  int64_t total = static_cast<int64_t>(gens.size()) * rng::kStateSize;
  if (needed) *needed = total;
  CT_CHECK(cap >= total, CT_ERR_BUFFER_SIZE, "buffer of ", cap, " bytes is too small for ", gens.size(),
           " generator states (", total, " bytes)");
  if (total == 0) return CT_OK;
  need(buf, "buf");
  for (size_t i = 0; i < gens.size(); ++i) {
    auto s = gens[i]->get_state();
    std::memcpy(static_cast<uint8_t*>(buf) + i * rng::kStateSize, s.data(), s.size());
  }
  CT_API_END
}

CT_API ct_status ct_cuda_set_rng_state_all(const void* data, int64_t len) {
  CT_API_BEGIN
  auto gens = cuda_defaults();
  int64_t total = static_cast<int64_t>(gens.size()) * rng::kStateSize;
  CT_CHECK(len == total, CT_ERR_ARGUMENT, "set_rng_state_all expects ", total, " bytes (", gens.size(),
           " devices x ", rng::kStateSize, "), got ", len);
  if (total == 0) return CT_OK;
  need(data, "data");
  // validate all first, so a bad state changes nothing
  for (size_t i = 0; i < gens.size(); ++i)
    rng::Generator::check_state(static_cast<const uint8_t*>(data) + i * rng::kStateSize, rng::kStateSize);
  for (size_t i = 0; i < gens.size(); ++i)
    gens[i]->set_state(static_cast<const uint8_t*>(data) + i * rng::kStateSize, rng::kStateSize);
  CT_API_END
}

CT_API ct_status ct_rand(const int64_t* sizes, int32_t ndim, ct_dtype dtype, ct_device_type dev_type, int32_t dev_index,
                         ct_generator gen, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] {
    return ops::rand(shape_arg(sizes, ndim, "sizes"), float_or(dtype), device_arg(dev_type, dev_index), gen_arg(gen));
  });
  CT_API_END
}

CT_API ct_status ct_randn(const int64_t* sizes, int32_t ndim, ct_dtype dtype, ct_device_type dev_type,
                          int32_t dev_index, ct_generator gen, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] {
    return ops::randn(shape_arg(sizes, ndim, "sizes"), float_or(dtype), device_arg(dev_type, dev_index), gen_arg(gen));
  });
  CT_API_END
}

CT_API ct_status ct_randint(int64_t low, int64_t high, const int64_t* sizes, int32_t ndim, ct_dtype dtype,
                            ct_device_type dev_type, int32_t dev_index, ct_generator gen, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] {
    return ops::randint(low, high, shape_arg(sizes, ndim, "sizes"), dtype_or(dtype, DType::Int64),
                        device_arg(dev_type, dev_index), gen_arg(gen));
  });
  CT_API_END
}

CT_API ct_status ct_rand_like(ct_tensor t, ct_dtype dtype, ct_generator gen, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return random_like(t, dtype, gen, ops::rand); });
  CT_API_END
}

CT_API ct_status ct_randn_like(ct_tensor t, ct_dtype dtype, ct_generator gen, ct_tensor* out) {
  CT_API_BEGIN
  produce(out, [&] { return random_like(t, dtype, gen, ops::randn); });
  CT_API_END
}

CT_API ct_status ct_tensor_uniform_(ct_tensor t, double from, double to, ct_generator gen) {
  CT_API_BEGIN
  ops::uniform_(get(t), from, to, gen_arg(gen));
  CT_API_END
}

CT_API ct_status ct_tensor_normal_(ct_tensor t, double mean, double std, ct_generator gen) {
  CT_API_BEGIN
  ops::normal_(get(t), mean, std, gen_arg(gen));
  CT_API_END
}

CT_API ct_status ct_tensor_random_(ct_tensor t, ct_generator gen) {
  CT_API_BEGIN
  ops::random_(get(t), gen_arg(gen));
  CT_API_END
}

CT_API ct_status ct_tensor_random_range_(ct_tensor t, int64_t from, int64_t to, ct_generator gen) {
  CT_API_BEGIN
  ops::random_range_(get(t), from, to, gen_arg(gen));
  CT_API_END
}

CT_API ct_status ct_tensor_bernoulli_(ct_tensor t, double p, ct_generator gen) {
  CT_API_BEGIN
  ops::bernoulli_(get(t), p, gen_arg(gen));
  CT_API_END
}

}  // extern "C"
