// cuRAND's Philox4x32-10 generator and its distributions, usable from host and device code.
//
// Note [Philox from cuRAND on both devices]: torch.cuda draws with cuRAND's device API
// (curand_init(seed, thread index, offset), then curand4 / curand_uniform4 / curand_normal4 /
// the double forms). cuRAND's headers are written so that the same functions compile for the
// host (their NV_IF_ELSE_TARGET branches use sinf/cosf where the device uses __sincosf), but
// they are declared device-only through the QUALIFIERS macro. Defining QUALIFIERS as
// host+device before the first cuRAND include makes the CPU run cuRAND's own code: uniform and
// integer draws are bit-identical to the GPU's, and normal draws differ only by the GPU's fast
// sine/cosine (docs/random.md gives the measured bound). No libcurand is linked: it is all
// header code.
#pragma once
#if defined(QUALIFIERS)
#error "impl/rng/philox.h must be the first to include the cuRAND headers in a translation unit"
#endif
#define QUALIFIERS static __forceinline__ __host__ __device__
#include <curand_kernel.h>
