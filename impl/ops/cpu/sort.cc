// The CPU kernels of the sorting ops: each row's elements become (order key, position) pairs
// (Note [Sort keys]) ordered by key, then position, a strict total order, so std::sort,
// std::partial_sort and std::nth_element all give the result of a stable sort, the one CUDA's
// radix sort gives. Rows are spread over threads.
#include "impl/ops/cpu/sort.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "impl/ops/cpu/parallel.h"
#include "impl/ops/cpu/sort_keys.h"

namespace ct::cpu {

namespace {

using sortkey::Format;

template <typename U>
struct Item {
  U key;
  int64_t pos;
  bool operator<(const Item& o) const { return key < o.key || (key == o.key && pos < o.pos); }
};

template <typename U>
U key_at(const U* row, int64_t i, const Format& f, bool descending) {
  U k = sortkey::key_of<U>(row[i], f.kind, static_cast<U>(f.exp_mask), static_cast<U>(f.mant_mask));
  return descending ? static_cast<U>(~k) : k;
}

template <typename U>
void fill_items(const U* row, int64_t R, const Format& f, bool descending, std::vector<Item<U>>& items) {
  items.resize(static_cast<size_t>(R));
  for (int64_t i = 0; i < R; ++i) items[i] = {key_at(row, i, f, descending), i};
}

// body(o, items) for the rows [0, O), spread over threads; items is a buffer of the thread's.
template <typename U, typename Body>
void for_rows(int64_t O, int64_t R, const Body& body) {
  parallel_for(0, O, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(R, 1)), [&](int64_t b, int64_t e) {
    std::vector<Item<U>> items;
    for (int64_t o = b; o < e; ++o) body(o, items);
  });
}

// For each row: its (key, position) items ordered by order(begin, end) so that items
// [first, first + count) are the wanted ones in order; their positions to indices[o, count) and
// elements to values[o, count) (when values is given).
template <typename Order>
void pick_rows(const void* in, DType dtype, int64_t O, int64_t R, bool descending, int64_t first, int64_t count,
               void* values, int64_t* indices, const Order& order) {
  const Format f = sortkey::format_of(dtype);
  sortkey::by_width(dtype, [&](auto tag) {
    using U = decltype(tag);
    const U* x = static_cast<const U*>(in);
    U* v = static_cast<U*>(values);
    for_rows<U>(O, R, [&](int64_t o, std::vector<Item<U>>& items) {
      const U* row = x + o * R;
      fill_items(row, R, f, descending, items);
      order(items.begin(), items.end());
      for (int64_t j = 0; j < count; ++j) {
        const int64_t p = items[first + j].pos;
        indices[o * count + j] = p;
        if (v) v[o * count + j] = row[p];
      }
    });
  });
}

}  // namespace

void topk_rows(const void* in, DType dtype, int64_t O, int64_t R, int64_t k, bool largest, void* values,
               int64_t* indices) {
  pick_rows(in, dtype, O, R, largest, 0, k, values, indices, [k, R](auto b, auto e) {
    if (k == R) std::sort(b, e);
    else std::partial_sort(b, b + k, e);
  });
}

void kth_rows(const void* in, DType dtype, int64_t O, int64_t R, int64_t k, void* values, int64_t* indices) {
  pick_rows(in, dtype, O, R, false, k, 1, values, indices, [k](auto b, auto e) { std::nth_element(b, b + k, e); });
}

void sort_rows(const void* in, DType dtype, int64_t O, int64_t R, bool descending, void* values, int64_t* indices) {
  topk_rows(in, dtype, O, R, R, descending, values, indices);
}

int64_t unique_flat(const void* in, DType dtype, int64_t n, void* values, int64_t* inverse, int64_t* counts) {
  const Format f = sortkey::format_of(dtype);
  int64_t u = 0;
  sortkey::by_width(dtype, [&](auto tag) {
    using U = decltype(tag);
    const U* x = static_cast<const U*>(in);
    U* v = static_cast<U*>(values);
    std::vector<Item<U>> items;
    fill_items(x, n, f, false, items);
    std::sort(items.begin(), items.end());
    int64_t start = 0;
    for (int64_t i = 0; i < n; ++i) {
      const bool fresh = i == 0 || items[i].key != items[i - 1].key || sortkey::is_nan_key(items[i].key, f.kind);
      if (fresh) {
        if (i > 0 && counts) counts[u - 1] = i - start;
        start = i;
        v[u++] = x[items[i].pos];
      }
      if (inverse) inverse[items[i].pos] = u - 1;
    }
    if (n > 0 && counts) counts[u - 1] = n - start;
  });
  return u;
}

void searchsorted(const void* seq, const int64_t* sorter, int64_t S, int64_t L, const void* vals, int64_t n,
                  int64_t per_row, DType dtype, bool right, bool out_int32, void* out) {
  const Format f = sortkey::format_of(dtype);
  sortkey::by_width(dtype, [&](auto tag) {
    using U = decltype(tag);
    std::vector<U> keys(static_cast<size_t>(S * L));
    const U* s = static_cast<const U*>(seq);
    const U* x = static_cast<const U*>(vals);
    for (int64_t i = 0; i < S * L; ++i) keys[i] = key_at(s, i, f, false);
    parallel_for(0, n, kGrainSize / 16, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const int64_t r = S == 1 ? 0 : i / per_row;
        const int64_t p = sortkey::search_row<U>(keys.data() + r * L, sorter ? sorter + r * L : nullptr, L,
                                                 key_at(x, i, f, false), right, f.kind);
        if (out_int32) static_cast<int32_t*>(out)[i] = static_cast<int32_t>(p);
        else static_cast<int64_t*>(out)[i] = p;
      }
    });
  });
}

}  // namespace ct::cpu
