// The strided N-operand loop under every CPU elementwise kernel, and the operand description
// the CUDA kernels are built from.
//
// Note [Elementwise engine]: operands (output first) are described by byte strides over one
// common (broadcast) shape; broadcast dims have stride 0. The dims are first put in the order
// PyTorch's TensorIterator iterates them (iteration_order: by the strides of the operands, output
// first, so the innermost dim is the one that is contiguous in memory), then dims of size 1 are
// dropped and neighbours that are contiguous for every operand merged: a contiguous tensor, or
// any dense layout shared by all operands (a transposed input and its like-strided output), is
// one flat inner loop (the "contiguous fast path"). New outputs get the strides of that order
// (strides_for), as PyTorch allocates them: exp(x.t()) is laid out like x.t(). The flat index
// range is split over threads by parallel_for; each chunk walks the inner dimension in runs and
// hands each run to the kernel's inner function with the inner byte strides, which has its own
// contiguous branch. On CUDA the same description becomes a kernel's Iter (impl/ops/cuda).
#pragma once
#include <array>
#include <cstdint>
#include <initializer_list>

#include "impl/core/error.h"
#include "impl/core/tensor.h"
#include "impl/ops/cpu/parallel.h"

namespace ct::cpu {

template <size_t N>
struct StridedOperands {
  Shape shape;                     // common shape (collapsed)
  std::array<char*, N> base{};     // data pointers
  std::array<Shape, N> strides;    // byte strides per operand, per dim
};

// PyTorch's TensorIterator::reorder_dimensions: the dims of `shape`, fastest first, sorted by
// the byte strides of the operands in order (strides[0..n), each over shape's dims; the first
// operand whose strides differ decides; broadcast dims (stride 0) are skipped; equal strides
// put the smaller dim first).
inline Shape iteration_order(const Shape& shape, const Shape* const* strides, size_t n) {
  const int64_t nd = static_cast<int64_t>(shape.size());
  Shape perm(nd);
  for (int64_t i = 0; i < nd; ++i) perm[i] = nd - 1 - i;
  auto should_swap = [&](int64_t d0, int64_t d1) {
    for (size_t k = 0; k < n; ++k) {
      int64_t s0 = (*strides[k])[d0], s1 = (*strides[k])[d1];
      if (s0 == 0 || s1 == 0) continue;
      if (s0 < s1) return -1;
      if (s0 > s1) return 1;
      if (shape[d0] > shape[d1]) return 1;
    }
    return 0;
  };
  for (int64_t i = 1; i < nd; ++i) {
    int64_t d1 = i;
    for (int64_t d0 = i - 1; d0 >= 0; --d0) {
      int c = should_swap(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  return perm;
}

// Byte strides of t over `shape` (right-aligned; broadcast dims 0), into st.
// The product wraps instead of overflowing: a stride whose byte stride does not fit int64 can
// only stand on a dim of size 1 or in a tensor of no elements (say sizes [0, 2^62, 1], whose
// contiguous strides are [2^62, 1, 1]: every element a tensor reaches lies in its storage), where
// no element is ever reached through it; there the value only orders dims.
inline void broadcast_strides_into(const Shape& shape, const TensorImpl* t, Shape& st) {
  const int64_t nd = static_cast<int64_t>(shape.size());
  st.assign(nd, 0);
  int64_t off = nd - t->dim();
  const uint64_t item = static_cast<uint64_t>(t->itemsize());
  for (int64_t d = 0; d < t->dim(); ++d)
    if (t->sizes[d] == shape[d + off])
      st[d + off] = static_cast<int64_t>(static_cast<uint64_t>(t->strides[d]) * item);
}
inline Shape broadcast_strides(const Shape& shape, const TensorImpl* t) {
  Shape st;
  broadcast_strides_into(shape, t, st);
  return st;
}

// Whether t's strides are exactly contiguous_strides(t->sizes) (is_contiguous() also accepts
// any stride at a size-1 dim).
inline bool has_contiguous_strides(const TensorImpl* t) {
  int64_t expected = 1;
  for (int64_t d = t->dim() - 1; d >= 0; --d) {
    if (t->strides[d] != expected) return false;
    expected *= t->sizes[d] > 0 ? t->sizes[d] : 1;
  }
  return true;
}

// Note [Dense operands shortcut]: when every operand has exactly contiguous strides and the
// shape has no zero size, the general computations below have a known result, computed
// directly (the common case of a small op, whose host time matters: bench/NOTES.md). Each
// operand's broadcast strides are then non-increasing over the dims, and two dims have equal
// nonzero strides only when the later one has size 1 in the shape, so iteration_order keeps
// the dims in order: a new output is contiguous (strides_for), and operands of the very shape
// collapse to one dim of numel elements with a stride of one element, or, when numel is 1, to
// [1] with stride 0 (make_operands).

// Element strides for a new tensor of `shape` laid out in the iteration order of `inputs`
// (PyTorch's allocation of TensorIterator outputs; contiguous when the inputs are). At most
// kMaxInputs inputs (the ops have 1 to 3, the jiterator up to 8).
constexpr size_t kMaxInputs = 8;
inline Shape strides_for(const Shape& shape, const TensorImpl* const* inputs, size_t count) {
  CT_CHECK(count <= kMaxInputs, Status::Internal, "strides_for: ", count, " inputs (at most ", kMaxInputs, ")");
  bool dense = true;  // Note [Dense operands shortcut]
  for (int64_t s : shape) dense = dense && s > 0;
  for (size_t i = 0; i < count; ++i) dense = dense && has_contiguous_strides(inputs[i]);
  if (dense) return contiguous_strides(shape);
  std::array<Shape, kMaxInputs> st;
  std::array<const Shape*, kMaxInputs> ptrs;
  size_t n = 0;
  for (size_t i = 0; i < count; ++i) {
    if (inputs[i]->dim() == 0) continue;
    broadcast_strides_into(shape, inputs[i], st[n]);
    ptrs[n] = &st[n];
    ++n;
  }
  if (n == 0) return contiguous_strides(shape);
  Shape perm = iteration_order(shape, ptrs.data(), n);
  Shape out(shape.size());
  int64_t next = 1;
  for (size_t k = 0; k < perm.size(); ++k) {
    int64_t d = perm[k];
    out[d] = next;
    // an empty shape may have huge sizes: as contiguous_strides, the strides must fit
    CT_CHECK(k + 1 == perm.size() || !__builtin_mul_overflow(next, shape[d] > 0 ? shape[d] : 1, &next),
             Status::Shape, "stride calculation overflowed for shape ", shape_str(shape));
  }
  return out;
}
inline Shape strides_for(const Shape& shape, std::initializer_list<const TensorImpl*> inputs) {
  return strides_for(shape, inputs.begin(), inputs.size());
}

// Builds the operand description for tensors already broadcast-compatible with `shape`
// (each operand's sizes are right-aligned against shape; missing or size-1 dims broadcast):
// dims reordered (iteration_order), size-1 dims dropped, contiguous neighbours merged.
template <size_t N>
StridedOperands<N> make_operands(const Shape& shape, const std::array<const TensorImpl*, N>& ts) {
  StridedOperands<N> ops;
  const int64_t nd = static_cast<int64_t>(shape.size());
  int64_t numel = 1;
  for (int64_t s : shape) numel *= s;
  bool dense = numel > 0;  // Note [Dense operands shortcut]
  for (size_t k = 0; k < N && dense; ++k) dense = ts[k]->sizes == shape && has_contiguous_strides(ts[k]);
  if (dense) {
    ops.shape.push_back(numel);
    for (size_t k = 0; k < N; ++k) {
      ops.base[k] = ts[k]->data();
      ops.strides[k].push_back(numel == 1 ? 0 : ts[k]->itemsize());
    }
    return ops;
  }
  std::array<Shape, N> full;
  std::array<const Shape*, N> ptrs;
  for (size_t k = 0; k < N; ++k) {
    ops.base[k] = ts[k]->data();
    broadcast_strides_into(shape, ts[k], full[k]);
    ptrs[k] = &full[k];
  }
  Shape perm = iteration_order(shape, ptrs.data(), N);  // fastest first
  // collapse, outermost first: drop size-1 dims, merge contiguous neighbours
  Shape& sh = ops.shape;
  std::array<Shape, N>& st = ops.strides;
  for (int64_t i = nd - 1; i >= 0; --i) {
    int64_t d = perm[i];
    if (shape[d] == 1) continue;
    if (!sh.empty()) {
      bool merge = true;
      for (size_t k = 0; k < N; ++k)
        if (st[k].back() != full[k][d] * shape[d]) { merge = false; break; }
      if (merge) {
        sh.back() *= shape[d];
        for (size_t k = 0; k < N; ++k) st[k].back() = full[k][d];
        continue;
      }
    }
    sh.push_back(shape[d]);
    for (size_t k = 0; k < N; ++k) st[k].push_back(full[k][d]);
  }
  if (sh.empty()) {  // scalar (or all-ones) shape
    sh.push_back(1);
    for (size_t k = 0; k < N; ++k) st[k].push_back(0);
  }
  return ops;
}

// inner(std::array<char*, N> ptrs, const std::array<int64_t, N>& inner_strides, int64_t n)
template <size_t N, typename F>
void for_each(const StridedOperands<N>& ops, int64_t grain, const F& inner) {
  const Shape& shape = ops.shape;
  int64_t numel = 1;
  for (int64_t s : shape) numel *= s;
  if (numel == 0) return;
  const int64_t nd = static_cast<int64_t>(shape.size());
  const int64_t last = nd - 1;
  std::array<int64_t, N> inner_st;
  for (size_t k = 0; k < N; ++k) inner_st[k] = ops.strides[k][last];
  parallel_for(0, numel, grain, [&](int64_t begin, int64_t end) {
    Shape idx(nd);
    int64_t r = begin;
    for (int64_t d = last; d >= 0 && r > 0; --d) { idx[d] = r % shape[d]; r /= shape[d]; }
    std::array<char*, N> p;
    for (size_t k = 0; k < N; ++k) {
      p[k] = ops.base[k];
      for (int64_t d = 0; d < nd; ++d) p[k] += idx[d] * ops.strides[k][d];
    }
    int64_t i = begin;
    while (i < end) {
      int64_t n = std::min(shape[last] - idx[last], end - i);
      inner(p, inner_st, n);
      i += n;
      if (i >= end) break;
      idx[last] += n;
      for (size_t k = 0; k < N; ++k) p[k] += n * ops.strides[k][last];
      for (int64_t d = last; d > 0 && idx[d] == shape[d]; --d) {
        idx[d] = 0;
        ++idx[d - 1];
        for (size_t k = 0; k < N; ++k) p[k] += ops.strides[k][d - 1] - shape[d] * ops.strides[k][d];
      }
    }
  });
}

}  // namespace ct::cpu
