#include "impl/rng/generator.h"

#include <cstring>
#include <random>
#include <tuple>
#include <vector>

#include "impl/abi/tables.h"
#include "impl/alloc/allocator.h"
#include "impl/alloc/cuda_memory.h"
#include "impl/core/error.h"
#include "impl/core/locked.h"
#include "impl/cuda/runtime.h"
#include "impl/rng/params.h"

namespace ct::rng {

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> g(mu_);
  seed_ = seed;
  offset_ = 0;
}

uint64_t nondeterministic_seed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) | rd();
}

uint64_t Generator::seed() {
  uint64_t s = nondeterministic_seed();
  manual_seed(s);
  return s;
}

uint64_t Generator::initial_seed() { return read_locked(mu_, seed_); }

uint64_t Generator::offset() { return read_locked(mu_, offset_); }

std::array<uint8_t, kStateSize> Generator::get_state() {
  std::lock_guard<std::mutex> g(mu_);
  std::array<uint8_t, kStateSize> s{};
  int64_t off = static_cast<int64_t>(offset_);
  std::memcpy(s.data(), &seed_, 8);
  std::memcpy(s.data() + 8, &off, 8);
  return s;
}

void Generator::check_state(const uint8_t* state, int64_t size) {
  CT_CHECK(size == kStateSize, Status::Argument, "RNG state is wrong size: expected ", kStateSize,
           " bytes (seed and Philox offset, as torch.cuda.get_rng_state), got ", size);
  int64_t off;
  std::memcpy(&off, state + 8, 8);
  CT_CHECK(off >= 0 && off % 4 == 0, Status::Argument, "RNG state has an invalid Philox offset ", off,
           " (expected a non-negative multiple of 4)");
}

void Generator::set_state(const uint8_t* state, int64_t size) {
  check_state(state, size);
  uint64_t seed;
  int64_t off;
  std::memcpy(&seed, state, 8);
  std::memcpy(&off, state + 8, 8);
  std::lock_guard<std::mutex> g(mu_);
  seed_ = seed;
  offset_ = static_cast<uint64_t>(off);
}

namespace {
std::mutex g_capture_mu;
std::map<uint64_t, std::vector<GeneratorPtr>>& capture_generators() {
  static auto* m = new std::map<uint64_t, std::vector<GeneratorPtr>>();  // never destroyed
  return *m;
}
}  // namespace

PhiloxArgs Generator::philox(uint64_t increment, uint64_t capture_id) {
  increment = (increment + 3) / 4 * 4;
  if (capture_id == 0) {
    std::lock_guard<std::mutex> g(mu_);
    PhiloxArgs a{seed_, offset_};
    offset_ += increment;
    return a;
  }
  std::unique_lock<std::mutex> g(mu_);
  auto it = captures_.find(capture_id);
  if (it == captures_.end()) {
    // The state must outlive every replay, outside the graph: from the graph's private pool.
    // cudaMallocAsync would make it an allocation node of the graph itself (its memory mapped
    // only while the graph runs), and replay_prologue writes it before the launch.
    CT_CHECK(alloc::caching_allocator(device_.index) != nullptr, Status::NotSupported,
             "random numbers in a CUDA graph need the native caching allocator (with "
             "CTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync the generator's graph state would be memory of "
             "the graph itself)");
    g.unlock();  // allocating may run out-of-memory hooks
    DataPtr state = alloc::allocate(2 * sizeof(int64_t), device_);
    g.lock();
    bool inserted;
    std::tie(it, inserted) = captures_.emplace(capture_id, CaptureState{0, std::move(state)});
    if (inserted) {  // (another thread of the same capture may have been first)
      std::lock_guard<std::mutex> r(g_capture_mu);
      capture_generators()[capture_id].push_back(shared_from_this());
    }
  }
  CaptureState& c = it->second;
  CT_CHECK(c.intragraph <= UINT32_MAX - increment, Status::Argument,
           "the random ops of one CUDA graph draw more than 2^32 Philox offsets from one generator");
  PhiloxArgs a{0, c.intragraph, static_cast<const int64_t*>(c.state.get())};
  c.intragraph += increment;
  return a;
}

