// The CUDA kernels of the sorting ops (impl/ops/sort.cc), as seen from host code: the same
// contracts as the CPU kernels (impl/ops/cpu/sort.h) over device memory, launched on `stream`
// (a cudaStream_t) of the current device, with scratch from `get`. Note [CUDA sort]: rows of at
// most 4096 elements (8192 for 1- and 2-byte keys) are sorted one block a row in shared memory
// (cub::BlockRadixSort, 16-bit row positions; sort.cu). Longer rows are sorted by CUB's device radix sort over order keys
// (Note [Sort keys]): one stable pass over all elements by key, then, for several rows, a second
// stable pass by row number over only the bits that number needs. Its payload is the element's
// flat position as uint32 when there are fewer than 2^32 elements (int64 only beyond), widened to
// int64 in the same pass that gathers the values; so DeviceRadixSort::SortPairs is built for the
// four unsigned key widths with uint32 and with int64 values (and the row pass's uint32/uint64
// row numbers), nothing else. topk of rows longer than 1024 (kthvalue: 128) selects instead of
// sorting (Note [CUDA select] in sort.cu): one launch for rows up to 16384 long whose keys fit
// 64 KiB of shared memory, chunked kernels beyond, then a block sort of only the k kept.
#pragma once
#include <cstdint>

#include "impl/core/dtype.h"
#include "impl/ops/cuda/kernels.h"

namespace ct::cuda_ops {

// Each of the O rows of R elements sorted, ties in input order: values[O, R] (may be null),
// indices[O, R] (positions within the row).
void sort_rows(const void* in, DType dtype, int64_t O, int64_t R, bool descending, void* values, int64_t* indices,
               ScratchFn& get, void* stream);
// torch.topk of rows by radix select (Note [CUDA select] in sort.cu): the first k < R of each
// row in the order of a stable sort (largest: descending), values[O, k] and indices[O, k].
// Returns false, writing nothing, for rows it does not take (short rows, where a whole-row sort
// is faster, or counts beyond its 32-bit counters): then the caller sorts whole rows.
bool topk_rows(const void* in, DType dtype, int64_t O, int64_t R, int64_t k, bool largest, void* values,
               int64_t* indices, ScratchFn& get, void* stream);
// torch.kthvalue by the same select: element k (0-based) of each row in ascending stable order,
// values[O] and indices[O]; false as topk_rows.
bool kth_rows(const void* in, DType dtype, int64_t O, int64_t R, int64_t k, void* values, int64_t* indices,
              ScratchFn& get, void* stream);
// torch.unique of n > 0 elements: unique values into values[0, U) (room for n), inverse[n] and
// counts[0, U) (each may be null). Waits for the stream to read U, which it returns.
int64_t unique_flat(const void* in, DType dtype, int64_t n, void* values, int64_t* inverse, int64_t* counts,
                    ScratchFn& get, void* stream);
// torch.searchsorted (cpu::searchsorted's contract).
void searchsorted(const void* seq, const int64_t* sorter, int64_t S, int64_t L, const void* vals, int64_t n,
                  int64_t per_row, DType dtype, bool right, bool out_int32, void* out, ScratchFn& get, void* stream);

}  // namespace ct::cuda_ops
