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
// cpu::index_scatter_add's contract with atomic adds (float16/bfloat16 as PyTorch: atomicAdd on
// __half / __nv_bfloat16; the order of the adds, and so a float result's last bits, vary).
void index_scatter_add(const Iter<3>& it, DType dtype, bool idx64, int64_t stride_bytes, int64_t bound, bool wrap,
                       void* stream);
// Asserts every index of the one-operand iteration lies in [wrap ? -bound : 0, bound).
void index_check(const Iter<1>& it, bool idx64, int64_t bound, bool wrap, void* stream);
// cpu::masked_fill's contract on the device (value: esize host bytes, passed by value).
void masked_fill(const Iter<2>& it, int64_t esize, const void* value, void* stream);
// The number of true elements of a contiguous bool array (cub::DeviceReduce::Sum); waits for it.
int64_t count_true(const bool* flags, int64_t n, ScratchFn& get, void* stream);
// Their row-major positions into out (cub::DeviceSelect::Flagged; out sized to the count).
void true_positions(const bool* flags, int64_t n, int64_t* out, ScratchFn& get, void* stream);

// The coordinates of the true elements of a contiguous bool array of shape sizes[nd] (1 <= nd <=
// kMaxDims, n elements), row-major, into out ([count, nd] int64, sized by count_true first):
// Note [nonzero's coordinates].
void nonzero_coords(const bool* flags, int64_t n, const int64_t* sizes, int32_t nd, int64_t* out, ScratchFn& get,
                    void* stream);

}  // namespace ct::cuda_ops
