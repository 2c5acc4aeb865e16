// FFTs through FFTW 3 on the CPU and cuFFT on CUDA devices, both loaded at first use (Note [BLAS
// libraries load on first use]; FFTW is GPL-licensed, so libctorch.so does not link it).
#pragma once
#include <cstdint>
#include <vector>

#include "impl/core/device.h"
#include "impl/core/dtype.h"

namespace ct::fft {

enum Kind { kC2C = 0, kR2C = 1, kC2R = 2 };

// `batch` transforms of signal sizes n (rank = n.size()) over contiguous row-major data: C2C
// complex n -> complex n; R2C real n -> complex n[..-1] + (n.back() / 2 + 1); C2R the reverse
// (it may overwrite its input). real: float32 or float64 (the precision). Unnormalized; forward
// is e^-i, inverse e^+i (C2C only; R2C is forward, C2R inverse).
void execute(Kind kind, bool forward, DType real, Device dev, int64_t batch, const std::vector<int64_t>& n,
             void* in, void* out);

// The cuFFT plan cache of a CUDA device (Note [cuFFT plan cache]).
int64_t plan_cache_max_size(int device);
void set_plan_cache_max_size(int device, int64_t n);
int64_t plan_cache_size(int device);
void plan_cache_clear(int device);
int64_t plan_cache_max_bytes(int device);
void set_plan_cache_max_bytes(int device, int64_t bytes);  // 0: no budget
int64_t plan_cache_bytes(int device);                        // work-area bytes of the cached plans
// Lookups since the process started that found a cached plan (hits) and that did not (misses).
int64_t plan_cache_hits(int device);
int64_t plan_cache_misses(int device);

}  // namespace ct::fft
