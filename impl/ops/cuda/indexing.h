// The CUDA kernels of impl/ops/indexing.cc, as seen from host code. Copying kernels are over
// element sizes (1, 2, 4, 8, 16 bytes). An index out of range fails the kernel's device-side
// assertion (as PyTorch's CUDA_KERNEL_ASSERT): the error "device-side assert triggered" is
// sticky and reported by the next CUDA call (by the launch itself under CUDA_LAUNCH_BLOCKING=1).
#pragma once
#include <cstdint>

#include "impl/ops/cuda/kernels.h"

namespace ct::cuda_ops {

// cpu::index_gather's contract on the device; indices outside [wrap ? -bound : 0, bound) assert.
void index_gather(const Iter<3>& it, int64_t esize, bool idx64, int64_t stride_bytes, int64_t bound, bool wrap,
                  void* stream);
// index_select of a contiguous src viewed as [outer, size, inner] into the contiguous out
// [outer, n, inner], rows of row_bytes = inner * element size (Note [index_select rows]); the
// index: n elements (int64 or int32) index_stride_bytes apart, each asserted to lie in [0, size).
// False (nothing launched) when one outer slice has 2^31 or more units of the copy.
bool index_select_rows(void* out, const void* src, const void* index, int64_t index_stride_bytes, bool idx64,
                       int64_t outer, int64_t n, int64_t size, int64_t row_bytes, void* stream);
// cpu::index_scatter's contract on the device (which write of a duplicate index wins is
// unspecified, as in PyTorch); src may be a 0-dim CPU scalar (kernel parameter).
void index_scatter(const Iter<3>& it, int64_t esize, bool idx64, int64_t stride_bytes, int64_t bound, bool wrap,
                   void* stream);
// cpu::index_scatter_add's contract with atomic adds (the order of the adds, and so a float
// result's last bits, vary). float16/bfloat16 add in pairs where the destination's elements fill
// its bytes (Note [Paired half atomics]): pair_lo, pair_bytes those bytes, or null, 0.
void index_scatter_add(const Iter<3>& it, DType dtype, bool idx64, int64_t stride_bytes, int64_t bound, bool wrap,
                       const void* pair_lo, int64_t pair_bytes, void* stream);
// Asserts every index of the one-operand iteration lies in [wrap ? -bound : 0, bound).
void index_check(const Iter<1>& it, bool idx64, int64_t bound, bool wrap, void* stream);
// cpu::masked_fill's contract on the device (value: esize host bytes, passed by value).
void masked_fill(const Iter<2>& it, int64_t esize, const void* value, void* stream);
// Note [nonzero on the device]: the nonzero test of an element of `bytes` (1, 2, 4 or 8) bytes is
// on its bits: nonzero where any bit of `mask` is set (every bit of an integer or bool; every bit
// but the sign bits of a floating or complex type, so -0.0 counts as zero and NaN as nonzero, as
// x != 0). nonzero_mask gives them for a dtype, false where none fits (16-byte complex128).
bool nonzero_mask(DType dtype, int64_t* bytes, uint64_t* mask);
// The number of nonzero elements of a contiguous array of n such elements
// (cub::DeviceReduce::Sum over the test); waits for it.
int64_t count_nonzero(const void* data, int64_t bytes, uint64_t mask, int64_t n, ScratchFn& get, void* stream);
// Their row-major positions into out (cub::DeviceSelect::Flagged; out sized to the count).
void nonzero_positions(const void* data, int64_t bytes, uint64_t mask, int64_t n, int64_t* out, ScratchFn& get,
                       void* stream);
// The count positions in out[0, count) of an array of shape sizes[nd] (1 <= nd <= kMaxDims)
// turned into their coordinates in place: coordinate d of position i to out[d * count + i]
// (PyTorch's layout of nonzero's result, [count, nd] with strides {1, count}).
void positions_to_coords(int64_t* out, int64_t count, const int64_t* sizes, int32_t nd, void* stream);

}  // namespace ct::cuda_ops
