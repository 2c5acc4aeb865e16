// The CPU kernels of impl/ops/indexing.cc: copies over element sizes (1, 2, 4, 8 or 16 bytes).
// The writing kernels' indices are checked by the caller before they run; index_gather, whose
// output is always a new tensor, checks its own in the copy loop (one pass over the index).
#pragma once
#include <cstdint>

#include "impl/ops/cpu/loops.h"

namespace ct::cpu {

// Operands (out, src, index) over one shape (src's indexed dim restrided to 0): out = the
// element of src at src + index * stride_bytes, a negative index taken from the end when
// wrap (index + bound). The index is int64 (idx64) or int32. Returns false when an index is
// outside [wrap ? -bound : 0, bound) (its element is not read; out is then partly written and
// the caller discards it, finding the first bad index with first_bad_index for its message).
bool index_gather(const StridedOperands<3>& o, int64_t esize, bool idx64, int64_t stride_bytes, int64_t bound,
                  bool wrap);
// Operands (self, src, index) over the index's shape (self's indexed dim restrided to 0): the
// element of self at self + index * stride_bytes = src (a 0-dim src: one value for all), in
// the iteration's order on one thread (the last write of a duplicate index wins).
void index_scatter(const StridedOperands<3>& o, int64_t esize, bool idx64, int64_t stride_bytes, int64_t bound,
                   bool wrap);
// The same adding src to the element (dtype's arithmetic; float16/bfloat16 rounded after each
// add, as PyTorch's CPU kernels; bool: logical or), on one thread in the iteration's order.
void index_scatter_add(const StridedOperands<3>& o, DType dtype, bool idx64, int64_t stride_bytes, int64_t bound,
                       bool wrap);
// index_select of a contiguous src viewed as [outer, size, row_bytes]: out[o, j] = the row
// src[o, index[j]] (row_bytes bytes), in parallel over the outer * n rows of out. The index
// (n int64 or int32 entries, idx_stride_bytes apart) is checked by the caller.
void index_select_rows(char* out, const char* src, const char* index, int64_t idx_stride_bytes, bool idx64,
                       int64_t outer, int64_t n, int64_t size, int64_t row_bytes);
// Operands (self, mask): self = *value (esize bytes) where mask.
void masked_fill(const StridedOperands<2>& o, int64_t esize, const void* value);
// The first index of the operand (int64 or int32; any strides, logical order) outside
// [wrap ? -bound : 0, bound) into *bad; false when there is none.
bool first_bad_index(const TensorImpl* index, int64_t bound, bool wrap, int64_t* bad);
// The number of true elements of a contiguous bool array of n elements.
int64_t count_true(const bool* flags, int64_t n);
// The row-major positions of the true elements of a contiguous bool array of n elements into
// out (sized by the caller to their count). Both split the array into the same blocks over
// the threads (counts per block, then each block writes from its prefix): the result does not
// depend on the thread count.
void true_positions(const bool* flags, int64_t n, int64_t* out);

}  // namespace ct::cpu