uint64_t Generator::capture_epilogue(uint64_t capture_id) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = captures_.find(capture_id);
  return it == captures_.end() ? 0 : it->second.intragraph;
}

void Generator::replay_prologue(uint64_t capture_id, uint64_t wholegraph_increment, void* stream) {
  if (wholegraph_increment == 0) return;
  std::lock_guard<std::mutex> g(mu_);
  auto it = captures_.find(capture_id);
  CT_CHECK(it != captures_.end(), Status::Internal, "replay: the generator has no state for capture ", capture_id);
  cuda_set_state(static_cast<int64_t*>(it->second.state.get()), seed_, offset_, stream);
  offset_ += wholegraph_increment;
}

void Generator::remove_capture_state(uint64_t capture_id) {
  DataPtr drop;  // freed after the lock
  std::lock_guard<std::mutex> g(mu_);
  auto it = captures_.find(capture_id);
  if (it == captures_.end()) return;
  drop = std::move(it->second.state);
  captures_.erase(it);
}

std::vector<GeneratorPtr> take_capture_generators(uint64_t capture_id) {
  std::lock_guard<std::mutex> g(g_capture_mu);
  auto& m = capture_generators();
  auto it = m.find(capture_id);
  if (it == m.end()) return {};
  std::vector<GeneratorPtr> v = std::move(it->second);
  m.erase(it);
  return v;
}

const GeneratorPtr& default_generator(Device d) {
  static std::once_flag once;
  static std::vector<GeneratorPtr>* gens;  // [0]: CPU, [1 + i]: cuda:i; never destroyed
  std::call_once(once, [] {
    gens = new std::vector<GeneratorPtr>();
    gens->push_back(std::make_shared<Generator>(Device{DeviceType::CPU, -1}));
    int n = cuda::is_available() ? cuda::device_count() : 0;
    for (int i = 0; i < n; ++i) gens->push_back(std::make_shared<Generator>(Device{DeviceType::CUDA, i}));
  });
  if (d.is_cpu()) return (*gens)[0];
  cuda::check_device_index(d.index);
  return (*gens)[1 + d.index];
}

namespace {
struct DeviceFigures {
  int sms, threads_per_sm;
};
DeviceFigures figures(int device) {
  static std::once_flag once;
  static std::vector<DeviceFigures>* figs;
  std::call_once(once, [] {
    figs = new std::vector<DeviceFigures>();
    int n = cuda::is_available() ? cuda::device_count() : 0;
    for (int i = 0; i < n; ++i)
      figs->push_back({static_cast<int>(cuda::device_property(i, DeviceProperty::MultiprocessorCount)),
                       static_cast<int>(cuda::device_property(i, DeviceProperty::MaxThreadsPerMultiprocessor))});
  });
  if (device < 0 || device >= static_cast<int>(figs->size())) return {kRefMultiprocessors, kRefThreadsPerMultiprocessor};
  return (*figs)[device];
}
}  // namespace

Geometry geometry(int64_t numel, int unroll, int cuda_device) {
  constexpr uint64_t kBlock = 256;
  int dev = cuda_device;
  if (dev < 0 && cuda::is_available()) dev = cuda::current_device();
  DeviceFigures f = figures(dev);
  uint64_t n = static_cast<uint64_t>(numel);
  uint64_t grid = (n + kBlock - 1) / kBlock;
  uint64_t max_grid = static_cast<uint64_t>(f.sms) * (static_cast<uint64_t>(f.threads_per_sm) / kBlock);
  if (grid > max_grid) grid = max_grid;
  Geometry g;
  g.grid = static_cast<uint32_t>(grid);
  g.threads = static_cast<int64_t>(grid * kBlock);
  g.counter_offset = ((n - 1) / (kBlock * grid * static_cast<uint64_t>(unroll)) + 1) * 4;
  return g;
}

}  // namespace ct::rng
