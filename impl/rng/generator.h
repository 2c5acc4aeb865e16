// Random number generators: torch.Generator for CPU and CUDA devices, with PyTorch's CUDA
// generator state (a seed and a Philox offset) on both (Note [Philox from cuRAND on both
// devices]).
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "impl/core/data_ptr.h"

#include "impl/core/device.h"

namespace ct::rng {

constexpr uint64_t kDefaultSeed = 67280421310721ULL;  // PyTorch's default_rng_seed_val
constexpr int kStateSize = 16;                         // seed (uint64) + offset (int64), as torch.cuda

// Note [Graph-safe Philox] (PyTorch's Note [CUDA Graph-safe RNG states]): a random kernel
// captured into a graph must draw new numbers at each replay, the very numbers the same kernels
// would draw eagerly from the generator's offset at replay time. So a captured launch gets no
// seed and offset as values; it gets `state`, 16 bytes of device memory per (generator,
// capture) holding {seed, offset}, plus its own offset within the graph (the sum of the
// increments of the generator's earlier launches in the same capture). Before each replay the
// graph writes the generator's current seed and offset into `state` on the replay stream
// (replay_prologue) and advances the offset by the graph's whole increment, as eager launches
// would have. A generator joins a capture by drawing in it (PyTorch asks the caller to
// register generators other than the default one; ctorch does it at the first draw).
struct PhiloxArgs {
  uint64_t seed;
  uint64_t offset;               // eager: the offset; in a graph: the offset within the graph
  const int64_t* state = nullptr;  // in a graph: {seed, offset} written before each replay
};

class Generator : public std::enable_shared_from_this<Generator> {
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
  // capture_id: the capture the launch's stream takes part in (0: none); Note [Graph-safe
  // Philox]. The first draw in a capture allocates the capture's state (on the current stream,
  // so from the graph's private pool) and registers the generator with the capture.
  PhiloxArgs philox(uint64_t increment, uint64_t capture_id = 0);
  // The capture ended: its whole increment (0 when it drew nothing from this generator).
  uint64_t capture_epilogue(uint64_t capture_id);
  // Before a replay of that capture's graph on stream: writes {seed, offset} into its state and
  // advances the offset by the whole increment.
  void replay_prologue(uint64_t capture_id, uint64_t wholegraph_increment, void* stream);
  void remove_capture_state(uint64_t capture_id);  // the graph is reset: its state goes

 private:
  struct CaptureState {
    uint64_t intragraph = 0;
    DataPtr state;  // 2 x int64 on the generator's device
  };
  Device device_;
  std::mutex mu_;
  uint64_t seed_ = kDefaultSeed;
  uint64_t offset_ = 0;
  std::map<uint64_t, CaptureState> captures_;
};
using GeneratorPtr = std::shared_ptr<Generator>;

// The generators that drew in capture_id since it began (each once), taken out of the
// registry: the graph keeps them (Note [Graph-safe Philox]).
std::vector<GeneratorPtr> take_capture_generators(uint64_t capture_id);

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
