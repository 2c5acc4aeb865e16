// The strided N-operand loop under every CPU elementwise kernel.
//
// Note [Elementwise engine]: operands (output first) are described by byte strides over one
// common (broadcast) shape; broadcast dims have stride 0. Dims of size 1 are dropped and
// adjacent dims that are contiguous for every operand are merged, so a contiguous tensor is
// one flat inner loop (the "contiguous fast path"). The flat index range is split over threads
// by parallel_for; each chunk walks the inner dimension in runs and hands each run to the
// kernel's inner function with the inner byte strides, which has its own contiguous branch.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "impl/core/tensor.h"
#include "impl/ops/cpu/parallel.h"

namespace ct::cpu {

template <size_t N>
struct StridedOperands {
  Shape shape;                          // common shape (collapsed)
  std::array<char*, N> base{};          // data pointers
  std::array<std::vector<int64_t>, N> strides;  // byte strides per operand, per dim
};

// Builds the operand description for tensors already broadcast-compatible with `shape`
// (each operand's sizes are right-aligned against shape; missing or size-1 dims broadcast).
template <size_t N>
StridedOperands<N> make_operands(const Shape& shape, const std::array<const TensorImpl*, N>& ts) {
  StridedOperands<N> ops;
  const int64_t nd = static_cast<int64_t>(shape.size());
  for (size_t k = 0; k < N; ++k) {
    const TensorImpl* t = ts[k];
    ops.base[k] = t->data();
    ops.strides[k].assign(nd, 0);
    int64_t off = nd - t->dim();
    for (int64_t d = 0; d < t->dim(); ++d) {
      if (t->sizes[d] != 1) ops.strides[k][d + off] = t->strides[d] * t->itemsize();
    }
  }
  // collapse: drop size-1 dims, merge contiguous neighbours
  Shape sh;
  std::array<std::vector<int64_t>, N> st;
  for (int64_t d = 0; d < nd; ++d) {
    if (shape[d] == 1) continue;
    if (!sh.empty()) {
      bool merge = true;
      for (size_t k = 0; k < N; ++k)
        if (st[k].back() != ops.strides[k][d] * shape[d]) { merge = false; break; }
      if (merge) {
        sh.back() *= shape[d];
        for (size_t k = 0; k < N; ++k) st[k].back() = ops.strides[k][d];
        continue;
      }
    }
    sh.push_back(shape[d]);
    for (size_t k = 0; k < N; ++k) st[k].push_back(ops.strides[k][d]);
  }
  if (sh.empty()) {  // scalar (or all-ones) shape
    sh.push_back(1);
    for (size_t k = 0; k < N; ++k) st[k].push_back(0);
  }
  ops.shape = sh;
  ops.strides = st;
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
    std::vector<int64_t> idx(nd);
    int64_t r = begin;
    for (int64_t d = last; d >= 0; --d) { idx[d] = r % shape[d]; r /= shape[d]; }
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
