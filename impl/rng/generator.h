// Random number generators: torch.Generator for CPU and CUDA devices, with PyTorch's CUDA
// generator state (a seed and a Philox offset) on both (Note [Philox from cuRAND on both
// devices]).
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <mutex>

#include "impl/core/device.h"

namespace ct::rng {

constexpr uint64_t kDefaultSeed = 67280421310721ULL;  // PyTorch's default_rng_seed_val
constexpr int kStateSize = 16;                         // seed (uint64) + offset (int64), as torch.cuda

struct PhiloxArgs {
  uint64_t seed;
  uint64_t offset;
};

class Generator {
 public:
  explicit Generator(Device d) : device_(d) {}
  Device device() const { return device_; }
  void manual_seed(uint64_t seed);  // the offset starts again at 0
  uint64_t seed();                  // a non-deterministic seed, set and returned
  uint64_t initial_seed();          // the current seed (torch's initial_seed)
  uint64_t offset();
  std::array<uint8_t, kStateSize> get_state();
  void set_state(const uint8_t* state, int64_t size);  // Status::Argument for a wrong size
  // Checks a state without setting it (the errors of set_state).
  static void check_state(const uint8_t* state, int64_t size);
  // The (seed, offset) of one kernel launch; the offset advances by increment rounded up to a
  // multiple of 4, as CUDAGeneratorImpl::philox_cuda_state.
  PhiloxArgs philox(uint64_t increment);

 private:
  Device device_;
  std::mutex mu_;
  uint64_t seed_ = kDefaultSeed;
  uint64_t offset_ = 0;
};
using GeneratorPtr = std::shared_ptr<Generator>;

// The default generator of a device (CPU, or a CUDA device index >= 0). Created on first use.
const GeneratorPtr& default_generator(Device d);
uint64_t nondeterministic_seed();

// Note [Random launch geometry] (impl/rng/distributions.h).
struct Geometry {
  int64_t threads;         // 256 * grid
  uint32_t grid;
  uint64_t counter_offset;  // how far the generator's offset advances
};
// For `numel` elements drawn `unroll` per call, on CUDA device `cuda_device` (-1: the CPU,
// which uses the current CUDA device's figures, or the reference geometry without a GPU).
Geometry geometry(int64_t numel, int unroll, int cuda_device);
constexpr int kRefMultiprocessors = 132, kRefThreadsPerMultiprocessor = 2048;

}  // namespace ct::rng
