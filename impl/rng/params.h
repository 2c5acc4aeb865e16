// What a random op asks of the fill (CPU loop or CUDA kernel); no cuRAND or CUDA types.
#pragma once
#include <cstdint>

namespace ct::rng {

// What one cuRAND call returns (and how many elements it serves).
enum Draw : int {
  kUniform4 = 0,    // curand_uniform4: 4 floats in (0, 1]
  kUniform2Double,  // curand_uniform2_double: 2 doubles in (0, 1]
  kNormal4,         // curand_normal4
  kNormal2Double,   // curand_normal2_double
  kBits32x4,        // curand4: 4 x uint32
  kBits64x2,        // curand4 as 2 x uint64 (x << 32 | y, z << 32 | w)
};
constexpr int unroll_of(int d) { return (d == kUniform2Double || d == kNormal2Double || d == kBits64x2) ? 2 : 4; }

// What is done with a value.
enum Mode : int { kModeUniform = 0, kModeNormal, kModeIntFromTo, kModeIntFull, kModeBernoulli };

struct Params {
  int32_t mode = kModeUniform;
  // uniform: a = range, b = from, c = to (from/to already rounded to the output dtype);
  // normal: a = std, b = mean; bernoulli: a = p
  double a = 0, b = 0, c = 0;
  uint64_t range = 0;  // int from/to: to - from
  int64_t base = 0;    //                from
};

// The fills (Note [Random launch geometry]): numel elements of a contiguous buffer of int32_t
// dtype. cuda_fill launches on `stream` of the current device.
void cpu_fill(void* out, int64_t numel, int32_t dtype, int draw, const Params& p, uint64_t seed, uint64_t offset,
              int64_t threads);
// state: nullptr, or in a graph the device memory {seed, offset} each replay writes (then offset
// is the launch's offset within the graph; Note [Graph-safe Philox] in generator.h).
void cuda_fill(void* out, int64_t numel, int32_t dtype, int draw, const Params& p, uint64_t seed, uint64_t offset,
               const int64_t* state, uint32_t grid, void* stream);
// Writes {seed, offset} into a graph's state on stream (before a replay).
void cuda_set_state(int64_t* state, uint64_t seed, uint64_t offset, void* stream);

}  // namespace ct::rng
