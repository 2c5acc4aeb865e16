// The random fills on the GPU: PyTorch's grid-stride distribution kernel (256 threads per
// block, one cuRAND call per loop iteration; Note [Random launch geometry]).
#include "impl/rng/distributions.h"  // first: it includes cuRAND (Note [Philox from cuRAND on both devices])

#include "impl/core/error.h"

namespace ct::rng {

namespace {
// state: nullptr for an eager launch; in a graph, the {seed, offset} its replay wrote, and
// `offset` is the launch's offset within the graph (Note [Graph-safe Philox] in generator.h).
template <typename S, int D>
__global__ void __launch_bounds__(256, 4)
    fill_kernel(S* out, int64_t numel, Params p, uint64_t seed, uint64_t offset, const int64_t* state) {
  if (state) {
    seed = static_cast<uint64_t>(state[0]);
    offset += static_cast<uint64_t>(state[1]);
  }
  int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  thread_work<S, D>(out, numel, idx, static_cast<int64_t>(blockDim.x) * gridDim.x, p, seed, offset);
}

struct CudaFill {
  void* out;
  int64_t numel;
  const Params& p;
  uint64_t seed, offset;
  const int64_t* state;
  uint32_t grid;
  cudaStream_t stream;
  template <typename S, int D>
  void run() {
    fill_kernel<S, D><<<grid, 256, 0, stream>>>(static_cast<S*>(out), numel, p, seed, offset, state);
  }
};

__global__ void set_state_kernel(int64_t* state, int64_t seed, int64_t offset) {
  state[0] = seed;
  state[1] = offset;
}
}  // namespace

void cuda_fill(void* out, int64_t numel, int32_t dtype, int draw, const Params& p, uint64_t seed, uint64_t offset,
               const int64_t* state, uint32_t grid, void* stream) {
  if (numel == 0) return;
  CudaFill f{out, numel, p, seed, offset, state, grid, static_cast<cudaStream_t>(stream)};
  CT_CHECK(dispatch(dtype, draw, f), Status::Internal, "random fill: no kernel for dtype ", dtype, " and draw ", draw);
}

void cuda_set_state(int64_t* state, uint64_t seed, uint64_t offset, void* stream) {
  set_state_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(state, static_cast<int64_t>(seed),
                                                                     static_cast<int64_t>(offset));
}

}  // namespace ct::rng
