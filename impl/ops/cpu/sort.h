// The CPU kernels of the sorting ops (impl/ops/sort.cc), over contiguous rows and order keys
// (Note [Sort keys] in sort_keys.h). Inputs are contiguous [O, R] rows of a sortable dtype;
// outputs are contiguous, values in the input's dtype, indices int64 positions within the row.
#pragma once
#include <cstdint>

#include "impl/core/dtype.h"

namespace ct::cpu {

// Each row sorted, ties in input order: values[O, R] (may be null) and indices[O, R].
void sort_rows(const void* in, DType dtype, int64_t O, int64_t R, bool descending, void* values, int64_t* indices);
// The first k of each row in that order (largest: descending): values[O, k], indices[O, k].
void topk_rows(const void* in, DType dtype, int64_t O, int64_t R, int64_t k, bool largest, void* values,
               int64_t* indices);
// Element k (0-based) of each row in ascending order: values[O], indices[O].
void kth_rows(const void* in, DType dtype, int64_t O, int64_t R, int64_t k, void* values, int64_t* indices);
// torch.unique of n elements (sorted; -0.0 equals 0.0, each NaN its own value): writes the
// unique values to values[0, U) (room for n), inverse[n] (may be null), counts[0, U) (may be
// null); returns U.
int64_t unique_flat(const void* in, DType dtype, int64_t n, void* values, int64_t* inverse, int64_t* counts);
// torch.searchsorted: seq is S contiguous rows of L sorted elements (sorter: [S, L] int64
// positions, may be null), vals n elements of the same dtype; value i is searched in row
// (S == 1 ? 0 : i / per_row). out: int32 or int64 positions.
void searchsorted(const void* seq, const int64_t* sorter, int64_t S, int64_t L, const void* vals, int64_t n,
                  int64_t per_row, DType dtype, bool right, bool out_int32, void* out);

}  // namespace ct::cpu
